-- The sessions of user_sessions_incremental as Flink's default trigger emits them: a session is
-- written once the watermark passes its end, then again by each run whose late clicks change
-- it. A late click that extends a written session past the watermark takes it back (-D in the
-- changelog) until the watermark passes its new end. Its average amount cannot be merged from a
-- session's stored values, so a run reads again the clicks of the sessions it changes.
{{ config(
    materialized='windowed_incremental',
    time_col='click_ts',
    ingestion_time_col='ingested_at',
    window={'type': 'session', 'gap': '10 minutes'},
    group_by=['user_id'],
    aggregates={'clicks': 'count(*)', 'revenue': 'sum(amount)', 'average_amount': 'avg(amount)'},
    watermark_delay='5 minutes',
    allowed_lateness='20 minutes',
    emit='changelog',
    emit_policy='on_watermark',
    partition_size='1 hour'
) }}

select
    user_id,
    click_ts,
    amount,
    ingested_at
from {{ ref('raw_clicks') }}
