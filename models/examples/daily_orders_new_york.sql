-- Orders per local day in New York. Days follow the wall clock, so 2024-03-10 (clocks forward
-- at 02:00) lasts 23 hours and 2024-11-03 (clocks back at 02:00) lasts 25 hours.
with

daily as (
    select
        window_date,
        window_start,
        window_end,
        count(*) as orders,
        sum(amount_cents) as amount_cents
    from {{ spark_windows.calendar_window(ref('orders_new_york'), 'ordered_at', 'day', 'America/New_York') }}
    group by window_date, window_start, window_end
),

labelled as (
    select
        window_date as order_date,
        window_start,
        window_end,
        (unix_seconds(window_end) - unix_seconds(window_start)) div 3600 as day_hours,
        orders,
        amount_cents
    from daily
)

select * from labelled
