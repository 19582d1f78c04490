{#- `rows_sql`'s rows, each with __sw_session_index: its session's number within its group
    (`keys`, columns of rows_sql; none for one stream), in time order. rows_sql selects __sw_ts
    (bigint microseconds) and, for a per-row gap (gap_us none), __sw_gap_us; every other column
    it selects comes out unchanged. In time order, a row starts a new session unless it lies
    within the earlier rows' reach: the previous time + gap for a fixed gap (exactly `gap` still
    continues, as Flink merges windows that touch), the largest time + gap so far for per-row
    gaps. Of rows tied on time, only the first in the window order can start a session (the
    others lie within its reach), and which one that is does not matter: the session index is a
    RANGE sum, the same for every tied row, so it never depends on how Spark orders ties. -#}
{% macro _sw_session_numbered(rows_sql, keys, gap_us) -%}
    {%- set partition_clause = ('partition by ' ~ keys | join(', ')) if keys else '' -%}
(
    select
        *,
        sum(__sw_starts_session) over (
            {{ partition_clause }} order by __sw_ts range between unbounded preceding and current row
        ) as __sw_session_index
    from (
        select
            *,
            case
                {%- if gap_us is not none %}
                when __sw_ts - lag(__sw_ts) over ({{ partition_clause }} order by __sw_ts) <= {{ gap_us }} then 0
                {%- else %}
                when __sw_ts <= max(__sw_ts + __sw_gap_us) over (
                    {{ partition_clause }} order by __sw_ts rows between unbounded preceding and 1 preceding
                ) then 0
                {%- endif %}
                else 1
            end as __sw_starts_session
        from (
            {{ rows_sql }}
        ) as __sw_rows
    ) as __sw_marked
)
{%- endmacro %}


{#- Session windows from rows, for a fixed gap (gap_us, an integer) or a per-row gap
    (gap_us none: the rows carry __sw_gap_us). `rows_sql` selects __sw_row (the source row as
    one struct, so that every input column comes out unchanged without listing them), the
    partition columns as `key_aliases`, __sw_ts and, for a per-row gap, __sw_gap_us. Each row
    comes out with its session's bounds (_sw_session_numbered): window_end is the session's
    largest time + gap. `mode` is the time column's (_sw_time_mode): __sw_ts on its time line. -#}
{% macro _sw_session_windows(rows_sql, key_aliases, gap_us, mode=none) -%}
    {%- set by_session = (key_aliases + ['__sw_session_index']) | join(', ') -%}
(
    select
        __sw_sessions.__sw_row.*,
        {%- if gap_us is not none %}
        {{ spark_windows._sw_window_columns('__sw_sessions.__sw_session_first', '__sw_sessions.__sw_session_last + ' ~ gap_us, mode) }}
        {%- else %}
        {{ spark_windows._sw_window_columns('__sw_sessions.__sw_session_first', '__sw_sessions.__sw_session_end', mode) }}
        {%- endif %}
    from (
        select
            __sw_row,
            min(__sw_ts) over (partition by {{ by_session }}) as __sw_session_first,
            {%- if gap_us is not none %}
            max(__sw_ts) over (partition by {{ by_session }}) as __sw_session_last
            {%- else %}
            max(__sw_ts + __sw_gap_us) over (partition by {{ by_session }}) as __sw_session_end
            {%- endif %}
        from {{ spark_windows._sw_session_numbered(rows_sql, key_aliases, gap_us) }} as __sw_numbered
    ) as __sw_sessions
)
{%- endmacro %}


{#- window_aggregate of session windows with a fixed gap: the session logic above without its
    last window pass. A session's rows share a session index per group, so a GROUP BY of the
    group and the index gives each session's first and last time and its aggregates: one sort
    (the lag and the running sum share it) and one aggregation, where the session rows and
    then GROUP BY of their window cost a second sort (min and max per session) and a third
    (the GROUP BY of the window). Rows with a NULL time belong to no session. -#}
{% macro _sw_session_aggregate(relation, time_col, gap_us, keys, aggs) -%}
    {%- set rows_sql -%}
select
    *,
    {{ spark_windows._sw_ts_us(time_col) }} as __sw_ts
from {{ relation }}
where {{ time_col }} is not null
    {%- endset -%}
(
    select
        {%- for key in keys %}
        {{ key }},
        {%- endfor %}
        {{ spark_windows._sw_window_columns('min(__sw_ts)', 'max(__sw_ts) + ' ~ gap_us) }}
        {%- for agg in aggs %},
        {{ agg.sql }} as {{ agg.name }}
        {%- endfor %}
    from {{ spark_windows._sw_session_numbered(rows_sql, keys, gap_us) }} as __sw_numbered
    group by {{ (keys + ['__sw_session_index']) | join(', ') }}
)
{%- endmacro %}
