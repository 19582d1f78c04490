{#- TUMBLE: fixed-size, non-overlapping windows, as Flink SQL's TUMBLE table-valued function. -#}
{% macro tumble(relation, time_col, size, offset=none, time_zone=none) -%}
    {#- checked and rendered when the model is compiled, not while dbt parses the project:
        a bad argument then fails only the models that hold it -#}
    {%- if not execute -%}
        {{ return(spark_windows._sw_parse_placeholder()) }}
    {%- endif -%}
    {{ return(adapter.dispatch('tumble', 'spark_windows')(relation, time_col, size, offset, time_zone)) }}
{%- endmacro %}


{% macro default__tumble(relation, time_col, size, offset=none, time_zone=none) -%}
    {{ spark_windows._sw_unsupported_adapter('tumble') }}
{%- endmacro %}


{% macro spark__tumble(relation, time_col, size, offset=none, time_zone=none) -%}
    {%- do spark_windows._sw_require_relation(relation, 'tumble') -%}
    {%- do spark_windows._sw_require_column(time_col, 'tumble', 'time_col') -%}
    {%- set size_us = spark_windows._sw_duration_us(size, 'tumble', 'size') -%}
    {%- set offset_us = spark_windows._sw_offset_us(offset, size_us, 'tumble') -%}
    {%- set described = spark_windows._sw_describe(relation) -%}
    {%- set columns = spark_windows._sw_relation_columns(relation, 'tumble', {'time_col': time_col}, described) -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, [time_col], 'tumble', 'time_col') -%}
    {%- set mode = spark_windows._sw_time_mode(relation, time_col, time_zone, 'tumble', described) -%}
    {%- set start_us = spark_windows._sw_align_us(spark_windows._sw_time_us(time_col, mode), size_us, offset_us) -%}
    {%- set relation = spark_windows._sw_batch_input(relation, time_col, size_us, 'tumble', mode) -%}
    {%- set windows -%}
(
    select
        {{ spark_windows._sw_input_columns('__sw_source', relation, columns, time_col, ['window_start', 'window_end', 'window_time'], 'tumble') }},
        {{ spark_windows._sw_window_columns(start_us, start_us ~ ' + ' ~ size_us, mode) }}
    from {{ relation }} as __sw_source
    where {{ time_col }} is not null
)
    {%- endset -%}
    {{ spark_windows._sw_batch_output(windows) }}
{%- endmacro %}
