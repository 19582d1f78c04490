{#- windowed_incremental: the tables a model keeps. How each is created (with the clauses from
    dbt's configs), what dbt's listing says of a table, the folders and partitions the commit
    works with, and the trash table that deletes folders. -#}


{#- An empty partitioned table shaped like `select_sql` (plus batch_id, when that is the
    partition column); nothing happens when it exists. `clauses`: its options, location,
    comment and tblproperties (_sw_incremental_table_clauses); `format`: parquet or iceberg
    (_sw_incremental_format). -#}
{% macro _sw_incremental_create_sql(relation, select_sql, partition_col, clauses='', format='parquet') -%}
create table if not exists {{ relation }}
using {{ format }}
partitioned by ({{ partition_col }})
{{ clauses }}
as
select *{{ ', cast(0 as bigint) as batch_id' if partition_col == 'batch_id' }}
from (
    {{ select_sql }}
) as __sw_shape
where false
{%- endmacro %}


{#- The statements that create `relation` with `create_sql` (a CREATE TABLE IF NOT EXISTS ... AS
    SELECT of _sw_incremental_create_sql or _sw_incremental_state_ddl); none when dbt's relation
    cache holds it (listed when dbt started; the run's own drops update it:
    _sw_incremental_drop_table): Spark analyses the whole SELECT even when the table exists. Under a
    location_root (`own_folder`) the table's folder (`<root>/<table>`) may hold the files of the
    table a --full-refresh (or a kill inside a DROP TABLE) dropped: dropping a table with a
    LOCATION leaves its files. A staging table written in its run's folder
    (_sw_incremental_run_folder) is created here too: the folder may hold the files of an attempt
    killed before its commit. Spark 4.1 and older overwrite that folder; Spark 4.3 refuses a
    CREATE TABLE AS into a non-empty folder unless spark.sql.legacy.allowNonEmptyLocationInCTAS
    is set, so it is set for this statement and then reset (to the value the session started
    with): the old rows never come back, on every release. -#}
{% macro _sw_incremental_create_statements(relation, create_sql, own_folder) %}
    {%- if adapter.get_relation(relation.database, relation.schema, relation.identifier) is not none -%}
        {{ return([]) }}
    {%- endif -%}
    {%- if not own_folder -%}
        {{ return([create_sql]) }}
    {%- endif -%}
    {%- set flag = 'spark.sql.legacy.allowNonEmptyLocationInCTAS' -%}
    {{ return(['set ' ~ flag ~ ' = true', create_sql, 'reset ' ~ flag]) }}
{% endmacro %}


{#- The staging table of batch `batch_id`: `<table>__pending_<batch>`. Named by its batch, a
    later run finds one a killed attempt left by its name (_sw_incremental_settle_staging). -#}
{% macro _sw_incremental_pending(target, batch_id) %}
    {{ return(target.incorporate(path={'identifier': target.identifier ~ '__pending_' ~ batch_id}, type='table')) }}
{% endmacro %}


{#- The state table, created empty by a CREATE TABLE AS SELECT: under a location_root, a table
    declared with its columns only would take up the files a dropped one left in its folder. -#}
{% macro _sw_incremental_state_ddl(relation, clauses='', format='parquet') -%}
create table if not exists {{ relation }}
using {{ format }}
{{ clauses }}
as
select
    cast(null as bigint) as batch_id,
    cast(null as timestamp) as max_ingestion_time,
    cast(null as timestamp) as max_event_time,
    cast(null as timestamp) as watermark,
    cast(null as bigint) as new_rows,
    cast(null as bigint) as late_rows,
    cast(null as bigint) as windows_updated,
    cast(null as timestamp) as run_started_at,
    cast(null as string) as pending_table,
    cast(null as string) as config_fingerprint,
    cast(null as string) as config,
    cast(null as string) as arrival_counts
where false
{%- endmacro %}


{#- The clauses of each table the model keeps, from its dbt config, with dbt-spark's own
    macros where they fit: location_clause (under location_root, a folder named like the
    table; the other tables get a folder named like themselves), comment_clause
    (persist_docs: the model's description on the table; with on_watermark on the view
    instead, with final on the table of final windows), tblproperties_clause (every table).
    `clauses.table` is for `target`, the table of windows (partitions overwritten dynamically);
    the late, changelog and state tables, and with emit_policy='final' the table of final
    windows (`final`), are written with Hadoop's commit algorithm 2 (_sw_commit_algorithm_option). Iceberg tables
    (`iceberg`) take neither option: Iceberg commits each write itself, and the table of windows
    takes its partitions by a REPLACE WHERE (_sw_incremental_replace_sql).
    The staging tables stay in the schema's default location: they are dropped when applied,
    and dropping a table with a LOCATION leaves its files. -#}
{% macro _sw_incremental_table_clauses(tables, target, iceberg=false) %}
    {%- set location_root = config.get('location_root') -%}
    {%- set properties = tblproperties_clause() -%}
    {%- set clauses = {} -%}
    {%- for name, relation in tables.items() -%}
        {%- set location = "location '" ~ location_root ~ "/" ~ relation.identifier ~ "'\n" if location_root is not none else '' -%}
        {%- set options = "options (" ~ spark_windows._sw_commit_algorithm_option() ~ ")\n" if name in ['late', 'changelog', 'state', 'final'] and not iceberg else '' -%}
        {%- do clauses.update({name: options ~ location ~ (comment_clause() ~ '\n' if name == 'final' else '') ~ properties}) -%}
    {%- endfor -%}
    {%- set overwrite = "options ('partitionOverwriteMode' = 'dynamic')\n" if not iceberg else '' -%}
    {%- if target.identifier == this.identifier -%}
        {%- do clauses.update({'table': overwrite ~ location_clause() ~ '\n' ~ comment_clause() ~ '\n' ~ properties}) -%}
    {%- else -%}
        {%- do clauses.update({'table': overwrite ~ clauses.windows}) -%}
    {%- endif -%}
    {{ return(clauses) }}
{% endmacro %}


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


{#- The table format of the model's tables: iceberg with file_format='iceberg', else parquet. -#}
{% macro _sw_incremental_format(cfg) %}
    {{ return('iceberg' if cfg.iceberg else 'parquet') }}
{% endmacro %}


{#- Whether dbt's listing of a table (_sw_cached_table) says it is an Iceberg table: by its
    properties (table_type=ICEBERG), as Spark's session catalog lists Iceberg tables with the
    provider `hive`, or by its provider where an Iceberg catalog lists it. -#}
{% macro _sw_is_iceberg(cached) %}
    {{ return(cached.provider == 'iceberg' or 'table_type=iceberg' in cached.properties | map('lower') | list) }}
{% endmacro %}


{#- Whether `relation` is an Iceberg table: as dbt listed it, else (made by this invocation, or
    not there) as the model's file_format makes it. -#}
{% macro _sw_incremental_is_iceberg_table(cfg, relation) %}
    {%- set cached = spark_windows._sw_cached_table(relation) -%}
    {{ return(spark_windows._sw_is_iceberg(cached) if cached is not none else cfg.iceberg) }}
{% endmacro %}


{#- Drops a table of the model through dbt's relation cache, which _sw_incremental_create_statements
    reads, with PURGE: its files go with it. Spark's DROP TABLE of an Iceberg table keeps them,
    and each run's staging table would leave its files behind (on a file system its empty
    folders stay); Iceberg's session catalog keeps the folder of a managed Parquet table too,
    where a --full-refresh could not make the table again. A table with a LOCATION keeps its
    files either way. -#}
{% macro _sw_incremental_drop_table(cfg, relation) %}
    {%- do run_query(spark_windows._sw_incremental_drop_sql(relation, purge=true)) -%}
    {%- do adapter.cache_dropped(relation) -%}
{% endmacro %}


{#- Step 1, before anything changes: the model's tables (`target`, the late, changelog and state
    tables) must all be of its file_format (_sw_is_iceberg), as dbt listed them when it started (a
    table listed without its text is let through). After a commit (`refresh` false) a table of the
    other format is refused, with a message asking for --full-refresh, which creates them again.
    Before a --full-refresh (`refresh`) of a Parquet model drops them, Iceberg tables are refused
    too, naming their folders: Iceberg leaves a dropped table's folders in place (its session
    catalog drops the files, not the folders), and Spark makes no managed Parquet table in a
    folder that holds anything. -#}
{% macro _sw_incremental_check_formats(cfg, tables, target, refresh=false) %}
    {%- set wrong = [] -%}
    {%- for relation in [target, tables.late, tables.changelog, tables.state] + ([tables.final] if 'final' in tables else []) -%}
        {%- set cached = spark_windows._sw_cached_table(relation) -%}
        {%- if cached is not none and spark_windows._sw_is_iceberg(cached) != cfg.iceberg -%}
            {%- do wrong.append({'name': relation | string, 'location': cached.location}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set verb = ' is ' if wrong | length == 1 else ' are ' -%}
    {%- set kind = 'an Iceberg table' if wrong | length == 1 else 'Iceberg tables' -%}
    {%- if wrong and not refresh -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: the model's file_format is '" ~ spark_windows._sw_incremental_format(cfg) ~ "', but "
            ~ wrong | map(attribute='name') | join(', ') ~ verb ~ ('not ' if cfg.iceberg else '') ~ kind
            ~ " (made by a run with another file_format). Run the model once with "
            ~ "--full-refresh to recompute every window in tables of the new format.") }}
    {%- elif wrong and not cfg.iceberg -%}
        {%- set named = [] -%}
        {%- for table in wrong -%}
            {%- do named.append(table.name ~ (' (' ~ table.location ~ ')' if table.location else '')) -%}
        {%- endfor -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: the model's file_format is 'parquet', and " ~ named | join(', ') ~ verb ~ kind
            ~ ". A Parquet table cannot be made where an Iceberg table was: drop each with `drop table ... purge`, "
            ~ "delete the folder named with it, then run the model with --full-refresh; or set file_format='iceberg' again. "
            ~ "Nothing was changed.") }}
    {%- endif -%}
{% endmacro %}


{#- Step 1, before anything changes: the tables the run writes into with the committer option
    (_sw_commit_algorithm_option: the late and state tables, and the changelog with
    emit='changelog') must hold it. A release older than 0.2.0 created them without it; such a
    table is refused, with a message asking for --full-refresh (which creates them again, with the
    option). What dbt listed when it started tells which tables hold it (_sw_cached_table): a table
    it listed without its text cannot be told and is let through, one it did not list is created
    by the run, with the option. Returns nothing; sends no statement. -#}
{% macro _sw_incremental_check_committer_option(cfg, tables) %}
    {%- set option = spark_windows._sw_commit_algorithm_option() -%}
    {%- set held = option | replace("'", '') | replace(' ', '') -%}
    {#- `held`: the option as the listing names it, key=value -#}
    {%- set lacking = [] -%}
    {%- for name in ['late', 'changelog', 'state'] if name != 'changelog' or cfg.changelog -%}
        {%- set cached = spark_windows._sw_cached_table(tables[name]) -%}
        {%- if cached is not none and held not in cached.storage_properties -%}
            {%- do lacking.append(tables[name] | string) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if lacking -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: " ~ (lacking[:-1] | join(', ') ~ ' and ' if lacking | length > 1 else '') ~ lacking[-1]
            ~ (" has" if lacking | length == 1 else " have")
            ~ " no table option " ~ option ~ ": " ~ ("it was" if lacking | length == 1 else "they were")
            ~ " written by a spark_windows release older than 0.2.0. Run the model once with --full-refresh to recompute "
            ~ "every window in tables created with it.") }}
    {%- endif -%}
{% endmacro %}


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


{#- With on_watermark, the model is a view of the windows the watermark has passed (`target`
    holds every window). Made again by every run: cheap, and a crash before it is repaired. With
    file_format='iceberg', on a run with no commit before it (a first run, --full-refresh: the
    columns may have changed) the view is dropped first: Iceberg's session catalog keeps a view's
    old SQL text on CREATE OR REPLACE VIEW (apache/iceberg#15490). -#}
{% macro _sw_incremental_shown_view(cfg, view, target, first=false) %}
    {%- set existing = adapter.get_relation(view.database, view.schema, view.identifier) -%}
    {%- if existing is not none and (not existing.is_view or (cfg.iceberg and first)) -%}
        {%- do adapter.drop_relation(existing) -%}
    {%- endif -%}
    {%- set columns = cfg.group_cols + ['window_start', 'window_end'] + cfg.agg_names + ['is_final', 'revision', 'timing', 'window_partition'] -%}
    {%- do run_query('create or replace view ' ~ view ~ '\n' ~ comment_clause() ~ '\n' ~ tblproperties_clause() ~ '\nas\nselect '
        ~ columns | join(', ') ~ '\nfrom ' ~ target ~ '\nwhere watermark_passed') -%}
{% endmacro %}


{#- What dbt's listing of the schema at the start of the invocation (SHOW TABLE EXTENDED, kept in
    its relation cache) says of `relation`: {type (MANAGED or EXTERNAL), location, provider
    (lowercase), columns (the top-level column names, lowercase), storage_properties (its
    options, as `key=value` texts), properties (its table properties, as `key=value` texts; a
    value holding `, ` is split there)};
    none when the cache holds no such text of it (a table made since, such as one this run
    created). A model runs once in an invocation, so its own tables are as dbt listed them until
    its run changes them. -#}
{% macro _sw_cached_table(relation) %}
    {%- set cached = adapter.get_relation(relation.database, relation.schema, relation.identifier) -%}
    {%- set information = cached.information if cached is not none else none -%}
    {%- if not information -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set table = {'type': none, 'location': none, 'provider': none, 'columns': [], 'storage_properties': [], 'properties': []} -%}
    {%- for line in information.split('\n') -%}
        {%- if line.startswith(' |-- ') -%}
            {%- do table.columns.append(line[5:].split(':', 1)[0] | lower) -%}
        {%- elif line.startswith('Type: ') or line.startswith('Location: ') or line.startswith('Provider: ') -%}
            {%- set name, value = line.split(': ', 1) -%}
            {%- do table.update({name | lower: value | trim | lower if name == 'Provider' else value | trim}) -%}
        {%- elif line.startswith('Storage Properties: [') -%}
            {%- do table.update({'storage_properties': line.split(': [', 1)[1].rstrip().rstrip(']').split(', ')}) -%}
        {%- elif line.startswith('Table Properties: [') -%}
            {%- do table.update({'properties': line.split(': [', 1)[1].rstrip().rstrip(']').split(', ')}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(table) }}
{% endmacro %}


{#- The column names of a table, lowercase: as dbt listed them (_sw_cached_table), else from
    `describe extended`. -#}
{% macro _sw_column_names(relation) %}
    {%- set cached = spark_windows._sw_cached_table(relation) -%}
    {{ return(cached.columns if cached is not none else adapter.get_columns_in_relation(relation) | map(attribute='name') | map('lower') | list) }}
{% endmacro %}


{#- `describe formatted` of a table, or of one of its partitions (`partition`: a partition spec
    such as `window_partition = '...'`): {type (MANAGED or EXTERNAL; none for a partition),
    location}, read after the columns (a column may be named `type`): the first row of each name
    under `# Detailed ... Information` is the table's or partition's own. -#}
{% macro _sw_describe_table(relation, partition=none) %}
    {%- set described = {'type': none, 'location': none} -%}
    {%- set details = namespace(seen=false) -%}
    {%- for row in run_query('describe formatted ' ~ relation ~ (' partition (' ~ partition ~ ')' if partition else '')).rows -%}
        {%- set name = (row[0] or '') | trim | lower -%}
        {%- if name.startswith('# detailed') -%}
            {%- set details.seen = true -%}
        {%- elif details.seen and name in described and described[name] is none -%}
            {%- do described.update({name: (row[1] or '') | trim}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(described) }}
{% endmacro %}


{#- The write-once commit: the folder a run writes its staging table in, `<table folder>/run-<batch>`,
    for the table of windows to take its partitions by metadata (_sw_incremental_repoint); none
    when the run rewrites them instead: into an Iceberg table, which commits the rewrite itself,
    or into a table Spark does not manage (location_root):
    dropping an external table's partition keeps its folder, so the old version of each replaced
    partition would stay on disk.
    The folder is the same for every attempt at a batch: an attempt killed before its commit left
    files there, which the next attempt's CREATE TABLE AS overwrites (_sw_incremental_create_statements). A
    name without `_`, `.` or `=` at its start: Spark skips such folders, or reads them as
    partitions. -#}
{% macro _sw_incremental_run_folder(cfg, target, batch_id) %}
    {%- if cfg.iceberg -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set table = spark_windows._sw_cached_table(target) or spark_windows._sw_describe_table(target) -%}
    {{ return(table.location ~ '/run-' ~ batch_id if table.type == 'MANAGED' and table.location else none) }}
{% endmacro %}


{#- The partition spec of a folder name SHOW PARTITIONS lists (`window_partition=2024-05-01 08%3A00%3A00`):
    Spark escapes `:` in a timestamp's folder name, and no other character a timestamp holds. -#}
{% macro _sw_partition_spec(name) %}
    {%- set column, value = name.split('=', 1) -%}
    {%- set value = value | replace('%3A', ':') -%}
    {%- if '%' in value or "'" in value -%}
        {{ exceptions.raise_compiler_error("windowed_incremental: unexpected partition folder " ~ name ~ " (a timestamp partition was expected)") }}
    {%- endif -%}
    {{ return(column ~ " = '" ~ value ~ "'") }}
{% endmacro %}


{#- The folder name SHOW PARTITIONS lists for a partition whose value Spark names `value` (a
    timestamp cast to a string): the inverse of _sw_partition_spec. -#}
{% macro _sw_partition_folder(value) %}
    {{ return('window_partition=' ~ value | replace(':', '%3A')) }}
{% endmacro %}


{#- Drops the partitions of `specs` (partition specs) that the table holds, in one statement;
    a managed table deletes their folders. -#}
{% macro _sw_incremental_drop_partitions(target, specs) %}
    {%- if specs -%}
        {%- do run_query('alter table ' ~ target ~ ' drop if exists partition (' ~ specs | join('), partition (') ~ ')') -%}
    {%- endif -%}
{% endmacro %}


{#- `<table>__trash`, the trash table _sw_incremental_purge_folders makes for `relation`. -#}
{% macro _sw_incremental_trash(relation) %}
    {{ return(relation.incorporate(path={'identifier': relation.identifier ~ '__trash'}, type='table')) }}
{% endmacro %}


{#- Deletes `folders` (a list of folder paths) with what they hold: a managed table
    `<table>__trash` takes each as a partition and is dropped, which deletes its partitions'
    folders (one that does not exist is made and deleted). A trash table a killed run left is
    dropped first (what it held is garbage too). -#}
{% macro _sw_incremental_purge_folders(target, folders) %}
    {%- for text in spark_windows._sw_incremental_purge_sql(target, folders) -%}
        {%- do run_query(text) -%}
    {%- endfor -%}
{% endmacro %}


{#- The statements of _sw_incremental_purge_folders. -#}
{% macro _sw_incremental_purge_sql(target, folders) %}
    {%- set trash = spark_windows._sw_incremental_trash(target) -%}
    {%- set added = [] -%}
    {%- for folder in folders -%}
        {%- do added.append("partition (folder = 'f" ~ loop.index ~ "') location " ~ spark_windows._sw_string_literal(folder)) -%}
    {%- endfor -%}
    {{ return([
        spark_windows._sw_incremental_drop_sql(trash),
        'create table ' ~ trash ~ ' (purged int) using parquet partitioned by (folder string)',
        'alter table ' ~ trash ~ ' add ' ~ added | join(' '),
        spark_windows._sw_incremental_drop_sql(trash),
    ]) }}
{% endmacro %}


{#- The name of the staging table's property that holds the partitions its run read. -#}
{% macro _sw_incremental_read_key() -%}
spark_windows.read_partitions
{%- endmacro %}


{#- The name of an Iceberg staging table's property that holds the partitions its rows replace. -#}
{% macro _sw_incremental_replaced_key() -%}
spark_windows.replaced_partitions
{%- endmacro %}
