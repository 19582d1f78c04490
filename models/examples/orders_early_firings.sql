-- Orders and amount per 5-second tumbling window, emitted every second of event time while the
-- window is open and once more at its end (Flink's ContinuousEventTimeTrigger).
select
    window_start,
    window_end,
    firing,
    fired_at,
    is_final,
    orders,
    amount
from {{ spark_windows.window_firings(
    ref('orders'), 'order_ts', {'type': 'tumble', 'size': '5 seconds'}, [],
    {'orders': 'count(*)', 'amount': 'sum(amount)'},
    trigger={'every': '1 second'}) }}
