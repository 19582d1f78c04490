{#- Passes when the model holds exactly the rows of `expected` (a seed or model with the same
    columns in the same order), duplicates included. Failing rows say which side has them. -#}
{% test equals_expected(model, expected) %}
    {{ return(adapter.dispatch('test_equals_expected', 'spark_windows')(model, expected)) }}
{% endtest %}


{% macro default__test_equals_expected(model, expected) %}

{#- Rows are compared by position, so both sides need as many columns: where both column lists
    are known (ref() or source() of a built table or view), a different count is an error that
    shows both lists, not Spark's NUM_COLUMNS_MISMATCH. A string or an ephemeral model is left to
    Spark, as before. -#}
{%- set model_columns = spark_windows._sw_relation_columns(model) -%}
{%- set expected_columns = spark_windows._sw_relation_columns(expected) -%}
{%- if model_columns is not none and expected_columns is not none
        and model_columns | length != expected_columns | length -%}
    {{ exceptions.raise_compiler_error(
        "equals_expected: the model " ~ model ~ " has " ~ model_columns | length ~ " columns ("
        ~ model_columns | join(', ') ~ ") but expected " ~ expected ~ " has " ~ expected_columns | length
        ~ " (" ~ expected_columns | join(', ') ~ "); rows are compared column by column in order, so expected "
        ~ "must have the model's columns in the same order") }}
{%- endif %}

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
