-- Sessions of each user's clicks (a new session after 10 minutes without a click), updated by
-- each scheduled run from the clicks that arrived since the previous one. A late click can
-- extend a session at either end or merge sessions into one. Clicks up to 5 minutes out of order
-- move the watermark; a session takes late clicks for 20 more minutes. A click whose own
-- 10-minute window, or a session it would join, expired goes to user_sessions_incremental__late.
-- The changelog keeps every revision of a session: -D for one merged into another or whose start
-- moved earlier.
{{ config(
    materialized='windowed_incremental',
    time_col='click_ts',
    ingestion_time_col='ingested_at',
    window={'type': 'session', 'gap': '10 minutes'},
    group_by=['user_id'],
    aggregates={'clicks': 'count(*)', 'revenue': 'sum(amount)'},
    watermark_delay='5 minutes',
    allowed_lateness='20 minutes',
    emit='changelog',
    partition_size='1 hour'
) }}

select
    user_id,
    click_ts,
    amount,
    ingested_at
from {{ ref('raw_clicks') }}
