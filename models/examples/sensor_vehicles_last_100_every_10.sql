-- Vehicles per sensor over the last 100 readings, every 10 readings: a sliding count window
-- (Flink's Java/Scala countWindow(100, 10)). Until a sensor has 100 readings, a window holds all
-- its readings so far; readings after the last multiple of 10 are in no window.
select
    sensor_id,
    window_index,
    window_first_row,
    window_last_row,
    min(reading_ts) as first_reading_ts,
    max(reading_ts) as last_reading_ts,
    count(*) as readings,
    sum(car_count) as vehicles
from {{ spark_windows.count_window(
    ref('sensor_readings_counted'), ['reading_ts'], 100, slide=10, partition_by=['sensor_id']
) }}
group by sensor_id, window_index, window_first_row, window_last_row
