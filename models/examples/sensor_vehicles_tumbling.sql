-- Vehicles per sensor in 1-minute tumbling windows.
select
    sensor_id,
    window_start,
    window_end,
    sum(car_count) as vehicles,
    count(*) as readings
from {{ spark_windows.tumble(ref('sensor_readings'), 'reading_ts', '1 minute') }}
group by sensor_id, window_start, window_end
