{#- windowed_incremental, step 3: the two window families behind one interface, for the
    materialization, which never forks on the family. -#}


{#- The SQL of a run's window family, one signature for both:
      stage            the next version of the partitions the run rewrites (written to `pending`);
      late             the late rows of the batch;
      changelog_shape  the changelog's columns, read from the stage query (creates the table);
      changelog        the changelog rows, read from `pending` once it is written
    (the changelog entries are none without emit='changelog'). -#}
{% macro _sw_incremental_window_sql(cfg, model_sql, target, tables, plan, pending) %}
    {%- if cfg.session -%}
        {{ return(spark_windows._sw_incremental_session_window_sql(cfg, model_sql, target, tables, plan, pending)) }}
    {%- endif -%}
    {{ return(spark_windows._sw_incremental_fixed_window_sql(cfg, model_sql, target, tables, plan, pending)) }}
{% endmacro %}


{% macro _sw_incremental_fixed_window_sql(cfg, model_sql, target, tables, plan, pending) %}
    {%- set stage = spark_windows._sw_incremental_pending_sql(cfg, model_sql, target, plan) -%}
    {%- set statements = {'stage': stage, 'late': spark_windows._sw_incremental_late_sql(cfg, model_sql, plan),
        'changelog_shape': none, 'changelog': none} -%}
    {%- if cfg.changelog -%}
        {#- the shape as on a first run: every column, none read from the table -#}
        {%- set shape_plan = plan.copy() -%}
        {%- do shape_plan.update({'target_exists': false}) -%}
        {%- do statements.update({
            'changelog_shape': spark_windows._sw_incremental_changelog_sql(cfg, target, '(' ~ stage ~ ')', shape_plan),
            'changelog': spark_windows._sw_incremental_changelog_sql(cfg, target, pending, plan),
        }) -%}
    {%- endif -%}
    {{ return(statements) }}
{% endmacro %}


{% macro _sw_incremental_session_window_sql(cfg, model_sql, target, tables, plan, pending) %}
    {%- set stage = spark_windows._sw_incremental_session_pending_sql(cfg, model_sql, target, tables.late, plan) -%}
    {%- set statements = {'stage': stage, 'late': spark_windows._sw_incremental_session_late_sql(cfg, model_sql, target, plan),
        'changelog_shape': none, 'changelog': none} -%}
    {%- if cfg.changelog -%}
        {%- do statements.update({
            'changelog_shape': spark_windows._sw_incremental_session_changelog_sql(cfg, '(' ~ stage ~ ')', plan),
            'changelog': spark_windows._sw_incremental_session_changelog_sql(cfg, pending, plan),
        }) -%}
    {%- endif -%}
    {{ return(statements) }}
{% endmacro %}
