{#- window_aggregate: windowed aggregation that adds each row once into slices (panes) and
    merges slices per window, so hop and cumulate cost about what tumble costs, whatever
    size/slide. Same results as the table-valued macro followed by GROUP BY. -#}
{% macro window_aggregate(relation, time_col, window, group_by, aggregates) -%}
    {#- checked and rendered when the model is compiled, not while dbt parses the project:
        a bad argument then fails only the models that hold it -#}
    {%- if not execute -%}
        {{ return(spark_windows._sw_parse_placeholder()) }}
    {%- endif -%}
    {{ return(adapter.dispatch('window_aggregate', 'spark_windows')(relation, time_col, window, group_by, aggregates)) }}
{%- endmacro %}


{% macro default__window_aggregate(relation, time_col, window, group_by, aggregates) -%}
    {{ spark_windows._sw_unsupported_adapter('window_aggregate') }}
{%- endmacro %}


{% macro spark__window_aggregate(relation, time_col, window, group_by, aggregates) -%}
    {%- set name = 'window_aggregate' -%}
    {%- do spark_windows._sw_require_relation(relation, name) -%}
    {%- do spark_windows._sw_require_column(time_col, name, 'time_col') -%}
    {%- set spec = spark_windows._sw_window_spec(window, name) -%}
    {%- set keys = spark_windows._sw_column_list(group_by, name, 'group_by') -%}
    {%- set aggs = spark_windows._sw_parse_aggregates(aggregates, name, keys) -%}
    {%- for agg in aggs -%}
        {%- do spark_windows._sw_require_expression(agg.sql, name, "aggregate '" ~ agg.name ~ "'",
            "one aggregate call such as 'sum(car_count)' or 'count(*)'") -%}
    {%- endfor -%}
    {%- set columns = spark_windows._sw_relation_columns(relation) -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, [time_col], name, 'time_col') -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, keys, name, 'group_by') -%}
    {%- set row_copy = aggs | selectattr('kind', 'equalto', 'row_copy') | list | length > 0 -%}
    {%- set distinct = aggs | selectattr('kind', 'equalto', 'count_distinct') | list | length > 0 -%}
    {%- set one_pane = spec.type == 'tumble' or (spec.type != 'session' and spec.panes_per_window == 1) -%}
    {#- a window of one pane holds each row once: GROUP BY of the tumbling rows is the plan -#}
    {%- if spec.type == 'session' or row_copy or (distinct and one_pane) -%}
        {{ return(spark_windows._sw_row_copy_aggregate(relation, time_col, spec, keys, aggs)) }}
    {%- endif -%}
    {%- if one_pane -%}
        {{ return(spark_windows._sw_sliced_aggregate(relation, time_col, keys, aggs, 'tumble', spec.size_us, 1, spec.offset_us % spec.size_us)) }}
    {%- endif -%}
    {%- if distinct -%}
        {{ return(spark_windows._sw_distinct_aggregate(relation, time_col, keys, aggs, spec.type, spec.pane_us, spec.panes_per_window, spec.offset_us)) }}
    {%- endif -%}
    {{ return(spark_windows._sw_sliced_aggregate(relation, time_col, keys, aggs, spec.type, spec.pane_us, spec.panes_per_window, spec.offset_us)) }}
{%- endmacro %}


{#- Checks the window dict and returns it with sizes in microseconds:
    {type, size_us, pane_us, panes_per_window, offset_us (reduced), gap_us (none for a gap
    expression), and the original strings}. With a list as `errors`, problems are appended there
    and the result is none. -#}
{% macro _sw_window_spec(window, macro_name, errors=none) %}
    {%- set required = {
        'tumble': ['size'],
        'hop': ['slide', 'size'],
        'cumulate': ['step', 'size'],
        'session': ['gap'],
    } -%}
    {%- set optional = {'tumble': ['offset'], 'hop': ['offset'], 'cumulate': ['offset'], 'session': []} -%}
    {%- set examples -%}
        {'type': 'tumble', 'size': '1 minute'}, {'type': 'hop', 'slide': '1 minute', 'size': '1 hour'}, {'type': 'cumulate', 'step': '1 minute', 'size': '1 hour'} (each with an optional 'offset') or {'type': 'session', 'gap': '10 minutes'}
    {%- endset -%}
    {%- if window is not mapping or window.get('type') not in required -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": window (" ~ window ~ ") must be a dict whose 'type' is tumble, hop, cumulate or session, such as " ~ examples, errors)) }}
    {%- endif -%}
    {%- set type = window['type'] -%}
    {%- for key in required[type] -%}
        {%- if key not in window -%}
            {{ return(spark_windows._sw_refuse(
                macro_name ~ ": window (" ~ window ~ ") is missing '" ~ key ~ "'; a " ~ type ~ " window needs " ~ required[type] | join(' and ') ~ ", such as " ~ examples, errors)) }}
        {%- endif -%}
    {%- endfor -%}
    {%- for key in window -%}
        {%- if key != 'type' and key not in required[type] and key not in optional[type] -%}
            {{ return(spark_windows._sw_refuse(
                macro_name ~ ": window (" ~ window ~ ") has the unknown key '" ~ key ~ "'; a " ~ type ~ " window takes "
                ~ (required[type] + optional[type]) | join(', '), errors)) }}
        {%- endif -%}
    {%- endfor -%}
    {%- set where = macro_name ~ " (" ~ type ~ " window)" -%}
    {%- if type == 'session' -%}
        {#- gap_us is none for a gap expression (a per-row gap), which session() evaluates -#}
        {%- set known = (errors or []) | length -%}
        {%- set gap_us = spark_windows._sw_session_gap_us(window['gap'], where, errors) -%}
        {{ return(none if (errors or []) | length > known else {'type': type, 'gap': window['gap'], 'gap_us': gap_us}) }}
    {%- endif -%}
    {%- set size_us = spark_windows._sw_duration_us(window['size'], where, 'size', errors=errors) -%}
    {%- set pane_key = {'tumble': 'size', 'hop': 'slide', 'cumulate': 'step'}[type] -%}
    {%- set pane_us = spark_windows._sw_duration_us(window[pane_key], where, pane_key, errors=errors) -%}
    {%- if size_us is none or pane_us is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if spark_windows._sw_require_multiple(window['size'], size_us, pane_key, window[pane_key], pane_us, where, errors) is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set alignment_us = size_us if type in ['tumble', 'cumulate'] else pane_us -%}
    {%- set offset_us = spark_windows._sw_offset_us(window.get('offset'), alignment_us, where, errors) -%}
    {%- if offset_us is none -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return({
        'type': type,
        'size': window['size'],
        'slide': window.get('slide', window.get('step', window['size'])),
        'offset': window.get('offset'),
        'size_us': size_us,
        'pane_us': pane_us,
        'panes_per_window': size_us // pane_us,
        'offset_us': offset_us,
    }) }}
{% endmacro %}


{#- The table-valued macro of a window spec (from _sw_window_spec) over `relation`; `keys`
    partition sessions. -#}
{% macro _sw_table_valued(relation, time_col, spec, keys=[]) %}
    {%- if spec.type == 'session' -%}
        {{ return(spark_windows.session(relation, time_col, spec.gap, keys)) }}
    {%- elif spec.type == 'tumble' -%}
        {{ return(spark_windows.tumble(relation, time_col, spec.size, spec.offset)) }}
    {%- elif spec.type == 'hop' -%}
        {{ return(spark_windows.hop(relation, time_col, spec.slide, spec.size, spec.offset)) }}
    {%- else -%}
        {{ return(spark_windows.cumulate(relation, time_col, spec.slide, spec.size, spec.offset)) }}
    {%- endif -%}
{% endmacro %}


{#- The row-copy plan: the table-valued macro, then GROUP BY. For sessions, and for aggregates
    that slices cannot merge (count(distinct ...), percentiles, ...). -#}
{% macro _sw_row_copy_aggregate(relation, time_col, spec, keys, aggs) %}
    {%- set windowed = spark_windows._sw_table_valued(relation, time_col, spec, keys) -%}
    {%- set group_columns = keys + ['window_start', 'window_end', 'window_time'] -%}
(
    select
        {{ group_columns | join(', ') }}
        {%- for agg in aggs %},
        {{ agg.sql }} as {{ agg.name }}
        {%- endfor %}
    from {{ windowed }} as __sw_windowed
    group by {{ group_columns | join(', ') }}
)
{% endmacro %}
