-- The sessions of user_sessions_incremental appended once final: a session is written by the
-- run whose watermark passes its end plus the 20 minutes of allowed lateness, with its final
-- clicks and revenue, and never rewritten; each row carries the batch_id of that run. The clicks
-- of open sessions are kept in the table's folder until their session closes; clicks that come
-- later (or that touch a closed session) go to __late. Its tables are Parquet tables on every
-- target: a final run appends by adding the folder it wrote as a partition.
{{ config(
    materialized='windowed_incremental',
    time_col='click_ts',
    ingestion_time_col='ingested_at',
    window={'type': 'session', 'gap': '10 minutes'},
    group_by=['user_id'],
    aggregates={'clicks': 'count(*)', 'revenue': 'sum(amount)'},
    watermark_delay='5 minutes',
    allowed_lateness='20 minutes',
    emit_policy='final',
    file_format='parquet',
    partition_size='1 hour'
) }}

select
    user_id,
    click_ts,
    amount,
    ingested_at
from {{ ref('raw_clicks') }}
