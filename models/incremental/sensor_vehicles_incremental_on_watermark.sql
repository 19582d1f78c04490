-- Vehicles per sensor over the last 5 minutes, every minute, as Flink's default trigger emits
-- them: a window is written once the watermark passes its end (timing 'on_time'), then again
-- by each run whose late readings change it (timing 'late', revision 2, 3, ...). Windows the
-- watermark has not passed are kept in sensor_vehicles_incremental_on_watermark__windows.
{{ config(
    materialized='windowed_incremental',
    time_col='reading_ts',
    ingestion_time_col='ingested_at',
    window={'type': 'hop', 'slide': '1 minute', 'size': '5 minutes'},
    group_by=['sensor_id'],
    aggregates={'vehicles': 'sum(car_count)', 'readings': 'count(*)'},
    watermark_delay='5 minutes',
    allowed_lateness='2 minutes',
    emit='changelog',
    emit_policy='on_watermark',
    partition_size='15 minutes'
) }}

select
    sensor_id,
    reading_ts,
    car_count,
    ingested_at
from {{ ref('raw_sensor_readings') }}
