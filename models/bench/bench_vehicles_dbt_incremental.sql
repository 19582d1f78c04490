-- The peer `scripts/bench.py --incremental` times beside bench_vehicles_incremental, on the same
-- rows: dbt-spark's own incremental materialization (insert_overwrite) of the same counts per key
-- and minute, as an analyst would write it with GROUP BY. Each run recomputes every hour that
-- its new rows touch, from all the rows of those hours. Enabled only by the benchmark.
{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    file_format='parquet',
    partition_by=['window_partition'],
    enabled=var('spark_windows_bench', false)
) }}

with

source as (

    select
        k,
        ts,
        v,
        ingested_at
    from {{ var('spark_windows_bench_source', 'bench_events') }}

),

{% if is_incremental() %}
    touched_hours as (

        select distinct date_trunc('hour', ts) as window_partition
        from source
        where ingested_at > (select max(max_ingested_at) from {{ this }})

    ),
{% endif %}

counts as (

    select
        k,
        date_trunc('minute', ts) as window_start,
        count(*) as readings,
        sum(v) as vehicles,
        max(ingested_at) as max_ingested_at
    from source
    {% if is_incremental() %}
        where date_trunc('hour', ts) in (select window_partition from touched_hours)
    {% endif %}
    group by k, date_trunc('minute', ts)

)

select
    k,
    window_start,
    window_start + interval 1 minute as window_end,
    readings,
    vehicles,
    max_ingested_at,
    date_trunc('hour', window_start) as window_partition
from counts
