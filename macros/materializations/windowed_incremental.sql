{#- windowed_incremental: a scheduled dbt run as one micro-batch of a windowed aggregation, with
    an event-time watermark, allowed lateness, late rows kept in `<model>__late`, an optional
    changelog, and re-runs that are safe after a crash. The design, step by step, is in
    docs/design/windowed_incremental.md.

    The tables a model keeps are listed in docs/guides/windowed_incremental.md, "The tables a
    model keeps"; the transient ones, and where each step lives (macros/_internal/incremental/),
    in the design.

    Like dbt-spark's table and incremental materializations it honours location_root (each kept
    table in its own folder under it), persist_docs (the model's description as the table's
    comment), tblproperties (on every kept table) and grants (apply_grants on every kept table),
    and refuses what it cannot honour (a file_format other than parquet or iceberg,
    partition_by, ...). -#}

{% materialization windowed_incremental, adapter='spark' %}
    {%- set cfg = spark_windows._sw_incremental_config(config) -%}
    {%- set tables = {
        'windows': this.incorporate(path={'identifier': this.identifier ~ '__windows'}, type='table'),
        'late': this.incorporate(path={'identifier': this.identifier ~ '__late'}, type='table'),
        'changelog': this.incorporate(path={'identifier': this.identifier ~ '__changelog'}, type='table'),
        'state': this.incorporate(path={'identifier': this.identifier ~ '__state'}, type='table'),
    } -%}
    {#- `target`: the table the runs write windows into; the model's own relation, but with
        on_watermark <model>__windows, and the model a view of the windows shown. With final the
        model's table, to which each window is appended once (no table holds the open ones:
        macros/_internal/incremental/final.sql). -#}
    {%- if cfg.final -%}
        {%- do tables.update({'final': this.incorporate(type='table')}) -%}
    {%- endif -%}
    {%- set target = tables.windows if cfg.on_watermark else this.incorporate(type='table') -%}
    {%- set fingerprint_text = tojson([cfg.time_col, cfg.ingestion_col, cfg.window, cfg.group_cols, cfg.aggregates,
        cfg.delay_us, cfg.lateness_us, cfg.partition_us, cfg.changelog] + (['on_watermark'] if cfg.on_watermark else [])
        + (['final'] if cfg.final else [])
        + (['input_file_col', cfg.file_col] if cfg.file_col else [])
        + (['iceberg_input', cfg.iceberg_input] if cfg.iceberg_input else []), sort_keys=true) -%}
    {%- set fingerprint = local_md5(fingerprint_text) -%}
    {%- set clauses = spark_windows._sw_incremental_table_clauses(tables, target, cfg.iceberg) -%}
    {%- set format = spark_windows._sw_incremental_format(cfg) -%}
    {%- set own_folders = config.get('location_root') is not none -%}
    {%- set grant_config = config.get('grants') -%}

    {{ run_hooks(pre_hooks) }}
    {#- 1. Recover: read the state of the last committed run (none before the first) with what the
           run needs to know of its Spark session (a tumbling, hop or cumulate run by ingestion
           time also scans its new rows in the same query: step 2's scan), check them (tables
           written by a release older than 0.2.0 are refused, asking for --full-refresh), then
           finish a committed run whose rewrite did not complete and discard an uncommitted one. -#}
    {%- set last = spark_windows._sw_incremental_read_state(cfg, sql, target, tables, should_full_refresh()) -%}
    {%- set session = spark_windows._sw_incremental_check_session(cfg, sql, last.session) -%}
    {%- set state = spark_windows._sw_incremental_recover(cfg, target, tables, last, session.time_zone, clauses) -%}
    {%- if state.batch_id > 0 and state.fingerprint != fingerprint -%}
        {%- set stored_settings = fromjson(state.config) if state.config else none -%}
        {{ exceptions.raise_compiler_error(spark_windows._sw_incremental_changed_message(this, stored_settings, cfg.settings)) }}
    {%- endif -%}
    {#- With iceberg_input, the input's snapshots since the last commit's: appends and
        compactions only; the commit stores the current one -#}
    {%- if cfg.input_table is not none -%}
        {%- set state = state.copy() -%}
        {%- do state.update({'input_snapshot': spark_windows._sw_incremental_check_snapshots(cfg, state)}) -%}
    {%- endif -%}

    {#- 2. With input_file_col, the input's files no committed run processed: the run reads
           those (its run_files) and no other. One scan of the new rows (sessions read them
           again: they are cached first; by input file, a tumbling, hop or cumulate run's
           listing of the new files is its scan); by ingestion time it also counts the input's
           rows, which must add up to the processed and the new ones: rows no run read are
           refused. -#}
    {%- if cfg.file_col is not none -%}
        {%- set listing = spark_windows._sw_incremental_list_files(cfg, sql, tables.state if state.batch_id > 0 else none, state) -%}
        {#- from here on the run reads the last commit with the files it reads (a new dict:
            recovery's state stays as read) -#}
        {%- set files = {'run_files': listing.files, 'processed_files': listing.processed,
            'state_table': tables.state if state.batch_id > 0 else none} -%}
        {%- set state = state.copy() -%}
        {%- do state.update(files) -%}
    {%- endif -%}
    {%- set batch_view = spark_windows._sw_incremental_batch_view(cfg, target) -%}
    {%- set summary = spark_windows._sw_incremental_summary(cfg, sql, state, tables.state, batch_view,
        listing.scanned if cfg.file_col is not none else state.scanned, session,
        spark_windows._sw_incremental_cache_batch(cfg, sql, target, state)) -%}
    {%- set new_rows = summary.new_rows -%}
    {%- if summary.rows_without_ingestion_time > 0 and cfg.input_table is not none -%}
        {%- do spark_windows._sw_incremental_uncache({'batch_view': batch_view}) -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: " ~ summary.rows_without_ingestion_time ~ " rows of " ~ this ~ "'s input have a NULL "
            ~ cfg.arrival_col ~ " (sequence_col): with iceberg_input every row needs the sequence number Iceberg keeps for it "
            ~ "(row lineage, _last_updated_sequence_number), which tables of format-version 3 have. Upgrade " ~ cfg.input_table ~ " with alter table "
            ~ cfg.input_table ~ " set tblproperties ('format-version' = '3'): the rows already in it take their sequence numbers "
            ~ "at the table's next commit (such as the next append). The model's SQL must select that column as it is, under a name of its own.") }}
    {%- elif summary.rows_without_ingestion_time > 0 and cfg.file_col is none -%}
        {%- do spark_windows._sw_incremental_uncache({'batch_view': batch_view}) -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: " ~ summary.rows_without_ingestion_time ~ " rows of " ~ this ~ "'s input have a NULL "
            ~ cfg.ingestion_col ~ " (ingestion_time_col); every row needs its arrival time to be told apart from the rows already processed. "
            ~ "Fill it in or filter those rows out in the model's SQL.") }}
    {%- endif -%}

    {%- if cfg.file_col is none -%}
        {%- set arrival_counts = spark_windows._sw_incremental_check_arrivals(cfg, sql, tables.state, state, summary, batch_view) -%}
    {%- else -%}
        {%- set arrival_counts = listing.counts -%}
    {%- endif -%}

    {%- if new_rows == 0 and state.batch_id > 0 -%}
        {#- Nothing new: no table changes (with final, the last commit's partitions are made
            visible, in case its run was killed before it did) -#}
        {%- do spark_windows._sw_incremental_uncache({'batch_view': batch_view}) -%}
        {%- if cfg.final -%}
            {%- set last = spark_windows._sw_incremental_final_last_batches(state) -%}
            {%- for text in spark_windows._sw_incremental_final_publish_sql(tables, last.batches, last.late_batches) -%}
                {%- do run_query(text) -%}
            {%- endfor -%}
        {%- endif -%}
        {%- call statement('main') -%}
            {{ spark_windows._sw_incremental_committed_runs_sql(tables.state) }}
        {%- endcall -%}
    {%- else -%}
        {#- The plan of the run; a session run's also holds the stored sessions its new rows touch -#}
        {%- set plan = spark_windows._sw_incremental_plan(cfg, state, summary, batch_view) -%}
        {%- set batch_id = state.batch_id + 1 -%}
    {%- endif -%}

    {%- if cfg.final and (new_rows > 0 or state.batch_id == 0) -%}
        {#- 3-5. With emit_policy='final': the open rows, late rows and closing windows written
               into folders, the commit, then the partitions made visible (final.sql). -#}
        {%- set commit = {'new_rows': new_rows, 'fingerprint': fingerprint, 'arrival_counts': arrival_counts, 'time_zone': session.time_zone} -%}
        {%- call statement('main') -%}
            {{ spark_windows._sw_incremental_final_run(cfg, sql, tables, plan, state, batch_id, commit, clauses, format, own_folders, session) }}
        {%- endcall -%}
        {%- do spark_windows._sw_incremental_compact_state(cfg, tables.state, batch_id) -%}
    {%- elif new_rows > 0 or state.batch_id == 0 -%}
        {%- set plan = spark_windows._sw_incremental_touched(cfg, plan, spark_windows._sw_incremental_touch(cfg, sql, target, plan, session)) -%}
        {%- set pending = spark_windows._sw_incremental_pending(target, batch_id) -%}
        {%- set steps = spark_windows._sw_incremental_window_sql(cfg, sql, target, tables, plan, pending) -%}

        {#- 3. Stage: the next version of the partitions to rewrite, the late rows, the changelog.
               Every statement from here to the apply needs no answer: they are collected in
               `writes` and sent together (_sw_incremental_send: one SQL script where Spark runs
               them, else one by one, in the same order). The overwrite mode is STATIC for the
               run's CREATE TABLE AS statements (_sw_incremental_static_overwrite_sql); the late,
               changelog and state tables are written with Hadoop's commit algorithm 2, their
               table option (_sw_commit_algorithm_option; step 1 refused tables without it). -#}
        {%- set writes = [spark_windows._sw_incremental_static_overwrite_sql()] -%}
        {%- if not plan.target_exists -%}
            {#- first, on a first run: the run's folder is inside the table's -#}
            {%- set first = spark_windows._sw_incremental_send(session, writes + spark_windows._sw_incremental_create_statements(target,
                spark_windows._sw_incremental_create_sql(target, spark_windows._sw_incremental_stored_sql(cfg, '(' ~ steps.stage ~ ')'),
                'window_partition', clauses.table, format), own_folders)) -%}
            {%- do run_query(first) -%}
            {%- set writes = [] -%}
        {%- endif -%}
        {#- Write once where the table can take the staged partitions by metadata (a folder of the
            run's own, _sw_incremental_run_folder); else the staging table is rewritten into it. -#}
        {%- set run_folder = spark_windows._sw_incremental_run_folder(cfg, target, batch_id) if plan.rewrite else none -%}
        {%- set read = spark_windows._sw_incremental_read_partitions(cfg, plan) -%}
        {%- if plan.rewrite -%}
            {%- do writes.extend(spark_windows._sw_incremental_create_statements(pending,
                spark_windows._sw_incremental_stage_sql(pending, steps.stage, run_folder, read, format,
                    plan.partition_ranges if cfg.iceberg else none), run_folder is not none)) -%}
        {%- endif -%}
        {%- do writes.extend(spark_windows._sw_incremental_create_statements(tables.late,
            spark_windows._sw_incremental_create_sql(tables.late, steps.late, 'batch_id', clauses.late, format), own_folders)) -%}
        {%- if plan.late_rows > 0 -%}
            {%- do writes.append(spark_windows._sw_incremental_batch_overwrite_sql(tables.late, batch_id, steps.late)) -%}
        {%- endif -%}
        {%- if cfg.changelog -%}
            {%- do writes.extend(spark_windows._sw_incremental_create_statements(tables.changelog,
                spark_windows._sw_incremental_create_sql(tables.changelog, steps.changelog_shape, 'batch_id', clauses.changelog, format), own_folders)) -%}
            {%- if plan.rewrite -%}
                {%- do writes.append(spark_windows._sw_incremental_batch_overwrite_sql(tables.changelog, batch_id, steps.changelog)) -%}
            {%- endif -%}
        {%- endif -%}

        {#- The cached views (sessions) served steps 2 and 3 only: dropped before the table's
            partitions change, as each change of a table's partitions re-plans every cached query
            that reads it. -#}
        {%- do writes.extend(spark_windows._sw_incremental_uncache_sql(plan)) -%}

        {#- 4. Commit: one row in the state table. From here on the run counts as done; a crash
               after it is finished by the next run's step 1. -#}
        {%- do writes.extend(spark_windows._sw_incremental_create_statements(tables.state,
            spark_windows._sw_incremental_state_ddl(tables.state, clauses.state, format), own_folders)) -%}
        {%- do writes.append(spark_windows._sw_incremental_commit_sql(cfg, tables.state, batch_id, plan, new_rows, pending, fingerprint, arrival_counts, session.time_zone)) -%}

        {#- 5. Apply: the table takes the staged partitions, by metadata from the run's folder or
               by a rewrite (on Iceberg a REPLACE WHERE of the partitions the run rewrites), then
               the staging table is dropped. The last statement sent is the model's main
               statement: the script, else the rewrite, else the commit. Sent one by one, the
               metadata apply reads the staged partitions' names first. -#}
        {%- if plan.rewrite and cfg.iceberg -%}
            {%- set replace = spark_windows._sw_incremental_replace_sql(cfg, target, pending, plan.partition_ranges, not plan.target_exists) -%}
            {%- if replace | trim -%}
                {%- do writes.append(replace) -%}
            {%- endif -%}
        {%- elif plan.rewrite and run_folder is none -%}
            {%- do writes.append(spark_windows._sw_incremental_overwrite_sql(cfg, target, pending)) -%}
        {%- elif plan.rewrite and session.scripts -%}
            {%- do writes.extend(spark_windows._sw_incremental_repoint_script(cfg, target, pending, run_folder, read=read)
                + [spark_windows._sw_incremental_drop_sql(pending)]) -%}
        {%- endif -%}
        {%- call statement('main') -%}
            {{ spark_windows._sw_incremental_send(session, writes) }}
        {%- endcall -%}
        {%- if plan.rewrite and cfg.iceberg -%}
            {%- do run_query(spark_windows._sw_incremental_drop_sql(pending, purge=true)) -%}
        {%- elif plan.rewrite and run_folder is none -%}
            {%- do spark_windows._sw_incremental_drop_emptied(cfg, target, pending, read) -%}
            {%- do run_query(spark_windows._sw_incremental_drop_sql(pending)) -%}
        {%- elif plan.rewrite and not session.scripts -%}
            {%- do spark_windows._sw_incremental_repoint(cfg, target, pending, run_folder, read=read) -%}
            {%- do run_query(spark_windows._sw_incremental_drop_sql(pending)) -%}
        {%- endif -%}

        {#- 6. Compact the state table every compact_state_every committed runs. -#}
        {%- do spark_windows._sw_incremental_compact_state(cfg, tables.state, batch_id) -%}
    {%- endif -%}

    {#- Every table the model keeps exists from its first run on (the changelog with emit='changelog'). -#}
    {%- if cfg.on_watermark -%}
        {%- set shown = this.incorporate(type='view') -%}
        {%- do spark_windows._sw_incremental_shown_view(cfg, shown, target, state.batch_id == 0) -%}
    {%- endif -%}
    {%- set relations = ([shown] if cfg.on_watermark else []) + [target, tables.late]
        + ([tables.changelog] if cfg.changelog else []) + [tables.state] -%}
    {%- for relation in relations -%}
        {%- do apply_grants(relation, grant_config, should_revoke(relation, full_refresh_mode=should_full_refresh())) -%}
    {%- endfor -%}
    {%- do persist_docs(relations[0], model) -%}

    {{ run_hooks(post_hooks) }}
    {{ return({'relations': relations}) }}
{% endmaterialization %}
