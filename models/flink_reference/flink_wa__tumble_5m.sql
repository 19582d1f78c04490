-- TUMBLE 5 minutes, through window_aggregate
select k, window_start, window_end, cnt, cnt_v, total, mn, mx
from {{ spark_windows.window_aggregate(
    ref('events'), 'ts', {'type': 'tumble', 'size': '5 minutes'}, ['k'],
    {'cnt': 'count(*)', 'cnt_v': 'count(v)', 'total': 'sum(v)', 'mn': 'min(v)', 'mx': 'max(v)'}
) }}
