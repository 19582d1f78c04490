-- HOP slide 5 minutes, size 10 minutes, through window_aggregate, agg_phase_strategy='two_phase'
select k, window_start, window_end, cnt, cnt_v, total, mn, mx
from {{ spark_windows.window_aggregate(
    ref('events'), 'ts', {'type': 'hop', 'slide': '5 minutes', 'size': '10 minutes'}, ['k'],
    {'cnt': 'count(*)', 'cnt_v': 'count(v)', 'total': 'sum(v)', 'mn': 'min(v)', 'mx': 'max(v)'},
    agg_phase_strategy='two_phase'
) }}
