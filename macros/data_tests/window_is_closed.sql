{#- Passes when every window is complete: its window_end is at or before the latest
    `time_col` of `source` minus `delay` (the time allowed for late rows). For dashboards that
    must show only windows no later row can change. Failing rows are the windows that end too
    late, with the watermark they were held to. An empty source (no time) checks nothing. -#}
{% test window_is_closed(model, source, time_col, delay) %}
    {{ return(adapter.dispatch('test_window_is_closed', 'spark_windows')(model, source, time_col, delay)) }}
{% endtest %}


{% macro default__test_window_is_closed(model, source, time_col, delay) %}
{%- if source is none or (source is string and source.strip() == '') -%}
    {{ exceptions.raise_compiler_error(
        "window_is_closed: source is empty; pass the rows the windows were computed from, such as ref('sensor_readings')") }}
{%- endif -%}
{%- do spark_windows._sw_require_column(time_col, 'window_is_closed', 'time_col') -%}
{%- set delay_us = spark_windows._sw_duration_us(delay, 'window_is_closed', 'delay', allow_zero=true) -%}

with

windows as (
    select * from {{ model }}
),

watermark as (
    select unix_micros(max({{ time_col }})) - {{ delay_us }} as __sw_watermark_us
    from {{ source }}
),

open_windows as (
    select
        windows.*,
        timestamp_micros(watermark.__sw_watermark_us) as __sw_watermark
    from windows
    cross join watermark
    where unix_micros(windows.window_end) > watermark.__sw_watermark_us
)

select * from open_windows

{% endmacro %}
