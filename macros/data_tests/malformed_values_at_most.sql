{#- Passes when at most `max_count` rows of the model have a non-NULL `column` (by default
    kafka_records' value_error): malformed records are kept aside by kafka_records, and this
    test says when there are more of them than a topic is allowed. The failing row gives the
    count, the limit and one example error. -#}
{% test malformed_values_at_most(model, column='value_error', max_count=0) %}
    {{ return(adapter.dispatch('test_malformed_values_at_most', 'spark_windows')(model, column, max_count)) }}
{% endtest %}


{% macro default__test_malformed_values_at_most(model, column, max_count) %}
{%- do spark_windows._sw_require_column(column, 'malformed_values_at_most', 'column') -%}
{%- if max_count is boolean or max_count is not integer or max_count < 0 -%}
    {{ exceptions.raise_compiler_error(
        "malformed_values_at_most: max_count (" ~ (max_count if max_count is not string else "'" ~ max_count ~ "'")
        ~ ") must be a whole number of rows, 0 or more, such as 0 (no malformed record allowed)") }}
{%- endif -%}

with

malformed as (
    select {{ column }} as __sw_error
    from {{ model }}
    where {{ column }} is not null
),

counted as (
    select
        count(*) as __sw_malformed_rows,
        {{ max_count }} as __sw_max_count,
        min(__sw_error) as __sw_example_error
    from malformed
)

select * from counted
where __sw_malformed_rows > __sw_max_count

{% endmacro %}
