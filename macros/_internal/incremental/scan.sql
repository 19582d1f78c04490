{#- windowed_incremental, step 2: the scan of the new rows and the reading of its answer
    (summary), the check of the rows below the processed ingestion time (arrivals), and with
    input_file_col the listing of the input's files that is the scan. -#}


{#- One scan of the new rows: per hour of ingestion time (`part` 'hour'; hour_us NULL for the
    rows without one, and for every row with input_file_col), how many, the newest ingestion and
    event times, how many are late, and the event-time range of the rows that update windows;
    _sw_incremental_summary adds the hours up. `batch_view`: a view of _sw_incremental_new_sql
    to read instead of the model's SQL (sessions cache it). By ingestion time with `state_table`
    (the state of a run that checks arrivals, _sw_incremental_check_arrivals) two rows more, their
    count in new_rows: every row of the input ('input_rows') and the rows the committed runs processed
    ('processed_rows', the sum of their arrival_counts); the input's rows add up to those and the
    new ones unless rows landed at or below the newest processed ingestion time. The input's
    count needs none of its columns (Parquet keeps it in each file's footer). One query of up to
    three parts rather than scalar subqueries: Spark runs the parts' jobs side by side, not one
    after the other. -#}
{% macro _sw_incremental_summary_sql(cfg, model_sql, state, batch_view=none, state_table=none) -%}
    {%- set by_hour = cfg.file_col is none -%}
select
    'hour' as part,
    {{ spark_windows._sw_align_us('__sw_ingestion_us', 3600000000) if by_hour else 'cast(null as bigint)' }} as hour_us,
    {{ spark_windows._sw_incremental_scan_columns(cfg, state) }}
from (
    {{ spark_windows._sw_incremental_with_times(cfg, batch_view if batch_view else '(\n    ' ~ spark_windows._sw_incremental_new_sql(cfg, model_sql, state) ~ '\n) as __sw_new') }}
) as __sw_new
group by 2
{%- if by_hour and state_table is not none %}

union all

select 'input_rows', null, {{ spark_windows._sw_incremental_scan_padding(cfg, state, 'count(*)') }}
from (
    {{ model_sql }}
) as __sw_input

union all

select 'processed_rows', null, {{ spark_windows._sw_incremental_scan_padding(cfg, state, 'coalesce(sum(__sw_entry.value), 0)') }}
from {{ state_table }}
lateral view explode(from_json(arrival_counts, 'map<string,bigint>')) __sw_entry as key, value
{%- endif %}
{%- endmacro %}


{#- The scan's aggregates of a group of new rows, in the order _sw_incremental_summary adds
    them up (`state`: the last commit, whose watermark tells the late rows), over rows with the
    checked times of _sw_incremental_with_times. -#}
{% macro _sw_incremental_scan_columns(cfg, state) -%}
    {%- for field in spark_windows._sw_incremental_scan_fields(cfg, state) %}
    {{ field.sql }} as {{ field.name }}{{ ',' if not loop.last }}
    {%- endfor %}
{%- endmacro %}


{#- The aggregates of the scan, declared once for the SQL that computes them
    (_sw_incremental_scan_columns) and the code that reads them (_sw_incremental_summary,
    _sw_incremental_list_files): each row of the scan's answer is its part, its hour (or file),
    then these, in this order. {name, sql, how}: `how` adds up the rows of several hours (or
    files). -#}
{% macro _sw_incremental_scan_fields(cfg, state) %}
    {%- set ts_us = '__sw_ts_us' -%}
    {%- set late = spark_windows._sw_incremental_is_late(cfg, state.get('watermark_sql') or state.watermark_us, ts_us) -%}
    {{ return([
        {'name': 'new_rows', 'sql': 'count(*)', 'how': 'sum'},
        {'name': 'rows_without_ingestion_time', 'sql': 'count_if(' ~ cfg.ingestion_col ~ ' is null)', 'how': 'sum'},
        {'name': 'max_ingestion_us', 'sql': 'max(__sw_ingestion_us)', 'how': 'max'},
        {'name': 'max_event_us', 'sql': 'max(' ~ ts_us ~ ')', 'how': 'max'},
        {'name': 'late_rows', 'sql': 'count_if(' ~ late ~ ')', 'how': 'sum'},
        {'name': 'min_update_us', 'sql': 'min(case when not ' ~ late ~ ' then ' ~ ts_us ~ ' end)', 'how': 'min'},
        {'name': 'max_update_us', 'sql': 'max(case when not ' ~ late ~ ' then ' ~ ts_us ~ ' end)', 'how': 'max'},
    ]) }}
{% endmacro %}


{#- `count` followed by a NULL for each of the scan's other aggregates: a row of the scan's shape
    that holds one count (_sw_incremental_scan_fields). -#}
{% macro _sw_incremental_scan_padding(cfg, state, count) -%}
{{ count }}{% for field in spark_windows._sw_incremental_scan_fields(cfg, state)[1:] %}, null{% endfor %}
{%- endmacro %}


{#- Step 2 of a run: one scan of the new rows (_sw_incremental_summary_sql), its hours added up:
    {new_rows, rows_without_ingestion_time, max_ingestion_us, max_event_us, late_rows,
    min_update_us, max_update_us, input_rows, processed_rows, arrival_counts}; the times none
    when no row has one, input_rows and processed_rows none when the run checks no arrivals.
    arrival_counts: the new rows per hour of ingestion time as JSON text {"<hour us>": rows}
    (none with input_file_col, whose listing counts the rows per file). By ingestion time a run
    checks its arrivals (_sw_incremental_check_arrivals) once a commit exists: the scan then also
    counts the input and what was processed. `scanned`: the scan's rows where the listing of new
    files (input_file_col) or the state read (_sw_incremental_read_state) made them already; no
    query then.
    `before`: statements sent with the scan (_sw_incremental_ask), such as a session run's
    caching of its batch, which the scan reads first. -#}
{% macro _sw_incremental_summary(cfg, model_sql, state, state_table, batch_view=none, scanned=none, session=none, before=[]) %}
    {%- set checked = state.batch_id > 0 -%}
    {%- set summary = {'input_rows': none, 'processed_rows': none} -%}
    {%- set hours = [] -%}
    {%- set counts = {} -%}
    {%- set rows = scanned if scanned is not none else spark_windows._sw_incremental_ask(session, before, spark_windows._sw_incremental_summary_sql(
        cfg, model_sql, state, batch_view, state_table if checked else none)).rows -%}
    {%- for row in rows -%}
        {%- if row[0] != 'hour' -%}
            {%- do summary.update({row[0]: row[2] | int}) -%}
        {%- else -%}
            {%- do hours.append(row) -%}
            {%- if row[1] is not none -%}
                {%- do counts.update({row[1] | int | string: row[2] | int}) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {#- the hours added up, each aggregate after the part and the hour -#}
    {%- for field in spark_windows._sw_incremental_scan_fields(cfg, state) -%}
        {%- set values = hours | map(attribute=loop.index0 + 2) | reject('none') | map('int') | list -%}
        {%- if field.how == 'sum' -%}
            {%- do summary.update({field.name: values | sum}) -%}
        {%- else -%}
            {%- do summary.update({field.name: none if not values else (values | max if field.how == 'max' else values | min)}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- do summary.update({'arrival_counts': tojson(counts, sort_keys=true) if cfg.file_col is none else none}) -%}
    {{ return(summary) }}
{% endmacro %}


{#- Step 2, the check of the rows at or below the newest ingestion time a committed run processed:
    rows there that no run read are refused, with their number, before any table changes; the
    input's ingestion_time_col must only grow in the order rows become visible. The scan of the
    new rows counted the input's rows: they add up to the processed rows and the new ones unless
    rows landed at or below that time after a run read the input, or were removed from it
    (retention); only then does the run compare hour by hour (_sw_incremental_arrival_check_sql),
    which reads the ingestion time of every row. Returns this run's arrival counts (JSON text) for
    its commit. -#}
{% macro _sw_incremental_check_arrivals(cfg, model_sql, state_table, state, summary, batch_view=none) %}
    {%- if summary.input_rows is none
        or summary.input_rows == summary.processed_rows + summary.new_rows - summary.rows_without_ingestion_time -%}
        {{ return(summary.arrival_counts) }}
    {%- endif -%}
    {%- set until_us = [state.ingestion_us, summary.max_ingestion_us] | reject('none') | list -%}
    {%- set row = run_query(spark_windows._sw_incremental_arrival_check_sql(cfg, model_sql, state_table,
        state.ingestion_us, until_us | max if until_us else none)).rows[0] -%}
    {%- if row[0] | int > 0 and cfg.input_table is not none -%}
        {%- do spark_windows._sw_incremental_uncache({'batch_view': batch_view}) -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: " ~ row[0] ~ " rows of " ~ this ~ "'s input have a sequence number "
            ~ "(" ~ cfg.arrival_col ~ ", sequence_col) at or below " ~ state.ingestion_us ~ ", the newest its committed runs read from "
            ~ cfg.input_table ~ ", but were not in the input when those runs read it: no run reads them, so their windows "
            ~ "would miss them. This run changed nothing. Run the model with --full-refresh to compute every window from all rows.") }}
    {%- elif row[0] | int > 0 -%}
        {%- do spark_windows._sw_incremental_uncache({'batch_view': batch_view}) -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: " ~ row[0] ~ " rows of " ~ this ~ "'s input have an " ~ cfg.ingestion_col
            ~ " (ingestion_time_col) at or before " ~ row[1]
            ~ ", the newest ingestion time its committed runs processed, but were not in the input when those runs read it "
            ~ "(ingestion times in the hours from " ~ row[2] ~ " to " ~ row[3] ~ "): no run reads them, so their windows would miss them. "
            ~ "This run changed nothing. Run the model with --full-refresh to compute every window from all rows. "
            ~ "To avoid it, give each row an ingestion time that only grows in the order rows become visible to the model "
            ~ "(for example the time its landing job commits), never an earlier time for a later landing.") }}
    {%- endif -%}
    {{ return(row[4]) }}
{% endmacro %}


{#- The rows of the input at or below the run's newest ingestion time (`until_us`), counted per
    hour of ingestion time, against what the committed runs processed in each hour (the state's
    arrival_counts). `after_us`: the newest ingestion time a committed run processed; rows at or
    below it that no run processed are the input's unprocessed rows. With `after_us` none (no
    committed run processed an ingestion time) no row is checked and every row is counted as
    this run's. Rows the committed runs processed that the input no longer holds (retention)
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


{#- Step 2 with input_file_col: the input's files, with their rows, that no committed run
    processed (`state_table`: none before the first commit); their rows are the run's new rows.
    After a commit, the state's entries give the processed files and their rows, and one query
    lists the other files (the processed ones named in it, so Spark reads none of their rows) and
    counts the input's rows from the files' footers: when the input holds the processed rows
    and the new ones, no processed file changed (but for one losing rows as another processed
    file gains as many, which goes unseen). Only otherwise, and on a first run, is every file
    counted (_sw_incremental_list_files_sql): a processed file that now holds another number
    of rows, and rows without a file, are refused before any table changes; a processed file no
    longer in the input (retention) gets its rows back as a negative entry in this run's
    commit, so that the next runs' counts add up again (a run without new rows commits
    nothing: the next run with new rows records it). Returns {files (sorted), counts (JSON
    text {"<file>": rows}, the run's arrival_counts), processed (the processed files, sorted,
    that the input may hold: the rows the run re-reads are those of these files and its own),
    scanned (with `state`, the last commit, the listing of the new files only, and a window
    other than a session: the scan of the new rows, one row per file, for
    _sw_incremental_summary; else none)}. -#}
{% macro _sw_incremental_list_files(cfg, model_sql, state_table, state=none) %}
    {#- a run that caches its batch scans it: its listing counts rows only -#}
    {%- set scan_state = none if spark_windows._sw_incremental_caches_batch(cfg) else state -%}
    {%- set processed = {} -%}
    {%- if state_table is not none -%}
        {%- for row in run_query(spark_windows._sw_incremental_processed_counts_sql(state_table)).rows -%}
            {%- do processed.update({row[0]: processed.get(row[0], 0) + row[1] | int}) -%}
        {%- endfor -%}
        {%- set kept = [] -%}
        {%- for file, rows in processed | dictsort if rows != 0 -%}
            {%- do kept.append(file) -%}
        {%- endfor -%}
        {%- set found = {} -%}
        {%- set scanned = [] -%}
        {%- set input = {'rows': none} -%}
        {%- for row in run_query(spark_windows._sw_incremental_unlisted_files_sql(cfg, model_sql, kept, scan_state)).rows -%}
            {%- if row[0] == 'input' -%}
                {%- do input.update({'rows': row[2] | int}) -%}
            {%- elif row[1] is not none -%}
                {%- do found.update({row[1]: row[2] | int}) -%}
                {#- the file's scan, as a row of the scan's (_sw_incremental_summary_sql) -#}
                {%- set hour = ['hour', none] -%}
                {%- for field in (spark_windows._sw_incremental_scan_fields(cfg, scan_state) if scan_state is not none else []) -%}
                    {%- do hour.append(row[loop.index0 + 2]) -%}
                {%- endfor -%}
                {%- do scanned.append(hour) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- if input.rows == (processed.values() | sum) + (found.values() | sum) -%}
            {{ return({'files': found.keys() | sort, 'counts': tojson(found, sort_keys=true), 'processed': kept,
                'scanned': scanned if scan_state is not none else none}) }}
        {%- endif -%}
    {%- endif -%}
    {%- set found = {} -%}
    {%- set counts = {} -%}
    {%- set listed = {} -%}
    {%- for row in run_query(spark_windows._sw_incremental_list_files_sql(cfg, model_sql)).rows -%}
        {%- set rows = row[1] | int -%}
        {%- set before = processed.get(row[0], 0) -%}
        {%- if row[0] is none -%}
            {{ exceptions.raise_compiler_error(
                "windowed_incremental: " ~ rows ~ " rows of " ~ this ~ "'s input have a NULL " ~ cfg.file_col
                ~ " (input_file_col); with input_file_col every row needs the file it was read from, such as "
                ~ "_metadata.file_path AS " ~ cfg.file_col ~ " where the model's SQL reads a file-based table. This run changed nothing.") }}
        {%- elif before != 0 and before != rows -%}
            {{ exceptions.raise_compiler_error(
                "windowed_incremental: the input file " ~ row[0] ~ " of " ~ this ~ " held " ~ before
                ~ " rows of the model's input when a committed run processed it, and now holds " ~ rows
                ~ ": a file must not change once it has landed (a compaction or an overwrite of the input rewrites files), "
                ~ "and the model's SQL must keep the same rows of each file. This run changed nothing. Run the model with "
                ~ "--full-refresh to compute every window from the input as it is.") }}
        {%- elif before == 0 -%}
            {%- do found.update({row[0]: rows}) -%}
        {%- endif -%}
        {%- do listed.update({row[0]: rows}) -%}
    {%- endfor -%}
    {%- do counts.update(found) -%}
    {%- for file, rows in processed.items() if rows != 0 and file not in listed -%}
        {%- do counts.update({file: -rows}) -%}
    {%- endfor -%}
    {%- set kept = [] -%}
    {%- for file, rows in processed | dictsort if rows != 0 and file in listed -%}
        {%- do kept.append(file) -%}
    {%- endfor -%}
    {{ return({'files': found.keys() | sort, 'counts': tojson(counts, sort_keys=true), 'processed': kept, 'scanned': none}) }}
{% endmacro %}


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

select 'input', null, {{ spark_windows._sw_incremental_scan_padding(cfg, scan_state, 'count(*)') if scan_state is not none else 'count(*)' }}
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
