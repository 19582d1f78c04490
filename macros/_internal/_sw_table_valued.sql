{#- The table-valued macro of a window spec (from _sw_window_spec) over `relation`; `keys`
    partition sessions. -#}
{% macro _sw_table_valued(relation, time_col, spec, keys=[]) %}
    {%- if spec.type == 'session' -%}
        {{ return(spark_windows.session(relation, time_col, spec.gap, keys)) }}
    {%- elif spec.type == 'tumble' -%}
        {{ return(spark_windows.tumble(relation, time_col, spec.size, spec.offset)) }}
    {%- elif spec.type == 'hop' -%}
        {{ return(spark_windows.hop(relation, time_col, spec.slide, spec.size, spec.offset, spec.get('allow_gaps', false))) }}
    {%- else -%}
        {{ return(spark_windows.cumulate(relation, time_col, spec.slide, spec.size, spec.offset)) }}
    {%- endif -%}
{% endmacro %}
