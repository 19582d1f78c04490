{#- count(distinct expr) on hop and cumulate windows, without copying rows into windows.

    A value counts in a window when it occurs in one of the window's panes. Per group, each
    distinct (pane, value) is kept once; per (group, value) its panes, in order, form runs:

    hop       a window of n panes ending at pane e covers panes e - n + 1 .. e, so a value seen
              in pane p counts in the windows ending at p .. p + n - 1. Panes p < q of one value
              leave no window between them without it when q - p <= n: they belong to one run.
              A run from pane s to pane t adds +1 at window end s and -1 at t + n.
    cumulate  a window of block b ending at pane e covers panes b .. e; a value counts from its
              first pane in the block, the least pane of its (group, block, value): +1 there.
              An aggregate finds that pane, where hop needs each value's panes in order.

    The +1/-1 events of all distinct aggregates are added per (group, event pane); a running sum
    over them, in pane order, is every window's distinct count (for cumulate, restarting in each
    block), and each event fills the window ends up to the next event (for cumulate, the last
    one up to the block's end). NULL values never count. The windows themselves (and every other
    aggregate) come from the slice plan, which the distinct counts are joined to; a window whose
    values are all NULL counts 0.
-#}

{% macro _sw_distinct_aggregate(relation, time_col, keys, aggs, kind, pane_us, panes_per_window, offset_us, two_phase=false) %}
    {%- set others = aggs | rejectattr('kind', 'equalto', 'count_distinct') | list -%}
    {#- one event column per distinct argument; count(distinct v) twice shares one -#}
    {%- set arguments = [] -%}
    {%- for agg in aggs if agg.kind == 'count_distinct' and agg.arg not in arguments -%}
        {%- do arguments.append(agg.arg) -%}
    {%- endfor -%}
    {%- set ctx = {
        'relation': relation, 'time_col': time_col, 'kind': kind, 'n': panes_per_window,
        'pane_us': pane_us, 'offset_us': offset_us, 'arguments': arguments,
        'keys_comma': (keys | join(', ') ~ ', ') if keys else '',
        'by_keys': ('partition by ' ~ keys | join(', ')) if keys else '',
    } -%}
    {#- the output column of a group_by item such as `t.k` or `k` is k -#}
    {%- set key_names = [] -%}
    {%- for key in keys -%}
        {%- do key_names.append(key.strip().split('.')[-1]) -%}
    {%- endfor -%}
(
    select
        {%- for key in key_names %}
        __sw_sliced.{{ key }},
        {%- endfor %}
        __sw_sliced.window_start,
        __sw_sliced.window_end,
        __sw_sliced.window_time
        {%- for agg in aggs %},
        {%- if agg.kind == 'count_distinct' %}
        coalesce(__sw_distinct.__sw_d{{ arguments.index(agg.arg) + 1 }}, 0) as {{ agg.name }}
        {%- else %}
        __sw_sliced.{{ agg.name }}
        {%- endif %}
        {%- endfor %}
    from {{ spark_windows._sw_sliced_aggregate(relation, time_col, keys, others, kind, pane_us, panes_per_window, offset_us, two_phase) }} as __sw_sliced
    left join (
        {{ spark_windows._sw_distinct_sweep(ctx) }}
    ) as __sw_distinct
        on
        {%- for key in key_names %}
        __sw_sliced.{{ key }} <=> __sw_distinct.{{ key }} and
        {%- endfor %}
        unix_micros(__sw_sliced.window_end) = (__sw_distinct.__sw_pane + 1) * {{ pane_us }} + {{ offset_us }}
)
{% endmacro %}


{#- Every window end (__sw_pane) where a distinct count is above 0, with the counts
    (__sw_d1, __sw_d2, ... one per distinct argument). -#}
{% macro _sw_distinct_sweep(ctx) -%}
    {%- if ctx.kind == 'cumulate' -%}
        {%- set block = '__sw_at - pmod(__sw_at, ' ~ ctx.n ~ ')' -%}
        {%- set sweep = 'partition by ' ~ ctx.keys_comma ~ block ~ ' order by __sw_at' -%}
        {%- set next_at = 'coalesce(lead(__sw_at) over (' ~ sweep ~ '), ' ~ block ~ ' + ' ~ ctx.n ~ ')' -%}
    {%- else -%}
        {%- set sweep = ctx.by_keys ~ ' order by __sw_at' -%}
        {%- set next_at = 'lead(__sw_at) over (' ~ sweep ~ ')' -%}
    {%- endif -%}
    {%- set columns = [] -%}
    {%- for argument in ctx.arguments -%}
        {%- do columns.append('__sw_d' ~ loop.index) -%}
    {%- endfor -%}
    select
            {{ ctx.keys_comma }}__sw_end_pane as __sw_pane,
            {{ columns | join(', ') }}
        from (
            select
                {{ ctx.keys_comma }}__sw_at,
                {%- for column in columns %}
                sum({{ column }}) over ({{ sweep }} rows between unbounded preceding and current row) as {{ column }},
                {%- endfor %}
                {{ next_at }} as __sw_next_at
            from (
                select
                    {{ ctx.keys_comma }}__sw_at,
                    {%- for column in columns %}
                    sum({{ column }}) as {{ column }}{{ ',' if not loop.last }}
                    {%- endfor %}
                from (
                    {%- for argument in ctx.arguments %}
                    {%- set current = loop.index %}
                    {{ spark_windows._sw_distinct_events(ctx, argument, columns, current) }}
                    {%- if not loop.last %}
                    union all
                    {%- endif %}
                    {%- endfor %}
                ) as __sw_events
                group by {{ ctx.keys_comma }}__sw_at
            ) as __sw_changes
        ) as __sw_sweep
        lateral view explode(sequence(__sw_at, __sw_next_at - 1)) __sw_ends as __sw_end_pane
        where __sw_next_at > __sw_at and ({{ columns | join(' > 0 or ') }} > 0)
{%- endmacro %}


{#- The +1/-1 events of one distinct argument: __sw_at (a window end, as a pane number) and the
    change of the `current` column (0 in the others). Cumulate has +1 events only. -#}
{% macro _sw_distinct_events(ctx, argument, columns, current) -%}
    {%- if ctx.kind == 'cumulate' -%}
        {{ spark_windows._sw_distinct_first_panes(ctx, argument, columns, current) }}
    {%- else -%}
    {%- set n = ctx.n -%}
    {%- set by_value = 'partition by ' ~ ctx.keys_comma ~ '__sw_value order by __sw_pane' -%}
    {%- set enters = 'case when __sw_previous_pane is null or __sw_pane - __sw_previous_pane > ' ~ n ~ ' then __sw_pane end' -%}
    {%- set leaves = 'case when __sw_next_pane is null or __sw_next_pane - __sw_pane > ' ~ n ~ ' then __sw_pane + ' ~ n ~ ' end' -%}
    {{ spark_windows._sw_distinct_change_columns(ctx, columns, current, '1 - 2 * __sw_leaves') }}
                    from (
                        select
                            *,
                            lag(__sw_pane) over ({{ by_value }}) as __sw_previous_pane,
                            lead(__sw_pane) over ({{ by_value }}) as __sw_next_pane
                        from (
                            {{ spark_windows._sw_distinct_values(ctx, argument) }}
                            group by {{ ctx.keys_comma }}{{ spark_windows._sw_pane_number(ctx) }}, {{ argument }}
                        ) as __sw_values
                    ) as __sw_linked_values
                    lateral view posexplode(array({{ enters }}, {{ leaves }})) __sw_event as __sw_leaves, __sw_at
                    where __sw_at is not null
    {%- endif %}
{%- endmacro %}


{#- Cumulate: +1 at each value's first pane in its block, the least pane of its (group, block,
    value); the sweep restarts in each block. -#}
{% macro _sw_distinct_first_panes(ctx, argument, columns, current) -%}
    {{ spark_windows._sw_distinct_change_columns(ctx, columns, current, '1') }}
                    from (
                        select
                            {{ ctx.keys_comma }}min(__sw_pane) as __sw_at
                        from (
                            {{ spark_windows._sw_distinct_values(ctx, argument) }}
                        ) as __sw_values
                        group by {{ ctx.keys_comma }}__sw_pane - pmod(__sw_pane, {{ ctx.n }}), __sw_value
                    ) as __sw_first_panes
{%- endmacro %}


{#- Each row's pane (__sw_pane) and the argument's value (__sw_value), rows with both only; the
    rows shuffled by the group columns, as the slice plan's panes are, with two_phase too: adding
    them up first would shuffle by (group, pane, value), then again by group, and where values
    seldom repeat within a pane the second shuffle costs more than the first one saves
    (docs/benchmarks.md). -#}
{% macro _sw_distinct_values(ctx, argument) -%}
    select
                                {{ ctx.keys_comma }}{{ spark_windows._sw_pane_number(ctx) }} as __sw_pane,
                                {{ argument }} as __sw_value
                            {%- if ctx.keys_comma %}
                            from (select * from {{ ctx.relation }} distribute by {{ ctx.keys_comma[:-2] }}) as __sw_source
                            {%- else %}
                            from {{ ctx.relation }} as __sw_source
                            {%- endif %}
                            where {{ ctx.time_col }} is not null and ({{ argument }}) is not null
{%- endmacro %}


{#- The select list of one argument's events: the group columns, __sw_at, and `change` in the
    `current` column (0 in the others). -#}
{% macro _sw_distinct_change_columns(ctx, columns, current, change) -%}
    select
                        {{ ctx.keys_comma }}__sw_at,
                        {%- for column in columns %}
                        {{ change if loop.index == current else '0' }} as {{ column }}{{ ',' if not loop.last }}
                        {%- endfor %}
{%- endmacro %}
