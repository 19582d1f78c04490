-- SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '10' MINUTE)
select k, window_start, window_end, count(*) as cnt, count(v) as cnt_v, sum(v) as total, min(v) as mn, max(v) as mx
from {{ spark_windows.session(ref('events'), 'ts', '10 minutes', partition_by=['k']) }}
group by k, window_start, window_end
