{#- windowed_incremental, step 2 of a run: what the scan of the new rows found (summary), the
    check of the rows below the processed ingestion time (check_arrivals), the times and ranges
    of this run (plan), and for sessions the stored sessions the new rows touch (touch). -#}


{#- Step 2 of a run: one scan of the new rows (_sw_incremental_summary_sql), its hours added up:
    {new_rows, rows_without_ingestion_time, max_ingestion_us, max_event_us, late_rows,
    min_update_us, max_update_us, input_rows, processed_rows, arrival_counts}; the times none
    when no row has one, input_rows and processed_rows none when the run checks no arrivals.
    arrival_counts: the new rows per hour of ingestion time as JSON text {"<hour us>": rows}
    (none with input_file_col, whose listing counts the rows per file). By ingestion time a run
    checks its arrivals (_sw_incremental_check_arrivals) once a commit with arrival counts
    exists: the scan then also counts the input and what was processed. `scanned`: the scan's
    rows where the listing of new files (input_file_col) made them already; no query then.
    `before`: statements sent with the scan (_sw_incremental_ask), such as a session run's
    caching of its batch, which the scan reads first. -#}
{% macro _sw_incremental_summary(cfg, model_sql, state, state_table, batch_view=none, scanned=none, session=none, before=[]) %}
    {%- set checked = state.batch_id > 0 and 'arrival_counts' not in state.missing_columns -%}
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
    {#- the hours added up, by the position of each column in an hour's row -#}
    {%- for name, position, how in [('new_rows', 2, 'sum'), ('rows_without_ingestion_time', 3, 'sum'), ('max_ingestion_us', 4, 'max'),
        ('max_event_us', 5, 'max'), ('late_rows', 6, 'sum'), ('min_update_us', 7, 'min'), ('max_update_us', 8, 'max')] -%}
        {%- set values = hours | map(attribute=position) | reject('none') | map('int') | list -%}
        {%- if how == 'sum' -%}
            {%- do summary.update({name: values | sum}) -%}
        {%- else -%}
            {%- do summary.update({name: none if not values else (values | max if how == 'max' else values | min)}) -%}
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
    its commit. A state table without arrival counts (written before they existed) checks nothing
    once: that run counts every row as processed. -#}
{% macro _sw_incremental_check_arrivals(cfg, model_sql, state_table, state, summary, batch_view=none) %}
    {%- set first_counted = state.batch_id > 0 and 'arrival_counts' in state.missing_columns -%}
    {%- if not first_counted and (summary.input_rows is none
        or summary.input_rows == summary.processed_rows + summary.new_rows - summary.rows_without_ingestion_time) -%}
        {{ return(summary.arrival_counts) }}
    {%- endif -%}
    {%- set until_us = [state.ingestion_us, summary.max_ingestion_us] | reject('none') | list -%}
    {%- set row = run_query(spark_windows._sw_incremental_arrival_check_sql(cfg, model_sql, state_table,
        none if first_counted else state.ingestion_us, until_us | max if until_us else none)).rows[0] -%}
    {%- if row[0] | int > 0 -%}
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
    {#- sessions scan the batch they cache: their listing counts rows only -#}
    {%- set scan_state = none if cfg.session else state -%}
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
                {%- for position in range(2, 9) if scan_state is not none -%}
                    {%- do hour.append(row[position]) -%}
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


{#- The times and ranges of this run, from the last commit and the scan of the new rows; it reads
    and writes nothing. `rewrite`: the run stages a next version (also when it only has late rows
    to write: the staging table marks the attempt, so a crashed one is found and its rows
    dropped). `batch_view`: the cached batch of a session run. `touch`: for sessions, what
    _sw_incremental_touch found of the stored sessions the new rows touch (none before it ran, or
    when the run has no stored session to touch). -#}
{% macro _sw_incremental_plan(cfg, state, summary, batch_view=none, touch=none) %}
    {%- set events = [state.event_us, summary.max_event_us] | reject('none') | list -%}
    {%- set max_event_us = events | max if events else none -%}
    {%- set watermark_us = none if max_event_us is none else max_event_us - cfg.delay_us -%}
    {%- set fresh = summary.min_update_us is not none -%}
    {%- set min_update_us = summary.min_update_us -%}
    {%- set max_update_us = summary.max_update_us -%}
    {%- set target_exists = state.batch_id > 0 -%}
    {%- set started = run_started_at if run_started_at.tzinfo else modules.pytz.utc.localize(run_started_at) -%}
    {%- set plan = {
        'after_us': state.ingestion_us,
        'until_us': summary.max_ingestion_us,
        'max_event_us': max_event_us,
        'watermark_prev_us': state.watermark_us,
        'watermark_us': watermark_us,
        'min_update_us': min_update_us,
        'max_update_us': max_update_us,
        'target_exists': target_exists,
        'late_rows': summary.late_rows,
        'run_files': state.get('run_files'),
        'state_table': state.get('state_table'),
        'processed_files': state.get('processed_files'),
        'run_us': (started.timestamp() * 1000000) | round | int,
    } -%}
    {%- set ranges = [] -%}
    {%- if cfg.session -%}
        {#- partitions hold session ends: the touched sessions end in [min new time, their
            largest end], the recomputed ones by max(that, max new time + gap) -#}
        {%- do plan.update({'touched_sessions': 0, 'touched_min_start_us': none, 'touched_max_end_us': none, 'batch_view': batch_view}) -%}
        {%- if touch -%}
            {%- do plan.update({
                'late_rows': plan.late_rows + touch.late_rows,
                'touched_sessions': touch.touched_sessions,
                'touched_min_start_us': touch.touched_min_start_us,
                'touched_max_end_us': touch.touched_max_end_us,
                'candidates_view': touch.candidates_view,
                'touched_view': touch.touched_view,
            }) -%}
        {%- endif -%}
        {%- if fresh -%}
            {%- set last_end_us = [max_update_us + cfg.spec.gap_us, plan.touched_max_end_us] | reject('none') | max -%}
            {%- do ranges.append([
                spark_windows._sw_floor_us(min_update_us, cfg.partition_us),
                spark_windows._sw_floor_us(last_end_us, cfg.partition_us)]) -%}
        {%- endif -%}
        {%- set span_us = 0 -%}
    {%- else -%}
        {%- if fresh -%}
            {%- do ranges.append([
                spark_windows._sw_floor_us(min_update_us - cfg.spec.size_us, cfg.partition_us),
                spark_windows._sw_floor_us(max_update_us, cfg.partition_us)]) -%}
        {%- endif -%}
        {%- set span_us = cfg.spec.size_us -%}
        {%- do plan.update({
            'scope_from_us': (min_update_us - span_us) if fresh else 0,
            'scope_until_us': (max_update_us + span_us) if fresh else 0,
        }) -%}
    {%- endif -%}
    {%- set flips = target_exists and state.watermark_us is not none and watermark_us > state.watermark_us -%}
    {%- if flips -%}
        {#- windows whose end + lateness passes from (W_prev, W_new]: they become final; a
            partition holds the windows that start (sessions: end) in it -#}
        {%- do ranges.append([
            spark_windows._sw_floor_us(state.watermark_us - cfg.lateness_us - span_us, cfg.partition_us),
            spark_windows._sw_floor_us(watermark_us - cfg.lateness_us, cfg.partition_us)]) -%}
        {%- if cfg.on_watermark -%}
            {#- with on_watermark, also the windows whose end passes from (W_prev, W_new]: they
                are written now -#}
            {%- do ranges.append([
                spark_windows._sw_floor_us(state.watermark_us - span_us, cfg.partition_us),
                spark_windows._sw_floor_us(watermark_us, cfg.partition_us)]) -%}
        {%- endif -%}
    {%- endif -%}
    {%- do plan.update({
        'partition_ranges': ranges,
        'rewrite': fresh or flips or plan.late_rows > 0,
    }) -%}
    {{ return(plan) }}
{% endmacro %}


{#- Sessions, once the table exists and new rows can update sessions: caches the stored sessions
    the new rows can touch and those they touch (their steps read them again;
    _sw_incremental_uncache drops them) and counts, with the touch query
    (_sw_incremental_session_touch_sql), the rows late because they touch an expired session and
    the span of the touched sessions, whose rows the run reads again, sent with the caching
    (_sw_incremental_ask). `plan`: the plan before it (_sw_incremental_plan without `touch`). Returns what _sw_incremental_plan takes as `touch`;
    none for fixed windows, and when there is nothing to touch. -#}
{% macro _sw_incremental_touch(cfg, model_sql, target, plan, session=none) %}
    {%- if not cfg.session or not plan.target_exists or plan.min_update_us is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set views = {} -%}
    {%- set caching = spark_windows._sw_incremental_session_cache_sql(cfg, model_sql, target, plan, views) -%}
    {%- set cached = plan.copy() -%}
    {%- do cached.update(views) -%}
    {%- for row in spark_windows._sw_incremental_ask(session, caching,
        spark_windows._sw_incremental_session_touch_sql(cfg, model_sql, target, cached)).rows -%}
        {%- do views.update({row[0]: row[1] | int}) -%}
        {%- if row[0] == 'touched_sessions' -%}
            {%- do views.update({
                'touched_min_start_us': none if row[2] is none else row[2] | int,
                'touched_max_end_us': none if row[3] is none else row[3] | int,
            }) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(views) }}
{% endmacro %}


{#- `us` floored to a multiple of `step_us` (toward minus infinity, like pmod). -#}
{% macro _sw_floor_us(us, step_us) %}
    {{ return(us - us % step_us) }}
{% endmacro %}
