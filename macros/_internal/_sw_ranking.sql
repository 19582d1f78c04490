{#- Building blocks of window_top_n and window_deduplicate: Flink's "ROW_NUMBER() per window"
    patterns. Both number the rows of each (window_start, window_end, partition_by...) group in
    an order and keep the first ones; they differ only in the order and in how many they keep. -#}

{#- Reads an `order_by` argument: a non-empty list of SQL order terms, each an expression
    followed by an optional asc | desc and an optional nulls first | nulls last, in that order.
    With directions=false the terms must be bare expressions (the caller chooses the direction).
    Returns the terms, trimmed. -#}
{% macro _sw_order_terms(value, macro_name, arg_name, directions=true) %}
    {%- if directions -%}
        {%- set accepted = "a list of SQL order terms, such as ['price desc'] or ['price desc nulls last', 'item_id']" -%}
    {%- else -%}
        {%- set accepted = "a list of column names or SQL expressions without a direction, such as ['event_ts'] or ['event_ts', 'event_id']" -%}
    {%- endif -%}
    {%- set shown = value if value is not string else "'" ~ value ~ "'" -%}
    {%- set is_list = value is iterable and value is not string and value is not mapping -%}
    {%- if not is_list or (value | select('string') | map('trim') | select | list | length) != (value | list | length) -%}
        {{ exceptions.raise_compiler_error(macro_name ~ ": " ~ arg_name ~ " (" ~ shown ~ ") must be " ~ accepted) }}
    {%- endif -%}
    {%- if value | length == 0 -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": " ~ arg_name ~ " (" ~ shown ~ ") must hold at least one term; rows are numbered in that order. Expected " ~ accepted) }}
    {%- endif -%}
    {%- set terms = [] -%}
    {%- for item in value -%}
        {%- do spark_windows._sw_require_expression(item, macro_name, arg_name ~ ' item', accepted) -%}
        {%- set words = item.lower().split() -%}
        {%- set state = namespace(end=words | length, direction=false) -%}
        {%- if state.end >= 2 and words[state.end - 2] == 'nulls' and words[state.end - 1] in ['first', 'last'] -%}
            {%- set state.end = state.end - 2 -%}
            {%- set state.direction = true -%}
        {%- endif -%}
        {%- if state.end >= 1 and words[state.end - 1] in ['asc', 'desc'] -%}
            {%- set state.end = state.end - 1 -%}
            {%- set state.direction = true -%}
        {%- endif -%}
        {%- set misplaced = state.end == 0 or words[state.end - 1] in ['asc', 'desc', 'nulls']
            or (state.end >= 2 and words[state.end - 2] == 'nulls' and words[state.end - 1] in ['first', 'last']) -%}
        {%- if directions and misplaced -%}
            {{ exceptions.raise_compiler_error(
                macro_name ~ ": " ~ arg_name ~ " item ('" ~ item ~ "') must be an SQL expression followed by an optional asc or desc "
                ~ "and an optional nulls first or nulls last, in that order, such as 'price desc' or 'price desc nulls last'") }}
        {%- elif not directions and (misplaced or state.direction) -%}
            {{ exceptions.raise_compiler_error(
                macro_name ~ ": " ~ arg_name ~ " item ('" ~ item ~ "') must be a column name or SQL expression without a direction; "
                ~ "keep='first' keeps the row with the smallest values and keep='last' the one with the largest, "
                ~ "so leave out asc, desc and nulls first/last") }}
        {%- endif -%}
        {%- do terms.append(item.strip()) -%}
    {%- endfor -%}
    {{ return(terms) }}
{% endmacro %}


{#- The tie-break of every row numbering: the whole row as JSON text, NULL fields written out
    and timestamps in UTC to the microsecond, so two rows with the same text hold the same
    values and swapping them cannot change the result (the rule count_window follows). -#}
{% macro _sw_row_json(row) -%}
    to_json({{ row }}, map('timeZone', 'UTC', 'ignoreNullFields', 'false', 'timestampFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSS', 'timestampNTZFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSS'))
{%- endmacro %}


{#- Numbers the rows of `relation` 1, 2, ... per (window_start, window_end, keys...) in the order
    of `order_terms`, then of the row's JSON text (`tie_direction`: asc or desc), and keeps the
    rows numbered up to `max_rownum`. Returns every input column, then the number as
    `rownum_alias` (bigint) when one is given. With `ranking` 'rank' or 'dense_rank', rows
    equal in `order_terms` share their number (rank() leaves gaps after ties, dense_rank() does
    not), so no tie-break is needed and a window may keep more than `max_rownum` rows. -#}
{% macro _sw_keep_ranked_rows(relation, keys, order_terms, max_rownum, tie_direction='asc', rownum_alias=none, ranking='row_number') -%}
    {%- set partition = ['window_start', 'window_end'] + keys -%}
(
    select
        __sw_ranked.__sw_row.*
        {%- if rownum_alias %},
        __sw_ranked.__sw_rownum as {{ rownum_alias }}
        {%- endif %}
    from (
        select
            __sw_row,
            cast({{ ranking }}() over (
                partition by {{ partition | join(', ') }}
                order by {{ order_terms | join(', ') }}
                {%- if ranking == 'row_number' %}, {{ spark_windows._sw_row_json('__sw_row') }} {{ tie_direction }}{% endif %}
            ) as bigint) as __sw_rownum
        from (
            select __sw_source.*, struct(__sw_source.*) as __sw_row
            from {{ relation }} as __sw_source
        ) as __sw_rows
    ) as __sw_ranked
    where __sw_ranked.__sw_rownum <= {{ max_rownum }}
)
{%- endmacro %}
