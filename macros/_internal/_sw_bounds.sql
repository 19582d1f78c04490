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
{% macro _sw_window_columns(start_us, end_us) -%}
    timestamp_micros({{ start_us }}) as window_start,
        timestamp_micros({{ end_us }}) as window_end,
        timestamp_micros({{ end_us }} - 1) as window_time
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

