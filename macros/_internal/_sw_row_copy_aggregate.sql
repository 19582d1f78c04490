{#- The row-copy plan: the table-valued macro, then GROUP BY. For sessions of a per-row gap
    (or over an input with window columns of its own), and for aggregates that slices cannot
    merge (count(distinct ...), percentiles, ...). -#}
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
