-- The model `scripts/bench.py --incremental` times: a full refresh against a run that adds 1%
-- new rows. Enabled only by the benchmark (var spark_windows_bench), which creates its input;
-- with --by-file it tells new rows by their input file (input_file_col); with --iceberg it keeps
-- Parquet, then Iceberg tables (file_format).
{{ config(
    materialized='windowed_incremental',
    enabled=var('spark_windows_bench', false),
    file_format=var('spark_windows_bench_file_format', 'parquet'),
    time_col='ts',
    ingestion_time_col='ingested_at',
    input_file_col=('source_file' if var('spark_windows_bench_by_file', false) else none),
    window={'type': 'tumble', 'size': '1 minute'},
    group_by=['k'],
    aggregates={'readings': 'count(*)', 'vehicles': 'sum(v)'},
    watermark_delay='5 minutes',
    allowed_lateness='10 minutes',
    partition_size='1 hour',
    emit_policy=var('spark_windows_bench_emit_policy', 'every_run'),
    compact_state_every=var('spark_windows_bench_compact_every', 50)
) }}

select
    events.k,
    events.ts,
    events.v,
    events.ingested_at,
    -- the file each row was read from: the models' input_file_col with --by-file
    events._metadata.file_path as source_file
from {{ var('spark_windows_bench_source', 'bench_events') }} as events
