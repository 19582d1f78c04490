{#- window_aggregate: windowed aggregation that adds each row once into slices (panes) and
    merges slices per window, so hop and cumulate cost about what tumble costs, whatever
    size/slide. Same results as the table-valued macro followed by GROUP BY. -#}
{% macro window_aggregate(relation, time_col, window, group_by, aggregates) -%}
    {#- checked and rendered when the model is compiled, not while dbt parses the project:
        a bad argument then fails only the models that hold it -#}
    {%- if not execute -%}
        {{ return(spark_windows._sw_parse_placeholder()) }}
    {%- endif -%}
    {{ return(adapter.dispatch('window_aggregate', 'spark_windows')(relation, time_col, window, group_by, aggregates)) }}
{%- endmacro %}


{% macro default__window_aggregate(relation, time_col, window, group_by, aggregates) -%}
    {{ spark_windows._sw_unsupported_adapter('window_aggregate') }}
{%- endmacro %}


{% macro spark__window_aggregate(relation, time_col, window, group_by, aggregates) -%}
    {%- set name = 'window_aggregate' -%}
    {%- do spark_windows._sw_require_relation(relation, name) -%}
    {%- do spark_windows._sw_require_column(time_col, name, 'time_col') -%}
    {%- set spec = spark_windows._sw_window_spec(window, name) -%}
    {%- set keys = spark_windows._sw_column_list(group_by, name, 'group_by') -%}
    {%- set aggs = spark_windows._sw_parse_aggregates(aggregates, name, keys) -%}
    {%- for agg in aggs -%}
        {%- do spark_windows._sw_require_expression(agg.sql, name, "aggregate '" ~ agg.name ~ "'",
            "one aggregate call such as 'sum(car_count)' or 'count(*)'") -%}
    {%- endfor -%}
    {%- set columns = spark_windows._sw_relation_columns(relation) -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, [time_col], name, 'time_col') -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, keys, name, 'group_by') -%}
    {%- set row_copy = aggs | selectattr('kind', 'equalto', 'row_copy') | list | length > 0 -%}
    {%- set distinct = aggs | selectattr('kind', 'equalto', 'count_distinct') | list | length > 0 -%}
    {%- set one_pane = spec.type == 'tumble' or (spec.type != 'session' and spec.panes_per_window == 1) -%}
    {#- sessions of a fixed gap: GROUP BY of each row's session index (any aggregate), unless
        the input has window columns of its own, which the session macro replaces -#}
    {%- set window_columns = ['window_start', 'window_end', 'window_time'] -%}
    {%- if spec.type == 'session' and spec.gap_us is not none
        and (columns or []) | map('lower') | select('in', window_columns) | list | length == 0 -%}
        {{ return(spark_windows._sw_session_aggregate(relation, time_col, spec.gap_us, keys, aggs)) }}
    {%- endif -%}
    {#- a window of one pane holds each row once: GROUP BY of the tumbling rows is the plan -#}
    {%- if spec.type == 'session' or row_copy or (distinct and one_pane) -%}
        {{ return(spark_windows._sw_row_copy_aggregate(relation, time_col, spec, keys, aggs)) }}
    {%- endif -%}
    {%- if one_pane -%}
        {{ return(spark_windows._sw_sliced_aggregate(relation, time_col, keys, aggs, 'tumble', spec.size_us, 1, spec.offset_us % spec.size_us)) }}
    {%- endif -%}
    {%- if distinct -%}
        {{ return(spark_windows._sw_distinct_aggregate(relation, time_col, keys, aggs, spec.type, spec.pane_us, spec.panes_per_window, spec.offset_us)) }}
    {%- endif -%}
    {{ return(spark_windows._sw_sliced_aggregate(relation, time_col, keys, aggs, spec.type, spec.pane_us, spec.panes_per_window, spec.offset_us)) }}
{%- endmacro %}
