{#- windowed_incremental, steps 4 and 6: the commit row in the state table, the count of
    committed runs of a run with nothing new, and the compaction of the state table. -#}


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
{% macro _sw_incremental_commit_sql(cfg, state_table, batch_id, plan, new_rows, pending, fingerprint, arrival_counts, time_zone=none) -%}
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
    {{ spark_windows._sw_string_literal(tojson(spark_windows._sw_incremental_stored_settings(cfg, time_zone, plan.get('input_snapshot'), plan.get('open_input')), sort_keys=true)) }},
    {{ spark_windows._sw_string_literal(arrival_counts) }}
{%- if plan.rewrite %}
from {{ pending }}
{%- endif %}
{%- endmacro %}


{#- A run with no new rows changes no table; its main statement counts the committed runs. -#}
{% macro _sw_incremental_committed_runs_sql(state_table) -%}
select count(*) as committed_runs from {{ state_table }}
{%- endmacro %}


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
    next compaction writes.
    An Iceberg state table is rewritten whole by a static INSERT OVERWRITE of its own rows, which
    Iceberg commits atomically; a kill leaves it as it was. -#}
{% macro _sw_incremental_compact_state(cfg, state_table, batch_id) %}
    {%- if batch_id % cfg.compact_every != 0 -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if cfg.iceberg -%}
        {%- do run_query('insert overwrite table ' ~ state_table ~ ' select /*+ COALESCE(1) */ * from ' ~ state_table) -%}
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
