{#- Passes when every window of the model is `size` long: window_end - window_start, in
    microseconds, equals the duration. Failing rows are the windows of another length, with
    their actual and expected lengths. Rows with a NULL bound are not checked (not_null is). -#}
{% test window_size_is(model, size) %}
    {{ return(adapter.dispatch('test_window_size_is', 'spark_windows')(model, size)) }}
{% endtest %}


{% macro default__test_window_size_is(model, size) %}
{%- set size_us = spark_windows._sw_duration_us(size, 'window_size_is', 'size') -%}

with

windows as (
    select * from {{ model }}
),

measured as (
    select
        *,
        unix_micros(window_end) - unix_micros(window_start) as __sw_actual_size_us,
        {{ size_us }} as __sw_expected_size_us
    from windows
),

wrong_size as (
    select * from measured
    where __sw_actual_size_us <> __sw_expected_size_us
)

select * from wrong_size

{% endmacro %}
