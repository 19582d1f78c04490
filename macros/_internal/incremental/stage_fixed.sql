{#- windowed_incremental, step 3 for fixed windows (tumble, hop, cumulate): the next version of
    the partitions a run rewrites, its late rows and its changelog. Every time below is bigint
    microseconds since the epoch (none when there is none yet). -#}


{#- The rows of the next version of every partition this run rewrites:
      fresh  windows that new, non-late rows fall in and that have not expired, recomputed in
             full from every row ingested so far (_sw_incremental_fresh_sql);
      stored the stored windows of those partitions and of the partitions whose windows may
             become final under the new watermark, unchanged but for is_final.
    A window found in both keeps its fresh row (_sw_incremental_next_sql; one pass: fresh is
    computed once), then the emission columns (_sw_incremental_emission_sql, as sessions).
    `plan` holds the times computed by the materialization. -#}
{% macro _sw_incremental_pending_sql(cfg, model_sql, target, plan) -%}
    {%- set columns = cfg.group_cols + ['window_start', 'window_end'] + cfg.agg_names -%}
    {%- set with_stored = plan.target_exists and plan.partition_ranges | length > 0 -%}
with __sw_scope as (
    {{ spark_windows._sw_incremental_input_sql(cfg, model_sql, plan, 'processed') }}
        and {{ cfg.time_col }} >= {{ spark_windows._sw_us_literal(plan.scope_from_us) }}
        and {{ cfg.time_col }} < {{ spark_windows._sw_us_literal(plan.scope_until_us) }}
),

__sw_fresh as (
    {{ spark_windows._sw_incremental_fresh_sql(cfg, plan, '__sw_scope') | trim }}
),

__sw_candidates as (
    select *, cast(null as int) as revision, cast(null as string) as timing, true as __sw_fresh_window from __sw_fresh
    {%- if with_stored %}
    union all
    select {{ columns | join(', ') }}, revision, timing, false as __sw_fresh_window
    from {{ target }}
    where {{ spark_windows._sw_incremental_in_partitions(plan) }}
    {%- endif %}
),

__sw_next as (
    {{ spark_windows._sw_incremental_next_sql(cfg, '__sw_candidates', with_stored) | trim }}
)

select
    {{ columns | join(',\n    ') }},
    {{ spark_windows._sw_incremental_final_columns(cfg, plan) }},
    __sw_fresh_window,
    {{ spark_windows._sw_incremental_partition(cfg) }} as window_partition
from (
    {{ spark_windows._sw_incremental_emission_sql(cfg, plan, '__sw_next') }}
) as __sw_fired
{%- endmacro %}


{#- The windows the run's new, non-late rows fall in that have not expired, recomputed with
    window_aggregate from `scope`: every row processed up to this run in their time range, which
    holds every new row that is not late, so the input is read once. The windows new rows fall in
    are those whose count of this run's rows, one more aggregate, is not zero. -#}
{% macro _sw_incremental_fresh_sql(cfg, plan, scope) -%}
    {%- set aggregates = {} -%}
    {%- do aggregates.update(cfg.aggregates) -%}
    {%- set filters = [] -%}
    {%- set run_rows = spark_windows._sw_incremental_run_rows_condition(cfg, plan) -%}
    {%- if run_rows is not none -%}
        {%- set counted = spark_windows._sw_incremental_free_name(cfg, 'sw_rows_of_this_run') -%}
        {%- do aggregates.update({counted: 'count(case when ' ~ run_rows ~ ' then 1 end)'}) -%}
        {%- do filters.append('__sw_a.' ~ counted ~ ' > 0') -%}
    {%- endif -%}
    {%- if plan.watermark_prev_us is not none -%}
        {%- do filters.append('unix_micros(__sw_a.window_end) + ' ~ cfg.lateness_us ~ ' > ' ~ plan.watermark_prev_us) -%}
    {%- endif %}
    select {% for column in cfg.group_cols + ['window_start', 'window_end'] + cfg.agg_names %}__sw_a.{{ column }}{{ ', ' if not loop.last }}{% endfor %}
    from {{ spark_windows.window_aggregate(scope, cfg.time_col, cfg.window, cfg.group_cols, aggregates) }} as __sw_a
    {%- if filters %}
    where {{ filters | join(' and ') }}
    {%- endif %}
{%- endmacro %}


{#- `name`, with `_` added until it is no aggregate's nor group column's name (window_aggregate
    refuses names starting with __sw). -#}
{% macro _sw_incremental_free_name(cfg, name) %}
    {%- set taken = (cfg.agg_names + cfg.group_cols) | map('lower') | list -%}
    {%- set ns = namespace(name=name) -%}
    {%- for _ in range(taken | length) -%}
        {%- if ns.name in taken -%}
            {%- set ns.name = ns.name ~ '_' -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(ns.name) }}
{% endmacro %}


{#- Of `candidates` (fresh windows, __sw_fresh_window true, and with `with_stored` the stored
    windows of the partitions rewritten), one row per window, the fresh one where both are, with
    the stored revision and timing it replaces (__sw_old_revision, __sw_old_timing) and its end
    where it was stored (__sw_old_end): what _sw_incremental_emission_sql reads. -#}
{% macro _sw_incremental_next_sql(cfg, candidates, with_stored) -%}
    {%- set window_keys = cfg.group_cols + ['window_start', 'window_end'] -%}
    {%- set columns = window_keys + cfg.agg_names -%}
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
        from {{ candidates }}
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
    from {{ candidates }}
    {%- endif %}
{%- endmacro %}


{#- The rows of this run that missed all their windows, with the windows and the watermark. -#}
{% macro _sw_incremental_late_sql(cfg, model_sql, plan) -%}
select
    __sw_new.*,
    {{ spark_windows._sw_incremental_late_columns(cfg, plan) }}
from (
    {{ spark_windows._sw_incremental_input_sql(cfg, model_sql, plan, 'run') }}
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
