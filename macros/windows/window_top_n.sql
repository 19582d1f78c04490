{#- WINDOW_TOP_N: the first n rows of each window (and partition) in an order, as Flink SQL's
    window Top-N (ROW_NUMBER() OVER (PARTITION BY window_start, window_end, ... ORDER BY ...)
    with rownum <= n). Rows with equal order_by values are ordered by the row's JSON text, so
    exactly min(n, rows) rows are kept and which ones is deterministic; with ranking 'rank' or
    'dense_rank' (Flink's batch Top-N, Spark's ranking functions) tied rows share a number and
    are all kept or all dropped. -#}
{% macro window_top_n(relation, partition_by, order_by, n, ranking='row_number') -%}
    {#- checked and rendered when the model is compiled, not while dbt parses the project:
        a bad argument then fails only the models that hold it -#}
    {%- if not execute -%}
        {{ return(spark_windows._sw_parse_placeholder()) }}
    {%- endif -%}
    {{ return(adapter.dispatch('window_top_n', 'spark_windows')(relation, partition_by, order_by, n, ranking)) }}
{%- endmacro %}


{% macro default__window_top_n(relation, partition_by, order_by, n, ranking='row_number') -%}
    {{ spark_windows._sw_unsupported_adapter('window_top_n') }}
{%- endmacro %}


{% macro spark__window_top_n(relation, partition_by, order_by, n, ranking='row_number') -%}
    {%- set name = 'window_top_n' -%}
    {%- do spark_windows._sw_require_relation(relation, name) -%}
    {%- set keys = spark_windows._sw_column_list(partition_by, name, 'partition_by') -%}
    {%- set order_terms = spark_windows._sw_order_terms(order_by, name, 'order_by') -%}
    {%- set top = spark_windows._sw_row_count(n, name, 'n') -%}
    {%- if ranking not in ['row_number', 'rank', 'dense_rank'] -%}
        {{ exceptions.raise_compiler_error(
            name ~ ": ranking (" ~ ranking ~ ") must be one of 'row_number' (exactly n rows, ties broken by the row's text), "
            ~ "'rank' or 'dense_rank' (tied rows share a number); for example ranking='rank'") }}
    {%- endif -%}
    {%- set columns = spark_windows._sw_relation_columns(relation) -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, keys, name, 'partition_by') -%}
    {{ spark_windows._sw_keep_ranked_rows(relation, keys, order_terms, top, 'asc', 'rownum', ranking) }}
{%- endmacro %}
