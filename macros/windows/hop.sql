{#- HOP: windows of length `size` starting every `slide`, as Flink SQL's HOP (slide first).
    Each row is copied into its ceil(size/slide) windows; for large ratios, window_aggregate
    computes the same aggregates without the copies. -#}
{% macro hop(relation, time_col, slide, size, offset=none, allow_gaps=false, time_zone=none) -%}
    {#- checked and rendered when the model is compiled, not while dbt parses the project:
        a bad argument then fails only the models that hold it -#}
    {%- if not execute -%}
        {{ return(spark_windows._sw_parse_placeholder()) }}
    {%- endif -%}
    {{ return(adapter.dispatch('hop', 'spark_windows')(relation, time_col, slide, size, offset, allow_gaps, time_zone)) }}
{%- endmacro %}


{% macro default__hop(relation, time_col, slide, size, offset=none, allow_gaps=false, time_zone=none) -%}
    {{ spark_windows._sw_unsupported_adapter('hop') }}
{%- endmacro %}


{% macro spark__hop(relation, time_col, slide, size, offset=none, allow_gaps=false, time_zone=none) -%}
    {%- do spark_windows._sw_require_relation(relation, 'hop') -%}
    {%- do spark_windows._sw_require_column(time_col, 'hop', 'time_col') -%}
    {%- set slide_us = spark_windows._sw_duration_us(slide, 'hop', 'slide') -%}
    {%- set size_us = spark_windows._sw_duration_us(size, 'hop', 'size') -%}
    {%- do spark_windows._sw_require_hop_slide(size, size_us, slide, slide_us, allow_gaps, 'hop') -%}
    {%- set offset_us = spark_windows._sw_offset_us(offset, slide_us, 'hop') -%}
    {#- The latest window that can hold the row starts at the slide boundary at or before it;
        the others start 1, 2, ... slides earlier, ceil(size / slide) in all. When size is not
        a whole multiple of slide, the earliest of them may end at or before the row (and with
        gaps, the latest too): those are filtered out. -#}
    {%- set copies = (size_us + slide_us - 1) // slide_us -%}
    {%- set described = spark_windows._sw_describe(relation) -%}
    {%- set columns = spark_windows._sw_relation_columns(relation, 'hop', {'time_col': time_col}, described) -%}
    {%- do spark_windows._sw_require_known_columns(relation, columns, [time_col], 'hop', 'time_col') -%}
    {%- set mode = spark_windows._sw_time_mode(relation, time_col, time_zone, 'hop', described) -%}
    {%- set ts_us = spark_windows._sw_time_us(time_col, mode) -%}
    {%- set start_us -%}
        ({{ spark_windows._sw_align_us(ts_us, slide_us, offset_us) }} - __sw_hop_index * {{ slide_us }})
    {%- endset -%}
    {%- set relation = spark_windows._sw_batch_input(relation, time_col, size_us, 'hop', mode) -%}
    {%- set windows -%}
(
    select
        {{ spark_windows._sw_input_columns('__sw_source', relation, columns, time_col, ['window_start', 'window_end', 'window_time'], 'hop') }},
        {{ spark_windows._sw_window_columns(start_us, start_us ~ ' + ' ~ size_us, mode) }}
    from {{ relation }} as __sw_source
    lateral view explode(sequence(cast(0 as bigint), {{ copies - 1 }})) __sw_hop as __sw_hop_index
    where {{ time_col }} is not null
    {%- if size_us % slide_us != 0 %}
        and {{ ts_us }} < {{ start_us }} + {{ size_us }}
    {%- endif %}
)
    {%- endset -%}
    {{ spark_windows._sw_batch_output(windows) }}
{%- endmacro %}
