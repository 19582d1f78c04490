with readings as (
    select * from {{ ref('consumer_events') }}
)

select sensor_id, window_start, window_end, sum(car_count) as vehicles
from {{ spark_windows.hop('readings', 'reading_ts', '30 seconds', '1 minute') }}
group by sensor_id, window_start, window_end
