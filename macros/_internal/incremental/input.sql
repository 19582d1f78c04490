{#- windowed_incremental: the input layer both window families read. The rows of the model's SQL
    that arrived by a run (by ingestion time or by input file), the new ones, their checked event
    and ingestion times, lateness, and the session runs' cached views of them. -#}


{#- Rows of the model whose ingestion time lies in (after_us, until_us]; no bound for none. -#}
{% macro _sw_incremental_arrivals(cfg, model_sql, after_us, until_us) -%}
    select *
    from (
        {{ model_sql }}
    ) as __sw_input
    where true
        {%- if after_us is not none %}
        and {{ cfg.ingestion_col }} > {{ spark_windows._sw_us_literal(after_us) }}
        {%- endif %}
        {%- if until_us is not none %}
        and {{ cfg.ingestion_col }} <= {{ spark_windows._sw_us_literal(until_us) }}
        {%- endif %}
{%- endmacro %}


{#- The input rows a step of a run reads. `which`: 'run' (this run's new rows), 'processed' (every
    row processed up to and with this run) or 'committed' (the rows the committed runs processed).
    `bounds`: the plan, or the state before it: by ingestion time (_sw_incremental_arrivals)
    after_us and until_us; with input_file_col, by input file: run_files (the files this run
    reads) and processed_files (the files the committed runs processed, from their commits'
    arrival_counts: _sw_incremental_list_files), both named in the SQL so that Spark opens no
    other file. -#}
{% macro _sw_incremental_input_sql(cfg, model_sql, bounds, which) -%}
    {%- if cfg.file_col is none -%}
        {{ spark_windows._sw_incremental_arrivals(cfg, model_sql,
            bounds.after_us if which == 'run' else none,
            bounds.after_us if which == 'committed' else bounds.until_us) }}
    {%- else -%}
        {%- set parts = [] -%}
        {%- if which in ['committed', 'processed'] and bounds.processed_files -%}
            {%- do parts.append(cfg.file_col ~ ' in (' ~ spark_windows._sw_incremental_file_literals(bounds.processed_files) ~ ')') -%}
        {%- endif -%}
        {%- if which in ['run', 'processed'] and bounds.run_files -%}
            {%- do parts.append(spark_windows._sw_incremental_in_run_files(cfg, bounds)) -%}
        {%- endif -%}
    select *
    from (
        {{ model_sql }}
    ) as __sw_input
    where ({{ parts | join(' or ') if parts else 'false' }})
    {%- endif -%}
{%- endmacro %}


{#- With input_file_col: the row is from one of the files this run reads (bounds.run_files). -#}
{% macro _sw_incremental_in_run_files(cfg, bounds) -%}
    {{ cfg.file_col }} in ({{ spark_windows._sw_incremental_file_literals(bounds.run_files) }})
{%- endmacro %}


{#- `paths` as a list of string literals, for an `in` list. -#}
{% macro _sw_incremental_file_literals(paths) -%}
    {%- set files = [] -%}
    {%- for path in paths -%}
        {%- do files.append(spark_windows._sw_string_literal(path)) -%}
    {%- endfor -%}
    {{ files | join(', ') }}
{%- endmacro %}


{#- Of the rows processed up to and with this run (_sw_incremental_input_sql, 'processed'), the
    condition that holds for this run's own rows; none where every one is (the first run). -#}
{% macro _sw_incremental_run_rows_condition(cfg, plan) -%}
    {%- if cfg.file_col is none -%}
        {{ return(none if plan.after_us is none else cfg.ingestion_col ~ ' > ' ~ spark_windows._sw_us_literal(plan.after_us)) }}
    {%- elif plan.state_table is none -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(spark_windows._sw_incremental_in_run_files(cfg, plan) if plan.run_files else 'false') }}
{%- endmacro %}


{#- Whether a row is late: every window holding it expired under the previous watermark.
    `ts_us`: the row's time in microseconds where a query computed it already. `watermark_us`:
    microseconds, or SQL that gives them (a scalar subquery of the state row, NULL before any
    watermark: no row is late then). -#}
{% macro _sw_incremental_is_late(cfg, watermark_us, ts_us=none) -%}
    {%- if watermark_us is none -%}
        false
    {%- elif watermark_us is string -%}
        coalesce({{ cfg.time_col }} is not null and {{ spark_windows._sw_last_window_end_us(ts_us or spark_windows._sw_ts_us(cfg.time_col), cfg.spec) }} + {{ cfg.lateness_us }} <= {{ watermark_us }}, false)
    {%- else -%}
        ({{ cfg.time_col }} is not null and {{ spark_windows._sw_last_window_end_us(ts_us or spark_windows._sw_ts_us(cfg.time_col), cfg.spec) }} + {{ cfg.lateness_us }} <= {{ watermark_us }})
    {%- endif -%}
{%- endmacro %}


{#- `source` (a query, or a view's name) with the checked event and ingestion times in
    microseconds as two more columns, __sw_ts_us and __sw_ingestion_us, which the scan's
    aggregates read (_sw_incremental_scan_columns): each check is written once, not once per
    aggregate. Spark analyses the query's expressions one by one, and the check is a large one:
    with its twelve copies the scan of 1,000 new rows took 0.53 s, with two 0.48 s. -#}
{% macro _sw_incremental_with_times(cfg, source) -%}
select *, {{ spark_windows._sw_ts_us(cfg.time_col) }} as __sw_ts_us, {{ spark_windows._sw_ts_us(cfg.ingestion_col) }} as __sw_ingestion_us
from {{ source }}
{%- endmacro %}


{#- The rows a run has not processed yet: ingested after the state's ingestion_us (every row when
    none; after_sql, SQL of that time, where the state is read in the same query:
    _sw_incremental_state_bounds), and the rows without an ingestion time, which the summary
    counts to refuse them; with input_file_col, the rows of the files the run found unprocessed
    (its run_files). With iceberg_input only the rows up to the input's newest sequence number
    (_sw_incremental_sequence_bound_sql): the snapshots after it are checked by the next run. -#}
{% macro _sw_incremental_new_sql(cfg, model_sql, state) -%}
{%- if cfg.file_col is not none -%}
{{ spark_windows._sw_incremental_input_sql(cfg, model_sql, state, 'run') }}
{%- else -%}
{%- set after = state.get('after_sql') or (spark_windows._sw_us_literal(state.ingestion_us) if state.ingestion_us is not none) -%}
{%- set conditions = [] -%}
{%- if after -%}
    {%- do conditions.append(cfg.ingestion_col ~ ' > ' ~ after ~ ' or ' ~ cfg.ingestion_col ~ ' is null') -%}
{%- endif -%}
{%- if cfg.input_table is not none -%}
    {%- do conditions.append(cfg.ingestion_col ~ ' <= ' ~ spark_windows._sw_incremental_sequence_bound_sql(cfg.input_table) ~ ' or ' ~ cfg.ingestion_col ~ ' is null') -%}
{%- endif %}
select *
from (
    {{ model_sql }}
) as __sw_input
{%- if conditions | length == 1 %}
where {{ conditions[0] }}
{%- elif conditions %}
where ({{ conditions | join(') and (') }})
{%- endif %}
{%- endif %}
{%- endmacro %}


{#- Whether a run caches its batch: a session run's steps read its rows several times; with
    emit_policy='final' each of its statements reads them once. -#}
{% macro _sw_incremental_caches_batch(cfg) %}
    {{ return(cfg.session and not cfg.final) }}
{% endmacro %}


{#- A session run reads the batch's rows several times: they are cached with the summary scan,
    which reads them first (_sw_incremental_session_cache_batch). Returns the statements that
    cache them (none where the run caches no batch: _sw_incremental_caches_batch); the view is
    _sw_incremental_batch_view. -#}
{% macro _sw_incremental_cache_batch(cfg, model_sql, target, state) %}
    {{ return(spark_windows._sw_incremental_session_cache_batch(cfg, model_sql, target, state) if spark_windows._sw_incremental_caches_batch(cfg) else []) }}
{% endmacro %}


{#- The view of a run's cached batch (_sw_incremental_cache_batch); none where it caches none. -#}
{% macro _sw_incremental_batch_view(cfg, target) %}
    {{ return(spark_windows._sw_incremental_view_name('batch', target) if spark_windows._sw_incremental_caches_batch(cfg) else none) }}
{% endmacro %}


{#- The temporary view `__sw_<name>_<model>` of this connection that caches a query. -#}
{% macro _sw_incremental_view_name(name, target) %}
    {{ return('__sw_' ~ name ~ '_' ~ target.identifier) }}
{% endmacro %}


{#- The statements that cache `sql` (a query without a WITH clause) as the temporary view
    _sw_incremental_view_name(name, target), sent before the query that reads it first
    (_sw_incremental_ask). LAZY: that query fills the cache, with no job of its own. -#}
{% macro _sw_incremental_cache_view_sql(name, target, sql) %}
    {%- set view = spark_windows._sw_incremental_view_name(name, target) -%}
    {{ return(['create or replace temporary view ' ~ view ~ ' as\n' ~ sql, 'cache lazy table ' ~ view]) }}
{% endmacro %}


{#- The steps of a session run read the batch's rows, the candidate sessions and the touched
    sessions several times (each CTE reference is a scan of its input): each is cached once, as a
    temporary view of this connection, and `plan` names them. The batch is cached with the
    summary scan, which reads it first (_sw_incremental_session_cache_batch: the statements); the
    candidate and touched sessions with the touch query, once the table exists. Dropped by
    _sw_incremental_uncache. -#}
{% macro _sw_incremental_session_cache_batch(cfg, model_sql, target, state) %}
    {{ return(spark_windows._sw_incremental_cache_view_sql('batch', target,
        spark_windows._sw_incremental_new_sql(cfg, model_sql, state))) }}
{% endmacro %}


{#- `sql`, a query of this file's form (`with __sw_x as (` ... a line `),` ... `__sw_y as (` ...
    a line `)`, a blank line, the final select), as the same query without a WITH clause: each
    `from __sw_x` or `join __sw_x` of a later CTE or of the final select becomes the CTE's body
    as a subquery. Spark 4.1 does not find a cached view defined with a WITH clause inside a
    query that has one (every step of a run does), so the views a run caches are written without. -#}
{% macro _sw_incremental_inline_ctes(sql) %}
    {%- set re = modules.re -%}
    {%- set ctes = re.findall('(?ms)^(?:with )?(__sw_\\w+) as \\(\\n(.*?)\\n\\)(?=,\\n\\n|\\n\\n)', sql) -%}
    {%- set bodies = {} -%}
    {%- for name, body in ctes -%}
        {%- do bodies.update({name: spark_windows._sw_incremental_inline_refs(body, bodies)}) -%}
    {%- endfor -%}
    {{ return(spark_windows._sw_incremental_inline_refs(sql.rsplit('\n)\n\n', 1)[1], bodies)) }}
{% endmacro %}


{#- `text` with each `from <name>` / `join <name>` of a name in `bodies` replaced by its body as a
    subquery, aliased as the name unless an alias follows. -#}
{% macro _sw_incremental_inline_refs(text, bodies) %}
    {%- set re = modules.re -%}
    {%- set ns = namespace(text=text) -%}
    {%- for name, body in bodies.items() -%}
        {%- set reference = '\\b(from|join)(\\s+)' ~ name ~ '\\b' -%}
        {%- set ns.text = re.sub(reference ~ '(?!\\s+as\\b)', '\\1\\2' ~ name ~ ' as ' ~ name, ns.text) -%}
        {%- set ns.text = re.sub(reference, '\\1\\2(\n' ~ body | replace('\\', '\\\\') ~ '\n)', ns.text) -%}
    {%- endfor -%}
    {{ return(ns.text) }}
{% endmacro %}


{#- Drops the views a run cached (named in `plan`, or in {'batch_view': ...} when it stops or has
    nothing new before planning); nothing for fixed windows, which cache none. -#}
{% macro _sw_incremental_uncache(plan) %}
    {%- for text in spark_windows._sw_incremental_uncache_sql(plan) -%}
        {%- do run_query(text) -%}
    {%- endfor -%}
{% endmacro %}


{#- The statements of _sw_incremental_uncache, for a run to send with its writes. -#}
{% macro _sw_incremental_uncache_sql(plan) %}
    {%- set statements = [] -%}
    {%- for key in ['batch_view', 'candidates_view', 'touched_view'] if plan.get(key) -%}
        {%- do statements.append('drop view if exists ' ~ plan[key]) -%}
    {%- endfor -%}
    {{ return(statements) }}
{% endmacro %}
