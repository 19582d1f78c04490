-- CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '15' MINUTE, INTERVAL '1' HOUR)
select k, window_start, window_end, count(*) as cnt, count(v) as cnt_v, sum(v) as total, min(v) as mn, max(v) as mx
from {{ spark_windows.cumulate(ref('events'), 'ts', '15 minutes', '1 hour') }}
group by k, window_start, window_end
