-- The landed `orders` topic with key and value back as binary (the seed stores them as base64),
-- decoded: order fields from the JSON value, the record timestamp as rowtime ($rowtime in
-- Confluent's Flink SQL), and value_error for a value that does not decode.
with

landed as (
    select
        unbase64(key_base64) as key,  -- noqa: RF04
        unbase64(value_base64) as value,  -- noqa: RF04
        topic,
        `partition`,  -- noqa: RF06
        `offset`,  -- noqa: RF06
        `timestamp`,  -- noqa: RF06
        timestamptype
    from {{ ref('kafka_orders_landed') }}
),

records as (
    select *
    from {{ spark_windows.kafka_records(
        'landed', 'order_id string, customer_id int, product_id string, price double'
    ) }}
)

select * from records
