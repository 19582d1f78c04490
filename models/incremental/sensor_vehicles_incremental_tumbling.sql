-- Vehicles per sensor and minute, updated by each scheduled run from the readings that arrived
-- since the previous one. Readings up to 5 minutes out of order move the watermark; a window
-- takes late readings for 10 more minutes; readings later than that go to
-- sensor_vehicles_incremental_tumbling__late. The changelog keeps every revision of a window.
{{ config(
    materialized='windowed_incremental',
    time_col='reading_ts',
    ingestion_time_col='ingested_at',
    window={'type': 'tumble', 'size': '1 minute'},
    group_by=['sensor_id'],
    aggregates={'vehicles': 'sum(car_count)', 'readings': 'count(*)'},
    watermark_delay='5 minutes',
    allowed_lateness='10 minutes',
    emit='changelog',
    partition_size='10 minutes'
) }}

select
    sensor_id,
    reading_ts,
    car_count,
    ingested_at
from {{ ref('raw_sensor_readings') }}
