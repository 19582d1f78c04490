-- HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE)
select k, window_start, window_end, count(*) as cnt, count(v) as cnt_v, sum(v) as total, min(v) as mn, max(v) as mx
from {{ spark_windows.hop(ref('events'), 'ts', '5 minutes', '10 minutes') }}
group by k, window_start, window_end
