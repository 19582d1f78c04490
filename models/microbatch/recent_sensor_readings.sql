-- The readings of sensor_readings_arrivals moved to the last half hour of yesterday and the first
-- quarter of today (UTC), so that the microbatch example has recent batches to build and windows
-- that cross midnight: 08:20 on 2024-05-01 becomes 23:50 yesterday. "Today" is the day the dbt
-- command started (run_started_at, as the microbatch model's begin), not Spark's current_date():
-- a build that crosses midnight would otherwise read the readings a day later in its tests than
-- in its batches.
{%- set today = run_started_at.strftime('%Y-%m-%d') %}
{{ config(materialized='view', event_time='reading_ts') }}

select
    sensor_id,
    car_count,
    reading_ts
    + (timestamp '{{ today }} 00:00:00' - interval 10 minutes - timestamp '2024-05-01 08:20:00')
    as reading_ts
from {{ ref('sensor_readings_arrivals') }}
