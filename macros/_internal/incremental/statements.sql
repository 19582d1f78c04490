{#- windowed_incremental: how a run's statements reach Spark. Literals, and the two ways a run
    sends what needs no answer: one SQL script on Spark 4.1 and newer (_sw_incremental_send,
    _sw_incremental_ask), else one statement at a time. Every step file uses these; they call
    none of the steps. -#}


{#- A Spark SQL string literal of `text`: quoted, its backslashes and quotes escaped. -#}
{% macro _sw_string_literal(text) -%}
'{{ text | replace('\\', '\\\\') | replace("'", "\\'") }}'
{%- endmacro %}


{#- SQL literal of a time in microseconds. -#}
{% macro _sw_us_literal(us) -%}
    {%- if us is none -%}
        cast(null as timestamp)
    {%- else -%}
        timestamp_micros({{ us }})
    {%- endif -%}
{%- endmacro %}


{#- A run's `statements` that need no answer, ready to send: on a Spark that runs SQL scripts
    (session.scripts, _sw_incremental_check_session) as one script, a single round trip; else one
    by one. The script runs them in the same order, each as it would run alone: a kill or a
    failure inside it leaves the statements before done and the others not, as between statements
    sent one by one, so the recovery of a run holds statement by statement. A setting of the
    session (`set key = value`, `reset key`) runs inside a script through EXECUTE IMMEDIATE.
    Runs all but the last text to send and returns that one, for the caller to run as the model's
    main statement; none when there is nothing to send. -#}
{% macro _sw_incremental_send(session, statements) %}
    {%- if not statements -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if session.scripts -%}
        {{ return(spark_windows._sw_sql_script(statements)) }}
    {%- endif -%}
    {%- for text in statements[:-1] -%}
        {%- do run_query(text) -%}
    {%- endfor -%}
    {{ return(statements[-1]) }}
{% endmacro %}


{#- `statements` as one SQL script (BEGIN ... END), in order; a session setting through EXECUTE
    IMMEDIATE (a script reads `set x = ...` as the assignment of a variable). -#}
{% macro _sw_sql_script(statements) -%}
BEGIN
{%- for text in statements %}
{%- set words = text | trim | lower %}
{{ ('EXECUTE IMMEDIATE ' ~ spark_windows._sw_string_literal(text | trim)) if words.startswith('set ') or words.startswith('reset ') else text | trim }};
{%- endfor %}
END
{%- endmacro %}


{#- The answer of the query `sql`, with `before` (statements that need no answer, such as the
    caching of a view the query reads) sent first: with it in one SQL script where the run sends
    scripts (`session`, _sw_incremental_check_session; a script answers with its last query's
    rows), else one by one. -#}
{% macro _sw_incremental_ask(session, before, sql) %}
    {%- if before and session is not none and session.scripts -%}
        {{ return(run_query(spark_windows._sw_sql_script(before + [sql]))) }}
    {%- endif -%}
    {%- for text in before -%}
        {%- do run_query(text) -%}
    {%- endfor -%}
    {{ return(run_query(sql)) }}
{% endmacro %}


{#- `purge`: an Iceberg table's files are deleted with it (Iceberg's DROP TABLE keeps them). -#}
{% macro _sw_incremental_drop_sql(relation, purge=false) -%}
drop table if exists {{ relation }}{{ ' purge' if purge }}
{%- endmacro %}


{#- `us` floored to a multiple of `step_us` (toward minus infinity, like pmod). -#}
{% macro _sw_floor_us(us, step_us) %}
    {{ return(us - us % step_us) }}
{% endmacro %}
