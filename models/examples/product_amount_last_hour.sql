-- Flink's OVER aggregation over a time range: for every order, the amount and the number of
-- orders of the same product in the hour up to and including it.
with

product_orders as (
    select * from {{ ref('product_orders') }}
),

with_last_hour as (
    select
        order_id,
        product,
        ordered_at,
        amount,
        sum(amount) over (
            partition by product
            order by ordered_at
            range between interval 1 hour preceding and current row
        ) as amount_last_hour,
        count(*) over (
            partition by product
            order by ordered_at
            range between interval 1 hour preceding and current row
        ) as orders_last_hour
    from product_orders
)

select * from with_last_hour
