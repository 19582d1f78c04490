{#- Passes when the model holds exactly the rows of `expected` (a seed or model with the same
    columns in the same order), duplicates included. Failing rows say which side has them. -#}
{% test equals_expected(model, expected) %}
    {{ return(adapter.dispatch('test_equals_expected', 'spark_windows')(model, expected)) }}
{% endtest %}


{% macro default__test_equals_expected(model, expected) %}

with

actual_rows as (
    select * from {{ model }}
),

expected_rows as (
    select * from {{ expected }}
),

missing as (
    select 'missing from the model' as __sw_difference, *
    from (select * from expected_rows except all select * from actual_rows)
),

unexpected as (
    select 'not expected' as __sw_difference, *
    from (select * from actual_rows except all select * from expected_rows)
)

select * from missing
union all
select * from unexpected

{% endmacro %}
