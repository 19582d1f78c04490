select sensor_id, window_start, window_end, sum(car_count) as vehicles
from {{ spark_windows.tumble(ref('consumer_events'), 'reading_ts', '1 minute') }}
group by sensor_id, window_start, window_end
