{#- The plan window_aggregate takes for `spec`, `keys` and `aggs` (checked), over `relation`
    (whose columns are `columns`, none when unknown). two_phase: the pane plans of hop and
    cumulate add rows into panes before the shuffle (agg_phase_strategy='two_phase'). -#}
{% macro _sw_window_aggregate_plan(relation, time_col, spec, keys, aggs, columns, two_phase=false) -%}
    {%- set row_copy = aggs | selectattr('kind', 'equalto', 'row_copy') | list | length > 0 -%}
    {%- set distinct = aggs | selectattr('kind', 'equalto', 'count_distinct') | list | length > 0 -%}
    {%- set one_pane = spec.type == 'tumble' or (spec.type != 'session' and spec.aligned and spec.panes_per_window == 1) -%}
    {#- sessions of a fixed gap: GROUP BY of each row's session index (any aggregate), unless
        the input has window columns of its own, which the session macro replaces -#}
    {%- set window_columns = ['window_start', 'window_end', 'window_time'] -%}
    {%- if spec.type == 'session' and spec.gap_us is not none
        and (columns or []) | map('lower') | select('in', window_columns) | list | length == 0 -%}
        {{ return(spark_windows._sw_session_aggregate(relation, time_col, spec.gap_us, keys, aggs)) }}
    {%- endif -%}
    {#- a window of one pane holds each row once: GROUP BY of the tumbling rows is the plan -#}
    {#- a hop whose size is not a whole multiple of its slide has no common pane per window:
        each row is copied into its ceil(size / slide) windows -#}
    {%- if spec.type == 'session' or row_copy or (distinct and one_pane) or not spec.aligned -%}
        {{ return(spark_windows._sw_row_copy_aggregate(relation, time_col, spec, keys, aggs)) }}
    {%- endif -%}
    {%- if one_pane -%}
        {{ return(spark_windows._sw_sliced_aggregate(relation, time_col, keys, aggs, 'tumble', spec.size_us, 1, spec.offset_us % spec.size_us)) }}
    {%- endif -%}
    {%- if distinct -%}
        {{ return(spark_windows._sw_distinct_aggregate(relation, time_col, keys, aggs, spec.type, spec.pane_us, spec.panes_per_window, spec.offset_us, two_phase)) }}
    {%- endif -%}
    {{ return(spark_windows._sw_sliced_aggregate(relation, time_col, keys, aggs, spec.type, spec.pane_us, spec.panes_per_window, spec.offset_us, two_phase)) }}
{%- endmacro %}


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
