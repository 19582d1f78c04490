-- Vehicles per sensor over the last 5 minutes, every minute, appended once final: a window is
-- written by the run whose watermark passes its end plus the 2 minutes of allowed lateness, with
-- its final values, and never rewritten (Flink's default trigger with its late rows kept aside,
-- Structured Streaming's append mode). Each row carries the batch_id of the run that appended
-- it; a downstream incremental model reads the new batches only
-- (sensor_vehicles_busy_windows). Each run reads the readings of the windows still open again
-- from the input; readings later than allowed_lateness go to __late. Its tables are
-- Parquet tables on every target: a final run appends by adding the folder it wrote as a
-- partition.
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
    file_format='parquet',
    partition_size='15 minutes'
) }}

select
    sensor_id,
    reading_ts,
    car_count,
    ingested_at
from {{ ref('raw_sensor_readings') }}
