{#- COUNT_WINDOW: windows of a number of rows, as Flink DataStream's countWindow.

    Rows are numbered 1, 2, ... per partition in ascending `order_by` order (NULLs first); ties
    are broken by the row's JSON text, so the numbering is deterministic. Window i (0-based)
    ends at row (i + 1) * slide and holds the `size` rows up to it, or all rows so far when
    fewer (Flink's Java/Scala countWindow(size, slide)); tumbling when slide is none (slide =
    size). A window fires only when its last row exists: trailing rows that do not reach the
    next window end belong to no window. Rows are copied into every window that holds them. -#}
{% macro count_window(relation, order_by, size, slide=none, partition_by=none) -%}
    {#- checked and rendered when the model is compiled, not while dbt parses the project:
        a bad argument then fails only the models that hold it -#}
    {%- if not execute -%}
        {{ return(spark_windows._sw_parse_placeholder()) }}
    {%- endif -%}
    {{ return(adapter.dispatch('count_window', 'spark_windows')(relation, order_by, size, slide, partition_by)) }}
{%- endmacro %}


{% macro default__count_window(relation, order_by, size, slide=none, partition_by=none) -%}
    {{ spark_windows._sw_unsupported_adapter('count_window') }}
{%- endmacro %}


{% macro spark__count_window(relation, order_by, size, slide=none, partition_by=none) -%}
    {%- set name = 'count_window' -%}
    {%- do spark_windows._sw_require_relation(relation, name) -%}
    {%- set order_columns = spark_windows._sw_column_list(order_by, name, 'order_by', names=false) -%}
    {%- if order_columns | length == 0 -%}
        {{ exceptions.raise_compiler_error(
            name ~ ": order_by (" ~ order_by ~ ") must name at least one column, such as ['reading_ts']; "
            ~ "rows are counted in that order") }}
    {%- endif -%}
    {%- for column in order_columns -%}
        {%- set words = column.lower().split() -%}
        {%- if words | length > 1 and words[-1] in ['asc', 'desc', 'first', 'last'] -%}
            {{ exceptions.raise_compiler_error(
                name ~ ": order_by item ('" ~ column ~ "') must be a column name without a direction; "
                ~ "rows are always counted in ascending order with NULLs first, so leave out asc, desc and nulls first/last") }}
        {%- endif -%}
    {%- endfor -%}
    {%- for column in order_columns -%}
        {%- do spark_windows._sw_require_expression(column, name, 'order_by item',
            "a column name or SQL expression such as 'reading_ts' or 'cast(seq as bigint)'") -%}
    {%- endfor -%}
    {%- set keys = spark_windows._sw_column_list(partition_by, name, 'partition_by') -%}
    {%- set size_n = spark_windows._sw_row_count(size, name, 'size') -%}
    {%- set slide_n = size_n if slide is none else spark_windows._sw_row_count(slide, name, 'slide') -%}
    {%- do spark_windows._sw_refuse_in_microbatch(name, "a row's number counts every row before it, in every batch before") -%}
    {%- set columns = spark_windows._sw_relation_columns(relation) -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, order_columns, name, 'order_by') -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, keys, name, 'partition_by') -%}
    {%- set key_aliases = [] -%}
    {%- for key in keys -%}
        {%- do key_aliases.append('__sw_key_' ~ loop.index) -%}
    {%- endfor -%}
    {%- set order_aliases = [] -%}
    {%- for column in order_columns -%}
        {%- do order_aliases.append('__sw_order_' ~ loop.index) -%}
    {%- endfor -%}
    {%- set partition_clause = ('partition by ' ~ key_aliases | join(', ') ~ ' ') if keys else '' -%}
    {%- set order_terms = [] -%}
    {%- for alias in order_aliases -%}
        {%- do order_terms.append(alias ~ ' asc nulls first') -%}
    {%- endfor -%}
    {#- The tie-break: the whole row as JSON, with NULL fields written out and timestamps in UTC
        to the microsecond, so that two rows with the same text are the same row and their order
        cannot change the result. -#}
    {%- do order_terms.append(
        "to_json(__sw_row, map('timeZone', 'UTC', 'ignoreNullFields', 'false', "
        ~ "'timestampFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSS', 'timestampNTZFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSS')) asc") -%}
    {%- set numbering = partition_clause ~ 'order by ' ~ order_terms | join(', ') -%}
    {#- Row n is in window i when (i + 1) * slide lies in [n, n + size - 1], and window i exists
        when (i + 1) * slide <= the partition's row count. -#}
(
    select
        __sw_windows.__sw_row.*,
        __sw_windows.__sw_window_index as window_index,
        greatest(cast(1 as bigint), (__sw_windows.__sw_window_index + 1) * {{ slide_n }} - {{ size_n - 1 }}) as window_first_row,
        (__sw_windows.__sw_window_index + 1) * {{ slide_n }} as window_last_row
    from (
        select
            __sw_row,
            {{ '__sw_first_window as ' if slide_n == size_n else '' }}__sw_window_index
        from (
            select
                __sw_row,
                (__sw_row_number - 1) div {{ slide_n }} as __sw_first_window,
                least(
                    (__sw_row_number + {{ size_n - 1 }}) div {{ slide_n }},
                    __sw_partition_rows div {{ slide_n }}
                ) - 1 as __sw_last_window
            from (
                select
                    __sw_row,
                    cast(row_number() over ({{ numbering }}) as bigint) as __sw_row_number,
                    count(*) over ({{ partition_clause | trim }}) as __sw_partition_rows
                from (
                    select
                        {%- for key in keys %}
                        {{ key }} as {{ key_aliases[loop.index0] }},
                        {%- endfor %}
                        {%- for column in order_columns %}
                        {{ column }} as {{ order_aliases[loop.index0] }},
                        {%- endfor %}
                        struct(__sw_source.*) as __sw_row
                    from {{ relation }} as __sw_source
                ) as __sw_rows
            ) as __sw_numbered
        ) as __sw_ranges
        {%- if slide_n != size_n %}
        lateral view explode(sequence(__sw_first_window, __sw_last_window)) __sw_index as __sw_window_index
        {%- endif %}
        where __sw_first_window <= __sw_last_window
    ) as __sw_windows
)
{%- endmacro %}
