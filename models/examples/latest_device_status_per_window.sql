-- The last status report of each device in each 5-minute tumbling window (Flink's window
-- deduplication, keeping the last row).
with

last_reports as (
    select *
    from {{ spark_windows.window_deduplicate(
        spark_windows.tumble(ref('device_status'), 'reported_at', '5 minutes'),
        ['device_id'], ['reported_at'], keep='last') }}
),

final as (
    select
        device_id,
        window_start,
        window_end,
        reported_at,
        status,
        battery_pct
    from last_reports
)

select * from final
