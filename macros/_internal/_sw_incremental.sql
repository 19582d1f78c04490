{#- Building blocks of the windowed_incremental materialization: reading its config and the
    SQL of each step. The materialization (macros/materializations/) orders the steps.
    Every time below is bigint microseconds since the epoch (none when there is none yet). -#}

{#- Reads and checks the model's config; returns a dict the other blocks use. Every problem
    is collected first and refused in one message, before the run touches any table. -#}
{% macro _sw_incremental_config(config) %}
    {%- set name = 'windowed_incremental' -%}
    {%- set errors = [] -%}
    {%- set time_col = config.get('time_col') -%}
    {%- set ingestion_col = config.get('ingestion_time_col') -%}
    {%- do spark_windows._sw_require_column(time_col, name, 'time_col', errors) -%}
    {%- do spark_windows._sw_require_column(ingestion_col, name, 'ingestion_time_col', errors) -%}
    {%- set window = config.get('window') -%}
    {%- set spec = spark_windows._sw_window_spec(window, name, errors) -%}
    {%- if spec is not none and spec.type == 'session' and spec.gap_us is none -%}
        {%- do errors.append(
            name ~ ": window (" ~ window ~ ") has a per-row gap expression; a windowed_incremental session needs one fixed gap, "
            ~ "such as {'type': 'session', 'gap': '30 minutes'}: whether a row is late is judged by its own window [t, t + gap), "
            ~ "which must not depend on a row that may arrive later. Use the session macro or window_aggregate for per-row gaps.") -%}
    {%- endif -%}
    {%- set keys = spark_windows._sw_column_list(config.get('group_by', []), name, 'group_by', errors=errors) -%}
    {%- set aggregates = config.get('aggregates') -%}
    {%- set aggs = spark_windows._sw_parse_aggregates(aggregates, name, keys or [], errors) or [] -%}
    {%- set added = ['is_final', 'revision', 'timing', 'watermark_passed', 'window_partition'] -%}
    {%- for agg in aggs if agg.name | lower in added -%}
        {%- do errors.append(name ~ ": aggregate name '" ~ agg.name ~ "' is taken by a column the materialization adds ("
            ~ added | join(', ') ~ "); choose another name") -%}
    {%- endfor -%}
    {%- if config.get('watermark_delay') is none -%}
        {%- do errors.append(
            name ~ ": watermark_delay is missing; give the bounded out-of-orderness of event times, such as watermark_delay='5 minutes' ('0 seconds' for in-order data)") -%}
        {%- set delay_us = none -%}
    {%- else -%}
        {%- set delay_us = spark_windows._sw_duration_us(config.get('watermark_delay'), name, 'watermark_delay', allow_zero=true, errors=errors) -%}
    {%- endif -%}
    {%- set lateness_us = spark_windows._sw_duration_us(config.get('allowed_lateness', '0 seconds'), name, 'allowed_lateness', allow_zero=true, errors=errors) -%}
    {%- set partition_us = spark_windows._sw_duration_us(config.get('partition_size', '1 day'), name, 'partition_size', errors=errors) -%}
    {%- set emit = config.get('emit') -%}
    {%- if emit not in [none, 'changelog'] -%}
        {%- do errors.append(name ~ ": emit ('" ~ emit ~ "') must be 'changelog' or left out") -%}
    {%- endif -%}
    {%- set emit_policy = config.get('emit_policy', 'every_run') -%}
    {%- if emit_policy not in ['every_run', 'on_watermark'] -%}
        {%- do errors.append(
            name ~ ": emit_policy (" ~ ("'" ~ emit_policy ~ "'" if emit_policy is string else emit_policy) ~ ") must be 'every_run' "
            ~ "(every run writes the windows its rows changed; the default) or 'on_watermark' (a window is written once the "
            ~ "watermark passes its end, then again by each run whose late rows change it)") -%}
    {%- endif -%}
    {%- do spark_windows._sw_incremental_check_table_config(config, errors) -%}
    {%- if errors -%}
        {{ exceptions.raise_compiler_error(
            name ~ ": " ~ (errors | length) ~ " problem" ~ ('s' if errors | length > 1) ~ " in the model's config; nothing was run:\n- "
            ~ errors | join('\n- ')) }}
    {%- endif -%}
    {#- what the state table stores to name a changed setting; emit_policy only when not the
        default, so that tables written before it existed keep their fingerprint -#}
    {%- set settings = {
        'time_col': time_col,
        'ingestion_time_col': ingestion_col,
        'window': window,
        'group_by': keys,
        'aggregates': aggregates,
        'watermark_delay': config.get('watermark_delay'),
        'allowed_lateness': config.get('allowed_lateness', '0 seconds'),
        'partition_size': config.get('partition_size', '1 day'),
        'emit': emit,
    } -%}
    {%- if emit_policy == 'on_watermark' -%}
        {%- do settings.update({'emit_policy': emit_policy}) -%}
    {%- endif -%}
    {{ return({
        'time_col': time_col,
        'ingestion_col': ingestion_col,
        'window': window,
        'spec': spec,
        'group_cols': keys,
        'aggregates': aggregates,
        'agg_names': aggs | map(attribute='name') | list,
        'delay_us': delay_us,
        'lateness_us': lateness_us,
        'partition_us': partition_us,
        'changelog': emit == 'changelog',
        'on_watermark': emit_policy == 'on_watermark',
        'grid_us': spec.pane_us if spec.type == 'hop' else spec.get('size_us'),
        'session': spec.type == 'session',
        'settings': settings,
    }) }}
{% endmacro %}


{#- The dbt table configs the materialization cannot honour, refused rather than ignored:
    the crash-safe commit rewrites whole partitions of Parquet tables (a dynamic INSERT
    OVERWRITE, repeated by recovery) and chooses the partitioning itself. -#}
{% macro _sw_incremental_check_table_config(config, errors) %}
    {%- set name = 'windowed_incremental' -%}
    {%- set file_format = config.get('file_format') -%}
    {%- if file_format not in [none, 'parquet'] -%}
        {%- do errors.append(
            name ~ ": file_format ('" ~ file_format ~ "') is not supported; the only accepted file_format is 'parquet' (or leave it out). "
            ~ "A run commits by overwriting whole partitions of Parquet tables, which a re-run after a crash repeats; "
            ~ "Delta, Iceberg and Hudi tables need their own jars, which the pyspark wheel does not include") -%}
    {%- endif -%}
    {%- for key in ['partition_by', 'clustered_by', 'buckets'] if config.get(key) is not none -%}
        {%- do errors.append(
            name ~ ": " ~ key ~ " (" ~ config.get(key) ~ ") is not taken; the table is partitioned by window_partition "
            ~ "(its width is partition_size, such as partition_size='1 day'), the other tables by batch_id") -%}
    {%- endfor -%}
    {%- if config.get('options') is not none -%}
        {%- do errors.append(
            name ~ ": options (" ~ config.get('options') ~ ") is not taken; the materialization sets the table options itself "
            ~ "(partitionOverwriteMode); set Parquet writer settings in the Spark session, such as spark.sql.parquet.compression.codec") -%}
    {%- endif -%}
    {%- set location_root = config.get('location_root') -%}
    {%- if location_root is not none and (location_root is not string or location_root.strip() == '') -%}
        {%- do errors.append(name ~ ": location_root (" ~ ("'" ~ location_root ~ "'" if location_root is string else location_root) ~ ") must be a folder path given as a non-empty string, such as '/data/warehouse/windows'") -%}
    {%- endif -%}
    {%- set tblproperties = config.get('tblproperties') -%}
    {%- if tblproperties is not none and tblproperties is not mapping -%}
        {%- do errors.append(name ~ ": tblproperties (" ~ tblproperties ~ ") must be a dict of property name to value, such as {'owner_team': 'traffic'}") -%}
    {%- endif -%}
    {%- set persist_docs = config.get('persist_docs') -%}
    {%- if persist_docs is not none and persist_docs is not mapping -%}
        {%- do errors.append(name ~ ": persist_docs (" ~ persist_docs ~ ") must be a dict, such as {'relation': true}") -%}
    {%- endif -%}
{% endmacro %}


{#- End of the last window holding the row: a row is late when even that one has expired.
    For sessions, the row's own window [t, t + gap). -#}
{% macro _sw_incremental_last_end_us(cfg) -%}
    {%- if cfg.session -%}
    ({{ spark_windows._sw_ts_us(cfg.time_col) }} + {{ cfg.spec.gap_us }})
    {%- else -%}
    ({{ spark_windows._sw_align_us(spark_windows._sw_ts_us(cfg.time_col), cfg.grid_us, cfg.spec.offset_us) }} + {{ cfg.spec.size_us }})
    {%- endif -%}
{%- endmacro %}


{#- Every window holding the row, earliest first, as array<struct<window_start, window_end>>;
    for sessions, the row's own window [t, t + gap). -#}
{% macro _sw_incremental_windows_array(cfg) -%}
    {%- set spec = cfg.spec -%}
    {%- set ts_us = spark_windows._sw_ts_us(cfg.time_col) -%}
    {%- if spec.type == 'session' -%}
        array(named_struct('window_start', timestamp_micros({{ ts_us }}), 'window_end', timestamp_micros({{ ts_us }} + {{ spec.gap_us }})))
    {%- else -%}
        {%- set start_us = spark_windows._sw_align_us(ts_us, cfg.grid_us, spec.offset_us) -%}
        {%- if spec.type == 'tumble' -%}
        array(named_struct('window_start', timestamp_micros({{ start_us }}), 'window_end', timestamp_micros({{ start_us }} + {{ spec.size_us }})))
        {%- elif spec.type == 'hop' -%}
        transform(sequence(cast({{ spec.panes_per_window - 1 }} as bigint), cast(0 as bigint), cast(-1 as bigint)), __sw_i -> named_struct(
            'window_start', timestamp_micros({{ start_us }} - __sw_i * {{ spec.pane_us }}),
            'window_end', timestamp_micros({{ start_us }} - __sw_i * {{ spec.pane_us }} + {{ spec.size_us }})))
        {%- else -%}
        transform(sequence(({{ ts_us }} - {{ start_us }}) div {{ spec.pane_us }} + 1, cast({{ spec.panes_per_window }} as bigint)), __sw_j -> named_struct(
            'window_start', timestamp_micros({{ start_us }}),
            'window_end', timestamp_micros({{ start_us }} + __sw_j * {{ spec.pane_us }})))
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}


{#- SQL literal of a time in microseconds. -#}
{% macro _sw_us_literal(us) -%}
    {%- if us is none -%}
        cast(null as timestamp)
    {%- else -%}
        timestamp_micros({{ us }})
    {%- endif -%}
{%- endmacro %}


{#- Rows of the model whose ingestion time lies in (after_us, until_us]; no bound for none. -#}
{% macro _sw_incremental_arrivals(cfg, model_sql, after_us, until_us) -%}
    select *
    from (
        {{ model_sql }}
    ) as __sw_input
    where true
        {%- if after_us is not none %}
        and {{ cfg.ingestion_col }} > {{ spark_windows._sw_us_literal(after_us) }}
        {%- endif %}
        {%- if until_us is not none %}
        and {{ cfg.ingestion_col }} <= {{ spark_windows._sw_us_literal(until_us) }}
        {%- endif %}
{%- endmacro %}


{#- Whether a row is late: every window holding it expired under the previous watermark. -#}
{% macro _sw_incremental_is_late(cfg, watermark_us) -%}
    {%- if watermark_us is none -%}
        false
    {%- else -%}
        ({{ cfg.time_col }} is not null and {{ spark_windows._sw_incremental_last_end_us(cfg) }} + {{ cfg.lateness_us }} <= {{ watermark_us }})
    {%- endif -%}
{%- endmacro %}


{#- One scan of the new rows: how many, the newest ingestion and event times, how many are
    late, and the event-time range of the rows that update windows. -#}
{% macro _sw_incremental_summary_sql(cfg, model_sql, state) -%}
    {%- set late = spark_windows._sw_incremental_is_late(cfg, state.watermark_us) -%}
    {%- set ts_us = spark_windows._sw_ts_us(cfg.time_col) -%}
select
    count(*) as new_rows,
    count_if({{ cfg.ingestion_col }} is null) as rows_without_ingestion_time,
    unix_micros(max(cast({{ cfg.ingestion_col }} as timestamp))) as max_ingestion_us,
    max({{ ts_us }}) as max_event_us,
    count_if({{ late }}) as late_rows,
    min(case when not {{ late }} then {{ ts_us }} end) as min_update_us,
    max(case when not {{ late }} then {{ ts_us }} end) as max_update_us
from (
    select *
    from (
        {{ model_sql }}
    ) as __sw_input
    {%- if state.ingestion_us is not none %}
    where {{ cfg.ingestion_col }} > {{ spark_windows._sw_us_literal(state.ingestion_us) }} or {{ cfg.ingestion_col }} is null
    {%- endif %}
) as __sw_new
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


{#- The columns _sw_incremental_emission_sql adds, in the order the staging tables keep them. -#}
{% macro _sw_incremental_firing_columns(cfg) -%}
    revision, timing, {{ 'watermark_passed, ' if cfg.on_watermark }}__sw_shown, __sw_old_shown, __sw_emit
{%- endmacro %}


{#- The firing metadata of every window of a staged next version (emit_policy; docs/decisions/
    0005-windowed-incremental.md, "Emit policy"). `relation` is a subquery with the window's
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


{#- The rows of the next version of every partition this run rewrites:
      fresh  windows that new, non-late rows fall in and that have not expired, recomputed in
             full from every row ingested so far;
      stored the stored windows of those partitions and of the partitions whose windows may
             become final under the new watermark, unchanged but for is_final.
    A window found in both keeps its fresh row (one pass: fresh is computed once).
    `plan` holds the times computed by the materialization. -#}
{% macro _sw_incremental_pending_sql(cfg, model_sql, target, plan) -%}
    {%- set keys = cfg.group_cols -%}
    {%- set window_keys = keys + ['window_start', 'window_end'] -%}
    {%- set columns = window_keys + cfg.agg_names -%}
    {%- set with_stored = plan.target_exists and plan.partition_ranges | length > 0 -%}
    {%- set match = spark_windows._sw_incremental_match(window_keys) -%}
with __sw_new as (
    {{ spark_windows._sw_incremental_arrivals(cfg, model_sql, plan.after_us, plan.until_us) | indent(4) }}
),

__sw_touched as (
    select distinct {{ window_keys | join(', ') }}
    from {{ spark_windows._sw_table_valued('__sw_new', cfg.time_col, cfg.spec) }} as __sw_windowed
    {%- if plan.watermark_prev_us is not none %}
    where unix_micros(window_end) + {{ cfg.lateness_us }} > {{ plan.watermark_prev_us }}
    {%- endif %}
),

__sw_scope as (
    {{ spark_windows._sw_incremental_arrivals(cfg, model_sql, none, plan.until_us) | indent(4) }}
        and {{ cfg.time_col }} >= {{ spark_windows._sw_us_literal(plan.scope_from_us) }}
        and {{ cfg.time_col }} < {{ spark_windows._sw_us_literal(plan.scope_until_us) }}
),

__sw_fresh as (
    select {% for column in columns %}__sw_a.{{ column }}{{ ', ' if not loop.last }}{% endfor %}
    from {{ spark_windows.window_aggregate('__sw_scope', cfg.time_col, cfg.window, keys, cfg.aggregates) }} as __sw_a
    left semi join __sw_touched as __sw_b
        on {{ match }}
),

__sw_candidates as (
    select *, cast(null as int) as revision, cast(null as string) as timing, true as __sw_fresh_window from __sw_fresh
    {%- if with_stored %}
    union all
    select {{ columns | join(', ') }}, revision, timing, false as __sw_fresh_window
    from {{ target }}
    where {% for range in plan.partition_ranges -%}
        {{ ' or ' if not loop.first }}window_partition between {{ spark_windows._sw_us_literal(range[0]) }} and {{ spark_windows._sw_us_literal(range[1]) }}
    {%- endfor %}
    {%- endif %}
),

__sw_next as (
    {%- if with_stored %}
    select
        {{ columns | join(', ') }},
        __sw_fresh_window,
        __sw_fresh_window as __sw_changed,
        __sw_old_revision,
        __sw_old_timing,
        case when __sw_old_revision is not null then window_end end as __sw_old_end
    from (
        select
            *,
            row_number() over (partition by {{ window_keys | join(', ') }} order by __sw_fresh_window desc) as __sw_pick,
            max(revision) over (partition by {{ window_keys | join(', ') }}) as __sw_old_revision,
            max(timing) over (partition by {{ window_keys | join(', ') }}) as __sw_old_timing
        from __sw_candidates
    ) as __sw_ranked
    where __sw_pick = 1
    {%- else %}
    select
        {{ columns | join(', ') }},
        __sw_fresh_window,
        true as __sw_changed,
        cast(null as int) as __sw_old_revision,
        cast(null as string) as __sw_old_timing,
        cast(null as timestamp) as __sw_old_end
    from __sw_candidates
    {%- endif %}
)

select
    {{ columns | join(',\n    ') }},
    {%- if plan.watermark_us is none %}
    false as is_final,
    {%- else %}
    unix_micros(window_end) + {{ cfg.lateness_us }} <= {{ plan.watermark_us }} as is_final,
    {%- endif %}
    {{ spark_windows._sw_incremental_firing_columns(cfg) }},
    __sw_fresh_window,
    {{ spark_windows._sw_incremental_partition(cfg) }} as window_partition
from (
    {{ spark_windows._sw_incremental_emission_sql(cfg, plan, '__sw_next') | indent(4) }}
) as __sw_fired
{%- endmacro %}


{#- The rows of this run that missed all their windows, with the windows and the watermark. -#}
{% macro _sw_incremental_late_sql(cfg, model_sql, plan) -%}
select
    __sw_new.*,
    {{ spark_windows._sw_incremental_windows_array(cfg) }} as missed_windows,
    {{ spark_windows._sw_us_literal(plan.watermark_prev_us) }} as watermark_at_arrival,
    {{ spark_windows._sw_us_literal(plan.run_us) }} as run_started_at
from (
    {{ spark_windows._sw_incremental_arrivals(cfg, model_sql, plan.after_us, plan.until_us) | indent(4) }}
) as __sw_new
where {{ spark_windows._sw_incremental_is_late(cfg, plan.watermark_prev_us) }}
{%- endmacro %}


{#- Flink's changelog of this run, from the staged next version: for each window this run
    emits, +I when it was not shown before, else -U (the stored row) then +U (the new row). -#}
{% macro _sw_incremental_changelog_sql(cfg, target, pending, plan) -%}
    {%- set window_keys = cfg.group_cols + ['window_start', 'window_end'] -%}
    {%- set columns = window_keys + cfg.agg_names + ['is_final', 'revision', 'timing'] -%}
    {%- set match = spark_windows._sw_incremental_match(window_keys) -%}
with __sw_emitted as (
    select * from {{ pending }} where __sw_emit
)

select
    case when __sw_old_shown then '+U' else '+I' end as op,
    {% for column in columns %}{{ column }}, {% endfor %}{{ spark_windows._sw_us_literal(plan.run_us) }} as run_started_at
from __sw_emitted
{%- if plan.target_exists %}

union all

select
    '-U' as op,
    {% for column in columns %}__sw_a.{{ column }}, {% endfor %}{{ spark_windows._sw_us_literal(plan.run_us) }} as run_started_at
from {{ target }} as __sw_a
left semi join (select * from __sw_emitted where __sw_old_shown) as __sw_b
    on {{ match }}
where __sw_a.window_partition in (select distinct window_partition from __sw_emitted)
{%- endif %}
{%- endmacro %}


{#- The columns the model's table stores, in order, read from a staged relation. -#}
{% macro _sw_incremental_stored_sql(cfg, relation) -%}
    select {{ (cfg.group_cols + ['window_start', 'window_end'] + cfg.agg_names + ['is_final', 'revision', 'timing']
        + (['watermark_passed'] if cfg.on_watermark else []) + ['window_partition']) | join(', ') }}
    from {{ relation }} as __sw_staged
    {%- if cfg.session %}
    where __sw_role in ('fresh', 'kept')
    {%- endif %}
{%- endmacro %}


{#- Rewrites the table's partitions from a staging table: a dynamic INSERT OVERWRITE of the
    partitions it has rows for; for sessions, then drops the partitions it marks as emptied by a
    merge. Both steps can be repeated, so recovery applies a committed staging table again. -#}
{% macro _sw_incremental_apply(cfg, target, pending, main=false) %}
    {%- set overwrite = 'insert overwrite table ' ~ target ~ ' partition (window_partition) by name\n'
        ~ spark_windows._sw_incremental_stored_sql(cfg, pending) -%}
    {%- if main -%}
        {%- call statement('main') -%}
            {{ overwrite }}
        {%- endcall -%}
    {%- else -%}
        {%- do run_query(overwrite) -%}
    {%- endif -%}
    {%- if cfg.session -%}
        {%- set emptied = run_query("select distinct date_format(window_partition, 'yyyy-MM-dd HH:mm:ss.SSSSSS') from "
            ~ pending ~ " where __sw_role = 'drop'") -%}
        {%- for row in emptied.rows -%}
            {%- do run_query('alter table ' ~ target ~ " drop if exists partition (window_partition = '" ~ row[0] ~ "')") -%}
        {%- endfor -%}
    {%- endif -%}
{% endmacro %}


{#- An empty partitioned table shaped like `select_sql` (plus batch_id, when that is the
    partition column); nothing happens when it exists. `clauses`: its options, location,
    comment and tblproperties (_sw_incremental_table_clauses). -#}
{% macro _sw_incremental_create_sql(relation, select_sql, partition_col, clauses='') -%}
create table if not exists {{ relation }}
using parquet
partitioned by ({{ partition_col }})
{{ clauses }}
as
select *{{ ', cast(0 as bigint) as batch_id' if partition_col == 'batch_id' }}
from (
    {{ select_sql }}
) as __sw_shape
where false
{%- endmacro %}


{#- The state table, created empty by a CREATE TABLE AS SELECT: under a location_root, a table
    declared with its columns only would take up the files a dropped one left in its folder. -#}
{% macro _sw_incremental_state_ddl(relation, clauses='') -%}
create table if not exists {{ relation }}
using parquet
{{ clauses }}
as
select
    cast(null as bigint) as batch_id,
    cast(null as timestamp) as max_ingestion_time,
    cast(null as timestamp) as max_event_time,
    cast(null as timestamp) as watermark,
    cast(null as bigint) as new_rows,
    cast(null as bigint) as late_rows,
    cast(null as bigint) as windows_updated,
    cast(null as timestamp) as run_started_at,
    cast(null as string) as pending_table,
    cast(null as string) as config_fingerprint,
    cast(null as string) as config
where false
{%- endmacro %}


{#- The clauses of each table the model keeps, from its dbt config, with dbt-spark's own
    macros where they fit: location_clause (under location_root, a folder named like the
    table; the other tables get a folder named like themselves), comment_clause
    (persist_docs: the model's description on the table; with on_watermark on the view
    instead), tblproperties_clause (every table). `clauses.table` is for `target`, the table
    of windows (partitions overwritten dynamically).
    The staging tables stay in the schema's default location: they are dropped when applied,
    and dropping a table with a LOCATION leaves its files. -#}
{% macro _sw_incremental_table_clauses(tables, target) %}
    {%- set location_root = config.get('location_root') -%}
    {%- set properties = tblproperties_clause() -%}
    {%- set clauses = {} -%}
    {%- for name, relation in tables.items() -%}
        {%- set location = "location '" ~ location_root ~ "/" ~ relation.identifier ~ "'\n" if location_root is not none else '' -%}
        {%- do clauses.update({name: location ~ properties}) -%}
    {%- endfor -%}
    {%- set overwrite = "options ('partitionOverwriteMode' = 'dynamic')\n" -%}
    {%- if target.identifier == this.identifier -%}
        {%- do clauses.update({'table': overwrite ~ location_clause() ~ '\n' ~ comment_clause() ~ '\n' ~ properties}) -%}
    {%- else -%}
        {%- do clauses.update({'table': overwrite ~ clauses.windows}) -%}
    {%- endif -%}
    {{ return(clauses) }}
{% endmacro %}


{#- With on_watermark, the model is a view of the windows the watermark has passed (`target`
    holds every window). Made again by every run: cheap, and a crash before it is repaired. -#}
{% macro _sw_incremental_shown_view(cfg, view, target) %}
    {%- set existing = adapter.get_relation(view.database, view.schema, view.identifier) -%}
    {%- if existing is not none and not existing.is_view -%}
        {%- do adapter.drop_relation(existing) -%}
    {%- endif -%}
    {%- set columns = cfg.group_cols + ['window_start', 'window_end'] + cfg.agg_names + ['is_final', 'revision', 'timing', 'window_partition'] -%}
    {%- do run_query('create or replace view ' ~ view ~ '\n' ~ comment_clause() ~ '\n' ~ tblproperties_clause() ~ '\nas\nselect '
        ~ columns | join(', ') ~ '\nfrom ' ~ target ~ '\nwhere watermark_passed') -%}
{% endmacro %}


{#- The message refusing a run whose settings changed since the last commit: names each
    setting that changed, with its old and new value, from the settings the state table
    stored (`stored`, none for a state table written before it stored them). Durations are
    compared by their length ('5 minutes' is '300 seconds'). -#}
{% macro _sw_incremental_changed_message(relation, stored, settings) %}
    {%- set durations = ['watermark_delay', 'allowed_lateness', 'partition_size'] -%}
    {%- set changes = [] -%}
    {%- if stored is mapping -%}
        {%- for key in (settings.keys() | list + stored.keys() | list) | unique | sort -%}
            {%- set old = stored.get(key) -%}
            {%- set value = settings.get(key) -%}
            {%- if key in durations and old is string and value is string -%}
                {%- set differs = spark_windows._sw_duration_us(old, 'windowed_incremental', key, allow_zero=true, errors=[])
                    != spark_windows._sw_duration_us(value, 'windowed_incremental', key, allow_zero=true, errors=[]) -%}
            {%- else -%}
                {%- set differs = old != value -%}
            {%- endif -%}
            {%- if differs -%}
                {%- do changes.append(key ~ " (was " ~ ("'" ~ old ~ "'" if old is string else old) ~ ", now "
                    ~ ("'" ~ value ~ "'" if value is string else value) ~ ")") -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {%- if changes -%}
        {{ return("windowed_incremental: " ~ changes | join(', ') ~ " of " ~ relation ~ " changed since its last run; "
            ~ "its stored windows were computed with the old " ~ ("value" if changes | length == 1 else "values") ~ ". "
            ~ "Run it once with --full-refresh to recompute every window.") }}
    {%- endif -%}
    {{ return("windowed_incremental: the window, group_by, aggregates, time columns, delays, partition_size or emit of "
        ~ relation ~ " changed since its last run; its stored windows were computed with the old ones. "
        ~ "Run it once with --full-refresh to recompute every window.") }}
{% endmacro %}


{#- Step 1 of a run. Returns the state of the last committed run:
    {batch_id (0 before the first), ingestion_us, event_us, watermark_us, pending, fingerprint,
    config (the settings as JSON text; none from a state table older than that column),
    config_column (whether the state table has that column)}.
    A staging table named by the last commit is applied again (its rewrite may not have
    finished); any other staging table, and the late and changelog rows of the batch after the
    last commit, belong to a run that did not commit and are dropped. With no commit (first run,
    --full-refresh, or a first run that crashed) every table of the model starts again. -#}
{% macro _sw_incremental_recover(cfg, target, tables, full_refresh) %}
    {%- set state = {'batch_id': 0, 'ingestion_us': none, 'event_us': none, 'watermark_us': none, 'pending': none, 'fingerprint': none,
        'config': none, 'config_column': true} -%}
    {%- set existing = adapter.get_relation(target.database, target.schema, target.identifier) -%}
    {%- set existing_state = adapter.get_relation(target.database, target.schema, tables.state.identifier) -%}
    {%- if not full_refresh and existing_state is not none and (existing is none or existing.is_table) -%}
        {%- set config_column = 'config' in adapter.get_columns_in_relation(existing_state) | map(attribute='name') | map('lower') | list -%}
        {%- set rows = run_query(
            'select batch_id, unix_micros(max_ingestion_time), unix_micros(max_event_time), unix_micros(watermark), pending_table, config_fingerprint, '
            ~ ('config' if config_column else 'cast(null as string)') ~ ' from '
            ~ tables.state ~ ' order by batch_id desc limit 1').rows -%}
        {%- if rows | length > 0 -%}
            {%- set row = rows[0] -%}
            {%- do state.update({
                'batch_id': row[0] | int,
                'ingestion_us': none if row[1] is none else row[1] | int,
                'event_us': none if row[2] is none else row[2] | int,
                'watermark_us': none if row[3] is none else row[3] | int,
                'pending': row[4],
                'fingerprint': row[5],
                'config': row[6],
                'config_column': config_column,
            }) -%}
            {%- if existing is not none and 'revision' not in adapter.get_columns_in_relation(existing) | map(attribute='name') | map('lower') | list -%}
                {{ exceptions.raise_compiler_error(
                    "windowed_incremental: " ~ existing ~ " has no revision and timing columns: it was written by an earlier "
                    ~ "version of spark_windows. Run it once with --full-refresh to recompute every window with them.") }}
            {%- endif -%}
        {%- endif -%}
    {%- endif -%}
    {%- set staged = run_query("show tables in " ~ target.schema ~ " like '" ~ target.identifier ~ "__pending_*'") -%}
    {%- set uncommitted = [] -%}
    {%- for row in staged.rows -%}
        {%- set relation = target.incorporate(path={'identifier': row[1]}, type='table') -%}
        {%- if state.batch_id > 0 and row[1] == state.pending -%}
            {%- do spark_windows._sw_incremental_apply(cfg, target, relation) -%}
        {%- else -%}
            {%- do uncommitted.append(row[1]) -%}
        {%- endif -%}
        {%- do run_query('drop table if exists ' ~ relation) -%}
    {%- endfor -%}
    {%- if state.batch_id > 0 -%}
        {#- A run writes late and changelog rows only after its staging table exists. -#}
        {%- for name in ['late', 'changelog'] if uncommitted -%}
            {%- if adapter.get_relation(target.database, target.schema, tables[name].identifier) is not none -%}
                {%- do run_query('alter table ' ~ tables[name] ~ ' drop if exists partition (batch_id = ' ~ (state.batch_id + 1) ~ ')') -%}
            {%- endif -%}
        {%- endfor -%}
    {%- else -%}
        {%- if existing is not none -%}
            {%- do adapter.drop_relation(existing) -%}
        {%- endif -%}
        {%- for name in ['windows', 'late', 'changelog', 'state'] -%}
            {%- do run_query('drop table if exists ' ~ tables[name]) -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(state) }}
{% endmacro %}


{#- The times and ranges of this run, from the last commit and the scan of the new rows.
    `rewrite`: the run stages a next version (also when it only has late rows to write: the
    staging table marks the attempt, so a crashed one is found and its rows dropped).
    For sessions, the plan also runs the touch query (_sw_incremental_session_touch_sql). -#}
{% macro _sw_incremental_plan(cfg, state, summary, model_sql, target) %}
    {%- set events = [state.event_us, none if summary[3] is none else summary[3] | int] | reject('none') | list -%}
    {%- set max_event_us = events | max if events else none -%}
    {%- set watermark_us = none if max_event_us is none else max_event_us - cfg.delay_us -%}
    {%- set fresh = summary[5] is not none -%}
    {%- set min_update_us = summary[5] | int if fresh else none -%}
    {%- set max_update_us = summary[6] | int if fresh else none -%}
    {%- set target_exists = state.batch_id > 0 -%}
    {%- set started = run_started_at if run_started_at.tzinfo else modules.pytz.utc.localize(run_started_at) -%}
    {%- set plan = {
        'after_us': state.ingestion_us,
        'until_us': none if summary[2] is none else summary[2] | int,
        'max_event_us': max_event_us,
        'watermark_prev_us': state.watermark_us,
        'watermark_us': watermark_us,
        'min_update_us': min_update_us,
        'max_update_us': max_update_us,
        'target_exists': target_exists,
        'late_rows': summary[4] | int,
        'run_us': (started.timestamp() * 1000000) | round | int,
    } -%}
    {%- set ranges = [] -%}
    {%- if cfg.session -%}
        {#- partitions hold session ends: the touched sessions end in [min new time, their
            largest end], the recomputed ones by max(that, max new time + gap) -#}
        {%- do plan.update({'touched_sessions': 0, 'touched_min_start_us': none, 'touched_max_end_us': none}) -%}
        {%- if fresh -%}
            {%- do spark_windows._sw_incremental_session_cache(cfg, model_sql, target, plan) -%}
        {%- endif -%}
        {%- if fresh and target_exists -%}
            {%- set touch = run_query(spark_windows._sw_incremental_session_touch_sql(cfg, model_sql, target, plan)).rows[0] -%}
            {%- do plan.update({
                'late_rows': plan.late_rows + touch[0] | int,
                'touched_sessions': touch[1] | int,
                'touched_min_start_us': none if touch[2] is none else touch[2] | int,
                'touched_max_end_us': none if touch[3] is none else touch[3] | int,
            }) -%}
        {%- endif -%}
        {%- if fresh -%}
            {%- set last_end_us = [max_update_us + cfg.spec.gap_us, plan.touched_max_end_us] | reject('none') | max -%}
            {%- do ranges.append([
                spark_windows._sw_floor_us(min_update_us, cfg.partition_us),
                spark_windows._sw_floor_us(last_end_us, cfg.partition_us)]) -%}
        {%- endif -%}
        {%- set span_us = 0 -%}
    {%- else -%}
        {%- if fresh -%}
            {%- do ranges.append([
                spark_windows._sw_floor_us(min_update_us - cfg.spec.size_us, cfg.partition_us),
                spark_windows._sw_floor_us(max_update_us, cfg.partition_us)]) -%}
        {%- endif -%}
        {%- set span_us = cfg.spec.size_us -%}
        {%- do plan.update({
            'scope_from_us': (min_update_us - span_us) if fresh else 0,
            'scope_until_us': (max_update_us + span_us) if fresh else 0,
        }) -%}
    {%- endif -%}
    {%- set flips = target_exists and state.watermark_us is not none and watermark_us > state.watermark_us -%}
    {%- if flips -%}
        {#- windows whose end + lateness passes from (W_prev, W_new]: they become final; a
            partition holds the windows that start (sessions: end) in it -#}
        {%- do ranges.append([
            spark_windows._sw_floor_us(state.watermark_us - cfg.lateness_us - span_us, cfg.partition_us),
            spark_windows._sw_floor_us(watermark_us - cfg.lateness_us, cfg.partition_us)]) -%}
        {%- if cfg.on_watermark -%}
            {#- with on_watermark, also the windows whose end passes from (W_prev, W_new]: they
                are written now -#}
            {%- do ranges.append([
                spark_windows._sw_floor_us(state.watermark_us - span_us, cfg.partition_us),
                spark_windows._sw_floor_us(watermark_us, cfg.partition_us)]) -%}
        {%- endif -%}
    {%- endif -%}
    {%- do plan.update({
        'partition_ranges': ranges,
        'rewrite': fresh or flips or plan.late_rows > 0,
    }) -%}
    {{ return(plan) }}
{% endmacro %}


{#- `us` floored to a multiple of `step_us` (toward minus infinity, like pmod). -#}
{% macro _sw_floor_us(us, step_us) %}
    {{ return(us - us % step_us) }}
{% endmacro %}
