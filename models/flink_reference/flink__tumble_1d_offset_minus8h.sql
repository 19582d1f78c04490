-- TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' DAY, INTERVAL '-8' HOUR)
select k, window_start, window_end, count(*) as cnt, count(v) as cnt_v, sum(v) as total, min(v) as mn, max(v) as mx
from {{ spark_windows.tumble(ref('events'), 'ts', "interval '1' day", offset="interval '-8' hour") }}
group by k, window_start, window_end
