-- Units per item in 10-minute tumbling windows, then the 2 best-selling items of each
-- category in each of those windows (Flink's window Top-N).
with

item_units as (
    select
        window_start,
        window_end,
        category,
        item_id,
        sum(units) as units
    from {{ spark_windows.tumble(ref('item_sales'), 'sold_at', '10 minutes') }}
    group by window_start, window_end, category, item_id
),

top_2_per_category as (
    select *
    from {{ spark_windows.window_top_n('item_units', ['category'], ['units desc', 'item_id'], 2) }}
)

select * from top_2_per_category
