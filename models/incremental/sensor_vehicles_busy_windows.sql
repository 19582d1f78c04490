-- The busy 5-minute windows of each sensor (20 vehicles or more), kept by a plain dbt
-- incremental model downstream of sensor_vehicles_incremental_final. That table only grows by
-- appends, each row with the batch_id of the run that appended it, so each run here reads only
-- the batches it does not hold yet, and never revisits a window. It reads the newest batch it
-- holds again, and replaces the partitions of the batches it reads (insert_overwrite by
-- batch_id): a run killed while it wrote is repaired by the next, where an `append` would keep
-- what the killed write left.
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['batch_id']) }}

select
    sensor_id,
    window_start,
    window_end,
    vehicles,
    readings,
    batch_id
from {{ ref('sensor_vehicles_incremental_final') }}
where
    vehicles >= 20
    {%- if is_incremental() %}
        and batch_id >= (
            select coalesce(max(batch_id), 0) from {{ this }}
        )
    {%- endif %}
