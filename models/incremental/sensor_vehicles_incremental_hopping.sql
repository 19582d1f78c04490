-- Vehicles per sensor over the last 5 minutes, every minute, updated by each scheduled run.
-- A reading can be late for its older windows and still count in its newer ones.
-- Its state table is compacted every 4 runs (the default is every 50).
{{ config(
    materialized='windowed_incremental',
    time_col='reading_ts',
    ingestion_time_col='ingested_at',
    window={'type': 'hop', 'slide': '1 minute', 'size': '5 minutes'},
    group_by=['sensor_id'],
    aggregates={'vehicles': 'sum(car_count)', 'readings': 'count(*)', 'busiest': 'max(car_count)'},
    watermark_delay='5 minutes',
    allowed_lateness='2 minutes',
    partition_size='15 minutes',
    compact_state_every=4
) }}

select
    sensor_id,
    reading_ts,
    car_count,
    ingested_at
from {{ ref('raw_sensor_readings') }}
