-- Vehicles per sensor over each 100 readings: a tumbling count window (Flink's countWindow(100)).
-- Each sensor has 250 readings, so readings 201-250 do not make a full hundred and are not reported.
select
    sensor_id,
    window_index,
    window_first_row,
    window_last_row,
    min(reading_ts) as first_reading_ts,
    max(reading_ts) as last_reading_ts,
    count(*) as readings,
    sum(car_count) as vehicles
from {{ spark_windows.count_window(ref('sensor_readings_counted'), ['reading_ts'], 100, partition_by=['sensor_id']) }}
group by sensor_id, window_index, window_first_row, window_last_row
