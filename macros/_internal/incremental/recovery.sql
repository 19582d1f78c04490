{#- windowed_incremental, step 1 of a run (last in the order of the files: it uses the steps
    that follow): the state of the last commit, and what an earlier attempt left, applied again or
    dropped. -#}


{#- Step 1 of a run, given the state of the last committed run (_sw_incremental_read_state), which
    it returns after settling what an earlier attempt left: a staging table named by the last commit is
    applied again (its rewrite may not have finished); any other staging table, and the late and
    changelog rows of the batch after the last commit, belong to a run that did not commit and
    are dropped. With no commit (first run, --full-refresh, or a first run that crashed) every
    table of the model starts again. Before anything changes, the last commit's session time zone
    is checked, and so are the format of the model's tables (_sw_incremental_check_formats: a
    table of another file_format is refused), the committer option of the Parquet tables the run
    writes into (_sw_incremental_check_committer_option) and (in _sw_incremental_apply) the
    staging table to apply again: tables written by a release older than 0.2.0 are refused. -#}
{% macro _sw_incremental_recover(cfg, target, tables, state, time_zone=none, clauses={}) %}
    {%- do spark_windows._sw_incremental_check_stored_zone(cfg, target, state, time_zone) -%}
    {%- if state.batch_id > 0 -%}
        {%- do spark_windows._sw_incremental_check_formats(cfg, tables, target) -%}
        {%- if not cfg.iceberg -%}
            {%- do spark_windows._sw_incremental_check_committer_option(cfg, tables) -%}
        {%- endif -%}
    {%- endif -%}
    {%- set uncommitted = spark_windows._sw_incremental_settle_staging(cfg, target, state) -%}
    {%- if state.batch_id > 0 -%}
        {#- A run writes late and changelog rows only after its staging table exists, which marks
            them: they go first, so a recovery killed in between still finds the mark. -#}
        {%- for name in ['late', 'changelog'] if uncommitted -%}
            {%- if adapter.get_relation(target.database, target.schema, tables[name].identifier) is not none -%}
                {%- do run_query(spark_windows._sw_incremental_drop_batch_sql(cfg, tables[name], state.batch_id + 1)) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- else -%}
        {%- do spark_windows._sw_incremental_reset(cfg, target, tables) -%}
    {%- endif -%}
    {%- for relation in uncommitted -%}
        {%- do spark_windows._sw_incremental_drop_table(cfg, relation) -%}
    {%- endfor -%}
    {{ return(state) }}
{% endmacro %}


{#- The last row of the state table:
    {batch_id (0 before the first), ingestion_us, event_us, watermark_us, pending, fingerprint,
    config (the settings as JSON text), session (the Spark session's time zone and release, asked
    in the same query for _sw_incremental_check_session; none when no state row was read),
    scanned (the scan's rows when the same query scanned the new rows, else none)};
    batch_id 0 with --full-refresh, or when the model's relation is not a table. Tables written by
    a release older than 0.2.0 are refused before anything changes, with a message asking for
    --full-refresh: a state table without the config and arrival_counts columns (before it is
    read), and a table of windows written before revision and timing existed. Stored layouts are
    upgraded only from the last release, 0.2.0 (_sw_incremental_settle_staging).
    By ingestion time a tumbling, hop or cumulate run reads the state row and scans its new rows in
    one query (_sw_incremental_read_scan_sql), one round trip fewer; a session run scans the batch
    it caches, and with input_file_col the listing of the new files is the scan: they read the
    state row alone. -#}
{% macro _sw_incremental_read_state(cfg, model_sql, target, tables, full_refresh) %}
    {%- set state = {'batch_id': 0, 'ingestion_us': none, 'event_us': none, 'watermark_us': none, 'pending': none, 'fingerprint': none,
        'config': none, 'session': none, 'scanned': none} -%}
    {%- set existing = adapter.get_relation(target.database, target.schema, target.identifier) -%}
    {%- set existing_state = adapter.get_relation(target.database, target.schema, tables.state.identifier) -%}
    {%- if full_refresh or existing_state is none or (existing is not none and not existing.is_table) -%}
        {{ return(state) }}
    {%- endif -%}
    {%- set missing = ['config', 'arrival_counts'] | reject('in', spark_windows._sw_column_names(existing_state)) | list -%}
    {%- if missing -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: " ~ tables.state ~ " has no " ~ missing | join(' and ') ~ " column" ~ ('s' if missing | length > 1 else '')
            ~ ": it was written by a spark_windows release older than 0.2.0. Run the model once with --full-refresh to "
            ~ "recompute every window.") }}
    {%- endif -%}
    {%- set with_scan = cfg.file_col is none and not spark_windows._sw_incremental_caches_batch(cfg) -%}
    {%- set last_sql = spark_windows._sw_incremental_last_state_sql(tables.state) -%}
    {%- set rows = run_query(spark_windows._sw_incremental_read_scan_sql(cfg, model_sql, tables.state, last_sql) if with_scan else last_sql).rows -%}
    {#- with the scan, each row is a row of the scan followed by the state row's columns (NULL
        when the state table holds no row) -#}
    {%- set width = spark_windows._sw_incremental_scan_fields(cfg, {'watermark_us': none}) | length + 2 if with_scan else 0 -%}
    {%- if rows | length == 0 or rows[0][width] is none -%}
        {{ return(state) }}
    {%- endif -%}
    {%- set row = rows[0][width:] -%}
    {%- do state.update({
        'batch_id': row[0] | int,
        'ingestion_us': none if row[1] is none else row[1] | int,
        'event_us': none if row[2] is none else row[2] | int,
        'watermark_us': none if row[3] is none else row[3] | int,
        'pending': row[4],
        'fingerprint': row[5],
        'config': row[6],
        'session': [row[7], row[8]],
        'late_rows': row[9] | int,
        'scanned': rows if with_scan else none,
    }) -%}
    {%- if existing is not none and not cfg.final and 'revision' not in spark_windows._sw_column_names(existing) -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: " ~ existing ~ " has no revision and timing columns: it was written by an earlier "
            ~ "version of spark_windows. Run it once with --full-refresh to recompute every window with them.") }}
    {%- endif -%}
    {{ return(state) }}
{% endmacro %}


{#- The last row of the state table, with the session's time zone and release. -#}
{% macro _sw_incremental_last_state_sql(state_table) -%}
select batch_id, unix_micros(max_ingestion_time), unix_micros(max_event_time), unix_micros(watermark), pending_table, config_fingerprint, config, current_timezone(), version(), late_rows
from {{ state_table }}
order by batch_id desc
limit 1
{%- endmacro %}


{#- The scan of the new rows (_sw_incremental_summary_sql, with the state's counts to check
    arrivals) in the same query as the state row (`last_sql`): each of the scan's rows followed by
    the state row's columns. The scan's bounds are scalar subqueries of the last state row
    (_sw_incremental_state_bounds); Spark 4 pushes the new rows' filter into the Parquet reader as
    it does a literal, so row groups of older rows are skipped. When the state table holds no
    row, the bounds are NULL and the scan is not used (the run scans again, as a first run). -#}
{% macro _sw_incremental_read_scan_sql(cfg, model_sql, state_table, last_sql) -%}
select __sw_scan.*, __sw_last.*
from (
{{ spark_windows._sw_incremental_summary_sql(cfg, model_sql, spark_windows._sw_incremental_state_bounds(state_table), none, state_table) }}
) as __sw_scan
left join (
{{ last_sql }}
) as __sw_last
on true
{%- endmacro %}


{#- The state a scan reads, as SQL of the last state row (scalar subqueries) instead of values:
    after_sql, the newest ingestion time processed (a timestamp), and watermark_sql, the
    watermark in microseconds. -#}
{% macro _sw_incremental_state_bounds(state_table) %}
    {%- set last = 'from ' ~ state_table ~ ' order by batch_id desc limit 1)' -%}
    {{ return({'batch_id': none, 'ingestion_us': none, 'watermark_us': none,
        'after_sql': '(select max_ingestion_time ' ~ last, 'watermark_sql': '(select unix_micros(watermark) ' ~ last}) }}
{% endmacro %}


{#- Applies again the staging table the last commit names and drops it; returns the other
    staging tables, which belonged to no commit (the caller drops them). A staging table is named
    by its batch (_sw_incremental_pending), so after a commit N only two can exist, N's (named by
    the commit) and N + 1's: each run settles both before it stages. What dbt listed when it
    started (its relation cache) tells which exist, with no statement. A commit of 0.2.0 named
    its staging table by dbt's invocation id: where the last commit does not say that staging
    tables are named by batch (_sw_incremental_stored_settings), and where there is no commit
    (--full-refresh, a first run: any batch's may be left), the schema's staging tables of the
    model are listed. Each is dropped with its files and out of dbt's cache
    (_sw_incremental_drop_table), which the creation of the run's own reads
    (_sw_incremental_create_statements). -#}
{% macro _sw_incremental_settle_staging(cfg, target, state) %}
    {%- set stored = fromjson(state.config) if state.config else none -%}
    {%- set names = [] -%}
    {%- if state.batch_id > 0 and stored is mapping and stored.get('staging_tables') == 'by_batch' -%}
        {%- for name in [state.pending, spark_windows._sw_incremental_pending(target, state.batch_id + 1).identifier] if name -%}
            {%- if adapter.get_relation(target.database, target.schema, name) is not none -%}
                {%- do names.append(name) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- else -%}
        {%- for row in run_query("show tables in " ~ target.schema ~ " like '" ~ target.identifier ~ "__pending_*'").rows -%}
            {%- do names.append(row[1]) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- set uncommitted = [] -%}
    {%- for name in names -%}
        {%- set relation = target.incorporate(path={'identifier': name}, type='table') -%}
        {%- if state.batch_id > 0 and name == state.pending -%}
            {%- do spark_windows._sw_incremental_apply(cfg, target, relation) -%}
            {%- do spark_windows._sw_incremental_drop_table(cfg, relation) -%}
        {%- else -%}
            {%- do uncommitted.append(relation) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(uncommitted) }}
{% endmacro %}


{#- No commit: every table of the model starts again (the model's relation whatever its type,
    the table of every window, the late, changelog and state tables, and the state's trash).
    Iceberg tables are dropped with their files (_sw_incremental_drop_table). -#}
{% macro _sw_incremental_reset(cfg, target, tables) %}
    {%- do spark_windows._sw_incremental_check_formats(cfg, tables, target, refresh=true) -%}
    {%- set existing = adapter.get_relation(target.database, target.schema, target.identifier) -%}
    {%- if existing is not none and existing.is_view -%}
        {%- do adapter.drop_relation(existing) -%}
    {%- elif existing is not none -%}
        {%- do spark_windows._sw_incremental_drop_table(cfg, target.incorporate(type='table')) -%}
    {%- endif -%}
    {#- The state table after a compaction (_sw_incremental_compact_state): the folders it left
        go first, its own among them (a kill may have kept it, and the state table is created
        there again; a managed table cannot be created in a folder that exists), with a trash
        table a killed compaction left (dropping it deletes the folders it holds). -#}
    {%- set stale = [] -%}
    {%- if adapter.get_relation(target.database, target.schema, tables.state.identifier) is not none
        and not spark_windows._sw_incremental_is_iceberg_table(cfg, tables.state) -%}
        {%- set folders = spark_windows._sw_incremental_state_folders(tables.state) -%}
        {%- if folders.location != folders.base -%}
            {%- do stale.extend(folders.all | reject('equalto', folders.location)) -%}
        {%- endif -%}
    {%- endif -%}
    {%- if stale -%}
        {%- do spark_windows._sw_incremental_purge_folders(tables.state, stale) -%}
    {%- else -%}
        {%- do run_query(spark_windows._sw_incremental_drop_sql(spark_windows._sw_incremental_trash(tables.state))) -%}
    {%- endif -%}
    {#- through dbt's relation cache, which _sw_incremental_create_statements reads -#}
    {%- for name in ['windows', 'late', 'changelog', 'state'] -%}
        {%- do spark_windows._sw_incremental_drop_table(cfg, tables[name]) -%}
    {%- endfor -%}
    {#- with emit_policy='final' the model's own relation, whatever its type (a view of
        on_watermark, a table of another policy) -#}
    {%- set model_relation = adapter.get_relation(tables.final.database, tables.final.schema, tables.final.identifier) if 'final' in tables else none -%}
    {%- if model_relation is not none and model_relation.is_view -%}
        {%- do adapter.drop_relation(model_relation) -%}
    {%- elif model_relation is not none -%}
        {%- do spark_windows._sw_incremental_drop_table(cfg, tables.final) -%}
    {%- endif -%}
{% endmacro %}
