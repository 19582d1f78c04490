-- Windows of windows, as Flink's "cascading window aggregation": the per-minute results are
-- grouped again into 5-minute windows by their window_time. The input holds window_start,
-- window_end and window_time already; tumble replaces them with the 5-minute windows (it reads
-- the columns of ref() at compile time), so no renaming is needed.
select
    sensor_id,
    window_start,
    window_end,
    sum(vehicles) as vehicles,
    sum(readings) as readings,
    count(*) as active_minutes
from {{ spark_windows.tumble(ref('sensor_vehicles_per_minute'), 'window_time', '5 minutes') }}
group by sensor_id, window_start, window_end
