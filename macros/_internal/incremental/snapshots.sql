{#- windowed_incremental with iceberg_input: the model's new rows told by the Iceberg snapshots that
    appended them, not by an ingestion time. A format-version 3 Iceberg table keeps, for each
    row, the sequence number of the snapshot that last wrote it (row lineage: the metadata column
    _last_updated_sequence_number, which the model's SQL selects under a name of its own, its
    sequence_col); a compaction (rewrite_data_files, a `replace` snapshot) keeps it. The run
    reads that number as its ingestion order, shown to the engine as a time of that many
    microseconds since 1970 (_sw_incremental_sequence_order): the rows a run reads are those
    above the newest number a committed run read, up to the table's newest
    (_sw_incremental_sequence_bound_sql). Rows deleted or rewritten in place would be miscounted
    (a rewritten row takes a new number), so every run checks the snapshots since the one the
    last commit read up to (_sw_incremental_check_snapshots): anything but appends and
    compactions is refused, naming the snapshot, and so is a start snapshot Iceberg expired. -#}


{#- The ingestion order of a row read with iceberg_input: its sequence number (the model's column
    `sequence_col`) as a timestamp of that many microseconds since 1970. -#}
{% macro _sw_incremental_sequence_order(sequence_col) %}
    {{ return('timestamp_micros(' ~ sequence_col ~ ')') }}
{% endmacro %}


{#- The config of a model read with iceberg_input: the input named by a non-empty string, the
    column holding the sequence number (sequence_col) under a name of its own (Iceberg refuses to
    read a table with a column named like its metadata column, and the late table keeps the
    model's columns), and no other way of telling new rows (ingestion_time_col, input_file_col).
    sequence_col without iceberg_input is refused too. -#}
{% macro _sw_incremental_check_iceberg_input(config, errors) %}
    {%- set name = config.get('iceberg_input') -%}
    {%- if name is not string or name.strip() == '' -%}
        {%- do errors.append(
            "windowed_incremental: iceberg_input (" ~ name ~ ") must name the Iceberg table the model's SQL reads, as a string: "
            ~ "a model or seed as ref() names it, such as 'landed_clicks', or a source as 'source_name.table_name', such as 'raw.clicks'") -%}
    {%- endif -%}
    {%- set sequence_col = config.get('sequence_col') -%}
    {%- set example = "such as _last_updated_sequence_number as landed_sequence in the model's SQL and sequence_col='landed_sequence'" -%}
    {%- if sequence_col is none -%}
        {%- do errors.append(
            "windowed_incremental: with iceberg_input, sequence_col is missing; select the input's _last_updated_sequence_number "
            ~ "under a name of its own and give that name, " ~ example) -%}
    {%- elif sequence_col is string and sequence_col | lower == '_last_updated_sequence_number' -%}
        {%- do errors.append(
            "windowed_incremental: sequence_col ('" ~ sequence_col ~ "') must be a name of its own: Iceberg reserves "
            ~ "_last_updated_sequence_number for its metadata column and refuses to read a table with a column of that name "
            ~ "(the model's late rows keep its columns); " ~ example) -%}
    {%- else -%}
        {%- do spark_windows._sw_require_column(sequence_col, 'windowed_incremental', 'sequence_col', errors) -%}
    {%- endif -%}
    {%- for key in ['ingestion_time_col', 'input_file_col'] if config.get(key) is not none -%}
        {%- do errors.append(
            "windowed_incremental: iceberg_input and " ~ key ~ " are both given; give one: with iceberg_input the run tells new rows "
            ~ "by the Iceberg snapshots that appended them, and needs no " ~ key) -%}
    {%- endfor -%}
{% endmacro %}


{#- The relation of the table iceberg_input names (`name`), found among the tables the model's
    SQL reads (dbt's graph: a model, seed or snapshot by its name, a source as
    'source_name.table_name'); refused, naming those tables, when it is not one of them. -#}
{% macro _sw_incremental_input_table(name) %}
    {%- set known = [] -%}
    {%- for unique_id in model.depends_on.nodes -%}
        {%- set node = graph.sources.get(unique_id) if unique_id.startswith('source.') else graph.nodes.get(unique_id) -%}
        {%- if node is not none -%}
            {%- set source = unique_id.startswith('source.') -%}
            {%- set known_as = node.source_name ~ '.' ~ node.name if source else node.name -%}
            {%- if known_as == name -%}
                {{ return(this.incorporate(path={'database': node.database, 'schema': node.schema,
                    'identifier': node.identifier if source else (node.alias or node.name)}, type='table')) }}
            {%- endif -%}
            {%- do known.append("'" ~ known_as ~ "'") -%}
        {%- endif -%}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error(
        "windowed_incremental: iceberg_input ('" ~ name ~ "') is none of the tables the model's SQL reads ("
        ~ (known | join(', ') if known else 'none') ~ "); give the Iceberg table it reads its rows from: a model or seed as "
        ~ "ref() names it, a source as 'source_name.table_name'") }}
{% endmacro %}


{#- The newest sequence number of the input table (`input`), as the run's ingestion order: SQL of
    a timestamp (_sw_incremental_sequence_order). A query that reads the table and this sees one
    version of it; rows a later snapshot appends have larger numbers, and are left to the next
    run. -#}
{% macro _sw_incremental_sequence_bound_sql(input) -%}
(select timestamp_micros(max(latest_sequence_number)) from {{ input }}.metadata_log_entries)
{%- endmacro %}


{#- The snapshots of the input table (`input`) to check: with `after` (the snapshot the last
    commit read up to) a 'start' row when that snapshot is still in the table's snapshots, and a
    'since' row for it and each later snapshot the current one descends from, oldest first;
    without it a 'since' row for the current snapshot only. Each row: part, snapshot_id,
    operation, made_current_at (text). -#}
{% macro _sw_incremental_snapshots_sql(input, after) -%}
    {%- if after is none -%}
select 'since' as part, snapshot_id, cast(null as string) as operation, cast(made_current_at as string) as made_current_at
from {{ input }}.history
where is_current_ancestor
order by made_current_at desc
limit 1
    {%- else -%}
select 'start' as part, snapshot_id, cast(null as string) as operation, cast(null as string) as made_current_at
from {{ input }}.snapshots
where snapshot_id = {{ after }}

union all

select 'since', __sw_history.snapshot_id, __sw_snapshots.operation, cast(__sw_history.made_current_at as string)
from {{ input }}.history as __sw_history
left join {{ input }}.snapshots as __sw_snapshots
    on __sw_snapshots.snapshot_id = __sw_history.snapshot_id
where __sw_history.is_current_ancestor
    and __sw_history.made_current_at >= (select max(made_current_at) from {{ input }}.history where snapshot_id = {{ after }})
order by part, made_current_at
    {%- endif -%}
{%- endmacro %}


{#- Step 1 with iceberg_input, after recovery: the input's snapshots since the one the last commit
    read up to (`state.config`'s input_snapshot; none before the first commit) are appends and
    compactions only. Refused before any table changes, naming the snapshot and the remedy: an
    expired start snapshot, one the current snapshot does not descend from (a rollback), and any
    other operation (a DELETE, UPDATE, MERGE or INSERT OVERWRITE: an `overwrite` or `delete`
    snapshot). Returns the current snapshot's id (none for a table without one), which the
    run's commit stores: every snapshot up to it was checked. -#}
{% macro _sw_incremental_check_snapshots(cfg, state) %}
    {%- set stored = fromjson(state.config) if state.batch_id > 0 and state.config else {} -%}
    {%- set after = stored.get('input_snapshot') if stored is mapping else none -%}
    {%- set rows = run_query(spark_windows._sw_incremental_snapshots_sql(cfg.input_table, after)).rows -%}
    {%- set since = rows | selectattr(0, 'equalto', 'since') | list -%}
    {%- if after is none -%}
        {{ return(since[0][1] | int if since else none) }}
    {%- endif -%}
    {%- set remedy = " This run changed nothing. Run the model once with --full-refresh to compute every window from the table as it is now." -%}
    {%- if not rows | selectattr(0, 'equalto', 'start') | list -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: snapshot " ~ after ~ " of " ~ cfg.input_table ~ ", which the last run of " ~ this
            ~ " read up to, is no longer among the table's snapshots (expire_snapshots removed it): the snapshots since then "
            ~ "cannot be checked for deleted or rewritten rows." ~ remedy ~ " Then expire only snapshots older than the model's "
            ~ "last run (older_than before it), so that the snapshot each run starts from is kept.") }}
    {%- endif -%}
    {%- set ids = since | map(attribute=1) | map('string') | list -%}
    {%- if (after | string) not in ids -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: snapshot " ~ after ~ " of " ~ cfg.input_table ~ ", which the last run of " ~ this
            ~ " read up to, is not an ancestor of the table's current snapshot (the table was rolled back or replaced): rows "
            ~ "the committed runs counted may be gone." ~ remedy) }}
    {%- endif -%}
    {%- set changed = [] -%}
    {%- for row in since[ids.index(after | string) + 1:] if row[2] not in ['append', 'replace'] -%}
        {%- do changed.append(row[1] ~ " (" ~ row[2] ~ ", made current at " ~ row[3] ~ ")") -%}
    {%- endfor -%}
    {%- if changed -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: " ~ cfg.input_table ~ ", the Iceberg input of " ~ this ~ ", changed rows since its last run read it: "
            ~ ("snapshot " if changed | length == 1 else "snapshots ") ~ changed | join(', ')
            ~ " deleted or rewrote rows (a DELETE, UPDATE, MERGE or INSERT OVERWRITE). The committed windows count the rows as "
            ~ "they were, and a rewritten row would be read again as a new one. Run by run, only appended rows are read (and "
            ~ "compactions, `replace` snapshots, are passed over)." ~ remedy) }}
    {%- endif -%}
    {{ return(since[-1][1] | int) }}
{% endmacro %}
