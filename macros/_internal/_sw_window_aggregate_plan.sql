{#- The plan window_aggregate takes for `spec`, `keys` and `aggs` (checked), over `relation`
    (whose columns are `columns`, none when unknown), as `choice` says
    (_sw_window_aggregate_choice): the pane plans add each row once into panes and merge panes
    per window, in one phase or two ('two_phase': before the shuffle too); 'row_copy' copies each
    row into its windows (the hop or cumulate macro) and groups; 'spark_window' groups by Spark's
    window(). Tumbling windows (one pane) and sessions have one plan each, whatever the choice.
    Aggregates that panes cannot merge (row_copy kind), an exact count(distinct) of tumbling
    windows and a hop whose size is no whole multiple of its slide take the row-copy plan.
    The choice stands as a comment before the plan's SQL. -#}
{% macro _sw_window_aggregate_plan(relation, time_col, spec, keys, aggs, columns, choice) -%}
    {%- set row_copy = aggs | selectattr('kind', 'equalto', 'row_copy') | list | length > 0 -%}
    {%- set distinct = aggs | selectattr('kind', 'equalto', 'count_distinct') | list | length > 0 -%}
    {%- set one_pane = spec.type == 'tumble' or (spec.type != 'session' and spec.aligned and spec.panes_per_window == 1) -%}
    {%- set comment = '/* window_aggregate plan: ' ~ choice.plan ~ ' (' ~ choice.why ~ ') */\n' if choice.why else '' -%}
    {#- sessions of a fixed gap: GROUP BY of each row's session index (any aggregate), unless
        the input has window columns of its own, which the session macro replaces -#}
    {%- set window_columns = ['window_start', 'window_end', 'window_time'] -%}
    {%- if spec.type == 'session' and spec.gap_us is not none
        and (columns or []) | map('lower') | select('in', window_columns) | list | length == 0 -%}
        {{ return(spark_windows._sw_session_aggregate(relation, time_col, spec.gap_us, keys, aggs)) }}
    {%- endif -%}
    {%- if choice.plan == 'spark_window' -%}
        {{ return(comment ~ spark_windows._sw_spark_window_aggregate(relation, time_col, spec, keys, aggs)) }}
    {%- endif -%}
    {#- a window of one pane holds each row once: GROUP BY of the tumbling rows is the plan -#}
    {#- a hop whose size is not a whole multiple of its slide has no common pane per window:
        each row is copied into its ceil(size / slide) windows -#}
    {%- if choice.plan == 'row_copy' or spec.type == 'session' or row_copy or (distinct and one_pane) or not spec.aligned -%}
        {{ return(comment ~ spark_windows._sw_row_copy_aggregate(relation, time_col, spec, keys, aggs)) }}
    {%- endif -%}
    {%- set two_phase = choice.plan == 'two_phase' -%}
    {%- if one_pane -%}
        {{ return(spark_windows._sw_sliced_aggregate(relation, time_col, keys, aggs, 'tumble', spec.size_us, 1, spec.offset_us % spec.size_us)) }}
    {%- endif -%}
    {%- if distinct -%}
        {{ return(comment ~ spark_windows._sw_distinct_aggregate(relation, time_col, keys, aggs, spec.type, spec.pane_us, spec.panes_per_window, spec.offset_us, two_phase)) }}
    {%- endif -%}
    {{ return(comment ~ spark_windows._sw_sliced_aggregate(relation, time_col, keys, aggs, spec.type, spec.pane_us, spec.panes_per_window, spec.offset_us, two_phase)) }}
{%- endmacro %}


{#- The plan of a hop (or tumble) by Spark's own window(): GROUP BY of the window each row falls in
    (Spark expands each row into its ceil(size / slide) windows and keeps those that hold it). A
    row without a time is in no window. window_time is read from the window's end (Spark's
    window_time() of the window fails beside a distinct aggregate). -#}
{% macro _sw_spark_window_aggregate(relation, time_col, spec, keys, aggs) -%}
    {%- set group_columns = keys + ['window'] -%}
    {%- set slide_us = spec.pane_us if spec.type == 'hop' else spec.size_us -%}
(
    select
        {%- for key in keys %}
        {{ key }},
        {%- endfor %}
        window.start as window_start,
        window.end as window_end,
        timestamp_micros(unix_micros(window.end) - 1) as window_time
        {%- for agg in aggs %},
        {{ agg.sql }} as {{ agg.name }}
        {%- endfor %}
    from {{ relation }} as __sw_source
    where {{ time_col }} is not null
    group by {% for key in keys %}{{ key }}, {% endfor %}window({{ time_col }}, '{{ spec.size_us }} microseconds', '{{ slide_us }} microseconds', '{{ spec.offset_us % slide_us }} microseconds')
)
{%- endmacro %}


{#- What window_aggregate does for `spec` and `aggs`: {plan, why}. `plan` (the analyst's, which
    wins) or `agg_phase_strategy` ('one_phase' or 'two_phase': the pane plan in one or two
    phases) name it; else it is chosen from what is known when the model compiles (`why` says
    what; `types`: the input's column types, where known; `input`: {relation, time_col, keys, rows},
    whose statistics are read where the choice needs them). Tumbling windows and sessions have
    one plan each (why empty). -#}
{% macro _sw_window_aggregate_choice(spec, aggs, agg_phase_strategy, plan, macro_name, types={}, input=none) %}
    {%- set strategy = spark_windows._sw_agg_phase_strategy(agg_phase_strategy, macro_name) if agg_phase_strategy is not none else none -%}
    {%- set accepted = ['one_phase', 'two_phase', 'row_copy', 'spark_window'] -%}
    {%- if plan is not none and (plan is not string or plan | lower not in accepted) -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": plan " ~ (("'" ~ plan ~ "'") if plan is string else plan) ~ " is not one of "
            ~ "'one_phase' (rows shuffled by group_by, then added into panes that are merged per window), "
            ~ "'two_phase' (rows added into panes before the shuffle too), 'row_copy' (each row copied into its windows, then "
            ~ "GROUP BY) or 'spark_window' (GROUP BY Spark's window(), hop and tumble only); leave it out to let "
            ~ macro_name ~ " choose") }}
    {%- endif -%}
    {%- set plan = plan | lower if plan is not none else none -%}
    {%- if plan is not none and strategy is not none and plan != strategy -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": plan ('" ~ plan ~ "') and agg_phase_strategy ('" ~ strategy ~ "') disagree; give one of them") }}
    {%- endif -%}
    {%- if plan == 'spark_window' and spec.type not in ['hop', 'tumble'] -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": plan 'spark_window' is for hop and tumble windows (Spark's window()); a " ~ spec.type
            ~ " window takes 'one_phase', 'two_phase' or 'row_copy'") }}
    {%- endif -%}
    {%- if plan == 'spark_window' and spec.pane_us > spec.size_us -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": plan 'spark_window' cannot take a hop with gaps (a slide longer than the size): Spark's "
            ~ "window() refuses it; take 'row_copy'") }}
    {%- endif -%}
    {%- if spec.type in ['tumble', 'session'] -%}
        {{ return({'plan': plan or strategy or 'one_phase', 'why': ''}) }}
    {%- endif -%}
    {%- if plan != 'spark_window' and aggs | selectattr('kind', 'equalto', 'row_copy') | list -%}
        {{ return({'plan': 'row_copy', 'why': 'an aggregate that panes cannot merge'}) }}
    {%- endif -%}
    {%- if plan != 'spark_window' and not spec.aligned -%}
        {{ return({'plan': 'row_copy', 'why': 'no pane makes every window: the size is no whole multiple of the slide'}) }}
    {%- endif -%}
    {%- if plan is not none or strategy is not none -%}
        {{ return({'plan': plan or strategy, 'why': 'given'}) }}
    {%- endif -%}
    {{ return(spark_windows._sw_window_aggregate_default(spec, aggs, types, input)) }}
{% endmacro %}


{#- The plan window_aggregate chooses for an aligned hop or cumulate window of mergeable
    aggregates when the model names none, from what is known when the model compiles: how many
    windows hold each row, the aggregates, the input's column types where it is a table (`types`,
    lower-case name: type) and the rows per group and slide where Spark keeps statistics of it
    (`input`: _sw_rows_per_group_and_slide). Measured in docs/benchmarks.md, "Few windows per row":
    - A row of a hop of two windows per row: copying it into both windows and grouping costs less
      than making panes and merging them two by two. Only aggregates whose type and value are the
      same in every plan qualify: count, min, max, count(distinct), and sum of an integer column
      (a decimal sum keeps another scale, avg adds in double). Counts, sums and extremes copy rows
      (the row-copy plan), or group by Spark's window(), which expands the rows in Spark's own
      plan, where the statistics show sparse groups; a count(distinct) groups by Spark's window()
      unless the statistics show dense groups (two phases).
    - Otherwise the pane plan: in two phases where a group holds at least
      _sw_two_phase_rows_per_group_and_slide() rows per slide (each task's rows are added into
      panes before the shuffle, which then carries a row per group and pane, not per row); in one
      phase when it holds fewer or nothing tells. -#}
{% macro _sw_window_aggregate_default(spec, aggs, types={}, input=none) %}
    {%- set integral = ['tinyint', 'smallint', 'int', 'bigint'] -%}
    {%- set same = [] -%}
    {%- for agg in aggs -%}
        {%- if agg.kind in ['count_star', 'count', 'min', 'max', 'count_distinct']
            or (agg.kind == 'sum' and types.get(spark_windows._sw_column_key(agg.arg)) in integral) -%}
            {%- do same.append(agg.name) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set distinct = aggs | selectattr('kind', 'equalto', 'count_distinct') | list | length > 0 -%}
    {%- set windows = spec.panes_per_window ~ ' windows per row' if spec.type == 'hop' else 'cumulate' -%}
    {%- set two_rows = spec.type == 'hop' and spec.panes_per_window == 2 and same | length == aggs | length -%}
    {%- set density = spark_windows._sw_rows_per_group_and_slide(input['relation'], input['time_col'], input['keys'], spec.pane_us, input['rows']) if input else none -%}
    {%- set known = '; ' ~ ('%.1f' | format(density)) ~ ' rows per group and slide' if density is not none else '' -%}
    {%- set dense = density is not none and density >= spark_windows._sw_two_phase_rows_per_group_and_slide() -%}
    {%- if two_rows and not distinct -%}
        {{ return({'plan': 'spark_window' if density is not none and not dense else 'row_copy', 'why': windows ~ known}) }}
    {%- endif -%}
    {%- if dense -%}
        {{ return({'plan': 'two_phase', 'why': windows ~ known}) }}
    {%- endif -%}
    {%- if two_rows -%}
        {{ return({'plan': 'spark_window', 'why': windows ~ known}) }}
    {%- endif -%}
    {{ return({'plan': 'one_phase', 'why': windows ~ known}) }}
{% endmacro %}


{#- The rows per group and slide from which the pane plan takes two phases by default (docs/benchmarks.md,
    "Few windows per row": the shapes measured on both sides of it). -#}
{% macro _sw_two_phase_rows_per_group_and_slide() %}
    {{ return(12) }}
{% endmacro %}


{#- agg_phase_strategy, as Flink's table.optimizer.agg-phase-strategy names it: 'one_phase'
    (default: the rows are shuffled by group and added into panes after the shuffle) or
    'two_phase' (each task adds its rows into panes before the shuffle), in any case. -#}
{% macro _sw_agg_phase_strategy(value, macro_name) -%}
    {%- set accepted = ['one_phase', 'two_phase'] -%}
    {%- if value is none -%}
        {{ return('one_phase') }}
    {%- endif -%}
    {%- if value is not string or value | lower not in accepted -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": agg_phase_strategy " ~ (("'" ~ value ~ "'") if value is string else value) ~ " is not one of "
            ~ "'one_phase' (the default: rows shuffled by group_by, then added into panes) or "
            ~ "'two_phase' (rows added into panes before the shuffle: faster where many rows share a group and pane)") }}
    {%- endif -%}
    {{ return(value | lower) }}
{%- endmacro %}
