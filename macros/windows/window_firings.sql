{#- window_firings: what a Flink window with a trigger (and an evictor) would have emitted, one
    row per firing of each window, with the aggregates as of that firing.

    Rows are taken per window in event-time order, ties broken by the row's JSON text (the rule
    of count_window). A firing is a cut of that order: a row number (count and condition
    triggers, and the final firing) or an event time (timers of the `every` trigger). Each
    firing holds the rows up to its cut (accumulating) or since the previous cut (purge);
    the evictor then removes rows, as Flink's evictBefore, before the aggregates. -#}
{% macro window_firings(relation, time_col, window, group_by, aggregates, trigger=none, purge=false, evictor=none) -%}
    {{ return(adapter.dispatch('window_firings', 'spark_windows')(relation, time_col, window, group_by, aggregates, trigger, purge, evictor)) }}
{%- endmacro %}


{% macro default__window_firings(relation, time_col, window, group_by, aggregates, trigger=none, purge=false, evictor=none) -%}
    {{ spark_windows._sw_unsupported_adapter('window_firings') }}
{%- endmacro %}


{% macro spark__window_firings(relation, time_col, window, group_by, aggregates, trigger=none, purge=false, evictor=none) -%}
    {%- set name = 'window_firings' -%}
    {%- do spark_windows._sw_require_relation(relation, name) -%}
    {%- do spark_windows._sw_require_column(time_col, name, 'time_col') -%}
    {%- set spec = spark_windows._sw_firings_window(window, name) -%}
    {%- set keys = spark_windows._sw_column_list(group_by, name, 'group_by') -%}
    {%- set aggs = spark_windows._sw_parse_aggregates(aggregates, name, keys) -%}
    {%- for agg in aggs -%}
        {%- if agg.name.lower() in ['firing', 'fired_at', 'is_final'] -%}
            {{ exceptions.raise_compiler_error(
                name ~ ": aggregates has the output name '" ~ agg.name ~ "', which is a column the output holds already "
                ~ "(firing, fired_at, is_final); choose another name, such as 'readings'") }}
        {%- endif -%}
    {%- endfor -%}
    {%- set fire = spark_windows._sw_firings_trigger(trigger, spec, aggs, name) -%}
    {%- do spark_windows._sw_refuse_in_microbatch(name, "its firings are numbered over all of a window's rows, and a global window holds the rows of every batch") -%}
    {%- if purge is not boolean -%}
        {{ exceptions.raise_compiler_error(
            name ~ ": purge (" ~ purge ~ ") must be true (each firing holds the rows since the previous one, Flink's PurgingTrigger) "
            ~ "or false (each firing holds every row of the window so far)") }}
    {%- endif -%}
    {%- set evict = spark_windows._sw_firings_evictor(evictor, name) -%}
    {{ return(spark_windows._sw_window_firings_sql(relation, time_col, spec, keys, aggs, fire, purge, evict)) }}
{%- endmacro %}
