{#- Passes when every window_start sits on the grid of `slide` shifted by `offset` (Flink's
    window offset; reduced modulo the slide, so '-8 hours' on a 1-day grid means 16:00 UTC):
    pmod(unix_micros(window_start) - offset, slide) = 0. Failing rows are the windows off the
    grid, with their distance past the last grid point. NULL starts are not checked. -#}
{% test windows_aligned(model, slide, offset=none) %}
    {{ return(adapter.dispatch('test_windows_aligned', 'spark_windows')(model, slide, offset)) }}
{% endtest %}


{% macro default__test_windows_aligned(model, slide, offset) %}
{%- set slide_us = spark_windows._sw_duration_us(slide, 'windows_aligned', 'slide') -%}
{%- set offset_us = spark_windows._sw_offset_us(offset, slide_us, 'windows_aligned') -%}

with

windows as (
    select * from {{ model }}
),

measured as (
    select
        *,
        pmod(unix_micros(window_start) - {{ offset_us }}, {{ slide_us }}) as __sw_off_grid_us
    from windows
),

off_grid as (
    select * from measured
    where __sw_off_grid_us <> 0
)

select * from off_grid

{% endmacro %}
