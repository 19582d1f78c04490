{#- CALENDAR_WINDOW: windows that follow the wall calendar of a time zone: local days, ISO
    weeks (Monday to Monday), months, quarters or years. window_start and window_end are the
    instants at which the local period begins and ends, so a day is 23 or 25 hours long when
    the clocks change. window_date is the local date on which the period begins (a date: the
    day, the Monday of the week, the first day of the month, quarter or year), to group by or
    show. A row whose time is NULL belongs to no window. A timestamp_ntz column (wall-clock
    times, no zone) has the periods of its own wall clock, whatever the session time zone:
    window_start and window_end are then timestamp_ntz, and time_zone is left out. -#}
{% macro calendar_window(relation, time_col, unit, time_zone=none, offset=none) -%}
    {#- checked and rendered when the model is compiled, not while dbt parses the project:
        a bad argument then fails only the models that hold it -#}
    {%- if not execute -%}
        {{ return(spark_windows._sw_parse_placeholder()) }}
    {%- endif -%}
    {{ return(adapter.dispatch('calendar_window', 'spark_windows')(relation, time_col, unit, time_zone, offset)) }}
{%- endmacro %}


{% macro default__calendar_window(relation, time_col, unit, time_zone=none, offset=none) -%}
    {{ spark_windows._sw_unsupported_adapter('calendar_window') }}
{%- endmacro %}


{#- The period of a row is first guessed from its local date, then checked against the
    instants: where the clocks go back across midnight (America/St_Johns 1987-2010: 00:01 NDT
    back to 23:01 NST) the local date goes back to the day before for a while, and where they
    jump over midnight (America/Toronto 1919-03-31: 23:30 to 00:30) the day may begin after
    its first local instant. A row before the guessed period's start belongs to the period
    before, a row at or after its end to the period after; every bound is the same function
    of a date (_sw_local_midnight_us), so the windows tile time. -#}
{% macro spark__calendar_window(relation, time_col, unit, time_zone=none, offset=none) -%}
    {%- set name = 'calendar_window' -%}
    {%- do spark_windows._sw_require_relation(relation, name) -%}
    {%- do spark_windows._sw_require_column(time_col, name, 'time_col') -%}
    {%- set unit = spark_windows._sw_calendar_unit(unit, name) -%}
    {#- periods that begin at a wall-clock time other than midnight: less than a day either way -#}
    {%- set offset_us = spark_windows._sw_duration_us(offset, name, 'offset', allow_negative=true, allow_zero=true) if offset is not none else 0 -%}
    {%- if offset_us <= -86400000000 or offset_us >= 86400000000 -%}
        {{ exceptions.raise_compiler_error(
            name ~ ": offset ('" ~ offset ~ "') must be shorter than a day either way: it moves the start of each period from "
            ~ "local midnight to that wall-clock time; for example offset '6 hours' for days from 06:00 to 06:00, or '-2 hours' from 22:00 the day before") }}
    {%- endif -%}
    {%- set described = spark_windows._sw_describe(relation) -%}
    {%- set columns = spark_windows._sw_relation_columns(relation, name, {'time_col': time_col}, described) -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, [time_col], name, 'time_col') -%}
    {%- set mode = spark_windows._sw_time_mode(relation, time_col, none, name, described) -%}
    {%- if mode.kind == 'ntz' and time_zone is not none -%}
        {{ exceptions.raise_compiler_error(
            name ~ ": time_zone ('" ~ time_zone ~ "') is given, but the time column " ~ time_col ~ " is of type timestamp_ntz: "
            ~ "wall-clock times without a zone, whose periods are those of their own wall clock. Leave time_zone out here, "
            ~ "or pass a timestamp column, such as to_utc_timestamp(" ~ time_col.strip() ~ ", '" ~ time_zone ~ "') for wall-clock times of that zone") }}
    {%- endif -%}
    {%- set zone = spark_windows._sw_time_zone(time_zone if time_zone is not none else 'UTC', name) -%}
    {#- the longest local period, with room for any clock change: a microbatch batch reads this far past its end -#}
    {%- set reach_days = {'day': 2, 'week': 8, 'month': 32, 'quarter': 93, 'year': 367}[unit] -%}
    {%- set relation = spark_windows._sw_batch_input(relation, time_col, reach_days * 86400000000, name, mode) -%}
    {%- set input_columns = spark_windows._sw_input_columns('__sw_source', relation, columns, time_col,
        ['window_start', 'window_end', 'window_time', 'window_date'], name) -%}
    {%- if mode.kind == 'ntz' -%}
        {{ return(spark_windows._sw_batch_output(spark_windows._sw_wall_clock_periods(relation, time_col, unit, offset_us, input_columns, mode))) }}
    {%- endif -%}
    {%- set before = '__sw_guess.__sw_time_us < __sw_guess.__sw_start_us' -%}
    {%- set after = '__sw_guess.__sw_time_us >= __sw_guess.__sw_end_us' -%}
    {%- set windows -%}
(
    select
        __sw_bounds.__sw_row.*,
        {{ spark_windows._sw_window_columns('__sw_bounds.__sw_start_us', '__sw_bounds.__sw_end_us') }},
        __sw_bounds.__sw_period as window_date
    from (
        select
            __sw_row,
            case
                when {{ before }} then {{ spark_windows._sw_local_midnight_us(spark_windows._sw_next_period_start("__sw_guess.__sw_period_start", unit, -1), zone, offset_us) }}
                when {{ after }} then __sw_guess.__sw_end_us
                else __sw_guess.__sw_start_us
            end as __sw_start_us,
            case
                when {{ before }} then __sw_guess.__sw_start_us
                when {{ after }} then {{ spark_windows._sw_local_midnight_us(spark_windows._sw_next_period_start("__sw_guess.__sw_period_start", unit, 2), zone, offset_us) }}
                else __sw_guess.__sw_end_us
            end as __sw_end_us,
            case
                when {{ before }} then {{ spark_windows._sw_next_period_start("__sw_guess.__sw_period_start", unit, -1) }}
                when {{ after }} then {{ spark_windows._sw_next_period_start("__sw_guess.__sw_period_start", unit) }}
                else __sw_guess.__sw_period_start
            end as __sw_period
        from (
            select
                __sw_row,
                __sw_period_start,
                __sw_time_us,
                {{ spark_windows._sw_local_midnight_us('__sw_period_start', zone, offset_us) }} as __sw_start_us,
                {{ spark_windows._sw_local_midnight_us(spark_windows._sw_next_period_start('__sw_period_start', unit), zone, offset_us) }} as __sw_end_us
            from (
                select
                    struct({{ input_columns }}) as __sw_row,
                    {{ spark_windows._sw_ts_us(time_col) }} as __sw_time_us,
                    {{ spark_windows._sw_period_start(spark_windows._sw_local_date(time_col, zone, offset_us), unit) }} as __sw_period_start
                from {{ relation }} as __sw_source
                where {{ time_col }} is not null
            ) as __sw_periods
        ) as __sw_guess
    ) as __sw_bounds
)
    {%- endset -%}
    {{ spark_windows._sw_batch_output(windows) }}
{%- endmacro %}

