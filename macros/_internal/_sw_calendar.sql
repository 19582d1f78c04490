{#- Building blocks of calendar_window: the unit, the zone, and local dates as instants.

    Every expression here is independent of the session time zone: local wall time is reached
    with from_utc_timestamp and left with to_utc_timestamp, and dates become timestamps through
    unix_date / timestamp_micros, never through a cast (a cast would use the session zone). -#}

{#- The calendar unit, lower case and singular: day, week, month, quarter or year. -#}
{% macro _sw_calendar_unit(value, macro_name) %}
    {%- set units = ['day', 'week', 'month', 'quarter', 'year'] -%}
    {%- set unit = value.strip().lower() if value is string else '' -%}
    {%- if unit.endswith('s') and unit[:-1] in units -%}
        {%- set unit = unit[:-1] -%}
    {%- endif -%}
    {%- if unit not in units -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": unit (" ~ (value if value is not string else "'" ~ value ~ "'")
            ~ ") is not a calendar unit; expected one of day, week, month, quarter, year "
            ~ "(weeks are ISO weeks, from Monday 00:00 to the next Monday 00:00)") }}
    {%- endif -%}
    {{ return(unit) }}
{% endmacro %}


{#- The time zone as given, after checking that it can be written into a SQL string literal.
    Whether Spark knows the zone is only found out when the query runs. -#}
{% macro _sw_time_zone(value, macro_name) %}
    {%- if value is not string or not modules.re.fullmatch('[A-Za-z0-9_+/:.-]+', value) -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": time_zone (" ~ (value if value is not string else "'" ~ value ~ "'")
            ~ ") must be a non-empty time zone name such as 'America/New_York', 'Europe/Berlin' or 'UTC' "
            ~ "(an IANA zone; letters, digits and _ + - / : . only)") }}
    {%- endif -%}
    {{ return(value) }}
{% endmacro %}


{#- The local calendar date, in `time_zone`, of the instant `time_col`. -#}
{% macro _sw_local_date(time_col, time_zone) -%}
    {%- set local_us = 'unix_micros(from_utc_timestamp(cast(' ~ time_col ~ " as timestamp), '" ~ time_zone ~ "'))" -%}
    date_from_unix_date(cast({{ spark_windows._sw_align_us(local_us, 86400000000) }} div 86400000000 as int))
{%- endmacro %}


{#- The first day of the `unit` period that holds the date `local_date`. -#}
{% macro _sw_period_start(local_date, unit) -%}
    {%- if unit == 'day' -%}
        {{ local_date }}
    {%- else -%}
        trunc({{ local_date }}, '{{ {'week': 'WEEK', 'month': 'MM', 'quarter': 'QUARTER', 'year': 'YEAR'}[unit] }}')
    {%- endif -%}
{%- endmacro %}


{#- The first day of the next period, from the first day of a period. -#}
{% macro _sw_next_period_start(period_start, unit) -%}
    {%- if unit == 'day' -%}
        date_add({{ period_start }}, 1)
    {%- elif unit == 'week' -%}
        date_add({{ period_start }}, 7)
    {%- else -%}
        add_months({{ period_start }}, {{ {'month': 1, 'quarter': 3, 'year': 12}[unit] }})
    {%- endif -%}
{%- endmacro %}


{#- The instant, in microseconds since the epoch, at which the local date `local_date` begins
    in `time_zone`. A local midnight that does not exist (a zone that moves its clocks forward
    at 00:00) resolves to the first instant after the gap, the first instant of that day; a
    midnight that happens twice resolves to the first time it happens. -#}
{% macro _sw_local_midnight_us(local_date, time_zone) -%}
    unix_micros(to_utc_timestamp(timestamp_micros(cast(unix_date({{ local_date }}) as bigint) * 86400000000), '{{ time_zone }}'))
{%- endmacro %}
