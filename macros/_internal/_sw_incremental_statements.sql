{#- windowed_incremental: the statements of a run, as the materialization runs them in order.
    Each macro here returns SQL text or runs what a step needs; the window families (fixed
    windows: _sw_incremental_fixed.sql; sessions: _sw_incremental_sessions.sql) answer through one
    interface, _sw_incremental_window_sql. -#}


{#- Every overwrite of a run is static (a partition named in the statement, or a whole table),
    except the windows table's, which is dynamic by its own table option. dbt-spark's
    insert_overwrite and microbatch models set the session's mode to DYNAMIC and leave it so: a
    later model of the same dbt invocation (the same Spark session) must set it back. The whole
    tables are those a CREATE TABLE AS writes into a folder that may hold files (a staging table
    in its run's folder after a killed attempt, a kept table under a location_root after a
    --full-refresh dropped it): in DYNAMIC mode Spark would replace only the partitions the
    query writes, and keep every other partition's old files there. -#}
{% macro _sw_incremental_static_overwrite_sql() -%}
set spark.sql.sources.partitionOverwriteMode = STATIC
{%- endmacro %}


{#- A Spark SQL string literal of `text`: quoted, its backslashes and quotes escaped. -#}
{% macro _sw_string_literal(text) -%}
'{{ text | replace('\\', '\\\\') | replace("'", "\\'") }}'
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


{#- Hadoop's FileOutputCommitter with its algorithm 1 (Spark's default) moves, at a job's commit,
    every committed task folder it finds under `<table folder>/_temporary/0` into the table: also
    those a write killed between its task commits and its job commit left there. The next write
    into the same folder would take them in: a second copy of a batch's changelog or late rows, a
    second commit row naming a staging table that is gone. With algorithm 2 a task's files move
    into the table at the task's commit and the job's commit deletes `_temporary` whole, so a
    killed write's leftovers are never taken in. What a killed write of a run leaves visible with
    it is no more than with algorithm 1: the commit row is one file written by one task; a late or
    changelog partition is listed by the metastore only after its job commits, and the next
    attempt's static overwrite deletes its folder first; the windows table's dynamic overwrite and
    the staging tables write into folders of their own.
    The late, changelog and state tables hold algorithm 2 as a table option
    (_sw_incremental_table_clauses): Spark gives a table's options to the Hadoop configuration of
    each write into it, so the session's own setting is never changed. -#}
{% macro _sw_commit_algorithm_option() -%}
'mapreduce.fileoutputcommitter.algorithm.version' = '2'
{%- endmacro %}


{#- The statements that go before a run's first write (step 3): a late, changelog or state table
    that an earlier version of spark_windows created without the committer option
    (_sw_commit_algorithm_option) gets it, once. What dbt listed when it started tells which tables hold it (_sw_cached_table); a table
    it did not list is created by the run, with the option; one it holds without its text gets
    the option again (the statement can be repeated). -#}
{% macro _sw_incremental_commit_algorithm_sql(tables) %}
    {%- set option = spark_windows._sw_commit_algorithm_option() -%}
    {%- set held = option | replace("'", '') | replace(' ', '') -%}
    {#- `held`: the option as the listing names it, key=value -#}
    {%- set statements = [] -%}
    {%- for name in ['late', 'changelog', 'state'] -%}
        {%- set relation = tables[name] -%}
        {%- set listed = adapter.get_relation(relation.database, relation.schema, relation.identifier) is not none -%}
        {%- set cached = spark_windows._sw_cached_table(relation) if listed else none -%}
        {%- if listed and (cached is none or held not in cached.storage_properties) -%}
            {%- do statements.append('alter table ' ~ relation ~ ' set serdeproperties (' ~ option ~ ')') -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(statements) }}
{% endmacro %}


{#- Sessions read the batch's rows several times: they are cached with the summary scan, which
    reads them first (_sw_incremental_session_cache_batch). Returns the statements that cache them
    (none for fixed windows); the view is _sw_incremental_batch_view. -#}
{% macro _sw_incremental_cache_batch(cfg, model_sql, target, state) %}
    {{ return(spark_windows._sw_incremental_session_cache_batch(cfg, model_sql, target, state) if cfg.session else []) }}
{% endmacro %}


{#- The view of a session run's cached batch (_sw_incremental_cache_batch); none for fixed windows. -#}
{% macro _sw_incremental_batch_view(cfg, target) %}
    {{ return(spark_windows._sw_incremental_view_name('batch', target) if cfg.session else none) }}
{% endmacro %}


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


{#- Step 3: the staging table, the next version of the partitions the run replaces. With a
    `folder` (_sw_incremental_run_folder) it is partitioned like the table of windows and written
    there, for the table to take its partitions by metadata (_sw_incremental_repoint); without
    one it is a managed table, rewritten into the table (_sw_incremental_overwrite_sql).
    `read` (sessions, _sw_incremental_read_partitions): the partitions the run read, kept as a
    table property for the apply, recovery's too, to find those a merge empties. -#}
{% macro _sw_incremental_stage_sql(pending, stage_sql, folder=none, read=none) -%}
create table {{ pending }} using parquet
{%- if folder %}
partitioned by (window_partition)
location {{ spark_windows._sw_string_literal(folder) }}
{%- endif %}
{%- if read is not none %}
tblproperties ({{ spark_windows._sw_string_literal(spark_windows._sw_incremental_read_key()) }} = {{ spark_windows._sw_string_literal(tojson(read, sort_keys=true)) }})
{%- endif %}
as
{{ stage_sql }}
{%- endmacro %}


{#- The rows of batch `batch_id` in the late or changelog table (partitioned by batch_id): a
    repeated run overwrites what an uncommitted attempt wrote. -#}
{% macro _sw_incremental_batch_overwrite_sql(relation, batch_id, select_sql) -%}
insert overwrite table {{ relation }} partition (batch_id = {{ batch_id }}) by name
{{ select_sql }}
{%- endmacro %}


{#- A state table written before some of its columns existed gets them (`columns`: names of
    string columns). -#}
{% macro _sw_incremental_add_state_columns_sql(state_table, columns) -%}
alter table {{ state_table }} add columns ({% for column in columns %}{{ column }} string{{ ', ' if not loop.last }}{% endfor %})
{%- endmacro %}


{#- With input_file_col: every file of the input with its rows (one row per file: file,
    input_rows). No column but the file's is read (Parquet files keep their row counts in their
    footers), but every file of the input is visited. -#}
{% macro _sw_incremental_list_files_sql(cfg, model_sql) -%}
select {{ cfg.file_col }} as file, count(*) as input_rows
from (
    {{ model_sql }}
) as __sw_listed
group by {{ cfg.file_col }}
{%- endmacro %}


{#- With input_file_col and a committed run: the files of the input that are not among
    `processed_files` (the files the committed runs processed, named in the SQL: Spark leaves
    them out while it lists the input's files, and reads none of their rows), each with its rows
    (part 'file'), and one count of every row of the input (part 'input', from the files'
    footers). A row whose file is NULL is in no 'file' row but in the input's count. With
    `scan_state` (the last commit) each file's row also holds the scan's other aggregates
    (_sw_incremental_scan_columns, after its count), so that the run needs no scan of its own. -#}
{% macro _sw_incremental_unlisted_files_sql(cfg, model_sql, processed_files, scan_state=none) -%}
select 'file' as part, {{ cfg.file_col }} as file,
    {%- if scan_state is none %} count(*) as input_rows
    {%- else %}
    {{ spark_windows._sw_incremental_scan_columns(cfg, scan_state) }}
    {%- endif %}
from (
    {%- if scan_state is none %}
    {{ model_sql }}
    {%- else %}
    {{ spark_windows._sw_incremental_with_times(cfg, '(\n    ' ~ model_sql ~ '\n) as __sw_unlisted') }}
    {%- endif %}
) as __sw_unlisted
{%- if processed_files %}
where {{ cfg.file_col }} not in ({{ spark_windows._sw_incremental_file_literals(processed_files) }})
{%- endif %}
group by {{ cfg.file_col }}

union all

select 'input', null, count(*){{ ', null, null, null, null, null, null' if scan_state is not none }}
from (
    {{ model_sql }}
) as __sw_input
{%- endmacro %}


{#- With input_file_col: each commit's entries of the files it processed (file, rows); a file
    found removed from the input is entered again by a later commit, with its rows negative. -#}
{% macro _sw_incremental_processed_counts_sql(state_table) -%}
select __sw_entry.key as file, __sw_entry.value as processed_rows
from {{ state_table }}
lateral view explode(from_json(arrival_counts, 'map<string,bigint>')) __sw_entry as key, value
{%- endmacro %}


{#- The rows of the input at or below the run's newest ingestion time (`until_us`), counted per
    hour of ingestion time, against what the committed runs processed in each hour (the state's
    arrival_counts). `after_us`: the newest ingestion time a committed run processed; rows at or
    below it that no run processed are the input's unprocessed rows. With `after_us` none (a
    first run, or the first run with arrival counts) no row is checked and every row is counted
    as this run's. Rows the committed runs processed that the input no longer holds (retention)
    are removed rows. Returns one row: unprocessed_rows; processed_until, first_hour and last_hour
    (after_us and the hours holding unprocessed rows, as text in the session's time zone); and
    this run's arrival counts as JSON ({"<hour us>": rows}): per hour, its own rows less the
    removed ones, so that the state's counts add up to the input's rows again and the next run
    needs no comparison unless more rows land below or are removed. -#}
{% macro _sw_incremental_arrival_check_sql(cfg, model_sql, state_table, after_us, until_us) -%}
    {%- set hour_us = 3600000000 -%}
    {%- set before = 'false' if after_us is none else cfg.ingestion_col ~ ' <= ' ~ spark_windows._sw_us_literal(after_us) -%}
with __sw_counts as (
    -- one row per input row and per hour the committed runs processed rows in
    select
        {{ spark_windows._sw_align_us(spark_windows._sw_ts_us(cfg.ingestion_col), hour_us) }} as hour_us,
        cast(if({{ before }}, 1, 0) as bigint) as before_rows,
        cast(1 as bigint) as all_rows,
        cast(0 as bigint) as processed_rows
    from (
{{ spark_windows._sw_incremental_arrivals(cfg, model_sql, none, until_us) }}
    ) as __sw_rows
    {%- if after_us is not none %}

    union all

    select cast(__sw_entry.key as bigint), 0, 0, __sw_entry.value
    from {{ state_table }}
    lateral view explode(from_json(arrival_counts, 'map<string,bigint>')) __sw_entry as key, value
    {%- endif %}
),

__sw_compared as (
    select
        hour_us,
        greatest(sum(before_rows) - sum(processed_rows), 0) as unprocessed_rows,
        -- the run's own rows, less the processed ones the input no longer holds (removed rows)
        sum(all_rows) - sum(before_rows) - greatest(sum(processed_rows) - sum(before_rows), 0) as counted_rows
    from __sw_counts
    group by hour_us
)

select
    coalesce(sum(unprocessed_rows), 0) as unprocessed_rows,
    date_format({{ spark_windows._sw_us_literal(after_us) }}, 'yyyy-MM-dd HH:mm:ss.SSSSSS') as processed_until,
    date_format(timestamp_micros(min(case when unprocessed_rows > 0 then hour_us end)), 'yyyy-MM-dd HH:00') as first_hour,
    date_format(timestamp_micros(max(case when unprocessed_rows > 0 then hour_us end)), 'yyyy-MM-dd HH:00') as last_hour,
    to_json(map_from_entries(collect_list(case when counted_rows <> 0 then struct(cast(hour_us as string), counted_rows) end))) as arrival_counts
from __sw_compared
{%- endmacro %}


{#- Step 4, the commit: one row in the state table. From it on the run counts as done; a crash
    after it is finished by the next run's recovery, which applies `pending` again.
    windows_updated: how many windows of the staging table the run's new rows changed (an
    aggregate of the staging table, with the other values as literals: one Spark job fewer than
    a scalar subquery).
    `arrival_counts`: JSON text, the rows the run processed per hour of ingestion time, less
    the processed rows it found removed (_sw_incremental_arrival_check_sql), or per input file
    (_sw_incremental_list_files).
    config: the settings (the refusal of a changed one names them) and the session time zone
    (_sw_incremental_stored_settings). -#}
{% macro _sw_incremental_commit_sql(cfg, state_table, batch_id, plan, new_rows, pending, fingerprint, arrival_counts) -%}
insert into {{ state_table }}
select
    cast({{ batch_id }} as bigint),
    {{ spark_windows._sw_us_literal(plan.until_us) }},
    {{ spark_windows._sw_us_literal(plan.max_event_us) }},
    {{ spark_windows._sw_us_literal(plan.watermark_us) }},
    cast({{ new_rows }} as bigint),
    cast({{ plan.late_rows }} as bigint),
    {%- if plan.rewrite %}
    count_if(__sw_fresh_window),
    {%- else %}
    cast(0 as bigint),
    {%- endif %}
    {{ spark_windows._sw_us_literal(plan.run_us) }},
    '{{ pending.identifier if plan.rewrite else '' }}',
    '{{ fingerprint }}',
    {{ spark_windows._sw_string_literal(tojson(spark_windows._sw_incremental_stored_settings(cfg), sort_keys=true)) }},
    {{ spark_windows._sw_string_literal(arrival_counts) }}
{%- if plan.rewrite %}
from {{ pending }}
{%- endif %}
{%- endmacro %}


{#- The settings a commit stores: the model's, and the session time zone its partitions are
    named in (_sw_incremental_check_stored_zone), where the materialization read it. -#}
{% macro _sw_incremental_stored_settings(cfg) %}
    {%- set stored = {} -%}
    {%- do stored.update(cfg.settings) -%}
    {%- if cfg.get('session_time_zone') is not none -%}
        {%- do stored.update({'session_time_zone': cfg.session_time_zone}) -%}
    {%- endif -%}
    {{ return(stored) }}
{% endmacro %}


{#- A run with no new rows changes no table; its main statement counts the committed runs. -#}
{% macro _sw_incremental_committed_runs_sql(state_table) -%}
select count(*) as committed_runs from {{ state_table }}
{%- endmacro %}


{#- Step 5, applying a staging table: a dynamic INSERT OVERWRITE of the partitions it has rows
    for (the run's main statement; recovery runs it again). -#}
{% macro _sw_incremental_overwrite_sql(cfg, target, pending) -%}
insert overwrite table {{ target }} partition (window_partition) by name
{{ spark_windows._sw_incremental_stored_sql(cfg, pending) }}
{%- endmacro %}


{% macro _sw_incremental_drop_sql(relation) -%}
drop table if exists {{ relation }}
{%- endmacro %}
