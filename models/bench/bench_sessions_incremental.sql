-- The session model `scripts/bench.py --incremental --session` times: a full refresh against a
-- run that adds 1% new rows. Enabled only by the benchmark (var spark_windows_bench), which
-- creates its input.
{{ config(
    materialized='windowed_incremental',
    enabled=var('spark_windows_bench', false),
    time_col='ts',
    ingestion_time_col='ingested_at',
    window={'type': 'session', 'gap': '2 minutes'},
    group_by=['k'],
    aggregates={'readings': 'count(*)', 'vehicles': 'sum(v)'},
    watermark_delay='5 minutes',
    allowed_lateness='10 minutes',
    partition_size='1 hour'
) }}

select
    k,
    ts,
    v,
    ingested_at
from {{ var('spark_windows_bench_source', 'bench_events') }}
