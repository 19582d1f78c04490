-- Confluent's Flink SQL tutorial on the landed `orders` topic: orders counted in 2-second
-- windows sliding by 1 second over the record timestamp ($rowtime), i.e.
-- HOP(TABLE orders, DESCRIPTOR($rowtime), INTERVAL '1' SECOND, INTERVAL '2' SECONDS).
-- Records whose value did not decode are left out here; kafka_orders_records keeps them.
with

decoded_orders as (
    select *
    from {{ ref('kafka_orders_records') }}
    where value_error is null
)

select
    window_start,
    window_end,
    count(*) as orders,
    count(distinct customer_id) as customers
from {{ spark_windows.hop('decoded_orders', 'rowtime', '1 second', '2 seconds') }}
group by window_start, window_end
