{#- How many rows `relation` holds per group and slide, by Spark's statistics of the table, for
    windows that slide every `slide_us`: rows / (groups x slides), none when any of it is unknown
    (a query, a CTE, a table never analyzed). `analyze table t compute statistics for columns
    <time_col>, <key>, ...` keeps what it takes: the row count (`rows`, which the adapter found
    with the table's columns: _sw_describe_with_rows), the time column's min and max (the slides: the
    span over slide_us, plus one) and each key's distinct count (the groups: their product, at
    most the rows; an upper bound where keys go together, so the figure is never larger than the
    data's). No query without a row count (0, what CREATE TABLE AS SELECT leaves, counts as
    none); else one DESCRIBE for the time column and one a key, when the model compiles. -#}
{% macro _sw_rows_per_group_and_slide(relation, time_col, keys, slide_us, rows) %}
    {%- if not execute or not spark_windows._sw_is_table(relation) -%}
        {{ return(none) }}
    {%- endif -%}
    {#- statistics are kept per top-level column: a nested field or an expression has none -#}
    {%- for column in [time_col] + keys -%}
        {%- if not modules.re.fullmatch('`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_]*', column | trim) -%}
            {{ return(none) }}
        {%- endif -%}
    {%- endfor -%}
    {%- if not rows -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set table = spark_windows._sw_unfiltered(relation) -%}
    {%- set time = spark_windows._sw_column_statistics(table, time_col) -%}
    {%- set span_us = spark_windows._sw_statistics_span_us(time.get('min'), time.get('max')) -%}
    {%- if span_us is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set counts = [] -%}
    {%- for key in keys -%}
        {%- do counts.append(spark_windows._sw_whole_number(spark_windows._sw_column_statistics(table, key).get('distinct_count'))) -%}
    {%- endfor -%}
    {%- if none in counts -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set groups = namespace(n=1) -%}
    {%- for count in counts -%}
        {%- set groups.n = groups.n * [count, 1] | max -%}
    {%- endfor -%}
    {%- set slides = span_us // slide_us + 1 -%}
    {{ return(rows / ([groups.n, rows] | min * slides)) }}
{% endmacro %}


{#- The statistics Spark keeps for `column` of `table` (DESCRIBE TABLE EXTENDED t column), as
    info name -> value: min, max, num_nulls, distinct_count, ... ('NULL' where not analyzed). -#}
{% macro _sw_column_statistics(table, column) %}
    {%- set found = {} -%}
    {%- for row in run_query('describe table extended ' ~ table ~ ' ' ~ spark_windows._sw_column_name(column)).rows -%}
        {%- do found.update({row[0] | string | trim: row[1] | string | trim}) -%}
    {%- endfor -%}
    {{ return(found) }}
{% endmacro %}


{#- `text` as a whole number, none when it is none or not one ('NULL'). -#}
{% macro _sw_whole_number(text) %}
    {{ return(text | int if text is not none and modules.re.fullmatch('[0-9]+', text) else none) }}
{% endmacro %}


{#- Microseconds from `low` to `high`, a time column's min and max as DESCRIBE prints them
    ('2024-03-01 08:00:00.000000 +0000', or a date), to the second; none when either is not such
    a time ('NULL': not analyzed). -#}
{% macro _sw_statistics_span_us(low, high) %}
    {%- set times = [] -%}
    {%- for text in [low, high] -%}
        {%- set parsed = modules.re.match('([0-9]{4}-[0-9]{2}-[0-9]{2})(?:[ T]([0-9]{2}:[0-9]{2}:[0-9]{2}))?', text or '') -%}
        {%- if parsed -%}
            {%- do times.append(modules.datetime.datetime.strptime(parsed.group(1) ~ ' ' ~ (parsed.group(2) or '00:00:00'), '%Y-%m-%d %H:%M:%S')) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if times | length < 2 -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return([(times[1] - times[0]).total_seconds() | int * 1000000, 0] | max) }}
{% endmacro %}
