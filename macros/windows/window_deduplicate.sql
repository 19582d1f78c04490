{#- WINDOW_DEDUPLICATE: one row per window and key, the first or the last in an order, as
    Flink SQL's window deduplication (ROW_NUMBER() OVER (PARTITION BY window_start, window_end,
    ... ORDER BY time ASC | DESC) = 1). NULL order values are never preferred; rows with equal
    order_by values are ordered by the row's JSON text (ascending for 'first', descending for
    'last'), so the row kept is deterministic. -#}
{% macro window_deduplicate(relation, partition_by, order_by, keep='first') -%}
    {#- checked and rendered when the model is compiled, not while dbt parses the project:
        a bad argument then fails only the models that hold it -#}
    {%- if not execute -%}
        {{ return(spark_windows._sw_parse_placeholder()) }}
    {%- endif -%}
    {{ return(adapter.dispatch('window_deduplicate', 'spark_windows')(relation, partition_by, order_by, keep)) }}
{%- endmacro %}


{% macro default__window_deduplicate(relation, partition_by, order_by, keep='first') -%}
    {{ spark_windows._sw_unsupported_adapter('window_deduplicate') }}
{%- endmacro %}


{% macro spark__window_deduplicate(relation, partition_by, order_by, keep='first') -%}
    {%- set name = 'window_deduplicate' -%}
    {%- do spark_windows._sw_require_relation(relation, name) -%}
    {%- set keys = spark_windows._sw_column_list(partition_by, name, 'partition_by') -%}
    {%- set columns = spark_windows._sw_order_terms(order_by, name, 'order_by', directions=false) -%}
    {%- set which = keep.strip().lower() if keep is string else '' -%}
    {%- if which not in ['first', 'last'] -%}
        {{ exceptions.raise_compiler_error(
            name ~ ": keep (" ~ (keep if keep is not string else "'" ~ keep ~ "'")
            ~ ") must be 'first' or 'last': 'first' keeps the row with the smallest order_by values "
            ~ "of each window and key (Flink's ORDER BY ... ASC), 'last' the one with the largest (DESC)") }}
    {%- endif -%}
    {%- set direction = 'asc' if which == 'first' else 'desc' -%}
    {%- set relation_columns = spark_windows._sw_relation_columns(relation) -%}
    {%- do spark_windows._sw_require_known_columns(relation, relation_columns, keys, name, 'partition_by') -%}
    {%- do spark_windows._sw_require_known_columns(relation, relation_columns, columns, name, 'order_by') -%}
    {%- set order_terms = [] -%}
    {%- for column in columns -%}
        {%- do order_terms.append(column ~ ' ' ~ direction ~ ' nulls last') -%}
    {%- endfor -%}
    {{ spark_windows._sw_keep_ranked_rows(relation, keys, order_terms, 1, direction) }}
{%- endmacro %}
