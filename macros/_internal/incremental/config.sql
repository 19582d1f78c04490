{#- windowed_incremental, before step 1: reading and checking the model's config, what the run
    learns of its Spark session (time zone, release), and naming what changed since the last run.
    Every duration is read as bigint microseconds. -#}


{#- Reads and checks the model's config; returns a dict the other blocks use. Every problem
    is collected first and refused in one message, before the run touches any table.
    `ingestion_col`: SQL of a row's ingestion order as a timestamp (with iceberg_input its
    sequence number, _sw_incremental_sequence_order); `arrival_col`: the column that holds it, as
    the late table keeps it. -#}
{% macro _sw_incremental_config(config) %}
    {%- set name = 'windowed_incremental' -%}
    {%- set errors = [] -%}
    {%- set time_col = config.get('time_col') -%}
    {%- do spark_windows._sw_require_column(time_col, name, 'time_col', errors) -%}
    {%- set iceberg_input = config.get('iceberg_input') -%}
    {%- set file_col = config.get('input_file_col') -%}
    {%- if iceberg_input is none -%}
        {%- set ingestion_col = config.get('ingestion_time_col') -%}
        {%- do spark_windows._sw_require_column(ingestion_col, name, 'ingestion_time_col', errors) -%}
        {%- if config.get('sequence_col') is not none -%}
            {%- do errors.append(name ~ ": sequence_col ('" ~ config.get('sequence_col') ~ "') is given without iceberg_input; "
                ~ "it names the input's sequence number where new rows are told by Iceberg snapshots (iceberg_input='<the input table>')") -%}
        {%- endif -%}
    {%- else -%}
        {%- do spark_windows._sw_incremental_check_iceberg_input(config, errors) -%}
        {%- set ingestion_col = spark_windows._sw_incremental_sequence_order(config.get('sequence_col')) -%}
    {%- endif -%}
    {%- if file_col is string and '.' in file_col -%}
        {%- do errors.append(
            name ~ ": input_file_col ('" ~ file_col ~ "') must name a column of the model's SQL, not a field: select it "
            ~ "there under a name of its own, such as _metadata.file_path as source_file, and give input_file_col='source_file'") -%}
    {%- elif file_col is not none -%}
        {%- do spark_windows._sw_require_column(file_col, name, 'input_file_col', errors) -%}
    {%- endif -%}
    {%- set window = config.get('window') -%}
    {%- set spec = spark_windows._sw_window_spec(window, name, errors) -%}
    {%- if spec is not none and spec.type == 'session' and spec.gap_us is none -%}
        {%- do errors.append(
            name ~ ": window (" ~ window ~ ") has a per-row gap expression; a windowed_incremental session needs one fixed gap, "
            ~ "such as {'type': 'session', 'gap': '30 minutes'}: whether a row is late is judged by its own window [t, t + gap), "
            ~ "which must not depend on a row that may arrive later. Use the session macro or window_aggregate for per-row gaps.") -%}
    {%- endif -%}
    {%- set keys = spark_windows._sw_column_list(config.get('group_by', []), name, 'group_by', errors=errors) -%}
    {%- set aggregates = config.get('aggregates') -%}
    {%- set aggs = spark_windows._sw_parse_aggregates(aggregates, name, keys or [], errors) or [] -%}
    {%- set added = ['is_final', 'revision', 'timing', 'watermark_passed', 'window_partition'] -%}
    {%- for agg in aggs if agg.name | lower in added -%}
        {%- do errors.append(name ~ ": aggregate name '" ~ agg.name ~ "' is taken by a column the materialization adds ("
            ~ added | join(', ') ~ "); choose another name") -%}
    {%- endfor -%}
    {%- if config.get('watermark_delay') is none -%}
        {%- do errors.append(
            name ~ ": watermark_delay is missing; give the bounded out-of-orderness of event times, such as watermark_delay='5 minutes' ('0 seconds' for in-order data)") -%}
        {%- set delay_us = none -%}
    {%- else -%}
        {%- set delay_us = spark_windows._sw_duration_us(config.get('watermark_delay'), name, 'watermark_delay', allow_zero=true, errors=errors) -%}
    {%- endif -%}
    {%- set lateness_us = spark_windows._sw_duration_us(config.get('allowed_lateness', '0 seconds'), name, 'allowed_lateness', allow_zero=true, errors=errors) -%}
    {%- set partition_us = spark_windows._sw_duration_us(config.get('partition_size', '1 day'), name, 'partition_size', errors=errors) -%}
    {%- set emit = config.get('emit') -%}
    {%- if emit not in [none, 'changelog'] -%}
        {%- do errors.append(name ~ ": emit ('" ~ emit ~ "') must be 'changelog' or left out") -%}
    {%- endif -%}
    {%- set emit_policy = config.get('emit_policy', 'every_run') -%}
    {%- if emit_policy not in ['every_run', 'on_watermark', 'final'] -%}
        {%- do errors.append(
            name ~ ": emit_policy (" ~ ("'" ~ emit_policy ~ "'" if emit_policy is string else emit_policy) ~ ") must be 'every_run' "
            ~ "(every run writes the windows its rows changed; the default), 'on_watermark' (a window is written once the "
            ~ "watermark passes its end, then again by each run whose late rows change it) or 'final' (a window is appended "
            ~ "once, when the watermark passes its end plus allowed_lateness, and never rewritten)") -%}
    {%- endif -%}
    {%- if emit_policy == 'final' and emit == 'changelog' -%}
        {%- do errors.append(name ~ ": emit='changelog' does not go with emit_policy='final': the model's table is its "
            ~ "changelog already (each window appended once, as an insert, with the batch_id of the run that wrote it); "
            ~ "leave emit out, or pick emit_policy 'every_run' or 'on_watermark' for a changelog of updated windows") -%}
    {%- endif -%}
    {%- if emit_policy == 'final' and config.get('file_format') == 'iceberg' -%}
        {%- do errors.append(name ~ ": emit_policy='final' keeps Parquet tables only (file_format 'parquet', the default): "
            ~ "a run appends its windows by adding the folder it wrote as a partition, which an Iceberg table does not take; "
            ~ "with file_format='iceberg' pick emit_policy 'every_run' or 'on_watermark'") -%}
    {%- endif -%}
    {%- set compact_every = config.get('compact_state_every', 50) -%}
    {%- if compact_every is not integer or compact_every < 1 -%}
        {%- do errors.append(
            name ~ ": compact_state_every (" ~ ("'" ~ compact_every ~ "'" if compact_every is string else compact_every) ~ ") must be "
            ~ "a whole number of runs, 1 or more, such as 50 (the default): every that many committed runs, the state table's "
            ~ "one small file per run is rewritten into one file") -%}
    {%- endif -%}
    {%- set sql_scripts = config.get('sql_scripts', true) -%}
    {%- if sql_scripts is not boolean -%}
        {%- do errors.append(
            name ~ ": sql_scripts (" ~ ("'" ~ sql_scripts ~ "'" if sql_scripts is string else sql_scripts) ~ ") must be true "
            ~ "(the default: on Spark 4.1 and newer a run sends its writes as one SQL script) or false (one statement at a time, "
            ~ "for a Spark whose spark.sql.scripting.enabled is false)") -%}
    {%- endif -%}
    {%- do spark_windows._sw_incremental_check_table_config(config, errors) -%}
    {%- if errors -%}
        {{ exceptions.raise_compiler_error(
            name ~ ": " ~ (errors | length) ~ " problem" ~ ('s' if errors | length > 1) ~ " in the model's config; nothing was run:\n- "
            ~ errors | join('\n- ')) }}
    {%- endif -%}
    {#- what the state table stores to name a changed setting; emit_policy and input_file_col
        only when not the default, so that tables written before them keep their fingerprint -#}
    {%- set settings = {
        'time_col': time_col,
        'ingestion_time_col': ingestion_col,
        'window': window,
        'group_by': keys,
        'aggregates': aggregates,
        'watermark_delay': config.get('watermark_delay'),
        'allowed_lateness': config.get('allowed_lateness', '0 seconds'),
        'partition_size': config.get('partition_size', '1 day'),
        'emit': emit,
    } -%}
    {%- if emit_policy != 'every_run' -%}
        {%- do settings.update({'emit_policy': emit_policy}) -%}
    {%- endif -%}
    {%- if file_col is not none -%}
        {%- do settings.update({'input_file_col': file_col}) -%}
    {%- endif -%}
    {%- if iceberg_input is not none -%}
        {%- do settings.pop('ingestion_time_col') -%}
        {%- do settings.update({'iceberg_input': iceberg_input, 'sequence_col': config.get('sequence_col')}) -%}
    {%- endif -%}
    {{ return({
        'time_col': time_col,
        'ingestion_col': ingestion_col,
        'arrival_col': ingestion_col if iceberg_input is none else config.get('sequence_col'),
        'iceberg_input': iceberg_input,
        'input_table': spark_windows._sw_incremental_input_table(iceberg_input) if iceberg_input is not none else none,
        'file_col': file_col,
        'window': window,
        'spec': spec,
        'group_cols': keys,
        'aggregates': aggregates,
        'aggs': aggs,
        'agg_names': aggs | map(attribute='name') | list,
        'delay_us': delay_us,
        'lateness_us': lateness_us,
        'partition_us': partition_us,
        'changelog': emit == 'changelog',
        'on_watermark': emit_policy == 'on_watermark',
        'final': emit_policy == 'final',
        'session': spec.type == 'session',
        'compact_every': compact_every,
        'sql_scripts': sql_scripts,
        'settings': settings,
        'iceberg': config.get('file_format') == 'iceberg',
    }) }}
{% endmacro %}


{#- The dbt table configs the materialization cannot honour, refused rather than ignored:
    the crash-safe commit replaces whole partitions, of Parquet tables by the metastore's
    partitions, of Iceberg tables by Iceberg's own commit (each repeated by recovery), and
    chooses the partitioning itself. -#}
{% macro _sw_incremental_check_table_config(config, errors) %}
    {%- set name = 'windowed_incremental' -%}
    {%- set file_format = config.get('file_format') -%}
    {%- if file_format not in [none, 'parquet', 'iceberg'] -%}
        {%- do errors.append(
            name ~ ": file_format ('" ~ file_format ~ "') is not supported; the accepted file_formats are 'parquet' (the default) "
            ~ "and 'iceberg'. A run commits by replacing whole partitions in a way a re-run after a crash repeats: Parquet tables "
            ~ "by the metastore's partitions, Iceberg tables by Iceberg's own atomic commit. "
            ~ ("Delta tables would need their own commit (replaceWhere) and Delta's jars, which this project does not test"
               if file_format == 'delta' else "Other formats have no such commit here")) -%}
    {%- endif -%}
    {%- for key in ['partition_by', 'clustered_by', 'buckets'] if config.get(key) is not none -%}
        {%- do errors.append(
            name ~ ": " ~ key ~ " (" ~ config.get(key) ~ ") is not taken; the table is partitioned by window_partition "
            ~ "(its width is partition_size, such as partition_size='1 day'), the other tables by batch_id") -%}
    {%- endfor -%}
    {%- if config.get('options') is not none -%}
        {%- do errors.append(
            name ~ ": options (" ~ config.get('options') ~ ") is not taken; the materialization sets the table options itself "
            ~ "(partitionOverwriteMode); set Parquet writer settings in the Spark session, such as spark.sql.parquet.compression.codec") -%}
    {%- endif -%}
    {%- set location_root = config.get('location_root') -%}
    {%- if location_root is not none and (location_root is not string or location_root.strip() == '') -%}
        {%- do errors.append(name ~ ": location_root (" ~ ("'" ~ location_root ~ "'" if location_root is string else location_root) ~ ") must be a folder path given as a non-empty string, such as '/data/warehouse/windows'") -%}
    {%- endif -%}
    {%- set tblproperties = config.get('tblproperties') -%}
    {%- if tblproperties is not none and tblproperties is not mapping -%}
        {%- do errors.append(name ~ ": tblproperties (" ~ tblproperties ~ ") must be a dict of property name to value, such as {'owner_team': 'traffic'}") -%}
    {%- endif -%}
    {%- set persist_docs = config.get('persist_docs') -%}
    {%- if persist_docs is not none and persist_docs is not mapping -%}
        {%- do errors.append(name ~ ": persist_docs (" ~ persist_docs ~ ") must be a dict, such as {'relation': true}") -%}
    {%- endif -%}
{% endmacro %}


{#- The message refusing a run whose settings changed since the last commit: names each
    setting that changed, with its old and new value, from the settings the state table
    stored (`stored`, none for a state table written before it stored them). Durations are
    compared by their length ('5 minutes' is '300 seconds'). -#}
{% macro _sw_incremental_changed_message(relation, stored, settings) %}
    {%- set durations = ['watermark_delay', 'allowed_lateness', 'partition_size'] -%}
    {%- set changes = [] -%}
    {%- if stored is mapping -%}
        {%- for key in (settings.keys() | list + stored.keys() | list) | unique | reject('in', ['input_snapshot', 'open_input', 'session_time_zone', 'staging_tables']) | sort -%}
            {%- set old = stored.get(key) -%}
            {%- set value = settings.get(key) -%}
            {%- if key in durations and old is string and value is string -%}
                {%- set differs = spark_windows._sw_duration_us(old, 'windowed_incremental', key, allow_zero=true, errors=[])
                    != spark_windows._sw_duration_us(value, 'windowed_incremental', key, allow_zero=true, errors=[]) -%}
            {%- else -%}
                {%- set differs = old != value -%}
            {%- endif -%}
            {%- if differs -%}
                {%- do changes.append(key ~ " (was " ~ ("'" ~ old ~ "'" if old is string else old) ~ ", now "
                    ~ ("'" ~ value ~ "'" if value is string else value) ~ ")") -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {%- if changes -%}
        {{ return("windowed_incremental: " ~ changes | join(', ') ~ " of " ~ relation ~ " changed since its last run; "
            ~ "its stored windows were computed with the old " ~ ("value" if changes | length == 1 else "values") ~ ". "
            ~ "Run it once with --full-refresh to recompute every window.") }}
    {%- endif -%}
    {{ return("windowed_incremental: the window, group_by, aggregates, time columns, delays, partition_size or emit of "
        ~ relation ~ " changed since its last run; its stored windows were computed with the old ones. "
        ~ "Run it once with --full-refresh to recompute every window.") }}
{% endmacro %}


{#- What a run needs to know of its Spark session, asked in one query before anything else:
    {time_zone, scripts}. `scripts`: whether the run sends its writes as one SQL script
    (_sw_incremental_send): on Spark 4.1 and newer, which run scripts (BEGIN ... END) unless
    spark.sql.scripting.enabled is false, unless the model sets sql_scripts=false.
    The model's time column, when its SQL gives it as timestamp_ntz (Spark types the query without
    running it), must be read in a session time zone of UTC: the runs window instants, and a
    timestamp_ntz is the instant of its wall-clock time in the session zone. In UTC that instant's
    windows are the wall clock's (their bounds of type timestamp); in another zone they would
    start at wall-clock times that depend on the zone, so the run is refused. In UTC (as this
    project's profiles set it) any type is accepted, and typing the model's SQL, a statement that
    costs more, is left out. `asked`: the time zone and the release where the state read asked
    them (_sw_incremental_read_state); else they are asked here. Outside UTC the partitions are checked too
    (_sw_incremental_check_partition_zone). Each commit stores the zone
    (_sw_incremental_check_stored_zone). -#}
{% macro _sw_incremental_check_session(cfg, sql, asked=none) %}
    {%- set row = asked if asked is not none else run_query('select current_timezone() as time_zone, version() as release').rows[0] -%}
    {%- set zone = row[0] | string -%}
    {%- set found = modules.re.match('([0-9]+)[.]([0-9]+)', row[1] | string) -%}
    {%- set session = {'time_zone': zone,
        'scripts': cfg.sql_scripts and found is not none and [found.group(1) | int, found.group(2) | int] >= [4, 1]} -%}
    {%- if spark_windows._sw_is_utc(zone) -%}
        {{ return(session) }}
    {%- endif -%}
    {%- do spark_windows._sw_incremental_check_partition_zone(cfg, zone) -%}
    {%- set types = spark_windows._sw_column_types(spark_windows._sw_describe_query('select * from (' ~ sql ~ ') as __sw_source')) -%}
    {%- if types.get(spark_windows._sw_column_key(spark_windows._sw_column_name(cfg.time_col))) == 'timestamp_ntz' -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: time_col (" ~ cfg.time_col ~ ") is of type timestamp_ntz and the Spark session time zone is " ~ zone
            ~ ": the runs window instants, and a timestamp_ntz value is read as the instant of its wall-clock time in the session "
            ~ "time zone, so the windows would start at wall-clock times that depend on that zone. Set spark.sql.session.timeZone "
            ~ "to UTC (as this project's profiles do), where the windows are those of the wall clock, or give the time column "
            ~ "as a timestamp in the model's SQL, such as to_utc_timestamp(" ~ cfg.time_col ~ ", 'America/New_York') for "
            ~ "wall-clock times of New York") }}
    {%- endif -%}
    {{ return(session) }}
{% endmacro %}


{#- Whether a session time zone Spark names is UTC under one of its names. -#}
{% macro _sw_is_utc(zone) %}
    {{ return(zone in ['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT', 'Z', '+00:00']) }}
{% endmacro %}


{#- The table's partitions are named by their start (window_partition, a timestamp) in the session
    time zone, as Spark names partition folders, and read back from that name. Where the zone's
    clocks go back (daylight saving time), an hour's local times occur twice: a partition that
    starts in the second of them is read back as the first, and two partitions an hour apart can
    take one name, so a run that rewrites one would drop the other's windows. Partitions shorter
    than a day are refused in such a zone (its offsets in January and July of this year differ);
    a zone Spark knows but pytz does not (an offset such as '+02:00') has fixed offsets. -#}
{% macro _sw_incremental_check_partition_zone(cfg, zone) %}
    {%- if cfg.partition_us >= 86400000000 or zone not in modules.pytz.all_timezones_set -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set tz = modules.pytz.timezone(zone) -%}
    {%- set year = modules.datetime.datetime.now().year -%}
    {%- set winter = tz.utcoffset(modules.datetime.datetime(year, 1, 1)) -%}
    {%- set summer = tz.utcoffset(modules.datetime.datetime(year, 7, 1)) -%}
    {%- if winter != summer -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: partition_size (" ~ cfg.settings.partition_size ~ ") is shorter than a day and the Spark "
            ~ "session time zone is " ~ zone ~ ", whose clocks change for daylight saving time: the table's partitions are named "
            ~ "by their start in that zone, and when its clocks go back two partitions can take one name, so a run would drop "
            ~ "windows it did not read. Set spark.sql.session.timeZone to UTC (as this project's profiles do), or a zone of "
            ~ "fixed offset, or give partition_size of a day or more") }}
    {%- endif -%}
{% endmacro %}


{#- The session time zone of the last commit (stored with its settings since it was stored at
    all) must be the run's: the table's partitions are named by their start in that zone, so in
    another zone a run would look for them under other names and keep windows twice, or drop a
    partition it did not read. Two names of UTC are the same zone; other zones are compared by
    name. Checked before recovery applies anything. `zone`: the run's (_sw_incremental_check_session). -#}
{% macro _sw_incremental_check_stored_zone(cfg, relation, state, zone) %}
    {%- set stored = fromjson(state.config) if state.config else none -%}
    {%- set before = stored.get('session_time_zone') if stored is mapping else none -%}
    {%- if before is none or zone is none or before == zone
        or (spark_windows._sw_is_utc(before) and spark_windows._sw_is_utc(zone)) -%}
        {{ return(none) }}
    {%- endif -%}
    {{ exceptions.raise_compiler_error(
        "windowed_incremental: the Spark session time zone is " ~ zone ~ ", and the last run of " ~ relation
        ~ " ran in " ~ before ~ ": its partitions (window_partition) are named by their start in the session time zone, "
        ~ "so a run in another zone would not find the partitions it must rewrite, and would keep windows twice. Set "
        ~ "spark.sql.session.timeZone back to " ~ before ~ ", or run the model once with --full-refresh to write every "
        ~ "partition under its name in " ~ zone) }}
{% endmacro %}


{#- The settings a commit stores: the model's, the session time zone its partitions are named
    in (`zone`; _sw_incremental_check_stored_zone), where the run read it, how its staging
    tables are named (staging_tables 'by_batch', _sw_incremental_settle_staging) and with
    iceberg_input the input's snapshot the run read up to (`input_snapshot`,
    _sw_incremental_check_snapshots), with emit_policy='final' the runs the next one reads again
    (`open_input`, _sw_incremental_final_reread); the last four are the run's, not the model's
    (the refusal of a changed setting names none of them). -#}
{% macro _sw_incremental_stored_settings(cfg, zone=none, input_snapshot=none, open_input=none) %}
    {%- set stored = {'staging_tables': 'by_batch'} -%}
    {%- do stored.update(cfg.settings) -%}
    {%- if zone is not none -%}
        {%- do stored.update({'session_time_zone': zone}) -%}
    {%- endif -%}
    {%- if input_snapshot is not none -%}
        {%- do stored.update({'input_snapshot': input_snapshot}) -%}
    {%- endif -%}
    {%- if open_input is not none -%}
        {%- do stored.update({'open_input': open_input}) -%}
    {%- endif -%}
    {{ return(stored) }}
{% endmacro %}
