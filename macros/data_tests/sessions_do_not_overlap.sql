{#- Passes when, within each partition (the `partition_by` columns; the whole model when none),
    no two session windows overlap or touch: ordered by window_start, each session starts after
    the previous one's window_end (a session that starts at or before it would have merged).
    Failing rows are the sessions that start too early, with the previous session's bounds.
    Checking each session against the one before it in start order is enough: if any two
    overlap, some such neighbouring pair does. Rows with a NULL window_start are not checked. -#}
{% test sessions_do_not_overlap(model, partition_by=none) %}
    {{ return(adapter.dispatch('test_sessions_do_not_overlap', 'spark_windows')(model, partition_by)) }}
{% endtest %}


{% macro default__test_sessions_do_not_overlap(model, partition_by) %}
{%- set keys = spark_windows._sw_column_list(partition_by, 'sessions_do_not_overlap', 'partition_by') -%}
{%- set partition_clause = ('partition by ' ~ keys | join(', ') ~ ' ') if keys else '' -%}

with

sessions as (
    select * from {{ model }}
    where window_start is not null
),

with_previous as (
    select
        *,
        lag(window_start) over ({{ partition_clause }}order by window_start, window_end) as __sw_previous_window_start,
        lag(window_end) over ({{ partition_clause }}order by window_start, window_end) as __sw_previous_window_end
    from sessions
),

overlapping as (
    select * from with_previous
    where window_start <= __sw_previous_window_end
)

select * from overlapping

{% endmacro %}
