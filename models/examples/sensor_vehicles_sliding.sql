-- Vehicles per sensor in 1-minute windows that slide every 30 seconds.
select
    sensor_id,
    window_start,
    window_end,
    sum(car_count) as vehicles,
    count(*) as readings
from {{ spark_windows.hop(ref('sensor_readings'), 'reading_ts', '30 seconds', '1 minute') }}
group by sensor_id, window_start, window_end
