{#- windowed_incremental, step 3: what both window families stage with. The staging table and
    the batch overwrites of the late and changelog tables, the columns a window is stored with,
    the match of a window's keys, and the emission columns (shown, emitted, revision, timing). -#}


{#- Step 3: the staging table, the next version of the partitions the run replaces. With a
    `folder` (_sw_incremental_run_folder) it is partitioned like the table of windows and written
    there, for the table to take its partitions by metadata (_sw_incremental_repoint); without
    one it is a managed table, rewritten into the table (_sw_incremental_overwrite_sql).
    `read` (sessions, _sw_incremental_read_partitions): the partitions the run read, kept as a
    table property for the apply, recovery's too, to find those a merge empties. On Iceberg
    (`format`), `replaced`: the partitions the table replaces with the staged rows
    (plan.partition_ranges), kept as a table property for recovery's apply. -#}
{% macro _sw_incremental_stage_sql(pending, stage_sql, folder=none, read=none, format='parquet', replaced=none) -%}
    {%- set properties = {} -%}
    {%- if read is not none -%}
        {%- do properties.update({spark_windows._sw_incremental_read_key(): tojson(read, sort_keys=true)}) -%}
    {%- endif -%}
    {%- if replaced is not none -%}
        {%- do properties.update({spark_windows._sw_incremental_replaced_key(): tojson(replaced)}) -%}
    {%- endif -%}
create table {{ pending }} using {{ format }}
{%- if folder %}
partitioned by (window_partition)
location {{ spark_windows._sw_string_literal(folder) }}
{%- endif %}
{%- if properties %}
tblproperties ({% for key, value in properties | dictsort %}{{ ', ' if not loop.first }}{{ spark_windows._sw_string_literal(key) }} = {{ spark_windows._sw_string_literal(value) }}{% endfor %})
{%- endif %}
as
{{ stage_sql }}
{%- endmacro %}


{#- The condition that holds for the rows of the table of windows in the partitions the run
    rewrites (plan.partition_ranges: [first, last] partition starts, each range read whole; a
    run's staged rows are all in them). -#}
{% macro _sw_incremental_in_partitions(plan) -%}
    {%- for range in plan.partition_ranges -%}
        {{ ' or ' if not loop.first }}window_partition between {{ spark_windows._sw_us_literal(range[0]) }} and {{ spark_windows._sw_us_literal(range[1]) }}
    {%- endfor %}
{%- endmacro %}


{#- The rows of batch `batch_id` in the late or changelog table (partitioned by batch_id): a
    repeated run overwrites what an uncommitted attempt wrote. -#}
{% macro _sw_incremental_batch_overwrite_sql(relation, batch_id, select_sql) -%}
insert overwrite table {{ relation }} partition (batch_id = {{ batch_id }}) by name
{{ select_sql }}
{%- endmacro %}


{#- The rows of batch `batch_id` removed from the late or changelog table: its partition dropped,
    or on Iceberg deleted (Iceberg drops the partition's files in its commit; it has no
    partition to drop by metadata). -#}
{% macro _sw_incremental_drop_batch_sql(cfg, relation, batch_id) -%}
    {%- if cfg.iceberg -%}
delete from {{ relation }} where batch_id = {{ batch_id }}
    {%- else -%}
alter table {{ relation }} drop if exists partition (batch_id = {{ batch_id }})
    {%- endif -%}
{%- endmacro %}


{#- The columns the model's table stores, in order, read from a staged relation; `columns`: in
    that order instead (the table's, for an INSERT by position). -#}
{% macro _sw_incremental_stored_sql(cfg, relation, columns=none) -%}
    select {{ (columns or (cfg.group_cols + ['window_start', 'window_end'] + cfg.agg_names + ['is_final', 'revision', 'timing']
        + (['watermark_passed'] if cfg.on_watermark else []) + ['window_partition'])) | join(', ') }}
    from {{ relation }} as __sw_staged
    {%- if cfg.session %}
    where __sw_role in ('fresh', 'kept')
    {%- endif %}
{%- endmacro %}


{#- `__sw_a` and `__sw_b` hold the same window (NULL keys match NULL keys). -#}
{% macro _sw_incremental_match(window_keys) -%}
    {%- for column in window_keys -%}
        {{ ' and ' if not loop.first }}__sw_a.{{ column }} <=> __sw_b.{{ column }}
    {%- endfor -%}
{%- endmacro %}


{#- The partition a window is stored in: its start (a session: its end), floored to partition_size. -#}
{% macro _sw_incremental_partition(cfg, time_col='window_start') -%}
    timestamp_micros({{ spark_windows._sw_align_us('unix_micros(' ~ time_col ~ ')', cfg.partition_us) }})
{%- endmacro %}


{#- The columns a late row gets, for both window families: the windows it missed (for sessions,
    its own window [t, t + gap)), the watermark it arrived under and the run's start. -#}
{% macro _sw_incremental_late_columns(cfg, plan) -%}
{{ spark_windows._sw_windows_holding(spark_windows._sw_ts_us(cfg.time_col), cfg.spec) }} as missed_windows,
    {{ spark_windows._sw_us_literal(plan.watermark_prev_us) }} as watermark_at_arrival,
    {{ spark_windows._sw_us_literal(plan.run_us) }} as run_started_at
{%- endmacro %}


{#- Whether a window ending at `end_col` is shown under the watermark `watermark_us`: with
    every_run always, with on_watermark once the watermark has passed its end. -#}
{% macro _sw_incremental_shown(cfg, watermark_us, end_col) -%}
    {%- if not cfg.on_watermark -%}
        true
    {%- elif watermark_us is none -%}
        false
    {%- else -%}
        unix_micros({{ end_col }}) <= {{ watermark_us }}
    {%- endif -%}
{%- endmacro %}


{#- The columns both families give each window they stage after its keys, bounds and aggregates:
    is_final (its end plus allowed_lateness passed by the run's watermark; false before the first
    watermark), then its emission (_sw_incremental_firing_columns). -#}
{% macro _sw_incremental_final_columns(cfg, plan) -%}
    {%- if plan.watermark_us is none -%}
    false as is_final,
    {%- else -%}
    unix_micros(window_end) + {{ cfg.lateness_us }} <= {{ plan.watermark_us }} as is_final,
    {%- endif %}
    {{ spark_windows._sw_incremental_firing_columns(cfg) }}
{%- endmacro %}


{#- The columns _sw_incremental_emission_sql adds, in the order the staging tables keep them. -#}
{% macro _sw_incremental_firing_columns(cfg) -%}
    revision, timing, {{ 'watermark_passed, ' if cfg.on_watermark }}__sw_shown, __sw_old_shown, __sw_emit
{%- endmacro %}


{#- The firing metadata of every window of a staged next version (emit_policy; docs/design/
    windowed_incremental.md, "Emit policy"). `relation` is a subquery with the window's
    columns and
      __sw_old_revision, __sw_old_timing, __sw_old_end  the stored image (all NULL for a window
                        that was not stored);
      __sw_changed      whether this run changed the window (recomputed it; for sessions: its end
                        or an aggregate changed).
    A window is shown (written to the model's table) with every_run always, with on_watermark
    once the watermark has passed its end. It is emitted by this run when it is shown now, and it
    was not shown before or this run changed it; each emission adds 1 to its revision, and its
    timing is early (the watermark has not passed its end), on_time (its first emission after
    that) or late (any later one). Adds revision, timing, __sw_shown, __sw_old_shown, __sw_emit
    (and watermark_passed with on_watermark). -#}
{% macro _sw_incremental_emission_sql(cfg, plan, relation) -%}
    {%- set w = plan.watermark_us -%}
select
    *,
    coalesce(__sw_old_revision, 0) + case when __sw_emit then 1 else 0 end as revision,
    case
        when not __sw_emit then __sw_old_timing
        {%- if w is not none %}
        when unix_micros(window_end) <= {{ w }} then case when __sw_old_timing is null or __sw_old_timing = 'early' then 'on_time' else 'late' end
        {%- endif %}
        else 'early'
    end as timing
    {%- if cfg.on_watermark %},
    __sw_shown as watermark_passed
    {%- endif %}
from (
    select *, __sw_shown and (not __sw_old_shown or __sw_changed) as __sw_emit
    from (
        select
            *,
            {{ spark_windows._sw_incremental_shown(cfg, w, 'window_end') }} as __sw_shown,
            __sw_old_end is not null and {{ spark_windows._sw_incremental_shown(cfg, plan.watermark_prev_us, '__sw_old_end') }} as __sw_old_shown
        from {{ relation }}
    ) as __sw_judged
) as __sw_emitted
{%- endmacro %}
