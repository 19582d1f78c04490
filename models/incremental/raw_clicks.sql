-- The clicks that have arrived by `clicks_arrived_until` (all of them by default): a stand-in
-- for a raw table that keeps growing. Replaying the arrivals run by run:
--   dbt run --select raw_clicks+ --vars '{clicks_arrived_until: "2024-05-01 08:20:00"}'
{{ config(materialized='view') }}

select
    user_id,
    click_ts,
    amount,
    ingested_at
from {{ ref('click_arrivals') }}
where ingested_at <= timestamp '{{ var("clicks_arrived_until", "9999-12-31 23:59:59") }}'
