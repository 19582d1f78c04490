-- Vehicles per sensor in 15-minute windows sliding every 5 minutes, built by dbt's microbatch:
-- one batch per day. Each batch writes the windows that start in its day, with every reading
-- they hold, also the readings after midnight (spark_windows reads past the batch's end); the
-- windows match the same call in a table model (tests/sensor_vehicles_microbatch_equals_table.sql).
{#- the first day dbt builds on the first run: the day before yesterday, where the moved readings begin -#}
{%- set begin = (run_started_at - modules.datetime.timedelta(days=2)).strftime('%Y-%m-%d') %}
{{ config(
    materialized='incremental',
    incremental_strategy='microbatch',
    event_time='window_start',
    batch_size='day',
    begin=begin,
    lookback=1,
    partition_by=['window_day'],
) }}

select
    *,
    to_date(window_start) as window_day
from {{ spark_windows.window_aggregate(
    ref('recent_sensor_readings'), 'reading_ts',
    {'type': 'hop', 'slide': '5 minutes', 'size': '15 minutes'},
    ['sensor_id'], {'vehicles': 'sum(car_count)', 'readings': 'count(*)'}) }}
