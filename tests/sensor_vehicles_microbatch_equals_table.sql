-- The microbatch example holds exactly the windows of the same call computed at once: the rows
-- of either that the other lacks (none when they are equal).
with at_once as (
    select
        *,
        to_date(window_start) as window_day
    from {{ spark_windows.window_aggregate(
        ref('recent_sensor_readings'), 'reading_ts',
        {'type': 'hop', 'slide': '5 minutes', 'size': '15 minutes'},
        ['sensor_id'], {'vehicles': 'sum(car_count)', 'readings': 'count(*)'}) }}
),

batched as (
    select * from {{ ref('sensor_vehicles_microbatch') }}
),

missing as (
    select * from at_once
    except all
    select * from batched
),

unexpected as (
    select * from batched
    except all
    select * from at_once
)

select 'missing' as difference, missing.* from missing
union all
select 'unexpected' as difference, unexpected.* from unexpected
