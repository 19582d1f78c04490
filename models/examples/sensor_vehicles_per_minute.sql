-- Vehicles per sensor and minute, keeping window_time (the last instant of each minute) so
-- that windows can be built on top of this result: see sensor_vehicles_per_5_minutes.
select
    sensor_id,
    window_start,
    window_end,
    window_time,
    sum(car_count) as vehicles,
    count(*) as readings
from {{ spark_windows.tumble(ref('sensor_readings'), 'reading_ts', '1 minute') }}
group by sensor_id, window_start, window_end, window_time
