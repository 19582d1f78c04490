{#- The one place window bounds are computed. All arithmetic is on bigint microseconds since the
    epoch, so a day (8.64e10 us) cannot overflow, and pmod gives floor alignment for times
    before 1970 and for negative offsets. -#}

{#- Event time as a timestamp: a timestamp as it is; a timestamp_ntz, date or string cast in the
    session time zone. dbt-spark runs with spark.sql.ansi.enabled=false, where a cast that fails
    is NULL, silently: a value that is not NULL but does not convert, or a column of another type
    (a number would cast to seconds since 1970), fails the query with raise_error naming the
    column, never a NULL or 1970 window. typeof is folded when the query is planned, so a column
    of an accepted type costs a NULL test per row and nothing more. -#}
{% macro _sw_ts(time_col) -%}
    {%- set name = time_col | replace('\\', '\\\\') | replace("'", "\\'") -%}
    case
        when typeof({{ time_col }}) not in ('timestamp', 'timestamp_ntz', 'date') and typeof({{ time_col }}) not like 'string%'
            then raise_error(concat('spark_windows: the time column {{ name }} is of type ', typeof({{ time_col }}),
                '; expected timestamp, timestamp_ntz, date or a string of times. Convert it in a CTE first, such as timestamp_seconds({{ name }}) for seconds since 1970'))
        else coalesce(cast({{ time_col }} as timestamp), if({{ time_col }} is null, null,
            raise_error(concat('spark_windows: the time column {{ name }} holds \'', cast({{ time_col }} as string),
                '\', which is not a time; parse it in a CTE first, such as to_timestamp({{ name }}, \'yyyy-MM-dd HH:mm:ss\'), or filter such rows out'))))
    end
{%- endmacro %}


{#- Event time as bigint microseconds since 1970-01-01 00:00:00 UTC (checked as _sw_ts does). -#}
{% macro _sw_ts_us(time_col) -%}
    unix_micros({{ spark_windows._sw_ts(time_col) }})
{%- endmacro %}


{#- Start of the grid cell of width `step_us` (shifted by `offset_us`) that holds `ts_us`. -#}
{% macro _sw_align_us(ts_us, step_us, offset_us=0) -%}
    {%- if offset_us == 0 -%}
        ({{ ts_us }} - pmod({{ ts_us }}, {{ step_us }}))
    {%- else -%}
        ({{ ts_us }} - pmod({{ ts_us }} - {{ offset_us }}, {{ step_us }}))
    {%- endif -%}
{%- endmacro %}


{#- End of the last window of `spec` (a window spec, _sw_window_spec) that holds a row at
    `ts_us`; for sessions, the end of the row's own window [t, t + gap). -#}
{% macro _sw_last_window_end_us(ts_us, spec) -%}
    {%- if spec.type == 'session' -%}
    ({{ ts_us }} + {{ spec.gap_us }})
    {%- else -%}
    ({{ spark_windows._sw_align_us(ts_us, spec.pane_us if spec.type == 'hop' else spec.size_us, spec.offset_us) }} + {{ spec.size_us }})
    {%- endif -%}
{%- endmacro %}


{#- Every window of `spec` holding a row at `ts_us`, earliest first, as
    array<struct<window_start, window_end>>; for sessions, the row's own window [t, t + gap). -#}
{% macro _sw_windows_holding(ts_us, spec) -%}
    {%- if spec.type == 'session' -%}
        array(named_struct('window_start', timestamp_micros({{ ts_us }}), 'window_end', timestamp_micros({{ ts_us }} + {{ spec.gap_us }})))
    {%- else -%}
        {%- set start_us = spark_windows._sw_align_us(ts_us, spec.pane_us if spec.type == 'hop' else spec.size_us, spec.offset_us) -%}
        {%- if spec.type == 'tumble' -%}
        array(named_struct('window_start', timestamp_micros({{ start_us }}), 'window_end', timestamp_micros({{ start_us }} + {{ spec.size_us }})))
        {%- elif spec.type == 'hop' -%}
        transform(sequence(cast({{ spec.panes_per_window - 1 }} as bigint), cast(0 as bigint), cast(-1 as bigint)), __sw_i -> named_struct(
            'window_start', timestamp_micros({{ start_us }} - __sw_i * {{ spec.pane_us }}),
            'window_end', timestamp_micros({{ start_us }} - __sw_i * {{ spec.pane_us }} + {{ spec.size_us }})))
        {%- else -%}
        transform(sequence(({{ ts_us }} - {{ start_us }}) div {{ spec.pane_us }} + 1, cast({{ spec.panes_per_window }} as bigint)), __sw_j -> named_struct(
            'window_start', timestamp_micros({{ start_us }}),
            'window_end', timestamp_micros({{ start_us }} + __sw_j * {{ spec.pane_us }})))
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}


{#- The three window columns every macro adds, from start and end in microseconds. -#}
{% macro _sw_window_columns(start_us, end_us, mode=none) -%}
    {%- set kind = (mode or {}).get('kind', 'instant') -%}
    {%- if kind == 'instant' -%}
    timestamp_micros({{ start_us }}) as window_start,
        timestamp_micros({{ end_us }}) as window_end,
        timestamp_micros({{ end_us }} - 1) as window_time
    {%- else -%}
    {{ spark_windows._sw_wall_clock(start_us) }} as window_start,
        {{ spark_windows._sw_wall_clock(end_us) }} as window_end,
        {% if kind == 'ntz' -%}
        {{ spark_windows._sw_wall_clock(end_us ~ ' - 1') }} as window_time
        {%- else -%}
        to_utc_timestamp(timestamp_micros({{ end_us }} - 1), '{{ mode.zone }}') as window_time
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}


{#- How a macro reads its time column, a "time mode" for _sw_time_us and _sw_window_columns:
      instant  a timestamp (Spark's TIMESTAMP, an instant; a date or text cast to one): windows
               on the instants, bounds of type timestamp (the default);
      ntz      a timestamp_ntz column (wall-clock times, no zone): windows on wall-clock time,
               whatever the session time zone, bounds of type timestamp_ntz, as Spark's
               window() and session_window() give them;
      zone     a timestamp with `time_zone`, an IANA zone name: windows on the wall-clock time of
               that zone, daylight-saving changes included, as Flink computes windows on a
               TIMESTAMP_LTZ time attribute in its session zone: window_start and window_end
               are wall-clock times (timestamp_ntz, as Flink's TIMESTAMP), window_time the
               instant (timestamp) of the wall-clock time 1 microsecond before the end (Flink:
               1 millisecond), which a daylight-saving change may move: a window ending at
               03:00 on the day New York skips 02:00-03:00 has its window_time at 03:59:59.999999
               EDT, as in Flink, since 02:59:59.999999 has no instant.
    The column's type is known when `relation` can be looked up (ref(), source()); a string
    relation or an ephemeral model's column is read as an instant. `described` as for
    _sw_relation_columns. -#}
{% macro _sw_time_mode(relation, time_col, time_zone, macro_name, described=false) %}
    {%- set described = spark_windows._sw_describe(relation) if described is false else described -%}
    {%- set types = spark_windows._sw_column_types(described) -%}
    {%- set text = time_col.strip() -%}
    {%- set key = spark_windows._sw_column_key(text) -%}
    {%- set ntz = types.get(key) == 'timestamp_ntz' -%}
    {%- if time_zone is none -%}
        {{ return({'kind': 'ntz' if ntz else 'instant'}) }}
    {%- endif -%}
    {%- set zone = spark_windows._sw_time_zone(time_zone, macro_name) -%}
    {%- if ntz -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": time_zone ('" ~ time_zone ~ "') is given, but the time column " ~ time_col ~ " is of type timestamp_ntz: "
            ~ "wall-clock times without a zone, which are windowed as they are. time_zone reads timestamp columns (instants) "
            ~ "in a zone; leave it out here, or pass a timestamp column, such as to_utc_timestamp(" ~ text ~ ", '" ~ time_zone ~ "') for wall-clock times of that zone") }}
    {%- endif -%}
    {{ return({'kind': 'zone', 'zone': zone}) }}
{% endmacro %}


{#- The time column as bigint microseconds on the time line its mode windows (_sw_time_mode):
    since 1970-01-01 00:00:00 UTC for an instant, since 1970-01-01 00:00:00 wall-clock time for
    timestamp_ntz (read field by field: no zone is involved) and in a zone. -#}
{% macro _sw_time_us(time_col, mode=none) -%}
    {%- set kind = (mode or {}).get('kind', 'instant') -%}
    {%- if kind == 'ntz' -%}
    (cast(unix_date(cast({{ time_col }} as date)) as bigint) * 86400000000 + cast(hour({{ time_col }}) as bigint) * 3600000000
        + cast(minute({{ time_col }}) as bigint) * 60000000 + cast(extract(second from {{ time_col }}) * 1000000 as bigint))
    {%- elif kind == 'zone' -%}
    unix_micros(from_utc_timestamp({{ spark_windows._sw_ts(time_col) }}, '{{ mode.zone }}'))
    {%- else -%}
    {{ spark_windows._sw_ts_us(time_col) }}
    {%- endif -%}
{%- endmacro %}


{#- A timestamp_ntz of `us` wall-clock microseconds since 1970-01-01 00:00:00 (no zone). -#}
{% macro _sw_wall_clock(us) -%}
    timestampadd(MICROSECOND, {{ us }}, cast('1970-01-01 00:00:00' as timestamp_ntz))
{%- endmacro %}


{#- default__ branch of every public macro: names the adapter and what is supported. -#}
{% macro _sw_unsupported_adapter(macro_name) %}
    {{ exceptions.raise_compiler_error(
        "spark_windows." ~ macro_name ~ " has no implementation for the '" ~ adapter.type()
        ~ "' adapter; it supports spark (and adapters that fall back to spark__ macros). "
        ~ "Add a " ~ adapter.type() ~ "__" ~ macro_name ~ " macro to plug one in.") }}
{% endmacro %}


{#- The Spark release the models run on, as [major, minor] (from `select version()`, asked once
    per call while dbt compiles; none while it parses). -#}
{% macro _sw_spark_release() %}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set version = run_query('select version()').rows[0][0] | string -%}
    {%- set found = modules.re.match('([0-9]+)[.]([0-9]+)', version) -%}
    {{ return([found.group(1) | int, found.group(2) | int] if found else none) }}
{% endmacro %}


{#- Refuses `what` (such as "window_aggregate: aggregate 'p50' (...) uses KLL sketches") when
    the Spark release is older than `release` ([major, minor]), naming the release it needs and
    `instead`, what works on older releases. -#}
{% macro _sw_require_spark_release(release, what, instead, errors=none) %}
    {%- set running = spark_windows._sw_spark_release() -%}
    {%- if running is not none and running < release -%}
        {{ return(spark_windows._sw_refuse(
            what ~ ", which Spark " ~ release | join('.') ~ " introduced; this Spark is " ~ running | join('.')
            ~ ". Upgrade Spark, or write " ~ instead, errors)) }}
    {%- endif -%}
    {{ return(true) }}
{% endmacro %}

