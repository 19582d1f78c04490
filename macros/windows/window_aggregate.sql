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
    {%- set spec = spark_windows._sw_window_spec(window, name, any_hop=true) -%}
    {%- set keys = spark_windows._sw_column_list(group_by, name, 'group_by') -%}
    {%- set aggs = spark_windows._sw_parse_aggregates(aggregates, name, keys) -%}
    {%- for agg in aggs -%}
        {%- do spark_windows._sw_require_expression(agg.sql, name, "aggregate '" ~ agg.name ~ "'",
            "one aggregate call such as 'sum(car_count)' or 'count(*)'") -%}
    {%- endfor -%}
    {%- set columns = spark_windows._sw_relation_columns(relation, name, {'time_col': time_col}) -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, [time_col], name, 'time_col') -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, keys, name, 'group_by') -%}
    {%- if spec.type == 'session' -%}
        {%- do spark_windows._sw_refuse_in_microbatch(name, "a session lasts as long as its rows keep coming, across any batch's edges") -%}
    {%- else -%}
        {%- set relation = spark_windows._sw_batch_input(relation, time_col, spec.size_us, name) -%}
    {%- endif -%}
    {{ return(spark_windows._sw_batch_output(spark_windows._sw_window_aggregate_plan(relation, time_col, spec, keys, aggs, columns))) }}
{%- endmacro %}
