{#- windowed_incremental: the tables a model keeps, how they are created, and how a staged
    next version is applied to them. -#}


{#- An empty partitioned table shaped like `select_sql` (plus batch_id, when that is the
    partition column); nothing happens when it exists. `clauses`: its options, location,
    comment and tblproperties (_sw_incremental_table_clauses). -#}
{% macro _sw_incremental_create_sql(relation, select_sql, partition_col, clauses='') -%}
create table if not exists {{ relation }}
using parquet
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
    cache holds it (listed when dbt started; the run's own drops go through adapter.drop_relation,
    which updates it): Spark analyses the whole SELECT even when the table exists. Under a
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


{#- The state table, created empty by a CREATE TABLE AS SELECT: under a location_root, a table
    declared with its columns only would take up the files a dropped one left in its folder. -#}
{% macro _sw_incremental_state_ddl(relation, clauses='') -%}
create table if not exists {{ relation }}
using parquet
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
    instead), tblproperties_clause (every table). `clauses.table` is for `target`, the table
    of windows (partitions overwritten dynamically); the late, changelog and state tables are
    written with Hadoop's commit algorithm 2 (_sw_commit_algorithm_option).
    The staging tables stay in the schema's default location: they are dropped when applied,
    and dropping a table with a LOCATION leaves its files. -#}
{% macro _sw_incremental_table_clauses(tables, target) %}
    {%- set location_root = config.get('location_root') -%}
    {%- set properties = tblproperties_clause() -%}
    {%- set clauses = {} -%}
    {%- for name, relation in tables.items() -%}
        {%- set location = "location '" ~ location_root ~ "/" ~ relation.identifier ~ "'\n" if location_root is not none else '' -%}
        {%- set options = "options (" ~ spark_windows._sw_commit_algorithm_option() ~ ")\n" if name in ['late', 'changelog', 'state'] else '' -%}
        {%- do clauses.update({name: options ~ location ~ properties}) -%}
    {%- endfor -%}
    {%- set overwrite = "options ('partitionOverwriteMode' = 'dynamic')\n" -%}
    {%- if target.identifier == this.identifier -%}
        {%- do clauses.update({'table': overwrite ~ location_clause() ~ '\n' ~ comment_clause() ~ '\n' ~ properties}) -%}
    {%- else -%}
        {%- do clauses.update({'table': overwrite ~ clauses.windows}) -%}
    {%- endif -%}
    {{ return(clauses) }}
{% endmacro %}


{#- With on_watermark, the model is a view of the windows the watermark has passed (`target`
    holds every window). Made again by every run: cheap, and a crash before it is repaired. -#}
{% macro _sw_incremental_shown_view(cfg, view, target) %}
    {%- set existing = adapter.get_relation(view.database, view.schema, view.identifier) -%}
    {%- if existing is not none and not existing.is_view -%}
        {%- do adapter.drop_relation(existing) -%}
    {%- endif -%}
    {%- set columns = cfg.group_cols + ['window_start', 'window_end'] + cfg.agg_names + ['is_final', 'revision', 'timing', 'window_partition'] -%}
    {%- do run_query('create or replace view ' ~ view ~ '\n' ~ comment_clause() ~ '\n' ~ tblproperties_clause() ~ '\nas\nselect '
        ~ columns | join(', ') ~ '\nfrom ' ~ target ~ '\nwhere watermark_passed') -%}
{% endmacro %}


{#- Recovery applies again the staging table a committed run left, as the run would have: one
    written in a run's folder (an external table) by re-pointing the table's partitions at it
    (_sw_incremental_repoint, checking which already are); a managed one by a dynamic INSERT
    OVERWRITE of the partitions it has rows for (_sw_incremental_overwrite_sql), then, for
    sessions, dropping the partitions it empties. Every step can be repeated. -#}
{% macro _sw_incremental_apply(cfg, target, pending) %}
    {%- set staged = spark_windows._sw_describe_table(pending) -%}
    {%- set read = spark_windows._sw_incremental_staged_read(pending) if cfg.session else none -%}
    {%- if staged.type == 'EXTERNAL' -%}
        {%- do spark_windows._sw_incremental_repoint(cfg, target, pending, staged.location, recovering=true, read=read) -%}
    {%- else -%}
        {%- do run_query(spark_windows._sw_incremental_overwrite_sql(cfg, target, pending)) -%}
        {%- do spark_windows._sw_incremental_drop_emptied(cfg, target, pending, read) -%}
    {%- endif -%}
{% endmacro %}


{#- The name of the staging table's property that holds the partitions its run read. -#}
{% macro _sw_incremental_read_key() -%}
spark_windows.read_partitions
{%- endmacro %}


{#- Sessions: the partitions a run reads, {partition_us, ranges} (plan.partition_ranges: [first,
    last] partition starts in microseconds, every partition of the table between them); none
    for fixed windows, whose partitions a run never empties. -#}
{% macro _sw_incremental_read_partitions(cfg, plan) %}
    {{ return({'partition_us': cfg.partition_us, 'ranges': plan.partition_ranges if plan.target_exists else []} if cfg.session else none) }}
{% endmacro %}


{#- What _sw_incremental_read_partitions gave the run that wrote the staging table `pending`, read
    back from its properties; none for a staging table written by a version before that
    property (its rows of role drop name the partitions read: _sw_incremental_emptied_by_rows). -#}
{% macro _sw_incremental_staged_read(pending) %}
    {%- for row in run_query('show tblproperties ' ~ pending).rows if row[0] == spark_windows._sw_incremental_read_key() -%}
        {{ return(fromjson(row[1])) }}
    {%- endfor -%}
    {{ return(none) }}
{% endmacro %}


{#- Sessions: a query of the names of the partitions the run read (`read`,
    _sw_incremental_read_partitions), one row each, `__sw_name`, as Spark names each partition
    start (a timestamp as a string in the session's time zone, as it names the partition's
    folder), from literals: no job (a DISTINCT would run two: the starts are made distinct here;
    past 10,000 starts a range is Spark's `sequence`, in a job). A name that reads back as another
    start (a zone's repeated hour, which _sw_incremental_check_partition_zone refuses for
    partitions under a day) is left out: the run read that partition only if that other start is
    among those it read. None when the run read no partition. -#}
{% macro _sw_incremental_read_names_sql(read) %}
    {%- set starts = [] -%}
    {%- for span in read.ranges -%}
        {%- set count = (span[1] - span[0]) // read.partition_us + 1 -%}
        {%- if starts | length + count > 10000 -%}
            {#- a grid too long for literals (and Jinja's ranges): Spark makes it, in a job -#}
            {%- do starts.append('select explode(sequence(' ~ span[0] ~ 'L, ' ~ span[1] ~ 'L, ' ~ read.partition_us ~ 'L)) as __sw_us') -%}
        {%- else -%}
            {%- for index in range(count) -%}
                {%- do starts.append(span[0] + index * read.partition_us) -%}
            {%- endfor -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if not starts -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set grids = starts | select('string') | list -%}
    {%- set literals = starts | reject('string') | unique | list -%}
    {%- set parts = grids + (['select * from values (' ~ literals | join('L), (') ~ 'L) as __sw_grid(__sw_us)'] if literals else []) -%}
    {%- set named = 'cast(timestamp_micros(__sw_us) as string)' -%}
    {%- set query = 'select ' ~ named ~ ' as __sw_name\nfrom (' ~ parts | join('\nunion all\n') ~ ') as __sw_read\nwhere cast(' ~ named ~ ' as timestamp) = timestamp_micros(__sw_us)' -%}
    {{ return(query) }}
{% endmacro %}


{#- Sessions: the partition specs of the partitions the run read (`read`,
    _sw_incremental_read_partitions; named by _sw_incremental_read_names_sql) that the table holds
    and the staging table has no row in (`staged`: partition folder names, as SHOW PARTITIONS
    lists them), their every session having moved into a merge. `held`: the table's partition
    folder names, listed here when not given and the partitions read but not staged are more
    than 20; fewer are dropped with IF EXISTS, which skips those the table does not hold. -#}
{% macro _sw_incremental_emptied(target, read, staged, held=none) %}
    {%- set query = spark_windows._sw_incremental_read_names_sql(read) -%}
    {%- if query is none -%}
        {{ return([]) }}
    {%- endif -%}
    {#- names in dicts, not lists: a long span's thousands of names are looked up in constant time -#}
    {%- set seen = {} -%}
    {%- for name in staged -%}
        {%- do seen.update({name: true}) -%}
    {%- endfor -%}
    {%- set unstaged = [] -%}
    {%- for row in run_query(query).rows -%}
        {%- set name = spark_windows._sw_partition_folder(row[0]) -%}
        {%- if name not in seen -%}
            {%- do seen.update({name: true}) -%}
            {%- do unstaged.append(name) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if held is none and unstaged | length > 20 -%}
        {%- set held = run_query('show partitions ' ~ target).rows | map(attribute=0) | list -%}
    {%- endif -%}
    {%- set holds = {} -%}
    {%- for name in held or [] -%}
        {%- do holds.update({name: true}) -%}
    {%- endfor -%}
    {%- set emptied = [] -%}
    {%- for name in unstaged | sort if held is none or name in holds -%}
        {%- do emptied.append(spark_windows._sw_partition_spec(name)) -%}
    {%- endfor -%}
    {{ return(emptied) }}
{% endmacro %}


{#- Sessions, a staging table written by a version before _sw_incremental_read_partitions: the
    partition specs of the partitions its run read (role drop, their partition in `column`) that
    no fresh or kept row of the staging table is in. `staged`: the specs of the partitions of a
    staging table written in a run's folder, whose drop rows lie in its NULL partition (read
    alone). A staging table older still has its drop rows' partition in window_partition. -#}
{% macro _sw_incremental_emptied_by_rows(pending, column='__sw_stored_partition', staged=none) %}
    {%- if staged is none -%}
        {%- set query = "select distinct cast(__sw_a." ~ column ~ " as string)\nfrom " ~ pending ~ " as __sw_a\n"
            ~ "left anti join (select window_partition from " ~ pending ~ " where __sw_role in ('fresh', 'kept')) as __sw_b\n"
            ~ "    on __sw_a." ~ column ~ " = __sw_b.window_partition\nwhere __sw_a.__sw_role = 'drop'" -%}
    {%- else -%}
        {%- set query = "select distinct cast(" ~ column ~ " as string)\nfrom " ~ pending
            ~ "\nwhere window_partition is null and __sw_role = 'drop'" -%}
    {%- endif -%}
    {%- set emptied = [] -%}
    {%- for row in run_query(query).rows -%}
        {%- set spec = "window_partition = '" ~ row[0] ~ "'" -%}
        {%- if spec not in (staged or []) -%}
            {%- do emptied.append(spec) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(emptied) }}
{% endmacro %}


{#- Sessions: drops the partitions a managed staging table empties, after its rows were written
    into the table (`read`: _sw_incremental_read_partitions; none for a staging table of an
    earlier version). -#}
{% macro _sw_incremental_drop_emptied(cfg, target, pending, read) %}
    {%- if not cfg.session -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if read is not none -%}
        {%- set staged = [] -%}
        {%- for row in run_query("select distinct cast(window_partition as string) from " ~ pending ~ " where __sw_role in ('fresh', 'kept')").rows -%}
            {%- do staged.append(spark_windows._sw_partition_folder(row[0])) -%}
        {%- endfor -%}
        {%- set emptied = spark_windows._sw_incremental_emptied(target, read, staged) -%}
    {%- else -%}
        {%- set columns = adapter.get_columns_in_relation(pending) | map(attribute='name') | map('lower') | list -%}
        {%- set emptied = spark_windows._sw_incremental_emptied_by_rows(pending, '__sw_stored_partition' if '__sw_stored_partition' in columns else 'window_partition') -%}
    {%- endif -%}
    {%- do spark_windows._sw_incremental_drop_partitions(target, emptied) -%}
{% endmacro %}


{#- Drops the partitions of `specs` (partition specs) that the table holds, in one statement;
    a managed table deletes their folders. -#}
{% macro _sw_incremental_drop_partitions(target, specs) %}
    {%- if specs -%}
        {%- do run_query('alter table ' ~ target ~ ' drop if exists partition (' ~ specs | join('), partition (') ~ ')') -%}
    {%- endif -%}
{% endmacro %}


{#- What dbt's listing of the schema at the start of the invocation (SHOW TABLE EXTENDED, kept in
    its relation cache) says of `relation`: {type (MANAGED or EXTERNAL), location, columns (the
    top-level column names, lowercase), storage_properties (its options, as `key=value` texts)};
    none when the cache holds no such text of it (a table made since, such as one this run
    created). A model runs once in an invocation, so its own tables are as dbt listed them until
    its run changes them. -#}
{% macro _sw_cached_table(relation) %}
    {%- set cached = adapter.get_relation(relation.database, relation.schema, relation.identifier) -%}
    {%- set information = cached.information if cached is not none else none -%}
    {%- if not information -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set table = {'type': none, 'location': none, 'columns': [], 'storage_properties': []} -%}
    {%- for line in information.split('\n') -%}
        {%- if line.startswith(' |-- ') -%}
            {%- do table.columns.append(line[5:].split(':', 1)[0] | lower) -%}
        {%- elif line.startswith('Type: ') or line.startswith('Location: ') -%}
            {%- set name, value = line.split(': ', 1) -%}
            {%- do table.update({name | lower: value | trim}) -%}
        {%- elif line.startswith('Storage Properties: [') -%}
            {%- do table.update({'storage_properties': line.split(': [', 1)[1].rstrip().rstrip(']').split(', ')}) -%}
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
    when the run rewrites them instead, into a table Spark does not manage (location_root):
    dropping an external table's partition keeps its folder, so the old version of each replaced
    partition would stay on disk.
    The folder is the same for every attempt at a batch: an attempt killed before its commit left
    files there, which the next attempt's CREATE TABLE AS overwrites (_sw_incremental_create). A
    name without `_`, `.` or `=` at its start: Spark skips such folders, or reads them as
    partitions. -#}
{% macro _sw_incremental_run_folder(target, batch_id) %}
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


{#- Step 5 of a write-once run (_sw_incremental_run_folder): the table of windows takes the
    partitions of the staging table, written in `folder`, by metadata. The staged partitions are
    dropped from it first, in one statement, where it holds them, with (sessions) the partitions
    the run empties (_sw_incremental_emptied; `read`: the partitions the run read, none for a
    staging table of an earlier version) (the table is managed: Spark deletes each one's folder,
    the files of its old version), then added at their folders in the run's, in one statement. A
    reader between the two sees the replaced partitions missing, as a rewrite's reader sees each
    partition's files replaced. Then the staging table's NULL partition (sessions with
    emit='changelog': the rows of role old, which the table never takes) is deleted
    (_sw_incremental_purge_folders). Dropping the staging table after it (an external table)
    keeps the files, now the table's.
    `recovering`: the apply of a committed run may have been killed midway; a staged partition the
    table already holds at its folder in the run's is left as it is. -#}
{% macro _sw_incremental_repoint(cfg, target, pending, folder, recovering=false, read=none) %}
    {%- set listed = run_query('show partitions ' ~ pending).rows | map(attribute=0) | list -%}
    {%- set unplaced = 'window_partition=__HIVE_DEFAULT_PARTITION__' -%}
    {%- set staged = listed | reject('equalto', unplaced) | list -%}
    {%- set specs = [] -%}
    {%- for name in staged -%}
        {%- do specs.append(spark_windows._sw_partition_spec(name)) -%}
    {%- endfor -%}
    {%- set held = run_query('show partitions ' ~ target).rows | map(attribute=0) | list if recovering else none -%}
    {%- set emptied = [] -%}
    {%- if cfg.session and read is not none -%}
        {%- set emptied = spark_windows._sw_incremental_emptied(target, read, staged, held) -%}
    {%- elif cfg.session and unplaced in listed -%}
        {%- if recovering -%}
            {#- the NULL partition's folder may be deleted already: a listing this Spark cached would name its files -#}
            {%- do run_query('refresh table ' ~ pending) -%}
        {%- endif -%}
        {%- set emptied = spark_windows._sw_incremental_emptied_by_rows(pending, staged=specs) -%}
    {%- endif -%}
    {%- set replaced = [] -%}
    {%- set added = [] -%}
    {%- for name in staged -%}
        {%- set spec = specs[loop.index0] -%}
        {%- if recovering and name in held and spark_windows._sw_describe_table(target, spec).location == folder ~ '/' ~ name -%}
            {#- re-pointed before the apply was killed -#}
        {%- else -%}
            {%- if not recovering or name in held -%}
                {%- do replaced.append(spec) -%}
            {%- endif -%}
            {%- do added.append('partition (' ~ spec ~ ') location ' ~ spark_windows._sw_string_literal(folder ~ '/' ~ name)) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- do spark_windows._sw_incremental_drop_partitions(target, replaced + emptied) -%}
    {%- if added -%}
        {%- do run_query('alter table ' ~ target ~ ' add ' ~ added | join(' ')) -%}
    {%- endif -%}
    {%- if unplaced in listed -%}
        {%- do spark_windows._sw_incremental_purge_folders(target, [folder ~ '/' ~ unplaced]) -%}
    {%- endif -%}
{% endmacro %}


{#- Step 5 of a write-once run sent within a SQL script (_sw_incremental_send): what
    _sw_incremental_repoint does, with Spark naming the partitions instead of the macro. The
    staged partitions are the staging table's values of window_partition (Spark names a
    partition's folder by its value cast to a string, `:` escaped as `%3A`); the table drops them
    where it holds them, with (sessions, `read`) the partitions the run read that are not staged
    (_sw_incremental_read_names_sql), in one statement, then adds them at their folders in the
    run's, in one statement, both built as text and run by EXECUTE IMMEDIATE. Then the staging
    table's NULL partition (sessions with emit='changelog': the rows of role old) is deleted. A
    committed run whose apply was killed is finished by recovery's _sw_incremental_repoint, which
    checks what the killed apply already did. -#}
{% macro _sw_incremental_repoint_script(cfg, target, pending, folder, read=none) %}
    {%- set spec = "concat('partition (window_partition = ''', __sw_value, ''')')" -%}
    {%- set names = spark_windows._sw_incremental_read_names_sql(read) if cfg.session and read is not none else none -%}
    {%- set location = "concat(' location ', " ~ spark_windows._sw_string_literal("'" ~ folder | replace('\\', '\\\\') | replace("'", "\\'") ~ "/window_partition=")
        ~ ", replace(__sw_value, ':', '%3A'), '''')" -%}
    {%- set script -%}
BEGIN
    DECLARE __sw_staged ARRAY<STRING>;
    DECLARE __sw_dropped ARRAY<STRING>;
    DECLARE __sw_statement STRING;
    SET __sw_staged = (select coalesce(collect_set(cast(window_partition as string)), array()) from {{ pending }} where window_partition is not null);
    {%- if names is none %}
    SET __sw_dropped = __sw_staged;
    {%- else %}
    SET __sw_dropped = (
        select array_union(__sw_staged, coalesce(collect_set(__sw_name), array()))
        from ({{ names }}) as __sw_names
        where not array_contains(__sw_staged, __sw_name)
    );
    {%- endif %}
    IF size(__sw_dropped) > 0 THEN
        SET __sw_statement = 'alter table {{ target }} drop if exists ' || concat_ws(', ', transform(__sw_dropped, __sw_value -> {{ spec }}));
        EXECUTE IMMEDIATE __sw_statement;
    END IF;
    IF size(__sw_staged) > 0 THEN
        SET __sw_statement = 'alter table {{ target }} add ' || concat_ws(' ', transform(__sw_staged, __sw_value -> concat({{ spec }}, {{ location }})));
        EXECUTE IMMEDIATE __sw_statement;
    END IF;
END
    {%- endset -%}
    {%- set statements = [script] -%}
    {%- if cfg.session and cfg.changelog -%}
        {%- do statements.extend(spark_windows._sw_incremental_purge_sql(target, [folder ~ '/window_partition=__HIVE_DEFAULT_PARTITION__'])) -%}
    {%- endif -%}
    {{ return(statements) }}
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


{#- Step 6, every `compact_state_every` committed runs (batch_id a multiple of it): the state
    table, one small file per committed run, is rewritten into one file, so that reading it
    costs the same after a thousand runs as after ten. The rows are written into a folder
    beside the table's (`<state folder>-a`, or `-b` when the table is at `-a`: the two take
    turns), the table is re-pointed there by metadata (one metastore call: a reader sees the old
    folder or the new one, each with every row), then the folders it may have left (its own at
    first, the other of the two) are deleted. A compaction killed at any statement leaves the
    state whole: before the re-pointing the table is where it was, and the next compaction
    overwrites the folder it half wrote; after it, the old folder is left to the next
    compaction. A trash table such a kill left is dropped before anything is written: its
    folders are never the table's (it was made after the re-pointing), nor is the folder the
    next compaction writes. -#}
{% macro _sw_incremental_compact_state(cfg, state_table, batch_id) %}
    {%- if batch_id % cfg.compact_every != 0 -%}
        {{ return(none) }}
    {%- endif -%}
    {%- do run_query(spark_windows._sw_incremental_drop_sql(spark_windows._sw_incremental_trash(state_table))) -%}
    {%- set folders = spark_windows._sw_incremental_state_folders(state_table) -%}
    {%- do run_query('insert overwrite directory ' ~ spark_windows._sw_string_literal(folders.next)
        ~ ' using parquet select /*+ COALESCE(1) */ * from ' ~ state_table) -%}
    {%- do run_query('alter table ' ~ state_table ~ ' set location ' ~ spark_windows._sw_string_literal(folders.next)) -%}
    {%- do spark_windows._sw_incremental_purge_folders(state_table, folders.all | reject('equalto', folders.next) | list) -%}
{% endmacro %}


{#- The folders of the state table: {location (where it is), base (its own folder, where it is
    created), next (where its next compaction writes: `<base>-a`, or `<base>-b` when it is at
    `<base>-a`), all (the three)}. -#}
{% macro _sw_incremental_state_folders(state_table) %}
    {%- set location = spark_windows._sw_describe_table(state_table).location -%}
    {%- set base = location[:-2] if location[-2:] in ['-a', '-b'] else location -%}
    {{ return({
        'location': location,
        'base': base,
        'next': base ~ ('-b' if location == base ~ '-a' else '-a'),
        'all': [base, base ~ '-a', base ~ '-b'],
    }) }}
{% endmacro %}


{#- `<table>__trash`, the trash table _sw_incremental_purge_folders makes for `relation`. -#}
{% macro _sw_incremental_trash(relation) %}
    {{ return(relation.incorporate(path={'identifier': relation.identifier ~ '__trash'}, type='table')) }}
{% endmacro %}
