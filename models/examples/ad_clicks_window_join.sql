-- Flink's window join: impressions and clicks of an ad meet only within the same 5-minute
-- tumbling window; the full outer join also keeps the rows of either side that met none.
with

impressions as (
    select * from {{ spark_windows.tumble(ref('ad_impressions'), 'shown_at', '5 minutes') }}
),

clicks as (
    select * from {{ spark_windows.tumble(ref('ad_clicks'), 'clicked_at', '5 minutes') }}
),

joined as (
    select
        coalesce(impressions.window_start, clicks.window_start) as window_start,
        coalesce(impressions.window_end, clicks.window_end) as window_end,
        coalesce(impressions.ad_id, clicks.ad_id) as ad_id,
        impressions.impression_id,
        impressions.shown_at,
        clicks.click_id,
        clicks.clicked_at
    from impressions
    full outer join clicks
        on impressions.ad_id = clicks.ad_id
        and impressions.window_start = clicks.window_start
        and impressions.window_end = clicks.window_end
)

select * from joined
