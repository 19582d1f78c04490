-- The sensor readings that have arrived by `arrived_until` (all of them by default): a stand-in
-- for a raw table that keeps growing. Replaying the arrivals run by run:
--   dbt run --select raw_sensor_readings+ --vars '{arrived_until: "2024-05-01 08:20:00"}'
{{ config(materialized='view') }}

select
    sensor_id,
    reading_ts,
    car_count,
    ingested_at
from {{ ref('sensor_readings_arrivals') }}
where ingested_at <= timestamp '{{ var("arrived_until", "9999-12-31 23:59:59") }}'
