{#- The slice plan of window_aggregate for tumble, hop and cumulate windows.

    1. Every row is added once into its pane: a slice of width `pane_us` (the slide, the step,
       or the whole size for tumble), per group. Panes keep partial aggregates.
    2. Window `e` is named by its last pane. The plan lays out, per group, the run of pane
       numbers that can end a window holding rows ("the grid"): each non-empty pane q adds
       q .. q + n - 1 (n panes per window), stopping where the next non-empty pane takes over,
       and the first pane of a run also reaches back to the start of its block (below).
    3. Panes are cut into blocks of n. A hop window of n panes is the suffix of one block
       merged with the prefix of the next (the "two stacks" trick): running prefixes and
       suffixes are running window frames, so every row of the grid costs O(1), whatever n.
       A cumulate window is a prefix of its block (the block is the cumulating period).
    4. Windows with no row (grid positions before the first row) are dropped.
    Partial aggregates: count and sum merge by sum, min and max by min and max, avg is
    sum / count; count(*) is always kept, to tell windows with rows.
    All pane and window arithmetic is on bigint microseconds or pane numbers.
-#}

{#- Partial aggregates of one aggregate: [(role, partial expression, merge function)]. -#}
{% macro _sw_partials(agg) -%}
    {%- if agg.kind == 'count_star' -%}
        {{ return([('n', 'count(*)', 'sum')]) }}
    {%- elif agg.kind == 'count' -%}
        {{ return([('n', 'count(' ~ agg.arg ~ ')', 'sum')]) }}
    {%- elif agg.kind == 'sum' -%}
        {{ return([('s', 'sum(' ~ agg.arg ~ ')', 'sum')]) }}
    {%- elif agg.kind in ['min', 'max'] -%}
        {{ return([('m', agg.kind ~ '(' ~ agg.arg ~ ')', agg.kind)]) }}
    {%- else -%}
        {{ return([('s', 'sum(' ~ agg.arg ~ ')', 'sum'), ('n', 'count(' ~ agg.arg ~ ')', 'sum')]) }}
    {%- endif -%}
{%- endmacro %}


{#- The partial columns of the plan, each partial expression once (count(*) is always the
    first, __sw_p1: it also tells empty windows apart), and for each aggregate its columns:
    {'columns': [(column, partial, merge)], 'uses': [{role: column}] in aggregate order}. -#}
{% macro _sw_partial_columns(aggs) -%}
    {%- set columns = [('__sw_p1', 'count(*)', 'sum')] -%}
    {%- set by_partial = {'count(*)': '__sw_p1'} -%}
    {%- set uses = [] -%}
    {%- for agg in aggs -%}
        {%- set use = {} -%}
        {%- for role, partial, merge in _sw_partials(agg) -%}
            {%- if partial not in by_partial -%}
                {%- do by_partial.update({partial: '__sw_p' ~ (columns | length + 1)}) -%}
                {%- do columns.append((by_partial[partial], partial, merge)) -%}
            {%- endif -%}
            {%- do use.update({role: by_partial[partial]}) -%}
        {%- endfor -%}
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
    {%- else -%}
        greatest({{ a }}, {{ b }})
    {%- endif -%}
{%- endmacro %}


{#- The final value of one aggregate from its merged partial columns. -#}
{% macro _sw_final_aggregate(agg, use) -%}
    {%- if agg.kind in ['count_star', 'count'] -%}
        coalesce({{ use.n }}, 0)
    {%- elif agg.kind == 'sum' -%}
        {{ use.s }}
    {%- elif agg.kind in ['min', 'max'] -%}
        {{ use.m }}
    {%- else -%}
        {{ use.s }} / nullif({{ use.n }}, 0)
    {%- endif -%}
{%- endmacro %}


{% macro _sw_sliced_aggregate(relation, time_col, keys, aggs, kind, pane_us, panes_per_window, offset_us) %}
    {%- set n = panes_per_window -%}
    {%- set plan = _sw_partial_columns(aggs) -%}
    {%- set columns = plan.columns -%}
    {%- set ts_us = _sw_ts_us(time_col) -%}
    {%- set key_list = keys | join(', ') -%}
    {%- set keys_comma = (key_list ~ ', ') if keys else '' -%}
    {%- set by_keys = ('partition by ' ~ key_list) if keys else '' -%}
    {%- set by_keys_and_block = 'partition by ' ~ keys_comma ~ '__sw_block' -%}
    {#- Pane number: floor((ts - offset) / pane), exact because the numerator is a multiple. -#}
    {%- set pane -%}
        ({{ _sw_align_us(ts_us, pane_us, offset_us) }} - {{ offset_us }}) div {{ pane_us }}
    {%- endset -%}
    {%- set pane_start_us = '__sw_pane * ' ~ pane_us ~ ' + ' ~ offset_us -%}
(
    select
        {{ keys_comma }}
        {%- if kind == 'tumble' %}
        {{ _sw_window_columns(pane_start_us, pane_start_us ~ ' + ' ~ pane_us) }}
        {%- elif kind == 'hop' %}
        {{ _sw_window_columns('(__sw_pane - ' ~ (n - 1) ~ ') * ' ~ pane_us ~ ' + ' ~ offset_us, pane_start_us ~ ' + ' ~ pane_us) }}
        {%- else %}
        {{ _sw_window_columns('__sw_block * ' ~ pane_us ~ ' + ' ~ offset_us, pane_start_us ~ ' + ' ~ pane_us) }}
        {%- endif -%}
        {%- for agg in aggs %},
        {{ _sw_final_aggregate(agg, plan.uses[loop.index0]) }} as {{ agg.name }}
        {%- endfor %}
    from (
    {%- if kind == 'tumble' %}
        select
            {{ keys_comma }}__sw_pane,
            {%- for column, partial, merge in columns %}
            {{ partial }} as {{ column }}{{ ',' if not loop.last }}
            {%- endfor %}
        from (
            select *, {{ pane }} as __sw_pane
            from {{ relation }} as __sw_source
            where {{ time_col }} is not null
        ) as __sw_rows_in_panes
        group by {{ keys_comma }}__sw_pane
    {%- else %}
        select
            {{ keys_comma }}__sw_pane,
            __sw_block,
            {%- for column, partial, merge in columns %}
            {%- if kind == 'hop' %}
            {{ _sw_merge_two(merge, column ~ '_prefix', column ~ '_suffix_before') }} as {{ column }}{{ ',' if not loop.last }}
            {%- else %}
            {{ column }}_prefix as {{ column }}{{ ',' if not loop.last }}
            {%- endif %}
            {%- endfor %}
        from (
            select
                *
                {%- if kind == 'hop' %}
                {%- for column, partial, merge in columns %},
                case when __sw_pane - __sw_block = {{ n - 1 }} then null else
                    first_value({{ column }}_suffix) over (
                        {{ by_keys }} order by __sw_pane range between {{ n - 1 }} preceding and {{ n - 1 }} preceding
                    )
                end as {{ column }}_suffix_before
                {%- endfor %}
                {%- endif %}
            from (
                select
                    {{ keys_comma }}__sw_pane,
                    __sw_block
                    {%- for column, partial, merge in columns %},
                    {{ merge }}({{ column }}) over (
                        {{ by_keys_and_block }} order by __sw_pane rows between unbounded preceding and current row
                    ) as {{ column }}_prefix
                    {%- if kind == 'hop' %},
                    {{ merge }}({{ column }}) over (
                        {{ by_keys_and_block }} order by __sw_pane desc rows between unbounded preceding and current row
                    ) as {{ column }}_suffix
                    {%- endif %}
                    {%- endfor %}
                from (
                    select
                        {{ keys_comma }}__sw_grid_pane as __sw_pane,
                        __sw_grid_pane - pmod(__sw_grid_pane, {{ n }}) as __sw_block
                        {%- for column, partial, merge in columns %},
                        case when __sw_grid_pane = __sw_linked_panes.__sw_pane then __sw_linked_panes.{{ column }} end as {{ column }}
                        {%- endfor %}
                    from (
                        select
                            *,
                            lag(__sw_pane) over ({{ by_keys }} order by __sw_pane) as __sw_previous_pane,
                            lead(__sw_pane) over ({{ by_keys }} order by __sw_pane) as __sw_next_pane
                        from (
                            select
                                {{ keys_comma }}{{ pane }} as __sw_pane,
                                {%- for column, partial, merge in columns %}
                                {{ partial }} as {{ column }}{{ ',' if not loop.last }}
                                {%- endfor %}
                            from {{ relation }} as __sw_source
                            where {{ time_col }} is not null
                            group by {{ keys_comma }}{{ pane }}
                        ) as __sw_panes
                    ) as __sw_linked_panes
                    lateral view explode(sequence(
                        {%- if kind == 'hop' %}
                        {#- The first pane of a run reaches back to its block start; runs never overlap. -#}
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
                        {%- else %}
                        __sw_pane,
                        least(
                            coalesce(__sw_next_pane - 1, __sw_pane + {{ n }}),
                            __sw_pane - pmod(__sw_pane, {{ n }}) + {{ n - 1 }}
                        )
                        {%- endif %}
                    )) __sw_grid as __sw_grid_pane
                ) as __sw_grid_panes
            ) as __sw_running
        ) as __sw_looked_up
    {%- endif %}
    ) as __sw_windows
    where __sw_p1 > 0
)
{% endmacro %}
