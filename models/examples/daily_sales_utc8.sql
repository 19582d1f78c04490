-- Daily sales per store for a time zone at UTC+8: days run from 16:00 to 16:00 UTC.
with

daily as (
    select
        store_id,
        window_start,
        window_end,
        count(*) as sales,
        sum(amount_cents) as amount_cents
    from {{ spark_windows.tumble(ref('store_sales'), 'sold_at', '1 day', offset='-8 hours') }}
    group by store_id, window_start, window_end
),

labelled as (
    select
        store_id,
        cast(window_start + interval 8 hours as date) as sales_date,
        window_start,
        window_end,
        sales,
        amount_cents
    from daily
)

select * from labelled
