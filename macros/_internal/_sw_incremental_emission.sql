{#- windowed_incremental: when a window is written (emit_policy) and which emission a row is
    (revision, timing), for every window type. docs/design/windowed_incremental.md,
    "Emit policy". -#}


{#- Whether a window ending at `end_col` is shown under the watermark `watermark_us`: with
    every_run always, with on_watermark once the watermark has passed its end. -#}
{% macro _sw_incremental_shown(cfg, watermark_us, end_col) -%}
    {%- if not cfg.on_watermark -%}
        true
    {%- elif watermark_us is none -%}
        false
    {%- else -%}
        unix_micros({{ end_col }}) <= {{ watermark_us }}
    {%- endif -%}
{%- endmacro %}


{#- The columns _sw_incremental_emission_sql adds, in the order the staging tables keep them. -#}
{% macro _sw_incremental_firing_columns(cfg) -%}
    revision, timing, {{ 'watermark_passed, ' if cfg.on_watermark }}__sw_shown, __sw_old_shown, __sw_emit
{%- endmacro %}


{#- The firing metadata of every window of a staged next version (emit_policy; docs/design/
    windowed_incremental.md, "Emit policy"). `relation` is a subquery with the window's
    columns and
      __sw_old_revision, __sw_old_timing, __sw_old_end  the stored image (all NULL for a window
                        that was not stored);
      __sw_changed      whether this run changed the window (recomputed it; for sessions: its end
                        or an aggregate changed).
    A window is shown (written to the model's table) with every_run always, with on_watermark
    once the watermark has passed its end. It is emitted by this run when it is shown now, and it
    was not shown before or this run changed it; each emission adds 1 to its revision, and its
    timing is early (the watermark has not passed its end), on_time (its first emission after
    that) or late (any later one). Adds revision, timing, __sw_shown, __sw_old_shown, __sw_emit
    (and watermark_passed with on_watermark). -#}
{% macro _sw_incremental_emission_sql(cfg, plan, relation) -%}
    {%- set w = plan.watermark_us -%}
select
    *,
    coalesce(__sw_old_revision, 0) + case when __sw_emit then 1 else 0 end as revision,
    case
        when not __sw_emit then __sw_old_timing
        {%- if w is not none %}
        when unix_micros(window_end) <= {{ w }} then case when __sw_old_timing is null or __sw_old_timing = 'early' then 'on_time' else 'late' end
        {%- endif %}
        else 'early'
    end as timing
    {%- if cfg.on_watermark %},
    __sw_shown as watermark_passed
    {%- endif %}
from (
    select *, __sw_shown and (not __sw_old_shown or __sw_changed) as __sw_emit
    from (
        select
            *,
            {{ spark_windows._sw_incremental_shown(cfg, w, 'window_end') }} as __sw_shown,
            __sw_old_end is not null and {{ spark_windows._sw_incremental_shown(cfg, plan.watermark_prev_us, '__sw_old_end') }} as __sw_old_shown
        from {{ relation }}
    ) as __sw_judged
) as __sw_emitted
{%- endmacro %}
