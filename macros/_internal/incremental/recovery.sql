{#- windowed_incremental, step 1 of a run (last in the order of the files: it uses the steps
    that follow): the state of the last commit, and what an earlier attempt left, applied again or
    dropped. -#}


{#- Step 1 of a run, given the state of the last committed run (_sw_incremental_read_state), which
    it returns after settling what an earlier attempt left: a staging table named by the last commit is
    applied again (its rewrite may not have finished); any other staging table, and the late and
    changelog rows of the batch after the last commit, belong to a run that did not commit and
    are dropped. With no commit (first run, --full-refresh, or a first run that crashed) every
    table of the model starts again. Before anything changes, the last commit's session time zone
    is checked, and so are the committer option of the tables the run writes into
    (_sw_incremental_check_committer_option) and (in _sw_incremental_apply) the staging table to
    apply again: tables written by a release older than 0.2.0 are refused. -#}
{% macro _sw_incremental_recover(cfg, target, tables, state, time_zone=none) %}
    {%- do spark_windows._sw_incremental_check_stored_zone(cfg, target, state, time_zone) -%}
    {%- if state.batch_id > 0 -%}
        {%- do spark_windows._sw_incremental_check_committer_option(cfg, tables) -%}
    {%- endif -%}
    {%- set uncommitted = spark_windows._sw_incremental_settle_staging(cfg, target, state) -%}
    {%- if state.batch_id > 0 -%}
        {#- A run writes late and changelog rows only after its staging table exists, which marks
            them: they go first, so a recovery killed in between still finds the mark. -#}
        {%- for name in ['late', 'changelog'] if uncommitted -%}
            {%- if adapter.get_relation(target.database, target.schema, tables[name].identifier) is not none -%}
                {%- do run_query('alter table ' ~ tables[name] ~ ' drop if exists partition (batch_id = ' ~ (state.batch_id + 1) ~ ')') -%}
            {%- endif -%}
        {%- endfor -%}
    {%- else -%}
        {%- do spark_windows._sw_incremental_reset(target, tables) -%}
    {%- endif -%}
    {%- for relation in uncommitted -%}
        {%- do run_query(spark_windows._sw_incremental_drop_sql(relation)) -%}
    {%- endfor -%}
    {{ return(state) }}
{% endmacro %}


{#- The last row of the state table:
    {batch_id (0 before the first), ingestion_us, event_us, watermark_us, pending, fingerprint,
    config (the settings as JSON text), session (the Spark session's time zone and release, asked
    in the same query for _sw_incremental_check_session; none when no state row was read)};
    batch_id 0 with --full-refresh, or when the model's relation is not a table. Tables written by
    a release older than 0.2.0 are refused before anything changes, with a message asking for
    --full-refresh: a state table without the config and arrival_counts columns (before it is
    read), and a table of windows written before revision and timing existed. Stored layouts are
    upgraded only from the last release, 0.2.0, whose layout is the current one: nothing to
    upgrade. -#}
{% macro _sw_incremental_read_state(target, tables, full_refresh) %}
    {%- set state = {'batch_id': 0, 'ingestion_us': none, 'event_us': none, 'watermark_us': none, 'pending': none, 'fingerprint': none,
        'config': none, 'session': none} -%}
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
    {%- set rows = run_query(
        'select batch_id, unix_micros(max_ingestion_time), unix_micros(max_event_time), unix_micros(watermark), pending_table, config_fingerprint, '
        ~ 'config, current_timezone(), version() from ' ~ tables.state ~ ' order by batch_id desc limit 1').rows -%}
    {%- if rows | length == 0 -%}
        {{ return(state) }}
    {%- endif -%}
    {%- set row = rows[0] -%}
    {%- do state.update({
        'batch_id': row[0] | int,
        'ingestion_us': none if row[1] is none else row[1] | int,
        'event_us': none if row[2] is none else row[2] | int,
        'watermark_us': none if row[3] is none else row[3] | int,
        'pending': row[4],
        'fingerprint': row[5],
        'config': row[6],
        'session': [row[7], row[8]],
    }) -%}
    {%- if existing is not none and 'revision' not in spark_windows._sw_column_names(existing) -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: " ~ existing ~ " has no revision and timing columns: it was written by an earlier "
            ~ "version of spark_windows. Run it once with --full-refresh to recompute every window with them.") }}
    {%- endif -%}
    {{ return(state) }}
{% endmacro %}


{#- Applies again the staging table the last commit names and drops it; returns the other
    staging tables, which belonged to no commit (the caller drops them). -#}
{% macro _sw_incremental_settle_staging(cfg, target, state) %}
    {%- set staged = run_query("show tables in " ~ target.schema ~ " like '" ~ target.identifier ~ "__pending_*'") -%}
    {%- set uncommitted = [] -%}
    {%- for row in staged.rows -%}
        {%- set relation = target.incorporate(path={'identifier': row[1]}, type='table') -%}
        {%- if state.batch_id > 0 and row[1] == state.pending -%}
            {%- do spark_windows._sw_incremental_apply(cfg, target, relation) -%}
            {%- do run_query(spark_windows._sw_incremental_drop_sql(relation)) -%}
        {%- else -%}
            {%- do uncommitted.append(relation) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(uncommitted) }}
{% endmacro %}


{#- No commit: every table of the model starts again (the model's relation whatever its type,
    the table of every window, the late, changelog and state tables, and the state's trash). -#}
{% macro _sw_incremental_reset(target, tables) %}
    {%- set existing = adapter.get_relation(target.database, target.schema, target.identifier) -%}
    {%- if existing is not none -%}
        {%- do adapter.drop_relation(existing) -%}
    {%- endif -%}
    {#- The state table after a compaction (_sw_incremental_compact_state): the folders it left
        go first, its own among them (a kill may have kept it, and the state table is created
        there again; a managed table cannot be created in a folder that exists), with a trash
        table a killed compaction left (dropping it deletes the folders it holds). -#}
    {%- set stale = [] -%}
    {%- if adapter.get_relation(target.database, target.schema, tables.state.identifier) is not none -%}
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
        {%- do adapter.drop_relation(tables[name]) -%}
    {%- endfor -%}
{% endmacro %}
