{#- windowed_incremental: the state of a run: what the last commit left (recovery), what the
    scan of the new rows found (summary), the times and ranges of this run (plan), and for
    sessions the stored sessions the new rows touch (touch). -#}


{#- Step 1 of a run. Returns the state of the last committed run (_sw_incremental_read_state),
    after settling what an earlier attempt left: a staging table named by the last commit is
    applied again (its rewrite may not have finished); any other staging table, and the late and
    changelog rows of the batch after the last commit, belong to a run that did not commit and
    are dropped. With no commit (first run, --full-refresh, or a first run that crashed) every
    table of the model starts again. -#}
{% macro _sw_incremental_recover(cfg, target, tables, full_refresh) %}
    {%- set state = spark_windows._sw_incremental_read_state(target, tables, full_refresh) -%}
    {%- set uncommitted = spark_windows._sw_incremental_settle_staging(cfg, target, state) -%}
    {%- if state.batch_id > 0 -%}
        {#- A run writes late and changelog rows only after its staging table exists. -#}
        {%- for name in ['late', 'changelog'] if uncommitted -%}
            {%- if adapter.get_relation(target.database, target.schema, tables[name].identifier) is not none -%}
                {%- do run_query('alter table ' ~ tables[name] ~ ' drop if exists partition (batch_id = ' ~ (state.batch_id + 1) ~ ')') -%}
            {%- endif -%}
        {%- endfor -%}
    {%- else -%}
        {%- do spark_windows._sw_incremental_reset(target, tables) -%}
    {%- endif -%}
    {{ return(state) }}
{% endmacro %}


{#- The last row of the state table:
    {batch_id (0 before the first), ingestion_us, event_us, watermark_us, pending, fingerprint,
    config (the settings as JSON text; none from a state table older than that column),
    config_column (whether the state table has that column)}; batch_id 0 with --full-refresh,
    or when the model's relation is not a table. A table of windows written before revision
    and timing existed is refused. -#}
{% macro _sw_incremental_read_state(target, tables, full_refresh) %}
    {%- set state = {'batch_id': 0, 'ingestion_us': none, 'event_us': none, 'watermark_us': none, 'pending': none, 'fingerprint': none,
        'config': none, 'config_column': true} -%}
    {%- set existing = adapter.get_relation(target.database, target.schema, target.identifier) -%}
    {%- set existing_state = adapter.get_relation(target.database, target.schema, tables.state.identifier) -%}
    {%- if full_refresh or existing_state is none or (existing is not none and not existing.is_table) -%}
        {{ return(state) }}
    {%- endif -%}
    {%- set config_column = 'config' in adapter.get_columns_in_relation(existing_state) | map(attribute='name') | map('lower') | list -%}
    {%- set rows = run_query(
        'select batch_id, unix_micros(max_ingestion_time), unix_micros(max_event_time), unix_micros(watermark), pending_table, config_fingerprint, '
        ~ ('config' if config_column else 'cast(null as string)') ~ ' from '
        ~ tables.state ~ ' order by batch_id desc limit 1').rows -%}
    {%- if rows | length == 0 -%}
        {{ return(state) }}
    {%- endif -%}
    {%- set row = rows[0] -%}
    {%- do state.update({
        'batch_id': row[0] | int,
        'ingestion_us': none if row[1] is none else row[1] | int,
        'event_us': none if row[2] is none else row[2] | int,
        'watermark_us': none if row[3] is none else row[3] | int,
        'pending': row[4],
        'fingerprint': row[5],
        'config': row[6],
        'config_column': config_column,
    }) -%}
    {%- if existing is not none and 'revision' not in adapter.get_columns_in_relation(existing) | map(attribute='name') | map('lower') | list -%}
        {{ exceptions.raise_compiler_error(
            "windowed_incremental: " ~ existing ~ " has no revision and timing columns: it was written by an earlier "
            ~ "version of spark_windows. Run it once with --full-refresh to recompute every window with them.") }}
    {%- endif -%}
    {{ return(state) }}
{% endmacro %}


{#- Applies again the staging table the last commit names and drops every staging table;
    returns the names of those that belonged to no commit. -#}
{% macro _sw_incremental_settle_staging(cfg, target, state) %}
    {%- set staged = run_query("show tables in " ~ target.schema ~ " like '" ~ target.identifier ~ "__pending_*'") -%}
    {%- set uncommitted = [] -%}
    {%- for row in staged.rows -%}
        {%- set relation = target.incorporate(path={'identifier': row[1]}, type='table') -%}
        {%- if state.batch_id > 0 and row[1] == state.pending -%}
            {%- do spark_windows._sw_incremental_apply(cfg, target, relation) -%}
        {%- else -%}
            {%- do uncommitted.append(row[1]) -%}
        {%- endif -%}
        {%- do run_query('drop table if exists ' ~ relation) -%}
    {%- endfor -%}
    {{ return(uncommitted) }}
{% endmacro %}


{#- No commit: every table of the model starts again (the model's relation whatever its type,
    the table of every window, the late, changelog and state tables). -#}
{% macro _sw_incremental_reset(target, tables) %}
    {%- set existing = adapter.get_relation(target.database, target.schema, target.identifier) -%}
    {%- if existing is not none -%}
        {%- do adapter.drop_relation(existing) -%}
    {%- endif -%}
    {%- for name in ['windows', 'late', 'changelog', 'state'] -%}
        {%- do run_query('drop table if exists ' ~ tables[name]) -%}
    {%- endfor -%}
{% endmacro %}


{#- Step 2 of a run: one scan of the new rows (_sw_incremental_summary_sql), its answer by name:
    {new_rows, rows_without_ingestion_time, max_ingestion_us, max_event_us, late_rows,
    min_update_us, max_update_us}; the times none when no row has one. -#}
{% macro _sw_incremental_summary(cfg, model_sql, state, batch_view=none) %}
    {%- set row = run_query(spark_windows._sw_incremental_summary_sql(cfg, model_sql, state, batch_view)).rows[0] -%}
    {%- set summary = {} -%}
    {%- for name in ['new_rows', 'rows_without_ingestion_time', 'max_ingestion_us', 'max_event_us', 'late_rows', 'min_update_us', 'max_update_us'] -%}
        {%- do summary.update({name: none if row[loop.index0] is none else row[loop.index0] | int}) -%}
    {%- endfor -%}
    {{ return(summary) }}
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
    the span of the touched sessions, whose rows the run reads again. `plan`: the plan before it
    (_sw_incremental_plan without `touch`). Returns what _sw_incremental_plan takes as `touch`;
    none for fixed windows, and when there is nothing to touch. -#}
{% macro _sw_incremental_touch(cfg, model_sql, target, plan) %}
    {%- if not cfg.session or not plan.target_exists or plan.min_update_us is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set views = {} -%}
    {%- do spark_windows._sw_incremental_session_cache(cfg, model_sql, target, plan, views) -%}
    {%- set cached = plan.copy() -%}
    {%- do cached.update(views) -%}
    {%- set row = run_query(spark_windows._sw_incremental_session_touch_sql(cfg, model_sql, target, cached)).rows[0] -%}
    {%- do views.update({
        'late_rows': row[0] | int,
        'touched_sessions': row[1] | int,
        'touched_min_start_us': none if row[2] is none else row[2] | int,
        'touched_max_end_us': none if row[3] is none else row[3] | int,
    }) -%}
    {{ return(views) }}
{% endmacro %}


{#- `us` floored to a multiple of `step_us` (toward minus infinity, like pmod). -#}
{% macro _sw_floor_us(us, step_us) %}
    {{ return(us - us % step_us) }}
{% endmacro %}
