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


{#- The time zone as given, after checking at compile time that Spark can read it: an IANA
    zone that pytz lists (dbt's `modules.pytz`: 'America/New_York', 'Etc/GMT-14', 'UTC', also
    the old links such as 'US/Eastern'), or a fixed offset as Spark's ZoneId.of reads it ('Z',
    '+08:00', '-0530', '+8', 'UTC+01:00', 'GMT-5'). Java's three-letter IDs that pytz does not
    list ('PST', 'IST', 'BST' read as Asia/Dhaka) are refused: they are ambiguous. 'ROC' is
    refused too: pytz lists it, but the JDK's tz data leaves it out, so Spark cannot read it.
    So are the System V names the tz database keeps only for compatibility
    (_sw_legacy_time_zones): Spark reads 'EST', 'MST' and 'HST' as fixed offsets all year,
    which is rarely what is meant, and the others' rules depend on the tz data version.
    The check also keeps the name safe inside a SQL string literal. -#}
{% macro _sw_time_zone(value, macro_name) %}
    {#- ZoneId.of's offsets, at most 18 hours: +h, +hh, +hh:mm, +hhmm, +hh:mm:ss, +hhmmss, and
        +h:mm, which Spark pads; optionally after UTC, GMT or UT -#}
    {%- set hours = '(?:[0-9]|0[0-9]|1[0-7])(?::[0-5][0-9](?::[0-5][0-9])?)?|(?:0[0-9]|1[0-7])[0-5][0-9](?:[0-5][0-9])?' -%}
    {%- set offset = '(?:UTC|GMT|UT)?[+-](?:' ~ hours ~ '|18(?::?00(?::?00)?)?)|Z' -%}
    {%- set legacy = spark_windows._sw_legacy_time_zones() -%}
    {%- if value is string and value in legacy -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": time_zone ('" ~ value ~ "') is a legacy zone name, not a place: " ~ legacy[value]
            ~ ". Use an IANA zone name for a place, such as 'America/New_York', or a fixed offset such as '-05:00'") }}
    {%- endif -%}
    {%- set known = value is string and ((value in modules.pytz.all_timezones_set and value != 'ROC')
        or modules.re.fullmatch(offset, value)) -%}
    {%- if not known -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": time_zone (" ~ (value if value is not string else "'" ~ value ~ "'")
            ~ ") is not a time zone Spark can read; expected an IANA zone name such as 'America/New_York', "
            ~ "'Europe/Berlin' or 'UTC' (case sensitive, as in the tz database), or a fixed offset "
            ~ "such as '+08:00', '-05:30' or 'Z'") }}
    {%- endif -%}
    {{ return(value) }}
{% endmacro %}


{#- The zone names calendar_window refuses although pytz lists them, with what to write
    instead. EST, MST and HST are in Java's ZoneId.SHORT_IDS, which Spark uses: it reads them
    as the fixed offsets -05:00, -07:00 and -10:00 all year, so 'EST' in July is not New York
    time. The others (and EST, MST, HST in the tz database itself) are System V names that the
    tz database keeps for compatibility; since its release 2024b they are links to a city
    (EST5EDT to America/New_York, CET to Europe/Brussels, ...), before that they had rules of
    their own that differ in the past, so their windows would depend on the JDK's tz data. -#}
{% macro _sw_legacy_time_zones() %}
    {%- set fixed = "Spark reads it as a fixed offset all year, without daylight saving time" -%}
    {%- set versioned = "its rules depend on the version of the tz database (since 2024b it is a link to " -%}
    {{ return({
        'EST': fixed ~ " (UTC-05:00); for US Eastern time write 'America/New_York', for a fixed offset '-05:00'",
        'MST': fixed ~ " (UTC-07:00); for US Mountain time write 'America/Denver' (or 'America/Phoenix' for Arizona), for a fixed offset '-07:00'",
        'HST': fixed ~ " (UTC-10:00); for Hawaii write 'Pacific/Honolulu', for a fixed offset '-10:00'",
        'EST5EDT': versioned ~ "America/New_York); write 'America/New_York'",
        'CST6CDT': versioned ~ "America/Chicago); write 'America/Chicago'",
        'MST7MDT': versioned ~ "America/Denver); write 'America/Denver'",
        'PST8PDT': versioned ~ "America/Los_Angeles); write 'America/Los_Angeles'",
        'CET': versioned ~ "Europe/Brussels); write the city, such as 'Europe/Berlin' or 'Europe/Paris'",
        'MET': versioned ~ "Europe/Brussels); write the city, such as 'Europe/Berlin' or 'Europe/Paris'",
        'EET': versioned ~ "Europe/Athens); write the city, such as 'Europe/Athens' or 'Europe/Helsinki'",
        'WET': versioned ~ "Europe/Lisbon); write the city, such as 'Europe/Lisbon'",
    }) }}
{% endmacro %}


{#- The local calendar date, in `time_zone`, of the instant `time_col`; with `offset_us`, of the
    wall-clock time `offset_us` earlier (the date whose shifted day holds it). -#}
{% macro _sw_local_date(time_col, time_zone, offset_us=0) -%}
    {%- set local_us = 'unix_micros(from_utc_timestamp(' ~ spark_windows._sw_ts(time_col) ~ ", '" ~ time_zone ~ "'))"
        ~ (' - ' ~ offset_us if offset_us > 0 else (' + ' ~ (-offset_us) if offset_us < 0 else '')) -%}
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


{#- The first day of the period `periods` periods after the one that begins on `period_start`
    (1: the next period, -1: the one before). -#}
{% macro _sw_next_period_start(period_start, unit, periods=1) -%}
    {%- if unit == 'day' -%}
        date_add({{ period_start }}, {{ periods }})
    {%- elif unit == 'week' -%}
        date_add({{ period_start }}, {{ 7 * periods }})
    {%- else -%}
        add_months({{ period_start }}, {{ {'month': 1, 'quarter': 3, 'year': 12}[unit] * periods }})
    {%- endif -%}
{%- endmacro %}


{#- The instant, in microseconds since the epoch, at which the local date `local_date` begins
    in `time_zone`: its local midnight read by to_utc_timestamp, which uses java.time's
    LocalDateTime.atZone. A midnight that happens twice resolves to its first occurrence. A
    midnight that does not exist (the clocks jump over it) is read with the UTC offset in force
    before the jump, that is moved later by the length of the jump: when the jump starts at
    00:00 (America/Santiago 2024-09-08, 00:00 to 01:00) that is the first instant after the
    gap, 01:00; when it straddles midnight (America/Toronto 1919-03-31, 23:30 to 00:30) it is
    01:00 too, half an hour after the day's first instant, and 00:30-01:00 belong to the day
    before. -#}
{% macro _sw_local_midnight_us(local_date, time_zone, offset_us=0) -%}
    unix_micros(to_utc_timestamp(timestamp_micros(cast(unix_date({{ local_date }}) as bigint) * 86400000000{{ ' + ' ~ offset_us if offset_us > 0 else (' - ' ~ (-offset_us) if offset_us < 0 else '') }}), '{{ time_zone }}'))
{%- endmacro %}


{#- The calendar periods of a timestamp_ntz column's own wall clock (no zone, so no clock
    change: a day is 24 hours), shifted by `offset_us`, with timestamp_ntz bounds. -#}
{% macro _sw_wall_clock_periods(relation, time_col, unit, offset_us, input_columns, mode) -%}
    {%- set shifted = time_col if offset_us == 0 else 'timestampadd(MICROSECOND, ' ~ (-offset_us) ~ ', ' ~ time_col ~ ')' -%}
    {%- set start_us = '(cast(unix_date(__sw_periods.__sw_period) as bigint) * 86400000000 + ' ~ offset_us ~ ')' -%}
    {%- set end_us = '(cast(unix_date(' ~ spark_windows._sw_next_period_start('__sw_periods.__sw_period', unit) ~ ') as bigint) * 86400000000 + ' ~ offset_us ~ ')' -%}
(
    select
        __sw_periods.__sw_row.*,
        {{ spark_windows._sw_window_columns(start_us, end_us, mode) }},
        __sw_periods.__sw_period as window_date
    from (
        select
            struct({{ input_columns }}) as __sw_row,
            {{ spark_windows._sw_period_start('cast(' ~ shifted ~ ' as date)', unit) }} as __sw_period
        from {{ relation }} as __sw_source
        where {{ time_col }} is not null
    ) as __sw_periods
)
{%- endmacro %}
