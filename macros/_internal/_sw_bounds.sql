{#- The one place window bounds are computed. All arithmetic is on bigint microseconds since the
    epoch, so a day (8.64e10 us) cannot overflow, and pmod gives floor alignment for times
    before 1970 and for negative offsets. -#}

{#- Event time as bigint microseconds since 1970-01-01 00:00:00 UTC. -#}
{% macro _sw_ts_us(time_col) -%}
    unix_micros(cast({{ time_col }} as timestamp))
{%- endmacro %}


{#- Start of the grid cell of width `step_us` (shifted by `offset_us`) that holds `ts_us`. -#}
{% macro _sw_align_us(ts_us, step_us, offset_us=0) -%}
    {%- if offset_us == 0 -%}
        ({{ ts_us }} - pmod({{ ts_us }}, {{ step_us }}))
    {%- else -%}
        ({{ ts_us }} - pmod({{ ts_us }} - {{ offset_us }}, {{ step_us }}))
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
