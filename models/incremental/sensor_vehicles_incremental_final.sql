-- Vehicles per sensor over the last 5 minutes, every minute, appended once final: a window is
-- written by the run whose watermark passes its end plus the 2 minutes of allowed lateness, with
-- its final values, and never rewritten (Flink's default trigger with its late rows kept aside,
-- Structured Streaming's append mode). Each row carries the batch_id of the run that appended
-- it; a downstream incremental model reads the new batches only
-- (sensor_vehicles_busy_windows). The readings of open windows are kept in the table's folder
-- until their last window closes; readings later than that go to __late.
{{ config(
    materialized='windowed_incremental',
    time_col='reading_ts',
    ingestion_time_col='ingested_at',
    window={'type': 'hop', 'slide': '1 minute', 'size': '5 minutes'},
    group_by=['sensor_id'],
    aggregates={'vehicles': 'sum(car_count)', 'readings': 'count(*)'},
    watermark_delay='5 minutes',
    allowed_lateness='2 minutes',
    emit_policy='final',
    partition_size='15 minutes'
) }}

select
    sensor_id,
    reading_ts,
    car_count,
    ingested_at
from {{ ref('raw_sensor_readings') }}
