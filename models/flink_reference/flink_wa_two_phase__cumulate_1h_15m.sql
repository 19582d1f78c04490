-- CUMULATE step 15 minutes, size 1 hour, through window_aggregate, agg_phase_strategy='two_phase'
select k, window_start, window_end, cnt, cnt_v, total, mn, mx
from {{ spark_windows.window_aggregate(
    ref('events'), 'ts', {'type': 'cumulate', 'step': '15 minutes', 'size': '1 hour'}, ['k'],
    {'cnt': 'count(*)', 'cnt_v': 'count(v)', 'total': 'sum(v)', 'mn': 'min(v)', 'mx': 'max(v)'},
    agg_phase_strategy='two_phase'
) }}
