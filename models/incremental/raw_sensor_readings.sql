-- The sensor readings that have arrived by `arrived_until` (all of them by default): a stand-in
-- for a raw table that keeps growing. Replaying the arrivals run by run:
--   dbt run --select raw_sensor_readings+ --vars '{arrived_until: "2024-05-01 08:20:00"}'
-- or with the environment variable SPARK_WINDOWS_ARRIVED_UNTIL, which a scheduler can set
-- without changing dbt's vars (a change of vars makes dbt parse the whole project again):
--   SPARK_WINDOWS_ARRIVED_UNTIL='2024-05-01 08:20:00' dbt run --select raw_sensor_readings+
{{ config(materialized='view') }}

select
    sensor_id,
    reading_ts,
    car_count,
    ingested_at
from {{ ref('sensor_readings_arrivals') }}
{%- set arrived_until = var(
    "arrived_until", env_var("SPARK_WINDOWS_ARRIVED_UNTIL", "9999-12-31 23:59:59")
) %}
where ingested_at <= timestamp '{{ arrived_until }}'
