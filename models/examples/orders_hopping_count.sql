-- Orders and customers counted over 2-second windows that advance every second (Flink's HOP).
select
    window_start,
    window_end,
    count(*) as orders,
    count(customer_id) as customers,
    count(distinct customer_id) as distinct_customers
from {{ spark_windows.hop(ref('orders'), 'order_ts', '1 second', '2 seconds') }}
group by window_start, window_end
