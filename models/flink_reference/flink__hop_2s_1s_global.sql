-- HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND), no key
select window_start, window_end, count(*) as cnt, count(v) as cnt_v, sum(v) as total, min(v) as mn, max(v) as mx
from {{ spark_windows.hop(ref('events'), 'ts', '1 second', '2 seconds') }}
group by window_start, window_end
