{#- The slice plans of window_aggregate for tumble, hop and cumulate windows.

    Every row is added once into its pane: a slice as wide as the slide (hop), the step
    (cumulate) or the window (tumble), per group, holding partial aggregates. Windows are then
    made from panes, never from copied rows, so the cost does not grow with size/slide:

    tumble    one pane is one window.
    cumulate  a window is a running aggregate of the panes of its cumulating period (a block of
              n panes): one sort, running frames, then each pane also fills the window ends up
              to the next non-empty pane.
    hop       counts and exact sums (integers, decimals) use a sweep: each pane enters the
              window that ends at its own pane number and leaves n panes later; a running sum
              over these +/- events gives every window (the last event of a pane number holds
              it), and each event fills the window ends up to the next event. One sort, O(1)
              per event.
              min, max, floating-point sums, variances and sketches (_sw_sketches.sql)
              cannot be subtracted, so they use "two stacks":
              panes are cut into blocks of n; a window is the suffix of one block merged with
              the prefix of the next, both running frames, O(1) per pane, no subtraction.
              Spark's optimizer folds typeof() and keeps only the branch that applies.

    Windows are named by their last pane (`__sw_pane`); pane p covers
    [p * pane + offset, (p + 1) * pane + offset). All arithmetic is on bigint microseconds.
-#}

{#- The partial aggregates one aggregate needs: [(role, partial expression, merge, argument)]. -#}
{% macro _sw_partials(agg) -%}
    {%- if agg.kind == 'count_star' -%}
        {{ return([('n', 'count(*)', 'sum', none)]) }}
    {%- elif agg.kind == 'count' -%}
        {{ return([('n', 'count(' ~ agg.arg ~ ')', 'sum', agg.arg)]) }}
    {%- elif agg.kind in ['min', 'max'] -%}
        {{ return([('m', agg.kind ~ '(' ~ agg.arg ~ ')', agg.kind, agg.arg)]) }}
    {%- elif agg.kind in ['hll', 'kll'] -%}
        {{ return(spark_windows._sw_sketch_partials(agg)) }}
    {%- elif agg.kind == 'moments' -%}
        {#- per pane: how many values, their mean, and the sum of their squared deviations from
            it (Spark's var_pop, stable within the pane, times the count) -#}
        {%- set value = 'cast(' ~ agg.arg ~ ' as double)' -%}
        {{ return([
            ('n', 'count(' ~ agg.arg ~ ')', 'sum', agg.arg),
            ('u', 'avg(' ~ value ~ ')', 'mean', agg.arg),
            ('q', 'var_pop(' ~ value ~ ') * count(' ~ agg.arg ~ ')', 'm2', agg.arg),
        ]) }}
    {%- else -%}
        {#- sum and avg: the sum, and how many values it adds (NULL when there are none) -#}
        {{ return([('s', 'sum(' ~ agg.arg ~ ')', 'sum', agg.arg), ('n', 'count(' ~ agg.arg ~ ')', 'sum', agg.arg)]) }}
    {%- endif -%}
{%- endmacro %}


{#- The partial columns of a plan, each partial expression once. count(*) is always the first
    (__sw_p1): it also tells windows with rows from empty ones. Returns
    {'columns': [{name, expr, merge, arg}], 'uses': per aggregate {role: column name}}; the
    mean and m2 columns of a variance also name their 'count' and 'mean' columns. -#}
{% macro _sw_partial_columns(aggs) -%}
    {%- set columns = [{'name': '__sw_p1', 'expr': 'count(*)', 'merge': 'sum', 'arg': none}] -%}
    {%- set by_expr = {'count(*)': '__sw_p1'} -%}
    {%- set uses = [] -%}
    {%- for agg in aggs -%}
        {%- set use = {} -%}
        {%- for role, expr, merge, arg in spark_windows._sw_partials(agg) -%}
            {%- if expr not in by_expr -%}
                {%- do by_expr.update({expr: '__sw_p' ~ (columns | length + 1)}) -%}
                {%- do columns.append({'name': by_expr[expr], 'expr': expr, 'merge': merge, 'arg': arg}) -%}
            {%- endif -%}
            {%- do use.update({role: by_expr[expr]}) -%}
        {%- endfor -%}
        {%- if agg.kind == 'moments' -%}
            {#- a mean and a sum of squared deviations are merged with their count and mean -#}
            {%- for column in columns if column.name in [use.u, use.q] -%}
                {%- do column.update({'count': use.n, 'mean': use.u}) -%}
            {%- endfor -%}
        {%- endif -%}
        {%- do uses.append(use) -%}
    {%- endfor -%}
    {{ return({'columns': columns, 'uses': uses}) }}
{%- endmacro %}


{#- Merges two partial values, either of which may be NULL (no rows, or only NULL values). -#}
{% macro _sw_merge_two(merge, a, b) -%}
    {%- if merge == 'sum' -%}
        coalesce({{ a }} + {{ b }}, {{ a }}, {{ b }})
    {%- elif merge == 'min' -%}
        least({{ a }}, {{ b }})
    {%- elif merge == 'max' -%}
        greatest({{ a }}, {{ b }})
    {%- else -%}
        {{ spark_windows._sw_sketch_merge_two(merge, a, b) }}
    {%- endif -%}
{%- endmacro %}


{#- The final value of one aggregate from its merged partial columns. -#}
{% macro _sw_final_aggregate(agg, use) -%}
    {%- if agg.kind in ['count_star', 'count'] -%}
        coalesce({{ use.n }}, 0)
    {%- elif agg.kind == 'sum' -%}
        case when {{ use.n }} > 0 then {{ use.s }} end
    {%- elif agg.kind in ['min', 'max'] -%}
        {{ use.m }}
    {%- elif agg.kind in ['hll', 'kll'] -%}
        {{ spark_windows._sw_sketch_final(agg, use.m) }}
    {%- elif agg.kind == 'moments' -%}
        {#- rounding may leave a sum of squared deviations a hair below 0 -#}
        {%- set m2 = 'greatest(' ~ use.q ~ ', 0)' -%}
        {%- set divisor = use.n ~ ' - 1' if agg.statistic.endswith('_samp') else use.n -%}
        {%- set variance = 'case when ' ~ divisor ~ ' > 0 then ' ~ m2 ~ ' / (' ~ divisor ~ ') end' -%}
        {{ 'sqrt(' ~ variance ~ ')' if agg.statistic.startswith('stddev') else variance }}
    {%- else -%}
        case when {{ use.n }} > 0 then {{ use.s }} / {{ use.n }} end
    {%- endif -%}
{%- endmacro %}


{#- A partial column merged over a frame of panes, NULL when the frame holds no partial (only
    grid panes without rows): sum, min and max are NULL then by themselves; a sketch merge
    would give an empty sketch of its default size, which cannot be merged with the others.
    A variance's mean and m2 columns become sums of deviations from a shift, the mean of one
    pane of the frame held in the mean column's name followed by `shift`
    (_sw_moments_shift): sum(n * (mean - shift)) and sum(m2 + n * (mean - shift)^2). -#}
{% macro _sw_running(column, frame, shift='') -%}
    {%- if column.merge in ['sum', 'min', 'max'] -%}
        {{ column.merge }}({{ column.name }}) over ({{ frame }})
    {%- elif column.merge in ['mean', 'm2'] -%}
        {%- set deviation = '(' ~ column.mean ~ ' - ' ~ column.mean ~ shift ~ ')' -%}
        {%- if column.merge == 'mean' -%}
        sum({{ column.count }} * {{ deviation }}) over ({{ frame }})
        {%- else -%}
        sum({{ column.name }} + {{ column.count }} * {{ deviation }} * {{ deviation }}) over ({{ frame }})
        {%- endif -%}
    {%- else -%}
        case when count({{ column.name }}) over ({{ frame }}) > 0 then {{ column.merge }}({{ column.name }}) over ({{ frame }}) end
    {%- endif -%}
{%- endmacro %}


{#- Variances (var_samp, var_pop, stddev_samp, stddev_pop) are merged from each pane's count n,
    mean and m2 (sum of squared deviations from its mean) with Chan et al.'s formulas, never from
    sums of squares. A running frame adds n * (mean - shift) and m2 + n * (mean - shift)^2
    over its panes (_sw_running); with `shift` the mean of a pane p of the frame holding values,
    the second sum is the frame's m2 plus N * (frame mean - shift)^2, and that term is at most
    N / n_p times m2 (pane p alone adds n_p * (shift - frame mean)^2 to m2): the subtraction
    below (m2 = sum2 - sum1^2 / N) cancels at most a factor 1 + N / n_p, however far the values
    are from 0. -#}

{#- The mean of the block's first or last pane holding a value of a variance's argument. -#}
{% macro _sw_moments_shift(ctx, column, end) -%}
    {{ end }}_value({{ column.name }}, true) over (partition by {{ ctx.keys_comma }}__sw_pane - pmod(__sw_pane, {{ ctx.n }}) order by __sw_pane rows between unbounded preceding and unbounded following)
{%- endmacro %}


{#- A partial column after a running frame: a variance's mean and m2 from the shifted sums
    (the count column is the frame's count); any other column as it is. -#}
{% macro _sw_moments_from_sums(column) -%}
    {%- if column.merge == 'mean' -%}
        {{ column.name }}_shift + {{ column.name }} / nullif({{ column.count }}, 0)
    {%- elif column.merge == 'm2' -%}
        {{ column.name }} - {{ column.mean }} * {{ column.mean }} / nullif({{ column.count }}, 0)
    {%- else -%}
        {{ column.name }}
    {%- endif -%}
{%- endmacro %}


{#- hop, two stacks: a variance's mean or m2 of a window from those of the block prefix (a)
    and the previous block's suffix (b), by Chan et al.'s pairwise formulas. -#}
{% macro _sw_moments_merge_two(column) -%}
    {%- set n, u = column.count, column.mean -%}
    {%- set parts = {} -%}
    {%- for part, shift in [('prefix', 'prefix_shift'), ('suffix_before', 'suffix_shift_before')] -%}
        {%- set count = n ~ '_' ~ part -%}
        {%- do parts.update({part: {
            'n': count,
            'empty': 'coalesce(' ~ count ~ ', 0) = 0',
            'mean': '(' ~ u ~ '_' ~ shift ~ ' + ' ~ u ~ '_' ~ part ~ ' / nullif(' ~ count ~ ', 0))',
            'm2': '(' ~ column.name ~ '_' ~ part ~ ' - ' ~ u ~ '_' ~ part ~ ' * ' ~ u ~ '_' ~ part ~ ' / nullif(' ~ count ~ ', 0))',
        }}) -%}
    {%- endfor -%}
    {%- set a, b = parts.prefix, parts.suffix_before -%}
    {%- set delta = '(' ~ b.mean ~ ' - ' ~ a.mean ~ ')' -%}
    {%- if column.merge == 'mean' -%}
        case when {{ b.empty }} then {{ a.mean }} when {{ a.empty }} then {{ b.mean }} else {{ a.mean }} + {{ delta }} * {{ b.n }} / ({{ a.n }} + {{ b.n }}) end
    {%- else -%}
        case when {{ b.empty }} then {{ a.m2 }} when {{ a.empty }} then {{ b.m2 }} else {{ a.m2 }} + {{ b.m2 }} + {{ delta }} * {{ delta }} * {{ a.n }} * {{ b.n }} / ({{ a.n }} + {{ b.n }}) end
    {%- endif -%}
{%- endmacro %}


{#- True, as a constant Spark folds, when every summed argument has an exact type. -#}
{% macro _sw_exact_sums_condition(columns) -%}
    {%- set checks = [] -%}
    {%- for column in columns if column.merge == 'sum' and column.expr.startswith('sum(') -%}
        {%- do checks.append("(typeof(" ~ column.arg ~ ") in ('tinyint', 'smallint', 'int', 'bigint') or typeof(" ~ column.arg ~ ") like 'decimal%')") -%}
    {%- endfor -%}
    {{ return(checks | join(' and ') if checks else none) }}
{%- endmacro %}


{#- The pane number of a row: pane p covers [p * pane + offset, (p + 1) * pane + offset). -#}
{% macro _sw_pane_number(ctx) -%}
    ({{ spark_windows._sw_align_us(spark_windows._sw_ts_us(ctx.time_col), ctx.pane_us, ctx.offset_us) }} - {{ ctx.offset_us }}) div {{ ctx.pane_us }}
{%- endmacro %}


{#- Rows added into panes: the group columns, __sw_pane and the partial columns.
    by_group: shuffle the rows by the group columns first, so that the windows over panes that
    follow (partitioned by group) need no second shuffle of the panes (one phase). Without it,
    Spark adds the rows into panes before its shuffle by (group, pane), and the windows shuffle
    the panes again by group (two phases: window_aggregate's agg_phase_strategy='two_phase').
    pad: the indentation of the call site, written before each line of this query (not with the
    indent filter, which would also indent lines inside a multi-line string literal of the
    relation or of an aggregate's argument). -#}
{% macro _sw_panes(ctx, condition=none, by_group=false, pad='') -%}
    {%- set pane = spark_windows._sw_pane_number(ctx) -%}
    select
{{ pad }}        {{ ctx.keys_comma }}{{ pane }} as __sw_pane,
        {%- for column in ctx.columns %}
{{ pad }}        {{ column.expr }} as {{ column.name }}{{ ',' if not loop.last }}
        {%- endfor %}
    {%- if by_group and ctx.keys_comma %}
{{ pad }}    from (select * from {{ ctx.relation }} distribute by {{ ctx.keys_comma[:-2] }}) as __sw_source
    {%- else %}
{{ pad }}    from {{ ctx.relation }} as __sw_source
    {%- endif %}
{{ pad }}    where {{ ctx.time_col }} is not null{% if condition %} and {{ condition }}{% endif %}
{{ pad }}    group by {{ ctx.keys_comma }}{{ pane }}
{%- endmacro %}


{#- The outer select: group columns, window columns from __sw_pane (and __sw_block), finals. -#}
{% macro _sw_windows_from_panes(ctx, start_pane) -%}
    select
        {{ ctx.keys_comma }}
        {{ spark_windows._sw_window_columns(
            '(' ~ start_pane ~ ') * ' ~ ctx.pane_us ~ ' + ' ~ ctx.offset_us,
            '(__sw_pane + 1) * ' ~ ctx.pane_us ~ ' + ' ~ ctx.offset_us) }}
        {%- for agg in ctx.aggs %},
        {{ spark_windows._sw_final_aggregate(agg, ctx.uses[loop.index0]) }} as {{ agg.name }}
        {%- endfor %}
{%- endmacro %}


{% macro _sw_sliced_aggregate(relation, time_col, keys, aggs, kind, pane_us, panes_per_window, offset_us, two_phase=false) %}
    {%- set plan = spark_windows._sw_partial_columns(aggs) -%}
    {%- set ctx = {
        'relation': relation, 'time_col': time_col, 'aggs': aggs, 'n': panes_per_window,
        'pane_us': pane_us, 'offset_us': offset_us, 'columns': plan.columns, 'uses': plan.uses,
        'two_phase': two_phase,
        'keys_comma': (keys | join(', ') ~ ', ') if keys else '',
        'by_keys': ('partition by ' ~ keys | join(', ')) if keys else '',
    } -%}
    {%- if kind == 'tumble' -%}
(
    {{ spark_windows._sw_windows_from_panes(ctx, '__sw_pane') }}
    from (
        {{ spark_windows._sw_panes(ctx, pad=' ' * 8) }}
    ) as __sw_panes
)
    {%- elif kind == 'cumulate' -%}
(
    {{ spark_windows._sw_cumulate_plan(ctx) }}
)
    {%- else -%}
        {#- min, max and sketches cannot be subtracted: two stacks -#}
        {%- set no_subtraction = plan.columns | rejectattr('merge', 'equalto', 'sum') | list | length > 0 -%}
        {%- set exact = spark_windows._sw_exact_sums_condition(plan.columns) -%}
        {%- if no_subtraction -%}
(
    {{ spark_windows._sw_hop_two_stacks_plan(ctx) }}
)
        {%- elif exact is none -%}
(
    {{ spark_windows._sw_hop_sweep_plan(ctx) }}
)
        {%- else -%}
(
    {{ spark_windows._sw_hop_sweep_plan(ctx, exact) }}
    union all
    {{ spark_windows._sw_hop_two_stacks_plan(ctx, 'not (' ~ exact ~ ')') }}
)
        {%- endif -%}
    {%- endif -%}
{% endmacro %}


{#- cumulate: running aggregates per block (cumulating period); each pane fills the ends up to
    the next non-empty pane of its block, or the block's end. -#}
{% macro _sw_cumulate_plan(ctx) -%}
    {%- set n = ctx.n -%}
    {%- set running = 'partition by ' ~ ctx.keys_comma ~ '__sw_block order by __sw_pane' -%}
    {{ spark_windows._sw_windows_from_panes(ctx, '__sw_block') }}
    from (
        select
            {{ ctx.keys_comma }}__sw_block,
            {%- for column in ctx.columns %}
            {{ spark_windows._sw_moments_from_sums(column) }}{{ (' as ' ~ column.name) if column.merge in ['mean', 'm2'] }},
            {%- endfor %}
            __sw_end_pane as __sw_pane
        from (
            select
                {{ ctx.keys_comma }}__sw_pane,
                __sw_block,
                {%- for column in ctx.columns %}
                {{ spark_windows._sw_running(column, running ~ ' rows between unbounded preceding and current row', '_shift') }} as {{ column.name }},
                {%- if column.merge == 'mean' %}
                {{ column.name }}_shift,
                {%- endif %}
                {%- endfor %}
                coalesce(lead(__sw_pane) over ({{ running }}), __sw_block + {{ n }}) as __sw_next_pane
            from (
                select
                    *,
                    __sw_pane - pmod(__sw_pane, {{ n }}) as __sw_block
                    {#- a variance's shift: every window of the block that holds a value holds the
                        block's first pane with one #}
                    {%- for column in ctx.columns if column.merge == 'mean' %},
                    {{ spark_windows._sw_moments_shift(ctx, column, 'first') }} as {{ column.name }}_shift
                    {%- endfor %}
                from (
                    {{ spark_windows._sw_panes(ctx, by_group=not ctx.two_phase, pad=' ' * 20) }}
                ) as __sw_panes
            ) as __sw_blocked_panes
        ) as __sw_running
        lateral view explode(sequence(__sw_pane, __sw_next_pane - 1)) __sw_ends as __sw_end_pane
    ) as __sw_windows
{%- endmacro %}


{#- hop, counts and exact sums: a sweep of +/- pane events.
    At one __sw_at a pane may leave (the window's first pane of before) and another enter:
    the leaving event goes first, so the running sum after it is the previous window without
    its first pane, never that window plus the entering pane. Every running value is then a
    sum of consecutive panes of one window, and can overflow (an error under ANSI mode) only
    where a sum of that window's own values can. -#}
{% macro _sw_hop_sweep_plan(ctx, condition=none) -%}
    {%- set n = ctx.n -%}
    {%- set sweep = ctx.by_keys ~ ' order by __sw_at, __sw_leaves desc' -%}
    {{ spark_windows._sw_windows_from_panes(ctx, '__sw_pane - ' ~ (n - 1)) }}
    from (
        select
            {{ ctx.keys_comma }}
            {%- for column in ctx.columns %}
            {{ column.name }},
            {%- endfor %}
            __sw_end_pane as __sw_pane
        from (
            select
                {{ ctx.keys_comma }}__sw_at,
                {%- for column in ctx.columns %}
                sum({{ column.name }}) over ({{ sweep }} rows between unbounded preceding and current row) as {{ column.name }},
                {%- endfor %}
                lead(__sw_at) over ({{ sweep }}) as __sw_next_at
            from (
                select
                    {{ ctx.keys_comma }}__sw_pane + __sw_leaves * {{ n }} as __sw_at,
                    __sw_leaves,
                    {#- a negation keeps the partial's type; multiplying a decimal by an int
                        widens it past 38 digits, and Spark then drops digits of its scale -#}
                    {%- for column in ctx.columns %}
                    case when __sw_leaves = 1 then -coalesce({{ column.name }}, 0) else coalesce({{ column.name }}, 0) end as {{ column.name }}{{ ',' if not loop.last }}
                    {%- endfor %}
                from (
                    {{ spark_windows._sw_panes(ctx, condition, by_group=not ctx.two_phase, pad=' ' * 20) }}
                ) as __sw_panes
                lateral view explode(array(0, 1)) __sw_event as __sw_leaves
            ) as __sw_events
        ) as __sw_sweep
        lateral view explode(sequence(__sw_at, __sw_next_at - 1)) __sw_ends as __sw_end_pane
        where __sw_next_at > __sw_at and __sw_p1 > 0
    ) as __sw_windows
{%- endmacro %}


{#- hop, any mergeable aggregate: prefix of a block merged with the suffix of the block before. -#}
{% macro _sw_hop_two_stacks_plan(ctx, condition=none) -%}
    {%- set grid = spark_windows._sw_two_stacks_grid(ctx, condition) -%}
    {%- set running = spark_windows._sw_two_stacks_running(ctx, grid) -%}
    {%- set looked_up = spark_windows._sw_two_stacks_previous_suffix(ctx, running) -%}
    {{ spark_windows._sw_windows_from_panes(ctx, '__sw_pane - ' ~ (ctx.n - 1)) }}
    from (
        {{ spark_windows._sw_two_stacks_merged(ctx, looked_up) }}
    ) as __sw_windows
    where __sw_p1 > 0
{%- endmacro %}


{#- Two stacks, step 1, the grid: every pane number that can end a window with rows. Each
    non-empty pane adds itself and the next n - 1, up to the next non-empty pane; the first pane
    of a run also reaches back to its block's start, so that every suffix a window needs is on
    the grid. Runs never overlap. Blocks are n panes, aligned to pane 0. -#}
{% macro _sw_two_stacks_grid(ctx, condition) -%}
    {%- set n = ctx.n -%}
    {%- set by_pane = ctx.by_keys ~ ' order by __sw_pane' -%}
select
    {{ ctx.keys_comma }}__sw_grid_pane as __sw_pane,
    __sw_grid_pane - pmod(__sw_grid_pane, {{ n }}) as __sw_block
    {%- for column in ctx.columns %},
    case when __sw_grid_pane = __sw_linked_panes.__sw_pane then __sw_linked_panes.{{ column.name }} end as {{ column.name }}
    {%- if column.merge == 'mean' %}
    {%- for end in ['first', 'last'] %},
    case when __sw_grid_pane = __sw_linked_panes.__sw_pane then __sw_linked_panes.{{ column.name }}_{{ end }} end as {{ column.name }}_{{ end }}
    {%- endfor %}
    {%- endif %}
    {%- endfor %}
from (
    select
        *,
        lag(__sw_pane) over ({{ by_pane }}) as __sw_previous_pane,
        lead(__sw_pane) over ({{ by_pane }}) as __sw_next_pane
        {#- a variance's shifts: a prefix with a value holds its block's first pane with one, a
            suffix its block's last #}
        {%- for column in ctx.columns if column.merge == 'mean' %},
        {{ spark_windows._sw_moments_shift(ctx, column, 'first') }} as {{ column.name }}_first,
        {{ spark_windows._sw_moments_shift(ctx, column, 'last') }} as {{ column.name }}_last
        {%- endfor %}
    from (
        {{ spark_windows._sw_panes(ctx, condition, by_group=not ctx.two_phase, pad=' ' * 8) }}
    ) as __sw_panes
) as __sw_linked_panes
lateral view explode(sequence(
    case
        when __sw_previous_pane is null
            or __sw_pane - pmod(__sw_pane, {{ n }}) >= __sw_previous_pane + {{ n }}
            then __sw_pane - pmod(__sw_pane, {{ n }})
        else __sw_pane
    end,
    case
        when __sw_next_pane is null
            or __sw_next_pane - pmod(__sw_next_pane, {{ n }}) >= __sw_pane + {{ n }}
            then __sw_pane + {{ n - 1 }}
        else __sw_next_pane - 1
    end
)) __sw_grid as __sw_grid_pane
{%- endmacro %}


{#- Two stacks, step 2: on the grid, each pane's running aggregate from its block's start (the
    prefix), then to its block's end (the suffix); a variance also keeps its block's shifts.
    The suffix runs down the panes in a partition of its own, by the block negated
    (__sw_reverse_block): the order it needs, (group, -block, pane descending), is then the order
    of the previous-suffix lookup of step 3 too, and one sort serves both. -#}
{% macro _sw_two_stacks_running(ctx, grid) -%}
    {%- set in_block = 'partition by ' ~ ctx.keys_comma ~ '__sw_block order by __sw_pane' -%}
    {%- set down_block = 'partition by ' ~ ctx.keys_comma ~ '__sw_reverse_block order by __sw_pane desc' -%}
select
    *
    {%- for column in ctx.columns %},
    {{ spark_windows._sw_running(column, down_block ~ ' rows between unbounded preceding and current row', '_last') }} as {{ column.name }}_suffix
    {%- endfor %}
from (
    select
        *,
        -__sw_block as __sw_reverse_block
        {%- for column in ctx.columns %},
        {{ spark_windows._sw_running(column, in_block ~ ' rows between unbounded preceding and current row', '_first') }} as {{ column.name }}_prefix
        {%- if column.merge == 'mean' %},
        max({{ column.name }}_first) over (partition by {{ ctx.keys_comma }}__sw_block) as {{ column.name }}_prefix_shift,
        max({{ column.name }}_last) over (partition by {{ ctx.keys_comma }}__sw_block) as {{ column.name }}_suffix_shift
        {%- endif %}
        {%- endfor %}
    from (
        {{ grid }}
    ) as __sw_grid_panes
) as __sw_prefixed
{%- endmacro %}


{#- Two stacks, step 3: the suffix of the previous block from the window's first pane (n - 1
    panes back); none when the window is exactly one block. Read from the grid row n - 1 rows
    back, taken only when it is that pane: wherever the suffix there holds a pane, every pane of
    the window is on the grid (from the first such pane, its run and the runs adjoining it reach
    the window's end; the run before it, or its reach back to the block's start, covers the
    window's first pane), so the row n - 1 back is the window's first pane; elsewhere the suffix
    is empty and none is taken. An offset lookup (lead, down the panes in the suffix's order)
    where a RANGE frame of one pane kept a frame per row. -#}
{% macro _sw_two_stacks_previous_suffix(ctx, running) -%}
    {%- set back = ctx.n - 1 -%}
    {%- set down = ctx.by_keys ~ ' order by __sw_reverse_block, __sw_pane desc' -%}
    {%- set spans_two = '__sw_pane - __sw_block < ' ~ back ~ ' and lead(__sw_pane, ' ~ back ~ ') over (' ~ down ~ ') = __sw_pane - ' ~ back -%}
select
    *
    {%- for column in ctx.columns %}
    {%- for suffix in ['_suffix'] + (['_suffix_shift'] if column.merge == 'mean' else []) %},
    case when {{ spans_two }} then lead({{ column.name }}{{ suffix }}, {{ back }}) over ({{ down }}) end as {{ column.name }}{{ suffix }}_before
    {%- endfor %}
    {%- endfor %}
from (
    {{ running }}
) as __sw_running
{%- endmacro %}


{#- Two stacks, step 4: each window ending at a grid pane, the merge of the previous block's
    suffix and its own block's prefix. -#}
{% macro _sw_two_stacks_merged(ctx, looked_up) -%}
select
    {{ ctx.keys_comma }}__sw_pane,
    {%- for column in ctx.columns %}
    {%- if column.merge in ['mean', 'm2'] %}
    {{ spark_windows._sw_moments_merge_two(column) }} as {{ column.name }}{{ ',' if not loop.last }}
    {%- else %}
    {{ spark_windows._sw_merge_two(column.merge, column.name ~ '_prefix', column.name ~ '_suffix_before') }} as {{ column.name }}{{ ',' if not loop.last }}
    {%- endif %}
    {%- endfor %}
from (
    {{ looked_up }}
) as __sw_looked_up
{%- endmacro %}
