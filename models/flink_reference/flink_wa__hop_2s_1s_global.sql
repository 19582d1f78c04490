-- HOP slide 1 second, size 2 seconds, no key, through window_aggregate
select window_start, window_end, cnt, cnt_v, total, mn, mx
from {{ spark_windows.window_aggregate(
    ref('events'), 'ts', {'type': 'hop', 'slide': '1 second', 'size': '2 seconds'}, [],
    {'cnt': 'count(*)', 'cnt_v': 'count(v)', 'total': 'sum(v)', 'mn': 'min(v)', 'mx': 'max(v)'}
) }}
