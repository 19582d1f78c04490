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
        {{ return(spark_windows._sw_dynamic_session(relation, time_col, gap, keys, key_aliases, partition_clause)) }}
    {%- endif -%}
    {#- The source row travels as one struct so that every input column comes out unchanged
        without listing them (and without the helper columns). -#}
(
    select
        __sw_sessions.__sw_row.*,
        {{ spark_windows._sw_window_columns('__sw_sessions.__sw_session_first', '__sw_sessions.__sw_session_last + ' ~ gap_us) }}
    from (
        select
            __sw_row,
            min(__sw_ts) over (partition by {{ (key_aliases + ['__sw_session_index']) | join(', ') }}) as __sw_session_first,
            max(__sw_ts) over (partition by {{ (key_aliases + ['__sw_session_index']) | join(', ') }}) as __sw_session_last
        from (
            select
                __sw_row,
                {%- for alias in key_aliases %}
                {{ alias }},
                {%- endfor %}
                __sw_ts,
                sum(__sw_starts_session) over (
                    {{ partition_clause }} order by __sw_ts rows between unbounded preceding and current row
                ) as __sw_session_index
            from (
                select
                    __sw_row,
                    {%- for alias in key_aliases %}
                    {{ alias }},
                    {%- endfor %}
                    __sw_ts,
                    case
                        when __sw_ts - lag(__sw_ts) over ({{ partition_clause }} order by __sw_ts) <= {{ gap_us }} then 0
                        else 1
                    end as __sw_starts_session
                from (
                    select
                        struct(__sw_source.*) as __sw_row,
                        {%- for key in keys %}
                        {{ key }} as {{ key_aliases[loop.index0] }},
                        {%- endfor %}
                        {{ spark_windows._sw_ts_us(time_col) }} as __sw_ts
                    from {{ relation }} as __sw_source
                    where {{ time_col }} is not null
                ) as __sw_rows
            ) as __sw_marked
        ) as __sw_numbered
    ) as __sw_sessions
)
{%- endmacro %}
