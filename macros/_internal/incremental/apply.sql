{#- windowed_incremental, step 5: the table of windows takes the staged partitions. By metadata
    from the run's folder (the write-once commit: in a script, or one statement at a time reading
    the partitions back), or by a dynamic INSERT OVERWRITE; a session run also drops the
    partitions its merges emptied. An Iceberg table replaces them, emptied ones included, in one
    commit of its own (a REPLACE WHERE). Recovery applies a committed staging table again the
    same way, checking what a killed apply already did. -#}


{#- Step 5 on Iceberg tables: the table's rows in the partitions of `ranges` (the run's
    plan.partition_ranges, which hold every staged row) are replaced by the staged rows, in one
    Iceberg commit: a reader sees the old version of every partition or the new one of every
    partition, and a partition the run emptied (a session merged into one that ends in another
    partition) is left empty. Repeated, it gives the same table: recovery runs it again. None when
    `ranges` is empty (a run whose only change is late rows stages none).
    A REPLACE WHERE inserts by position (Spark has no BY NAME for it), and dbt may hand the
    aggregates in another order than when the table was made: the staged columns are read in
    the table's order, as dbt listed it (_sw_cached_table), else as `describe` gives it; a table
    this run created (not listed) has the order the run gives. -#}
{% macro _sw_incremental_replace_sql(cfg, target, pending, ranges, created=false) -%}
    {%- if ranges -%}
insert into {{ target }} replace where {{ spark_windows._sw_incremental_in_partitions({'partition_ranges': ranges}) }}
{{ spark_windows._sw_incremental_stored_sql(cfg, pending, none if created else spark_windows._sw_column_names(target)) }}
    {%- endif -%}
{%- endmacro %}


{#- Step 5, applying a staging table: a dynamic INSERT OVERWRITE of the partitions it has rows
    for (the run's main statement; recovery runs it again). -#}
{% macro _sw_incremental_overwrite_sql(cfg, target, pending) -%}
insert overwrite table {{ target }} partition (window_partition) by name
{{ spark_windows._sw_incremental_stored_sql(cfg, pending) }}
{%- endmacro %}


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


{#- Step 5 of a write-once run (_sw_incremental_run_folder): the table of windows takes the
    partitions of the staging table, written in `folder`, by metadata. The staged partitions are
    dropped from it first, in one statement, where it holds them, with (sessions) the partitions
    the run empties (_sw_incremental_emptied; `read`: the partitions the run read, which a session
    run always gives) (the table is managed: Spark deletes each one's folder, the files of its old
    version), then added at their folders in the run's, in one statement. A reader between the
    two sees the replaced partitions missing, as a rewrite's reader sees each partition's files
    replaced. Then the staging table's NULL partition (sessions with
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
    {%- set emptied = spark_windows._sw_incremental_emptied(target, read, staged, held) if cfg.session else [] -%}
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


{#- Sessions: drops the partitions a managed staging table empties, after its rows were written
    into the table (`read`: _sw_incremental_read_partitions). -#}
{% macro _sw_incremental_drop_emptied(cfg, target, pending, read) %}
    {%- if not cfg.session -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set staged = [] -%}
    {%- for row in run_query("select distinct cast(window_partition as string) from " ~ pending ~ " where __sw_role in ('fresh', 'kept')").rows -%}
        {%- do staged.append(spark_windows._sw_partition_folder(row[0])) -%}
    {%- endfor -%}
    {%- do spark_windows._sw_incremental_drop_partitions(target, spark_windows._sw_incremental_emptied(target, read, staged)) -%}
{% endmacro %}


{#- A property of the staging table `pending` a committed run left, read back as JSON: `key`
    (_sw_incremental_read_key: the partitions a session run read; _sw_incremental_replaced_key:
    those an Iceberg staging table's rows replace). A staging table without it is refused before
    anything changes, with a message asking for --full-refresh, which drops it; `why`: what its
    absence means (a session's staging table without the partitions it read was written by a
    release older than 0.2.0, whose rows of role drop named them). -#}
{% macro _sw_incremental_staged_property(target, pending, key, why) %}
    {%- for row in run_query('show tblproperties ' ~ pending).rows if row[0] == key -%}
        {{ return(fromjson(row[1])) }}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error(
        "windowed_incremental: " ~ pending ~ ", the staging table the last committed run of " ~ target
        ~ " left to apply, has no table property " ~ key ~ why
        ~ " Run the model once with --full-refresh to recompute every window (the staging table is dropped).") }}
{% endmacro %}


{#- Recovery applies again the staging table a committed run left, as the run would have: one
    written in a run's folder (an external table) by re-pointing the table's partitions at it
    (_sw_incremental_repoint, checking which already are); a managed one by a dynamic INSERT
    OVERWRITE of the partitions it has rows for (_sw_incremental_overwrite_sql), then, for
    sessions, dropping the partitions it empties. Every step can be repeated. A session's staging
    table is first read for the partitions its run read (_sw_incremental_staged_property), which
    refuses one a release older than 0.2.0 wrote: nothing has changed yet. -#}
{% macro _sw_incremental_apply(cfg, target, pending) %}
    {%- if cfg.iceberg -%}
        {%- set replace = spark_windows._sw_incremental_replace_sql(cfg, target, pending, spark_windows._sw_incremental_staged_property(target, pending, spark_windows._sw_incremental_replaced_key(), ", which names the partitions it replaces.")) -%}
        {%- if replace | trim -%}
            {%- do run_query(replace) -%}
        {%- endif -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set staged = spark_windows._sw_describe_table(pending) -%}
    {%- set read = spark_windows._sw_incremental_staged_property(target, pending, spark_windows._sw_incremental_read_key(),
        ": it was written by a spark_windows release older than 0.2.0.") if cfg.session else none -%}
    {%- if staged.type == 'EXTERNAL' -%}
        {%- do spark_windows._sw_incremental_repoint(cfg, target, pending, staged.location, recovering=true, read=read) -%}
    {%- else -%}
        {%- do run_query(spark_windows._sw_incremental_overwrite_sql(cfg, target, pending)) -%}
        {%- do spark_windows._sw_incremental_drop_emptied(cfg, target, pending, read) -%}
    {%- endif -%}
{% endmacro %}
