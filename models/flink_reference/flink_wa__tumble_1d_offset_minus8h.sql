-- TUMBLE 1 day, offset -8 hours, through window_aggregate
select k, window_start, window_end, cnt, cnt_v, total, mn, mx
from {{ spark_windows.window_aggregate(
    ref('events'), 'ts', {'type': 'tumble', 'size': '1 day', 'offset': '-8 hours'}, ['k'],
    {'cnt': 'count(*)', 'cnt_v': 'count(v)', 'total': 'sum(v)', 'mn': 'min(v)', 'mx': 'max(v)'}
) }}
