{#- windowed_incremental, step 2 done: the times and partition ranges of a run, from the last
    commit and the scan. It reads and writes nothing. -#}


{#- The times and ranges of this run, from the last commit and the scan of the new rows; it reads
    and writes nothing. `rewrite`: the run stages a next version (also when it only has late rows
    to write: the staging table marks the attempt, so a crashed one is found and its rows
    dropped). `batch_view`: the cached batch of a session run. A session run's plan then takes
    what the touch query found (_sw_incremental_touched). -#}
{% macro _sw_incremental_plan(cfg, state, summary, batch_view=none) %}
    {%- set events = [state.event_us, summary.max_event_us] | reject('none') | list -%}
    {%- set max_event_us = events | max if events else none -%}
    {%- set started = run_started_at if run_started_at.tzinfo else modules.pytz.utc.localize(run_started_at) -%}
    {%- set plan = {
        'after_us': state.ingestion_us,
        'until_us': summary.max_ingestion_us,
        'max_event_us': max_event_us,
        'watermark_prev_us': state.watermark_us,
        'watermark_us': none if max_event_us is none else max_event_us - cfg.delay_us,
        'min_update_us': summary.min_update_us,
        'max_update_us': summary.max_update_us,
        'target_exists': state.batch_id > 0,
        'late_rows': summary.late_rows,
        'run_files': state.get('run_files'),
        'state_table': state.get('state_table'),
        'processed_files': state.get('processed_files'),
        'input_snapshot': state.get('input_snapshot'),
        'run_us': (started.timestamp() * 1000000) | round | int,
    } -%}
    {%- if cfg.session -%}
        {%- do plan.update({'touched_sessions': 0, 'touched_min_start_us': none, 'touched_max_end_us': none, 'batch_view': batch_view}) -%}
    {%- endif -%}
    {{ return(spark_windows._sw_incremental_plan_ranges(cfg, plan)) }}
{% endmacro %}


{#- A session run's plan with what _sw_incremental_touch found of the stored sessions its new
    rows touch (`touch`; none when it had nothing to touch: the plan as it is): a new plan, the
    rows late by touch added to the late rows, the touched sessions' span, the views it cached,
    and the partition ranges again. -#}
{% macro _sw_incremental_touched(cfg, plan, touch) %}
    {%- if not touch -%}
        {{ return(plan) }}
    {%- endif -%}
    {%- set touched = plan.copy() -%}
    {%- do touched.update({
        'late_rows': plan.late_rows + touch.late_rows,
        'touched_sessions': touch.touched_sessions,
        'touched_min_start_us': touch.touched_min_start_us,
        'touched_max_end_us': touch.touched_max_end_us,
        'candidates_view': touch.candidates_view,
        'touched_view': touch.touched_view,
    }) -%}
    {{ return(spark_windows._sw_incremental_plan_ranges(cfg, touched)) }}
{% endmacro %}


{#- `plan` with the partitions its run rewrites (partition_ranges: [first, last] partition starts
    in microseconds), whether it rewrites any (rewrite), and for tumble, hop and cumulate the
    event-time scope of the windows it recomputes (scope_from_us, scope_until_us): a new dict. -#}
{% macro _sw_incremental_plan_ranges(cfg, plan) %}
    {%- set fresh = plan.min_update_us is not none -%}
    {%- set ranges = [] -%}
    {%- set planned = plan.copy() -%}
    {%- if cfg.session -%}
        {#- partitions hold session ends: the touched sessions end in [min new time, their
            largest end], the recomputed ones by max(that, max new time + gap) -#}
        {%- if fresh -%}
            {%- set last_end_us = [plan.max_update_us + cfg.spec.gap_us, plan.touched_max_end_us] | reject('none') | max -%}
            {%- do ranges.append([
                spark_windows._sw_floor_us(plan.min_update_us, cfg.partition_us),
                spark_windows._sw_floor_us(last_end_us, cfg.partition_us)]) -%}
        {%- endif -%}
        {%- set span_us = 0 -%}
    {%- else -%}
        {%- if fresh -%}
            {%- do ranges.append([
                spark_windows._sw_floor_us(plan.min_update_us - cfg.spec.size_us, cfg.partition_us),
                spark_windows._sw_floor_us(plan.max_update_us, cfg.partition_us)]) -%}
        {%- endif -%}
        {%- set span_us = cfg.spec.size_us -%}
        {%- do planned.update({
            'scope_from_us': (plan.min_update_us - span_us) if fresh else 0,
            'scope_until_us': (plan.max_update_us + span_us) if fresh else 0,
        }) -%}
    {%- endif -%}
    {%- set before_us = plan.watermark_prev_us -%}
    {%- set flips = plan.target_exists and before_us is not none and plan.watermark_us > before_us -%}
    {%- if flips -%}
        {#- windows whose end + lateness passes from (W_prev, W_new]: they become final; a
            partition holds the windows that start (sessions: end) in it -#}
        {%- do ranges.append([
            spark_windows._sw_floor_us(before_us - cfg.lateness_us - span_us, cfg.partition_us),
            spark_windows._sw_floor_us(plan.watermark_us - cfg.lateness_us, cfg.partition_us)]) -%}
        {%- if cfg.on_watermark -%}
            {#- with on_watermark, also the windows whose end passes from (W_prev, W_new]: they
                are written now -#}
            {%- do ranges.append([
                spark_windows._sw_floor_us(before_us - span_us, cfg.partition_us),
                spark_windows._sw_floor_us(plan.watermark_us, cfg.partition_us)]) -%}
        {%- endif -%}
    {%- endif -%}
    {%- do planned.update({
        'partition_ranges': ranges,
        'rewrite': fresh or flips or plan.late_rows > 0,
    }) -%}
    {{ return(planned) }}
{% endmacro %}


{#- Sessions: the partitions a run reads, {partition_us, ranges} (plan.partition_ranges: [first,
    last] partition starts in microseconds, every partition of the table between them); none
    for fixed windows, whose partitions a run never empties. -#}
{% macro _sw_incremental_read_partitions(cfg, plan) %}
    {{ return({'partition_us': cfg.partition_us, 'ranges': plan.partition_ranges if plan.target_exists else []} if cfg.session else none) }}
{% endmacro %}
