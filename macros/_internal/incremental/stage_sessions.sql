{#- windowed_incremental, steps 2 and 3 for session windows: the SQL that differs from tumble, hop
    and cumulate (docs/design/windowed_incremental.md, "Sessions across runs").

    A run judges its new rows against the stored sessions of their groups: a row is late when
    its own window [t, t + gap) expired (t + gap + allowed_lateness <= W_prev) or overlaps or
    touches an expired session; an accepted row that overlaps or touches stored sessions that
    have not expired merges with them (touch: the stored sessions the new rows touch). The run
    recomputes exactly those sessions ("touched") from their rows and the accepted new rows,
    with the batch `session` logic, or merges their aggregates where it can.

    The table is partitioned by window_END floored to partition_size: a session's start lies
    arbitrarily far in the past, but every session a new row can touch ends at or after that
    row's time, so `window_partition >= floor(min new time)` bounds what a run reads.
    Aliases: `__sw_a` a row, `__sw_b` a stored session. Times are bigint microseconds. -#}


{#- Sessions, once the table exists and new rows can update sessions: caches the stored sessions
    the new rows can touch and those they touch (their steps read them again;
    _sw_incremental_uncache drops them) and counts, with the touch query
    (_sw_incremental_session_touch_sql), the rows late because they touch an expired session and
    the span of the touched sessions, whose rows the run reads again, sent with the caching
    (_sw_incremental_ask). `plan`: the plan before it (_sw_incremental_plan). Returns what _sw_incremental_touched takes;
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


{#- Group keys of `__sw_a` and `__sw_b` match (NULL matches NULL); `true` without keys. -#}
{% macro _sw_incremental_keys_match(keys) -%}
    {{ spark_windows._sw_incremental_match(keys) if keys else 'true' }}
{%- endmacro %}


{#- Row `__sw_a`'s own window [t, t + gap) overlaps or touches session `__sw_b` of its group. -#}
{% macro _sw_incremental_touches(cfg) -%}
    {%- set ts_us = spark_windows._sw_ts_us('__sw_a.' ~ cfg.time_col) -%}
    {{ spark_windows._sw_incremental_keys_match(cfg.group_cols) }}
        and {{ ts_us }} <= unix_micros(__sw_b.window_end)
        and unix_micros(__sw_b.window_start) <= {{ ts_us }} + {{ cfg.spec.gap_us }}
{%- endmacro %}


{#- The stored columns of a session row, optionally qualified by an alias. -#}
{% macro _sw_incremental_session_columns(cfg, alias=none) -%}
    {%- set prefix = alias ~ '.' if alias else '' -%}
    {%- for column in cfg.group_cols + ['window_start', 'window_end'] + cfg.agg_names -%}
        {{ prefix }}{{ column }}{{ ', ' if not loop.last }}
    {%- endfor -%}
{%- endmacro %}


{#- The CTEs every session step starts from:
      __sw_new       the rows of this batch;
      __sw_rows      those with a time whose own window has not expired;
    and, once the table exists,
      __sw_expired / __sw_live  the stored sessions such a row can touch, by expiry under W_prev
                     (read with literal bounds: they end at or after the earliest new time and
                     start at or before the latest new time + gap);
      __sw_accepted  the rows of __sw_rows that touch no expired session;
      __sw_touched   the live sessions an accepted row touches. -#}
{% macro _sw_incremental_session_ctes(cfg, model_sql, target, plan) -%}
    {%- set lateness_us = cfg.lateness_us -%}
__sw_new as (
    {%- if plan.get('batch_view') %}
    select * from {{ plan.batch_view }}
    {%- if cfg.file_col is none %}
    where {{ cfg.ingestion_col }} <= {{ spark_windows._sw_us_literal(plan.until_us) }}
    {%- endif %}
    {%- else %}
    {{ spark_windows._sw_incremental_input_sql(cfg, model_sql, plan, 'run') }}
    {%- endif %}
),

__sw_rows as (
    select *
    from __sw_new
    where {{ cfg.time_col }} is not null and not {{ spark_windows._sw_incremental_is_late(cfg, plan.watermark_prev_us) }}
)
{%- if plan.target_exists and plan.min_update_us is not none %},

__sw_candidates as (
    {%- if plan.get('candidates_view') %}
    select * from {{ plan.candidates_view }}
    {%- else %}
    {{ spark_windows._sw_incremental_session_candidates_sql(cfg, target, plan) }}
    {%- endif %}
),

__sw_expired as (
    select *
    from __sw_candidates
    {%- if plan.watermark_prev_us is none %}
    where false
    {%- else %}
    where unix_micros(window_end) + {{ lateness_us }} <= {{ plan.watermark_prev_us }}
    {%- endif %}
),

__sw_live as (
    select *
    from __sw_candidates
    {%- if plan.watermark_prev_us is not none %}
    where unix_micros(window_end) + {{ lateness_us }} > {{ plan.watermark_prev_us }}
    {%- endif %}
),

__sw_accepted as (
    select __sw_a.*
    from __sw_rows as __sw_a
    left anti join __sw_expired as __sw_b
        on {{ spark_windows._sw_incremental_touches(cfg) }}
),

__sw_touched as (
    {%- if plan.get('touched_view') %}
    select * from {{ plan.touched_view }}
    {%- else %}
    select __sw_b.*
    from __sw_live as __sw_b
    left semi join __sw_accepted as __sw_a
        on {{ spark_windows._sw_incremental_touches(cfg) }}
    {%- endif %}
)
{%- else %},

__sw_accepted as (
    select * from __sw_rows
)
{%- endif %}
{%- endmacro %}


{#- The stored sessions new rows can touch: they end at or after the earliest new time and
    start at or before the latest new time + gap. -#}
{% macro _sw_incremental_session_candidates_sql(cfg, target, plan) -%}
select {{ spark_windows._sw_incremental_session_columns(cfg) }}, is_final, revision, timing, window_partition
from {{ target }}
where window_partition >= {{ spark_windows._sw_us_literal(spark_windows._sw_floor_us(plan.min_update_us, cfg.partition_us)) }}
    and window_end >= {{ spark_windows._sw_us_literal(plan.min_update_us) }}
    and window_start <= {{ spark_windows._sw_us_literal(plan.max_update_us + cfg.spec.gap_us) }}
{%- endmacro %}


{#- The statements that cache the candidate sessions, then the touched ones (which read the
    candidates' view); their views are named in `views` (candidates_view, touched_view). -#}
{% macro _sw_incremental_session_cache_sql(cfg, model_sql, target, plan, views) %}
    {%- set cached = plan.copy() -%}
    {%- set statements = [] -%}
    {%- for name, step in [('candidates', none), ('touched', '__sw_touched')] -%}
        {%- if step is none -%}
            {%- set view_sql = spark_windows._sw_incremental_session_candidates_sql(cfg, target, cached) -%}
        {%- else -%}
            {%- set view_sql = spark_windows._sw_incremental_inline_ctes(
                'with ' ~ spark_windows._sw_incremental_session_ctes(cfg, model_sql, target, cached) ~ '\n\nselect * from ' ~ step) -%}
        {%- endif -%}
        {%- do statements.extend(spark_windows._sw_incremental_cache_view_sql(name, target, view_sql)) -%}
        {%- do views.update({name ~ '_view': spark_windows._sw_incremental_view_name(name, target)}) -%}
        {%- do cached.update(views) -%}
    {%- endfor -%}
    {{ return(statements) }}
{% endmacro %}


{#- Planning query (run once the table exists and new rows can update sessions): the touched
    sessions, their number and time span (`part` 'touched_sessions'), whose rows the run must read
    again, and the rows late because they touch an expired session ('late_rows', their number in
    `sessions`). One query of two parts rather than a scalar subquery: Spark runs the parts' jobs
    side by side. -#}
{% macro _sw_incremental_session_touch_sql(cfg, model_sql, target, plan) -%}
with {{ spark_windows._sw_incremental_session_ctes(cfg, model_sql, target, plan) }}

select
    'touched_sessions' as part,
    count(*) as sessions,
    min(unix_micros(window_start)) as touched_min_start_us,
    max(unix_micros(window_end)) as touched_max_end_us
from __sw_touched

union all

select 'late_rows', count(*), null, null
from __sw_rows as __sw_a
left semi join __sw_expired as __sw_b
    on {{ spark_windows._sw_incremental_touches(cfg) }}
{%- endmacro %}


{#- [(name, aggregate, merge)] for each aggregate of a session model when every one can be merged
    from the stored value of a session and the values of new rows: count(*) and count(expr) (a
    sum of counts), sum(expr) (a sum of sums; NULL stays NULL when every part is), min(expr) and
    max(expr), each the first of its partials in window_aggregate's slices (_sw_partials), whose
    merge it takes. none when any other aggregate (avg, count(distinct ...), ...) needs the rows. -#}
{% macro _sw_incremental_session_merges(cfg) %}
    {%- set merges = [] -%}
    {%- for agg in cfg.aggs -%}
        {%- if agg.kind not in ['count_star', 'count', 'sum', 'min', 'max'] -%}
            {{ return(none) }}
        {%- endif -%}
        {%- do merges.append((agg.name, agg.sql, spark_windows._sw_partials(agg)[0][2])) -%}
    {%- endfor -%}
    {{ return(merges) }}
{% endmacro %}


{#- The CTEs of _sw_incremental_session_ctes followed by
      __sw_scope     the accepted rows and, when the run touches stored sessions, their rows read
                     again (ingested by earlier runs, within the touched sessions, not kept as late);
      __sw_fresh     the sessions of those rows, recomputed with the batch `session` logic;
    or, when the run touches stored sessions and every aggregate merges
    (_sw_incremental_session_merges), without reading their rows again:
      __sw_elements  each touched session as the span [window_start, window_end) with its stored
                     aggregates, and the accepted rows of each group and time as [t, t + gap)
                     with theirs;
      __sw_fresh     the spans that overlap or touch, joined: numbered into sessions by the
                     batch `session` logic with a span per element (_sw_session_numbered, its
                     per-row-gap form; a session is the union of its rows' windows, so joining
                     stored sessions with new rows' windows gives the sessions of all their
                     rows), then grouped by group and number, their aggregates merged.
    The staging query reads __sw_fresh once: it is not cached. -#}
{% macro _sw_incremental_session_fresh_ctes(cfg, model_sql, target, late_table, plan) -%}
    {%- set keys = cfg.group_cols -%}
    {%- set reread = plan.target_exists and plan.touched_sessions > 0 -%}
    {%- set merges = spark_windows._sw_incremental_session_merges(cfg) -%}
    {%- set gap_us = cfg.spec.gap_us -%}
    {#- the columns that tell a late row of the late table from the rows re-read -#}
    {%- set identity = keys + [cfg.time_col, cfg.arrival_col] + ([cfg.file_col] if cfg.file_col else []) -%}
{{ spark_windows._sw_incremental_session_ctes(cfg, model_sql, target, plan) }},
{%- if reread and merges %}

__sw_elements as (
    select
        {%- for key in keys %}
        {{ key }},
        {%- endfor %}
        unix_micros(window_start) as __sw_ts,
        unix_micros(window_end) - unix_micros(window_start) as __sw_gap_us,
        {{ cfg.agg_names | join(', ') }}
    from __sw_touched
    union all
    select
        {%- for key in keys %}
        {{ key }},
        {%- endfor %}
        {{ spark_windows._sw_ts_us(cfg.time_col) }} as __sw_ts,
        {{ gap_us }} as __sw_gap_us
        {%- for name, sql, merge in merges %},
        {{ sql }} as {{ name }}
        {%- endfor %}
    from __sw_accepted
    group by {{ (keys + [spark_windows._sw_ts_us(cfg.time_col)]) | join(', ') }}
),

__sw_fresh as (
    select
        {%- for key in keys %}
        {{ key }},
        {%- endfor %}
        timestamp_micros(min(__sw_ts)) as window_start,
        timestamp_micros(max(__sw_ts + __sw_gap_us)) as window_end
        {%- for name, sql, merge in merges %},
        {{ merge }}({{ name }}) as {{ name }}
        {%- endfor %}
    from {{ spark_windows._sw_session_numbered('select * from __sw_elements', keys, none) }} as __sw_numbered
    group by {{ (keys + ['__sw_session_index']) | join(', ') }}
)
{%- else %}
{%- if reread %}

__sw_earlier as (
    select __sw_a.*
    from (
        {{ spark_windows._sw_incremental_input_sql(cfg, model_sql, plan, 'committed') }}
            and {{ cfg.time_col }} >= {{ spark_windows._sw_us_literal(plan.touched_min_start_us) }}
            and {{ cfg.time_col }} <= {{ spark_windows._sw_us_literal(plan.touched_max_end_us - gap_us) }}
    ) as __sw_a
    left semi join __sw_touched as __sw_b
        on {{ spark_windows._sw_incremental_keys_match(keys) }}
        and {{ spark_windows._sw_ts_us('__sw_a.' ~ cfg.time_col) }} between unix_micros(__sw_b.window_start) and unix_micros(__sw_b.window_end) - {{ gap_us }}
),

__sw_earlier_accepted as (
    select __sw_a.*
    from __sw_earlier as __sw_a
    left anti join (
        select {{ identity | join(', ') }}
        from {{ late_table }}
        where {{ cfg.time_col }} >= {{ spark_windows._sw_us_literal(plan.touched_min_start_us) }}
            and {{ cfg.time_col }} <= {{ spark_windows._sw_us_literal(plan.touched_max_end_us - gap_us) }}
    ) as __sw_b
        on {{ spark_windows._sw_incremental_keys_match(identity) }}
),
{%- endif %}

__sw_scope as (
    select * from __sw_accepted
    {%- if reread %}
    union all
    select * from __sw_earlier_accepted
    {%- endif %}
),

__sw_fresh as (
    select {{ spark_windows._sw_incremental_session_columns(cfg, '__sw_s') }}
    from {{ spark_windows.window_aggregate('__sw_scope', cfg.time_col, {'type': 'session', 'gap': cfg.window.gap}, keys, cfg.aggregates) }} as __sw_s
)
{%- endif %}
{%- endmacro %}


{#- The next version of every partition the run rewrites, with a role per row:
      fresh  the sessions of the accepted rows, recomputed with the rows of the sessions they
             touch (__sw_fresh of _sw_incremental_session_fresh_ctes);
      kept   the other stored sessions of those partitions (is_final recomputed);
      old    (emit='changelog') the stored image of every touched session, for the changelog's
             -U and -D rows; never applied.
    Only fresh and kept rows have a window_partition: staged in a run's folder, old rows lie in
    its NULL partition, which the table never takes (_sw_incremental_repoint). A partition the
    run read (plan.partition_ranges) that no fresh or kept row is in has had its every session
    moved into a merge: the apply drops it (_sw_incremental_emptied). -#}
{% macro _sw_incremental_session_pending_sql(cfg, model_sql, target, late_table, plan) -%}
    {%- set with_stored = plan.target_exists and plan.partition_ranges | length > 0 -%}
    {%- set reread = plan.target_exists and plan.touched_sessions > 0 -%}
with {{ spark_windows._sw_incremental_session_fresh_ctes(cfg, model_sql, target, late_table, plan) }},
{%- if with_stored %}

{{ spark_windows._sw_incremental_session_stored_cte(cfg, target, plan) }},

{{ spark_windows._sw_incremental_session_kept_cte(cfg, reread) }},
{%- endif %}

{{ spark_windows._sw_incremental_session_next_cte(cfg, with_stored, reread) }}

{{ spark_windows._sw_incremental_session_next_rows(cfg, plan) }}
{%- if reread and cfg.changelog %}

union all

{{ spark_windows._sw_incremental_session_old_rows(cfg, plan) }}
{%- endif %}
{%- endmacro %}


{#- Session `__sw_a` is session `__sw_b`: the same group and window_start. -#}
{% macro _sw_incremental_session_identity(cfg) -%}
    {{ spark_windows._sw_incremental_keys_match(cfg.group_cols) }} and __sw_a.window_start = __sw_b.window_start
{%- endmacro %}


{#- __sw_stored: the stored sessions of the partitions the run rewrites (plan.partition_ranges). -#}
{% macro _sw_incremental_session_stored_cte(cfg, target, plan) -%}
__sw_stored as (
    select {{ spark_windows._sw_incremental_session_columns(cfg) }}, is_final, revision, timing, window_partition
    from {{ target }}
    where {{ spark_windows._sw_incremental_in_partitions(plan) }}
)
{%- endmacro %}


{#- __sw_kept: the sessions of __sw_stored that no accepted row touched (all, unless `reread`). -#}
{% macro _sw_incremental_session_kept_cte(cfg, reread) -%}
__sw_kept as (
    select __sw_a.*
    from __sw_stored as __sw_a
    {%- if reread %}
    left anti join __sw_touched as __sw_b
        on {{ spark_windows._sw_incremental_session_identity(cfg) }}
    {%- endif %}
)
{%- endmacro %}


{#- __sw_next: the fresh sessions with the stored image of the same session, and the kept ones. -#}
{% macro _sw_incremental_session_next_cte(cfg, with_stored, reread) -%}
__sw_next as (
    select
        {{ spark_windows._sw_incremental_session_columns(cfg, '__sw_a') }},
        'fresh' as __sw_role,
        {%- if reread %}
        __sw_b.window_start is null or not (__sw_a.window_end <=> __sw_b.window_end
            {%- for column in cfg.agg_names %} and __sw_a.{{ column }} <=> __sw_b.{{ column }}{% endfor %}) as __sw_changed,
        __sw_b.revision as __sw_old_revision,
        __sw_b.timing as __sw_old_timing,
        __sw_b.window_end as __sw_old_end
        {%- else %}
        true as __sw_changed,
        cast(null as int) as __sw_old_revision,
        cast(null as string) as __sw_old_timing,
        cast(null as timestamp) as __sw_old_end
        {%- endif %}
    from __sw_fresh as __sw_a
    {%- if reread %}
    left join __sw_touched as __sw_b
        on {{ spark_windows._sw_incremental_session_identity(cfg) }}
    {%- endif %}
    {%- if with_stored %}
    union all
    select {{ spark_windows._sw_incremental_session_columns(cfg) }}, 'kept' as __sw_role, false as __sw_changed, revision, timing, window_end
    from __sw_kept
    {%- endif %}
)
{%- endmacro %}


{#- Rows of roles fresh and kept: __sw_next with is_final, firing metadata and partition. -#}
{% macro _sw_incremental_session_next_rows(cfg, plan) -%}
select
    {{ spark_windows._sw_incremental_session_columns(cfg) }},
    {{ spark_windows._sw_incremental_final_columns(cfg, plan) }},
    __sw_role,
    __sw_role = 'fresh' as __sw_fresh_window,
    {{ spark_windows._sw_incremental_partition(cfg, 'window_end') }} as window_partition
from (
    {{ spark_windows._sw_incremental_emission_sql(cfg, plan, '__sw_next') }}
) as __sw_fired
{%- endmacro %}


{#- Rows of role old: each touched session as stored, with whether it was shown; never emitted. -#}
{% macro _sw_incremental_session_old_rows(cfg, plan) -%}
select
    {{ spark_windows._sw_incremental_session_columns(cfg) }},
    is_final,
    revision,
    timing,
    {%- if cfg.on_watermark %}
    null as watermark_passed,
    {%- endif %}
    null as __sw_shown,
    {{ spark_windows._sw_incremental_shown(cfg, plan.watermark_prev_us, 'window_end') }} as __sw_old_shown,
    false as __sw_emit,
    'old' as __sw_role,
    false as __sw_fresh_window,
    cast(null as timestamp) as window_partition
from __sw_touched
{%- endmacro %}


{#- The rows of this run that are late: their own window expired, or it touches an expired
    session; with that window as missed_windows and the previous watermark. -#}
{% macro _sw_incremental_session_late_sql(cfg, model_sql, target, plan) -%}
with {{ spark_windows._sw_incremental_session_ctes(cfg, model_sql, target, plan) }}

select
    __sw_late.*,
    {{ spark_windows._sw_incremental_late_columns(cfg, plan) }}
from (
    select *
    from __sw_new
    where {{ spark_windows._sw_incremental_is_late(cfg, plan.watermark_prev_us) }}
    {%- if plan.target_exists and plan.min_update_us is not none %}
    union all
    select __sw_a.*
    from __sw_rows as __sw_a
    left semi join __sw_expired as __sw_b
        on {{ spark_windows._sw_incremental_touches(cfg) }}
    {%- endif %}
) as __sw_late
{%- endmacro %}


{#- Flink's changelog of this run, from the staged roles. A session is identified by its group
    and window_start. For each session this run emits (_sw_incremental_emission_sql): +I when
    it was not shown before, else -U (stored image) then +U (new image); -D (stored image) for
    a shown session that disappears into a merge, is replaced because a late row moved its start
    earlier, or (on_watermark) is no longer shown because a late row moved its end past the
    watermark. A session whose end and aggregates did not change has no row, even when is_final
    did. -#}
{% macro _sw_incremental_session_changelog_sql(cfg, pending, plan) -%}
    {%- set keys = cfg.group_cols -%}
    {%- set identity = spark_windows._sw_incremental_session_identity(cfg) -%}
    {%- set run = spark_windows._sw_us_literal(plan.run_us) -%}
    {%- set image = keys + ['window_start', 'window_end'] + cfg.agg_names + ['is_final', 'revision', 'timing'] -%}
with __sw_next as (
    select * from {{ pending }} where __sw_role in ('fresh', 'kept')
),

__sw_old as (
    select * from {{ pending }} where __sw_role = 'old' and __sw_old_shown
)

select
    case when __sw_old_shown then '+U' else '+I' end as op,
    {% for column in image %}{{ column }}, {% endfor %}{{ run }} as run_started_at
from __sw_next
where __sw_emit

union all

select '-U' as op, {% for column in image %}__sw_a.{{ column }}, {% endfor %}{{ run }} as run_started_at
from __sw_old as __sw_a
left semi join (select * from __sw_next where __sw_emit and __sw_old_shown) as __sw_b
    on {{ identity }}

union all

select '-D' as op, {% for column in image %}__sw_a.{{ column }}, {% endfor %}{{ run }} as run_started_at
from __sw_old as __sw_a
left anti join (select * from __sw_next where __sw_shown) as __sw_b
    on {{ identity }}
{%- endmacro %}
