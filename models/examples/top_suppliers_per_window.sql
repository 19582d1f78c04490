-- Consecutive windowed operations: price per supplier in 5-second tumbling windows,
-- then the top 3 suppliers of each of those same windows (Flink's window Top-N).
with

supplier_totals as (
    select
        window_start,
        window_end,
        supplier_id,
        sum(price) as price
    from {{ spark_windows.tumble(ref('bids'), 'bid_ts', '5 seconds') }}
    group by window_start, window_end, supplier_id
),

ranked as (
    select
        window_start,
        window_end,
        supplier_id,
        price,
        row_number() over (
            partition by window_start, window_end order by price desc, supplier_id asc
        ) as supplier_rank
    from supplier_totals
),

top_3 as (
    select * from ranked
    where supplier_rank <= 3
)

select * from top_3
