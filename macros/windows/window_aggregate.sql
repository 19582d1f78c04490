{#- window_aggregate: windowed aggregation that adds each row once into slices (panes) and
    merges slices per window, so hop and cumulate cost about what tumble costs, whatever
    size/slide. Same results as the table-valued macro followed by GROUP BY. -#}
{% macro window_aggregate(relation, time_col, window, group_by, aggregates, time_zone=none, agg_phase_strategy=none, plan=none) -%}
    {#- checked and rendered when the model is compiled, not while dbt parses the project:
        a bad argument then fails only the models that hold it -#}
    {%- if not execute -%}
        {{ return(spark_windows._sw_parse_placeholder()) }}
    {%- endif -%}
    {{ return(adapter.dispatch('window_aggregate', 'spark_windows')(relation, time_col, window, group_by, aggregates, time_zone, agg_phase_strategy, plan)) }}
{%- endmacro %}


{% macro default__window_aggregate(relation, time_col, window, group_by, aggregates, time_zone=none, agg_phase_strategy=none, plan=none) -%}
    {{ spark_windows._sw_unsupported_adapter('window_aggregate') }}
{%- endmacro %}


{% macro spark__window_aggregate(relation, time_col, window, group_by, aggregates, time_zone=none, agg_phase_strategy=none, plan=none) -%}
    {%- set name = 'window_aggregate' -%}
    {%- do spark_windows._sw_require_relation(relation, name) -%}
    {%- do spark_windows._sw_require_column(time_col, name, 'time_col') -%}
    {%- set spec = spark_windows._sw_window_spec(window, name, any_hop=true) -%}
    {%- set keys = spark_windows._sw_column_list(group_by, name, 'group_by') -%}
    {%- set aggs = spark_windows._sw_parse_aggregates(aggregates, name, keys) -%}
    {%- for agg in aggs -%}
        {%- do spark_windows._sw_require_expression(agg.sql, name, "aggregate '" ~ agg.name ~ "'",
            "one aggregate call such as 'sum(car_count)' or 'count(*)'") -%}
    {%- endfor -%}
    {%- set table = spark_windows._sw_describe_with_rows(relation) -%}
    {%- set described = table.columns -%}
    {%- set columns = spark_windows._sw_relation_columns(relation, name, {'time_col': time_col}, described) -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, [time_col], name, 'time_col') -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, keys, name, 'group_by') -%}
    {%- set mode = spark_windows._sw_time_mode(relation, time_col, time_zone, name, described) -%}
    {%- if spec.type == 'session' and mode.kind == 'zone' -%}
        {{ exceptions.raise_compiler_error(
            name ~ ": time_zone ('" ~ time_zone ~ "') is for tumble, hop and cumulate windows, which start at wall-clock times; "
            ~ "a session window starts at its first row and lasts until a gap, whatever the zone: leave time_zone out") }}
    {%- endif -%}
    {#- the statistics are the table's, whatever part of it a batch reads; a table not built yet
        (no columns found) has none to read -#}
    {%- set input = {'relation': relation, 'time_col': time_col, 'keys': keys, 'rows': table.rows} if described is not none else none -%}
    {%- if spec.type == 'session' -%}
        {%- do spark_windows._sw_refuse_in_microbatch(name, "a session lasts as long as its rows keep coming, across any batch's edges") -%}
    {%- else -%}
        {%- set relation = spark_windows._sw_batch_input(relation, time_col, spec.size_us, name, mode) -%}
    {%- endif -%}
    {%- set choice = spark_windows._sw_window_aggregate_choice(spec, aggs, agg_phase_strategy, plan, name, spark_windows._sw_column_types(described), input) -%}
    {%- if mode.kind == 'instant' -%}
        {{ return(spark_windows._sw_batch_output(spark_windows._sw_window_aggregate_plan(relation, time_col, spec, keys, aggs, columns, choice))) }}
    {%- endif -%}
    {#- wall-clock windows (a timestamp_ntz column, or time_zone): every plan runs on a timestamp
        whose microseconds are the wall-clock ones, and its window bounds are converted back -#}
    {%- set walled -%}
        (select __sw_source.*, timestamp_micros({{ spark_windows._sw_time_us(time_col, mode) }}) as __sw_wall_ts from {{ relation }} as __sw_source)
    {%- endset -%}
    {%- set planned = spark_windows._sw_window_aggregate_plan(walled, '__sw_wall_ts', spec, keys, aggs, columns, choice) -%}
    {%- set windows -%}
(
    select
        {%- for key in keys %}
        __sw_walled.{{ spark_windows._sw_column_name(key) }},
        {%- endfor %}
        {{ spark_windows._sw_window_columns('unix_micros(__sw_walled.window_start)', 'unix_micros(__sw_walled.window_end)', mode) }}
        {%- for agg in aggs %},
        __sw_walled.{{ agg.name }}
        {%- endfor %}
    from {{ planned }} as __sw_walled
)
    {%- endset -%}
    {{ return(spark_windows._sw_batch_output(windows)) }}
{%- endmacro %}

