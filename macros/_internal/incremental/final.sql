{#- windowed_incremental with emit_policy='final' (docs/design/windowed_incremental.md, "Final
    windows"): each window is written once, by the run whose watermark passes its end plus
    allowed_lateness, and never rewritten. A run keeps no table of windows: it keeps the rows of
    the windows still open (the open rows), and computes from them and its new rows the windows
    that close.

    Tumble, hop and cumulate read the open rows again from the input: each commit keeps, in its
    config, the runs whose rows may still be in an open window (their files with input_file_col,
    else the ingestion time they start after), with their latest event time that is not late
    (_sw_incremental_final_reread). Sessions cannot tell which rows an open session holds
    without computing it: a session run writes them.

    The model's table is partitioned by batch_id. A run writes up to three folders, then commits:
      open rows   (sessions) <table folder>/_sw_open_<batch_id % 2>: the rows of every session
                  still open under the run's watermark, each as a struct __sw_row of the
                  model's columns; the next run reads them. Two folders take turns, so a run
                  never writes the folder the last commit's open rows are in.
      late rows   <late folder>/batch_id=<batch_id>, when the run has late rows.
      windows     <table folder>/batch_id=<batch_id>: the windows that close.
    After the commit the table and the late table take those folders as partitions, by
    metadata (ALTER TABLE ADD IF NOT EXISTS PARTITION, which names the last commit's partitions
    too: a run killed between its commit and that statement is finished by the next). A folder
    written by a run that did not commit is never a partition: the next attempt of its batch
    writes it again. A reader never sees a window before its run committed, and never twice.

    Sessions keep, beside the open rows, a mark of each closed session a later row could still
    touch (__sw_closed_end: its end; its row is the session's last): a new row that touches a
    closed session is late. Such a row is not late by its own window (t + gap + allowed_lateness
    > W_prev), and a closed session ends at or before W_prev - allowed_lateness, so it touches
    one exactly when t <= that end: a mark is kept while its end + allowed_lateness + gap is
    after the watermark. Aliases: `__sw_a` a row, `__sw_b` a window or a mark. -#}


{#- The folders a run of batch `batch_id` writes and reads: {final, late, open_next, open_last
    (the last commit's open rows; none before the first commit)}. The locations are dbt's
    listing's, else `describe`'s (a table the run created). -#}
{% macro _sw_incremental_final_folders(final, late, batch_id) %}
    {%- set table = spark_windows._sw_incremental_table_location(final) -%}
    {%- set late_table = spark_windows._sw_incremental_table_location(late) -%}
    {{ return({
        'final': table ~ '/batch_id=' ~ batch_id,
        'late': late_table ~ '/batch_id=' ~ batch_id,
        'open_next': table ~ '/_sw_open_' ~ batch_id % 2,
        'open_last': table ~ '/_sw_open_' ~ (batch_id - 1) % 2 if batch_id > 1 else none,
    }) }}
{% endmacro %}


{#- The folder of a table: as dbt listed it, else as `describe` gives it. -#}
{% macro _sw_incremental_table_location(relation) %}
    {%- set cached = spark_windows._sw_cached_table(relation) -%}
    {{ return(cached.location if cached is not none and cached.location else spark_windows._sw_describe_table(relation).location) }}
{% endmacro %}


{#- `query` written into `folder` as Parquet files, replacing what the folder held. -#}
{% macro _sw_incremental_folder_sql(folder, query) -%}
insert overwrite directory {{ spark_windows._sw_string_literal(folder) }} using parquet
options ({{ spark_windows._sw_commit_algorithm_option() }})
{{ query }}
{%- endmacro %}


{#- The group columns of `__sw_a` and `__sw_b` match (NULL keys match NULL keys); `b_prefix`:
    how `__sw_b`'s columns are reached. -#}
{% macro _sw_incremental_group_match(cfg, b_prefix='__sw_b.') -%}
    {%- for column in cfg.group_cols -%}
        {{ ' and ' if not loop.first }}__sw_a.{{ column }} <=> {{ b_prefix }}{{ column }}
    {%- endfor -%}
    {{- 'true' if not cfg.group_cols -}}
{%- endmacro %}


{#- The common table expressions of a final run: the new rows (__sw_new) and the rows the windows
    are computed from (__sw_rows: the open rows and the new rows that are not late, in the
    model's columns). Tumble, hop, cumulate: the input the run reads again (plan.reread) and its
    new rows, in one read. Sessions: the last commit's open rows (__sw_open, with the marks;
    `open_last`: their folder, none on a first run) and the new rows. -#}
{% macro _sw_incremental_final_ctes(cfg, model_sql, plan, open_last) -%}
    {%- set ts_us = spark_windows._sw_ts_us('__sw_a.' ~ cfg.time_col) -%}
    {%- set touch = spark_windows._sw_incremental_final_may_touch(cfg, plan, open_last) -%}
    {%- set not_late = '__sw_a.' ~ cfg.time_col ~ ' is not null and not ' ~ spark_windows._sw_incremental_is_late(cfg, plan.watermark_prev_us, ts_us) -%}
{%- if not cfg.session -%}
with __sw_new as (
    {{ spark_windows._sw_incremental_input_sql(cfg, model_sql, plan, 'run') }}
),

__sw_rows as (
    select * from (
        {{ spark_windows._sw_incremental_final_reread_sql(cfg, model_sql, plan) }}
    ) as __sw_a
    where {{ not_late }}
)
{%- else -%}
with
{%- if open_last %} __sw_open as (
    select * from parquet.`{{ open_last }}`
),

{%- if touch %}

__sw_marks as (
    select * from __sw_open where __sw_closed_end is not null
),
{%- endif %}

{% endif %} __sw_new as (
    {{ spark_windows._sw_incremental_input_sql(cfg, model_sql, plan, 'run') }}
),

__sw_rows as (
    {%- if open_last %}
    select __sw_row.* from __sw_open where __sw_closed_end is null
    union all
    {%- endif %}
    select __sw_a.* from __sw_new as __sw_a
    {%- if touch %}
    left anti join __sw_marks as __sw_b
        on {{ spark_windows._sw_incremental_group_match(cfg, '__sw_b.__sw_row.') }} and {{ ts_us }} <= unix_micros(__sw_b.__sw_closed_end)
    {%- endif %}
    where {{ not_late }}
)
{%- endif %}
{%- endmacro %}


{#- Tumble, hop, cumulate: the input rows a run reads, in one read: those of the runs whose rows
    may still be in an open window (plan.reread) and its own. With input_file_col their files
    (named: Spark opens no other), else the ingestion times after the earliest such run's start
    up to the run's newest. After a first commit, only rows a window still open under W_prev can
    hold: their time after W_prev - allowed_lateness - size, a bound Spark checks against each
    file's statistics. -#}
{% macro _sw_incremental_final_reread_sql(cfg, model_sql, plan) -%}
    {%- set pieces = plan.get('reread') or [] -%}
    {%- if cfg.file_col is not none -%}
        {%- set files = [] -%}
        {%- for piece in pieces -%}
            {%- do files.extend(piece.files) -%}
        {%- endfor -%}
        {%- do files.extend(plan.run_files or []) -%}
    select *
    from (
        {{ model_sql }}
    ) as __sw_input
    where {{ cfg.file_col ~ ' in (' ~ spark_windows._sw_incremental_file_literals(files | unique | sort) ~ ')' if files else 'false' }}
    {%- else -%}
        {%- set afters = [plan.after_us] + pieces | map(attribute='after_us') | list -%}
        {{ spark_windows._sw_incremental_arrivals(cfg, model_sql, none if none in afters else afters | min, plan.until_us) }}
    {%- endif %}
    {%- if plan.watermark_prev_us is not none %}
        and {{ cfg.time_col }} > {{ spark_windows._sw_us_literal(plan.watermark_prev_us - cfg.lateness_us - cfg.spec.size_us) }}
    {%- endif %}
{%- endmacro %}


{#- Tumble, hop, cumulate: the runs whose rows the next run reads again, for the commit to keep:
    of the runs the last commit kept (plan.reread) and this one, those whose latest time that is
    not late (max_update_us) has a window still open under the run's watermark W. A run: its
    files ({files, max_update_us}) with input_file_col, else the ingestion time it starts after
    ({after_us, max_update_us}; none for a first run). -#}
{% macro _sw_incremental_final_reread(cfg, plan) %}
    {%- set run = {'files': plan.run_files or []} if cfg.file_col is not none else {'after_us': plan.after_us} -%}
    {%- do run.update({'max_update_us': plan.max_update_us}) -%}
    {%- set kept = [] -%}
    {%- for piece in (plan.get('reread') or []) + [run] if piece.max_update_us is not none -%}
        {%- set step = cfg.spec.pane_us if cfg.spec.type == 'hop' else cfg.spec.size_us -%}
        {%- set last_end = piece.max_update_us - (piece.max_update_us - cfg.spec.offset_us) % step + cfg.spec.size_us -%}
        {%- if plan.watermark_us is none or last_end + cfg.lateness_us > plan.watermark_us -%}
            {%- do kept.append(piece) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(kept) }}
{% endmacro %}


{#- Tumble, hop, cumulate with input_file_col: the runs the last commit kept must still be in the
    input (`plan.processed_files`: the processed files the listing found). A file removed while
    its rows are in a window still open would leave that window short of them: refused. -#}
{% macro _sw_incremental_final_check_reread(cfg, plan) %}
    {%- set missing = [] -%}
    {%- for piece in plan.get('reread') or [] if cfg.file_col is not none -%}
        {%- for file in piece.files if file not in plan.processed_files -%}
            {%- do missing.append(file) -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- if missing -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: with emit_policy='final' a run reads the rows of the windows still open again from their input files, "
            ~ "and " ~ missing | join(', ') ~ (" was" if missing | length == 1 else " were") ~ " removed from the input. Keep a file "
            ~ "until allowed_lateness after the watermark passed its rows (or put it back), or run the model with --full-refresh. "
            ~ "This run changed nothing.") }}
    {%- endif -%}
{% endmacro %}


{#- The windows of `relation` (window_aggregate) as __sw_windows, a CTE to follow those of
    _sw_incremental_final_ctes. -#}
{% macro _sw_incremental_final_windows_cte(cfg) -%}
__sw_windows as (
    select * from {{ spark_windows.window_aggregate('__sw_rows', cfg.time_col, cfg.window, cfg.group_cols, cfg.aggregates) }} as __sw_w
)
{%- endmacro %}


{#- The windows this run closes: their end plus allowed_lateness passed by the run's watermark,
    not by the last commit's (W_prev; sessions: a session of open or new rows was open under it). -#}
{% macro _sw_incremental_final_windows_sql(cfg, model_sql, plan, open_last) -%}
{{ spark_windows._sw_incremental_final_ctes(cfg, model_sql, plan, open_last) }},

{{ spark_windows._sw_incremental_final_windows_cte(cfg) }}

select {{ (cfg.group_cols + ['window_start', 'window_end'] + cfg.agg_names) | join(', ') }}
from __sw_windows
{%- if plan.watermark_us is none %}
where false
{%- else %}
where unix_micros(window_end) + {{ cfg.lateness_us }} <= {{ plan.watermark_us }}
    {%- if plan.watermark_prev_us is not none and not cfg.session %}
    and unix_micros(window_end) + {{ cfg.lateness_us }} > {{ plan.watermark_prev_us }}
    {%- endif %}
{%- endif %}
{%- endmacro %}


{#- Sessions: the open rows after this run, as struct __sw_row, and the marks (before the first
    watermark, every row). In one pass over
    each group's rows in time order: a row is its session's last when the next row is more than
    gap after it (or there is none), and that session is closed when its end (the row's time +
    gap) plus allowed_lateness is at or before W. Sessions follow one another, so the open rows
    are those after the group's last closed session's last row (the cut); the marks are the last
    rows of the closed sessions a later row could touch, and the last commit's marks still so. -#}
{% macro _sw_incremental_open_rows_sql(cfg, model_sql, plan, open_last) -%}
    {%- set w = plan.watermark_us -%}
    {%- set ts_us = spark_windows._sw_ts_us('__sw_a.' ~ cfg.time_col) -%}
{{ spark_windows._sw_incremental_final_ctes(cfg, model_sql, plan, open_last) }}
{%- if cfg.session and w is not none %},

__sw_judged as (
    {%- set by_group = 'partition by ' ~ cfg.group_cols | join(', ') if cfg.group_cols else '' %}
    {%- set gap = cfg.spec.gap_us %}
    select *, max(case when __sw_closes then __sw_ts end) over ({{ by_group }}) as __sw_cut
    from (
        select *,
            (__sw_next_ts is null or __sw_next_ts - __sw_ts > {{ gap }}) and __sw_ts + {{ gap + cfg.lateness_us }} <= {{ w }} as __sw_closes
        from (
            select *, lead(__sw_ts) over ({{ by_group }} order by __sw_ts) as __sw_next_ts
            from (
                select struct(__sw_a.*) as __sw_row, {{ ts_us }} as __sw_ts{% for column in cfg.group_cols %}, __sw_a.{{ column }}{% endfor %}
                from __sw_rows as __sw_a
            ) as __sw_timed
        ) as __sw_next
    ) as __sw_ends
)

select __sw_row, case when __sw_closes then timestamp_micros(__sw_ts + {{ gap }}) end as __sw_closed_end
from __sw_judged
where __sw_cut is null or __sw_ts > __sw_cut
    or (__sw_closes and __sw_ts + {{ gap + cfg.lateness_us + gap }} > {{ w }})
{%- if open_last %}

union all

select __sw_row, __sw_closed_end
from __sw_open
where unix_micros(__sw_closed_end) + {{ cfg.lateness_us + gap }} > {{ w }}
{%- endif %}
{%- else %}

select struct(__sw_a.*) as __sw_row, cast(null as timestamp) as __sw_closed_end
from __sw_rows as __sw_a
{%- endif %}
{%- endmacro %}


{#- The run's late rows: the new rows every window of which closed under the last commit's
    watermark, and (sessions) those that touch a closed session, with the late table's columns. -#}
{% macro _sw_incremental_final_late_sql(cfg, model_sql, plan, open_last) -%}
    {%- set ts_us = spark_windows._sw_ts_us('__sw_a.' ~ cfg.time_col) -%}
    {%- set late = spark_windows._sw_incremental_is_late(cfg, plan.watermark_prev_us, ts_us) -%}
{{ spark_windows._sw_incremental_final_ctes(cfg, model_sql, plan, open_last) }}

select __sw_late.*, {{ spark_windows._sw_incremental_late_columns(cfg, plan) }}
from (
    select __sw_a.* from __sw_new as __sw_a where {{ late }}
    {%- if spark_windows._sw_incremental_final_may_touch(cfg, plan, open_last) %}
    union all
    select __sw_a.* from __sw_new as __sw_a
    left semi join __sw_marks as __sw_b
        on {{ spark_windows._sw_incremental_group_match(cfg, '__sw_b.__sw_row.') }} and {{ ts_us }} <= unix_micros(__sw_b.__sw_closed_end)
    where __sw_a.{{ cfg.time_col }} is not null and not {{ late }}
    {%- endif %}
) as __sw_late
{%- endmacro %}


{#- Sessions: whether a new row that is not late by its own window can touch a closed session (a
    mark of the last commit's open rows, `open_last`): a closed session ends at W_prev -
    allowed_lateness at the latest, and the scan found the earliest such row (min_update_us).
    When none can, the run reads no marks. -#}
{% macro _sw_incremental_final_may_touch(cfg, plan, open_last) %}
    {{ return(cfg.session and open_last is not none and plan.watermark_prev_us is not none and plan.min_update_us is not none
        and plan.min_update_us <= plan.watermark_prev_us - cfg.lateness_us) }}
{% endmacro %}


{#- Whether the run can have late rows: rows late by their own windows (the scan counted them),
    or (sessions) rows that touch a closed session (_sw_incremental_final_may_touch). -#}
{% macro _sw_incremental_final_may_be_late(cfg, plan, open_last) %}
    {{ return(plan.late_rows > 0 or spark_windows._sw_incremental_final_may_touch(cfg, plan, open_last)) }}
{% endmacro %}


{#- The tables of a final model created where dbt did not list them: the model's table (its
    windows' columns and batch_id), the late table. Returns the statements. -#}
{% macro _sw_incremental_final_create_statements(cfg, model_sql, tables, plan, clauses, format, own_folders) %}
    {%- set statements = spark_windows._sw_incremental_create_statements(tables.final,
        spark_windows._sw_incremental_create_sql(tables.final, spark_windows._sw_incremental_final_windows_sql(cfg, model_sql, plan, none),
            'batch_id', clauses.final, format), own_folders) -%}
    {%- do statements.extend(spark_windows._sw_incremental_create_statements(tables.late,
        spark_windows._sw_incremental_create_sql(tables.late, spark_windows._sw_incremental_final_late_sql(cfg, model_sql, plan, none),
            'batch_id', clauses.late, format), own_folders)) -%}
    {{ return(statements) }}
{% endmacro %}


{#- The partitions a final run's commit makes visible, with those of the last commit (a run killed
    before it made them visible): one ALTER TABLE per table. `batches`: the model's table's;
    `late_batches`: the late table's (batches that wrote late rows). -#}
{% macro _sw_incremental_final_publish_sql(tables, batches, late_batches) %}
    {%- set statements = [] -%}
    {%- for relation, ids in [(tables.final, batches), (tables.late, late_batches)] if ids -%}
        {%- set specs = [] -%}
        {%- for id in ids -%}
            {%- do specs.append('partition (batch_id = ' ~ id ~ ')') -%}
        {%- endfor -%}
        {%- do statements.append('alter table ' ~ relation ~ ' add if not exists ' ~ specs | join(' ')) -%}
    {%- endfor -%}
    {{ return(statements) }}
{% endmacro %}


{#- The partitions of the last commit (`state`) to make visible again: its batch's in the model's
    table, and in the late table when it had late rows. -#}
{% macro _sw_incremental_final_last_batches(state) %}
    {{ return({'batches': [state.batch_id] if state.batch_id > 0 else [],
        'late_batches': [state.batch_id] if state.batch_id > 0 and (state.late_rows or 0) > 0 else []}) }}
{% endmacro %}


{#- Steps 3 to 5 of a final run of batch `batch_id`: on a first run the tables are created first
    (the folders are read from them); then, sent together, the open rows (sessions), the late
    rows, the windows that close, the commit and the partitions made visible. `commit`: what
    the commit row holds besides the plan ({new_rows, fingerprint, arrival_counts, time_zone});
    its late_rows are counted in the folder the run wrote them to (sessions find some only
    then), and its config keeps the runs the next one reads again (tumble, hop, cumulate:
    open_input, _sw_incremental_final_reread). -#}
{% macro _sw_incremental_final_run(cfg, model_sql, tables, plan, state, batch_id, commit, clauses, format, own_folders, session) %}
    {%- set stored = fromjson(state.config) if state.batch_id > 0 and state.config else {} -%}
    {%- set plan = plan.copy() -%}
    {%- do plan.update({'reread': stored.get('open_input') or []}) -%}
    {%- do spark_windows._sw_incremental_final_check_reread(cfg, plan) -%}
    {%- set created = spark_windows._sw_incremental_final_create_statements(cfg, model_sql, tables, plan, clauses, format, own_folders) -%}
    {%- if created -%}
        {%- do run_query(spark_windows._sw_incremental_send(session, created)) -%}
    {%- endif -%}
    {%- set folders = spark_windows._sw_incremental_final_folders(tables.final, tables.late, batch_id) -%}
    {%- set open_last = folders.open_last if state.batch_id > 0 and cfg.session else none -%}
    {%- set writes = [] -%}
    {%- if cfg.session -%}
        {%- do writes.append(spark_windows._sw_incremental_folder_sql(folders.open_next, spark_windows._sw_incremental_open_rows_sql(cfg, model_sql, plan, open_last))) -%}
    {%- endif -%}
    {%- set late = spark_windows._sw_incremental_final_may_be_late(cfg, plan, open_last) -%}
    {%- if late -%}
        {%- do writes.append(spark_windows._sw_incremental_folder_sql(folders.late, spark_windows._sw_incremental_final_late_sql(cfg, model_sql, plan, open_last))) -%}
    {%- endif -%}
    {%- do writes.append(spark_windows._sw_incremental_folder_sql(folders.final, spark_windows._sw_incremental_final_windows_sql(cfg, model_sql, plan, open_last))) -%}
    {%- do writes.extend(spark_windows._sw_incremental_create_statements(tables.state,
        spark_windows._sw_incremental_state_ddl(tables.state, clauses.state, format), own_folders)) -%}
    {%- set counted = plan.copy() -%}
    {%- do counted.update({'rewrite': false, 'late_rows': '(select count(*) from parquet.`' ~ folders.late ~ '`)' if late else 0,
        'open_input': none if cfg.session else spark_windows._sw_incremental_final_reread(cfg, plan)}) -%}
    {%- do writes.append(spark_windows._sw_incremental_commit_sql(cfg, tables.state, batch_id, counted, commit.new_rows, none,
        commit.fingerprint, commit.arrival_counts, commit.time_zone)) -%}
    {%- set last = spark_windows._sw_incremental_final_last_batches(state) -%}
    {%- do writes.extend(spark_windows._sw_incremental_final_publish_sql(tables, last.batches + [batch_id],
        last.late_batches + ([batch_id] if late else []))) -%}
    {{ return(spark_windows._sw_incremental_send(session, writes)) }}
{% endmacro %}
