{#- SESSION: windows that close after `gap` without rows, per partition, as Flink SQL's SESSION.
    A row at most `gap` after the previous one (exactly `gap` included) continues the session;
    window_end is the session's last time + gap. `gap` may also be a SQL expression evaluated
    per row (Flink's dynamic gap): see macros/_internal/_sw_session_gap.sql. -#}
{% macro session(relation, time_col, gap, partition_by=none) -%}
    {#- checked and rendered when the model is compiled, not while dbt parses the project:
        a bad argument then fails only the models that hold it -#}
    {%- if not execute -%}
        {{ return(spark_windows._sw_parse_placeholder()) }}
    {%- endif -%}
    {{ return(adapter.dispatch('session', 'spark_windows')(relation, time_col, gap, partition_by)) }}
{%- endmacro %}


{% macro default__session(relation, time_col, gap, partition_by=none) -%}
    {{ spark_windows._sw_unsupported_adapter('session') }}
{%- endmacro %}


{% macro spark__session(relation, time_col, gap, partition_by=none) -%}
    {%- do spark_windows._sw_require_relation(relation, 'session') -%}
    {%- do spark_windows._sw_require_column(time_col, 'session', 'time_col') -%}
    {%- set gap_us = spark_windows._sw_session_gap_us(gap, 'session') -%}
    {%- set keys = spark_windows._sw_column_list(partition_by, 'session', 'partition_by') -%}
    {%- set key_aliases = [] -%}
    {%- for key in keys -%}
        {%- do key_aliases.append('__sw_key_' ~ loop.index) -%}
    {%- endfor -%}
    {%- do spark_windows._sw_refuse_in_microbatch('session', "a session lasts as long as its rows keep coming, across any batch's edges") -%}
    {%- set described = spark_windows._sw_describe(relation) -%}
    {%- set columns = spark_windows._sw_relation_columns(relation, 'session', {'time_col': time_col}, described) -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, [time_col], 'session', 'time_col') -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, keys, 'session', 'partition_by') -%}
    {%- set input_columns = spark_windows._sw_input_columns('__sw_source', relation, columns, time_col, ['window_start', 'window_end', 'window_time'], 'session') -%}
    {#- a timestamp_ntz column: sessions of its wall-clock times, bounds of type timestamp_ntz -#}
    {%- set mode = spark_windows._sw_time_mode(relation, time_col, none, 'session', described) -%}
    {%- if gap_us is none -%}
        {%- do spark_windows._sw_require_interval_gap(relation, gap, described, 'session') -%}
        {%- set rows_sql = spark_windows._sw_dynamic_gap_rows(relation, time_col, gap, keys, key_aliases, input_columns, mode) -%}
    {%- else -%}
        {%- set rows_sql -%}
    select
        struct({{ input_columns }}) as __sw_row,
        {%- for key in keys %}
        {{ key }} as {{ key_aliases[loop.index0] }},
        {%- endfor %}
        {{ spark_windows._sw_time_us(time_col, mode) }} as __sw_ts
    from {{ relation }} as __sw_source
    where {{ time_col }} is not null
        {%- endset -%}
    {%- endif -%}
    {{ return(spark_windows._sw_session_windows(rows_sql, key_aliases, gap_us, mode)) }}
{%- endmacro %}
