-- Sales per venue and for all venues together in 1-hour tumbling windows, in one query:
-- grouping sets ((venue), ()) within each window.
with

hourly as (
    select
        window_start,
        window_end,
        venue,
        grouping(venue) = 1 as is_total,
        count(*) as sales,
        sum(tickets) as tickets
    from {{ spark_windows.tumble(ref('ticket_sales'), 'sold_at', '1 hour') }}
    group by window_start, window_end, grouping sets ((venue), ())
)

select * from hourly
