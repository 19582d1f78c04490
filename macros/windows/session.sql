{#- SESSION: windows that close after `gap` without rows, per partition, as Flink SQL's SESSION.
    A row at most `gap` after the previous one (exactly `gap` included) continues the session;
    window_end is the session's last time + gap. `gap` may also be a SQL expression evaluated
    per row (Flink's dynamic gap): see macros/_internal/_sw_session_gap.sql. -#}
{% macro session(relation, time_col, gap, partition_by=none) -%}
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
    {%- set partition_clause = ('partition by ' ~ key_aliases | join(', ')) if keys else '' -%}
    {%- if gap_us is none -%}
        {%- set rows_sql = spark_windows._sw_dynamic_gap_rows(relation, time_col, gap, keys, key_aliases) -%}
    {%- else -%}
        {%- set rows_sql -%}
    select
        struct(__sw_source.*) as __sw_row,
        {%- for key in keys %}
        {{ key }} as {{ key_aliases[loop.index0] }},
        {%- endfor %}
        {{ spark_windows._sw_ts_us(time_col) }} as __sw_ts
    from {{ relation }} as __sw_source
    where {{ time_col }} is not null
        {%- endset -%}
    {%- endif -%}
    {{ return(spark_windows._sw_session_windows(rows_sql, key_aliases, partition_clause, gap_us)) }}
{%- endmacro %}
