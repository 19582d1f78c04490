{#- CUMULATE: windows that start at each tumbling boundary of `size` and end every `step`
    until `size`, as Flink SQL's CUMULATE (step first). -#}
{% macro cumulate(relation, time_col, step, size, offset=none, time_zone=none) -%}
    {#- checked and rendered when the model is compiled, not while dbt parses the project:
        a bad argument then fails only the models that hold it -#}
    {%- if not execute -%}
        {{ return(spark_windows._sw_parse_placeholder()) }}
    {%- endif -%}
    {{ return(adapter.dispatch('cumulate', 'spark_windows')(relation, time_col, step, size, offset, time_zone)) }}
{%- endmacro %}


{% macro default__cumulate(relation, time_col, step, size, offset=none, time_zone=none) -%}
    {{ spark_windows._sw_unsupported_adapter('cumulate') }}
{%- endmacro %}


{% macro spark__cumulate(relation, time_col, step, size, offset=none, time_zone=none) -%}
    {%- do spark_windows._sw_require_relation(relation, 'cumulate') -%}
    {%- do spark_windows._sw_require_column(time_col, 'cumulate', 'time_col') -%}
    {%- set step_us = spark_windows._sw_duration_us(step, 'cumulate', 'step') -%}
    {%- set size_us = spark_windows._sw_duration_us(size, 'cumulate', 'size') -%}
    {%- do spark_windows._sw_require_multiple(size, size_us, 'step', step, step_us, 'cumulate') -%}
    {%- set offset_us = spark_windows._sw_offset_us(offset, size_us, 'cumulate') -%}
    {%- set described = spark_windows._sw_describe(relation) -%}
    {%- set columns = spark_windows._sw_relation_columns(relation, 'cumulate', {'time_col': time_col}, described) -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, [time_col], 'cumulate', 'time_col') -%}
    {%- set mode = spark_windows._sw_time_mode(relation, time_col, time_zone, 'cumulate', described) -%}
    {%- set ts_us = spark_windows._sw_time_us(time_col, mode) -%}
    {%- set start_us = spark_windows._sw_align_us(ts_us, size_us, offset_us) -%}
    {#- The row lies in step number floor((ts - start) / step) + 1 of its cumulating period;
        it belongs to that window and to every longer one up to `size`. -#}
    {%- set first_step -%}
        (({{ ts_us }} - {{ start_us }}) div {{ step_us }} + 1)
    {%- endset -%}
    {%- set relation = spark_windows._sw_batch_input(relation, time_col, size_us, 'cumulate', mode) -%}
    {%- set windows -%}
(
    select
        {{ spark_windows._sw_input_columns('__sw_source', relation, columns, time_col, ['window_start', 'window_end', 'window_time'], 'cumulate') }},
        {{ spark_windows._sw_window_columns(start_us, start_us ~ ' + __sw_cumulate_step * ' ~ step_us, mode) }}
    from {{ relation }} as __sw_source
    lateral view explode(sequence({{ first_step }}, cast({{ size_us // step_us }} as bigint))) __sw_cumulate as __sw_cumulate_step
    where {{ time_col }} is not null
)
    {%- endset -%}
    {{ spark_windows._sw_batch_output(windows) }}
{%- endmacro %}
