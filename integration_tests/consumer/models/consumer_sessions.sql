select sensor_id, window_start, window_end, count(*) as readings, sum(car_count) as vehicles
from {{ spark_windows.session(ref('consumer_events'), 'reading_ts', '1 minute', ['sensor_id']) }}
group by sensor_id, window_start, window_end
