{#- windowed_incremental, step 3 for fixed windows (tumble, hop, cumulate): the next version of
    the partitions a run rewrites, its late rows and its changelog. Every time below is bigint
    microseconds since the epoch (none when there is none yet). -#}


{#- The rows of the next version of every partition this run rewrites:
      fresh  windows that new, non-late rows fall in and that have not expired, recomputed in
             full from every row ingested so far;
      stored the stored windows of those partitions and of the partitions whose windows may
             become final under the new watermark, unchanged but for is_final.
    A window found in both keeps its fresh row (one pass: fresh is computed once). The windows
    new rows fall in are those whose count of this run's rows is not zero: one more aggregate
    of the windows of the scope (the rows of their time range), which holds every new row that
    is not late, so the input is read once. `plan` holds the times computed by the
    materialization. -#}
{% macro _sw_incremental_pending_sql(cfg, model_sql, target, plan) -%}
    {%- set keys = cfg.group_cols -%}
    {%- set window_keys = keys + ['window_start', 'window_end'] -%}
    {%- set columns = window_keys + cfg.agg_names -%}
    {%- set with_stored = plan.target_exists and plan.partition_ranges | length > 0 -%}
    {%- set aggregates = {} -%}
    {%- do aggregates.update(cfg.aggregates) -%}
    {%- set run_rows = spark_windows._sw_incremental_run_rows_condition(cfg, plan) -%}
    {%- set filters = [] -%}
    {%- if run_rows is not none -%}
        {#- a name that is no aggregate's nor group column's (window_aggregate refuses __sw names) -#}
        {%- set taken = (cfg.agg_names + keys) | map('lower') | list -%}
        {%- set ns = namespace(name='sw_rows_of_this_run') -%}
        {%- for _ in range(taken | length) -%}
            {%- if ns.name in taken -%}
                {%- set ns.name = ns.name ~ '_' -%}
            {%- endif -%}
        {%- endfor -%}
        {%- do aggregates.update({ns.name: 'count(case when ' ~ run_rows ~ ' then 1 end)'}) -%}
        {%- do filters.append('__sw_a.' ~ ns.name ~ ' > 0') -%}
    {%- endif -%}
    {%- if plan.watermark_prev_us is not none -%}
        {%- do filters.append('unix_micros(__sw_a.window_end) + ' ~ cfg.lateness_us ~ ' > ' ~ plan.watermark_prev_us) -%}
    {%- endif -%}
with __sw_scope as (
    {{ spark_windows._sw_incremental_input_sql(cfg, model_sql, plan, 'processed') }}
        and {{ cfg.time_col }} >= {{ spark_windows._sw_us_literal(plan.scope_from_us) }}
        and {{ cfg.time_col }} < {{ spark_windows._sw_us_literal(plan.scope_until_us) }}
),

__sw_fresh as (
    select {% for column in columns %}__sw_a.{{ column }}{{ ', ' if not loop.last }}{% endfor %}
    from {{ spark_windows.window_aggregate('__sw_scope', cfg.time_col, cfg.window, keys, aggregates) }} as __sw_a
    {%- if filters %}
    where {{ filters | join(' and ') }}
    {%- endif %}
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
    {{ spark_windows._sw_incremental_final_columns(cfg, plan) }},
    __sw_fresh_window,
    {{ spark_windows._sw_incremental_partition(cfg) }} as window_partition
from (
    {{ spark_windows._sw_incremental_emission_sql(cfg, plan, '__sw_next') }}
) as __sw_fired
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
