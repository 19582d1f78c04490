-- The clicks that have arrived by `clicks_arrived_until` (all of them by default): a stand-in
-- for a raw table that keeps growing. Replaying the arrivals run by run:
--   dbt run --select raw_clicks+ --vars '{clicks_arrived_until: "2024-05-01 08:20:00"}'
-- or with the environment variable SPARK_WINDOWS_CLICKS_ARRIVED_UNTIL, which a scheduler can set
-- without changing dbt's vars (a change of vars makes dbt parse the whole project again):
--   SPARK_WINDOWS_CLICKS_ARRIVED_UNTIL='2024-05-01 08:20:00' dbt run --select raw_clicks+
{{ config(materialized='view') }}

select
    user_id,
    click_ts,
    amount,
    ingested_at
from {{ ref('click_arrivals') }}
{%- set arrived_until = var(
    "clicks_arrived_until", env_var("SPARK_WINDOWS_CLICKS_ARRIVED_UNTIL", "9999-12-31 23:59:59")
) %}
where ingested_at <= timestamp '{{ arrived_until }}'
