{#- Reading window_firings' arguments: the window (a window_aggregate window or a global one),
    the trigger, the evictor and purge. Each check raises a compile error that names
    window_firings, the argument, the value and what is accepted. -#}

{#- The window dict: {'type': 'global'} or what window_aggregate accepts; returns the spec of
    _sw_window_spec, or {'type': 'global'}. -#}
{% macro _sw_firings_window(window, macro_name) %}
    {%- set examples -%}
        {'type': 'tumble', 'size': '1 minute'}, {'type': 'hop', 'slide': '1 minute', 'size': '1 hour'}, {'type': 'cumulate', 'step': '1 minute', 'size': '1 hour'} (each with an optional 'offset'), {'type': 'session', 'gap': '10 minutes'} or {'type': 'global'} (one window per group that never ends)
    {%- endset -%}
    {%- if window is not mapping or window.get('type') not in ['tumble', 'hop', 'cumulate', 'session', 'global'] -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": window (" ~ window ~ ") must be a dict whose 'type' is tumble, hop, cumulate, session or global, such as " ~ examples) }}
    {%- endif -%}
    {%- if window['type'] == 'global' -%}
        {%- if window | length > 1 -%}
            {{ exceptions.raise_compiler_error(
                macro_name ~ ": window (" ~ window ~ ") has keys besides 'type'; a global window takes none: {'type': 'global'}") }}
        {%- endif -%}
        {{ return({'type': 'global'}) }}
    {%- endif -%}
    {{ return(spark_windows._sw_window_spec(window, macro_name)) }}
{% endmacro %}


{#- The trigger dict; returns {'kind': 'end' | 'every_rows' | 'every' | 'when', 'rows', 'every_us',
    'condition', 'names'} (names: the aggregates the condition refers to). -#}
{% macro _sw_firings_trigger(trigger, spec, aggs, macro_name) %}
    {%- set accepted -%}
        none (fire once, at the end of the window), {'every_rows': 3} (every 3 rows of the window, Flink's CountTrigger), {'every': '10 seconds'} (every 10 seconds of event time, ContinuousEventTimeTrigger) or {'when': 'total > 100'} (once, at the first row where a condition on the aggregates, named as in aggregates, holds)
    {%- endset -%}
    {%- if trigger is none -%}
        {%- if spec.type == 'global' -%}
            {{ exceptions.raise_compiler_error(
                macro_name ~ ": trigger is none, but a global window never ends, so it would never fire; give a trigger: " ~ accepted) }}
        {%- endif -%}
        {{ return({'kind': 'end'}) }}
    {%- endif -%}
    {%- if trigger is not mapping or trigger | length != 1 or (trigger | list)[0] not in ['every_rows', 'every', 'when'] -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": trigger (" ~ trigger ~ ") must be " ~ accepted) }}
    {%- endif -%}
    {%- set kind = (trigger | list)[0] -%}
    {%- set value = trigger[kind] -%}
    {%- if kind == 'every_rows' -%}
        {{ return({'kind': kind, 'rows': spark_windows._sw_row_count(value, macro_name, "trigger 'every_rows'")}) }}
    {%- elif kind == 'every' -%}
        {{ return({'kind': kind, 'every_us': spark_windows._sw_duration_us(value, macro_name, "trigger 'every'")}) }}
    {%- endif -%}
    {%- if value is not string or value.strip() == '' -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": trigger 'when' (" ~ value ~ ") must be a condition on the aggregates, named as in aggregates, such as 'total > 100'") }}
    {%- endif -%}
    {%- set call = modules.re.search('(?i)\\b(' ~ (['count', 'sum', 'min', 'max', 'avg'] + spark_windows._sw_row_copy_aggregates()) | join('|') ~ ')\\s*\\(', value) -%}
    {%- if call -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": trigger 'when' ('" ~ value ~ "') calls the aggregate " ~ call.group(1) ~ "(); name an output column of aggregates instead (aggregates: "
            ~ aggs | map(attribute='name') | join(', ') ~ "), such as {'when': 'total > 100'} with aggregates={'total': 'sum(amount)'}") }}
    {%- endif -%}
    {%- set names = [] -%}
    {%- for agg in aggs -%}
        {%- if modules.re.search('(?i)(^|[^A-Za-z0-9_.`])' ~ agg.name ~ '($|[^A-Za-z0-9_])', value) -%}
            {%- if agg.kind == 'count_distinct' or modules.re.match('(?i)distinct[^a-z0-9_]', agg.arg) -%}
                {{ exceptions.raise_compiler_error(
                    macro_name ~ ": trigger 'when' ('" ~ value ~ "') uses the aggregate '" ~ agg.name ~ "' (" ~ agg.sql
                    ~ "), a distinct aggregate, which Spark cannot compute as a running total; use another aggregate in the condition") }}
            {%- elif agg.kind in ['hll', 'kll'] -%}
                {{ exceptions.raise_compiler_error(
                    macro_name ~ ": trigger 'when' ('" ~ value ~ "') uses the aggregate '" ~ agg.name ~ "' (" ~ agg.sql
                    ~ "), a sketch estimate, which Spark cannot compute as a running value (an aggregate inside a function over a window); "
                    ~ "use another aggregate in the condition") }}
            {%- endif -%}
            {%- do names.append(agg) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if names | length == 0 -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": trigger 'when' ('" ~ value ~ "') names none of the aggregates (" ~ aggs | map(attribute='name') | join(', ')
            ~ "); the condition is read on the window's running aggregates, such as 'total > 100'") }}
    {%- endif -%}
    {{ return({'kind': kind, 'condition': value, 'names': names}) }}
{% endmacro %}


{#- The evictor dict; returns none or {'kind': 'keep_last' | 'within' | 'delta', 'rows',
    'within_us', 'threshold', 'of'}. -#}
{% macro _sw_firings_evictor(evictor, macro_name) %}
    {%- set accepted -%}
        none, {'keep_last': 5} (the last 5 rows, Flink's CountEvictor), {'within': '10 seconds'} (the rows less than 10 seconds before the newest one, TimeEvictor) or {'delta': 5, 'of': 'price'} (the rows whose price is less than 5 away from the last row's, DeltaEvictor)
    {%- endset -%}
    {%- if evictor is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set keys = (evictor | list | sort) if evictor is mapping else [] -%}
    {%- if keys not in [['keep_last'], ['within'], ['delta', 'of']] -%}
        {{ exceptions.raise_compiler_error(macro_name ~ ": evictor (" ~ evictor ~ ") must be " ~ accepted) }}
    {%- endif -%}
    {%- if keys == ['keep_last'] -%}
        {{ return({'kind': 'keep_last', 'rows': spark_windows._sw_row_count(evictor['keep_last'], macro_name, "evictor 'keep_last'")}) }}
    {%- elif keys == ['within'] -%}
        {{ return({'kind': 'within', 'within_us': spark_windows._sw_duration_us(evictor['within'], macro_name, "evictor 'within'")}) }}
    {%- endif -%}
    {%- set threshold = evictor['delta'] -%}
    {%- if threshold is boolean or threshold is not number or threshold <= 0 -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": evictor 'delta' (" ~ (threshold if threshold is not string else "'" ~ threshold ~ "'")
            ~ ") must be a positive number, such as 5 or 0.5 (a number, not a string)") }}
    {%- endif -%}
    {%- if evictor['of'] is not string or evictor['of'].strip() == '' -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": evictor 'of' ('" ~ evictor['of'] ~ "') must be a column name or a numeric SQL expression given as a non-empty string, such as 'price'") }}
    {%- endif -%}
    {%- do spark_windows._sw_require_expression(evictor['of'], macro_name, "evictor 'of'", "a column name or a numeric SQL expression such as 'price'") -%}
    {{ return({'kind': 'delta', 'threshold': threshold, 'of': evictor['of']}) }}
{% endmacro %}


{#- window_firings' query, its arguments checked (spark__window_firings): `spec` the window
    (_sw_firings_window), `keys` the group_by columns, `aggs` the parsed aggregates, `fire` the
    trigger (_sw_firings_trigger), `purge` a boolean, `evict` the evictor (_sw_firings_evictor).
    The steps: the rows of each window numbered in time order (ties by the row's JSON text); the
    firings, each a cut of that order (a row number, or a time for timers); each firing's rows
    (up to its cut, or since the previous one with purge), less what the evictor removes; their
    aggregates. -#}
{% macro _sw_window_firings_sql(relation, time_col, spec, keys, aggs, fire, purge, evict) -%}
    {%- set name = 'window_firings' -%}
    {%- set is_global = spec.type == 'global' -%}
    {#- a window: its group and, for time windows, its bounds -#}
    {%- set window_columns = keys + ([] if is_global else ['window_start', 'window_end']) -%}
    {%- set partition = ('partition by ' ~ window_columns | join(', ') ~ ' ') if window_columns else '' -%}
    {%- set prefix = (window_columns | join(', ') ~ ', ') if window_columns else '' -%}
    {%- set group_windows = ('group by ' ~ window_columns | join(', ')) if window_columns else '' -%}
    {#- a timestamp_ntz column: windows and timers of its wall-clock time, computed on a timestamp
        whose microseconds are the wall-clock ones (__sw_wall_ts); window bounds and fired_at are
        converted back to timestamp_ntz at the end -#}
    {%- set mode = spark_windows._sw_time_mode(relation, time_col, none, name) -%}
    {%- set wall = mode.kind == 'ntz' -%}
    {%- set tied -%}
        (select __sw_source.*, {{ spark_windows._sw_row_json('struct(__sw_source.*)') }} as __sw_tie
            {%- if wall %}, timestamp_micros({{ spark_windows._sw_time_us(time_col, mode) }}) as __sw_wall_ts{% endif %} from {{ relation }} as __sw_source)
    {%- endset -%}
    {%- set time_col = '__sw_wall_ts' if wall else time_col -%}
    {%- set ts_us = spark_windows._sw_ts_us(time_col) -%}
    {#- by_time: timers of the `every` trigger cut the rows by event time; otherwise by row number -#}
    {%- set by_time = fire.kind == 'every' -%}
    {%- set position = '__sw_ts' if by_time else '__sw_seq' -%}
    {%- if is_global -%}
        {%- set windowed = '(select * from ' ~ tied ~ ' as __sw_tied where ' ~ time_col ~ ' is not null)' -%}
    {%- else -%}
        {%- set windowed = spark_windows._sw_table_valued(tied, time_col, spec, keys) -%}
    {%- endif -%}
    {#- Every row of each window, numbered 1, 2, ... in time order (ties: the row's JSON text) -#}
    {%- set numbered -%}
        (
            select
                __sw_windowed.*,
                {{ ts_us }} as __sw_ts,
                cast(row_number() over ({{ partition }}order by {{ ts_us }}, __sw_tie) as bigint) as __sw_seq,
                count(*) over ({{ partition | trim }}) as __sw_rows
                {%- if is_global and by_time %},
                max({{ ts_us }}) over () as __sw_input_last
                {%- endif %}
            from {{ windowed }} as __sw_windowed
        )
    {%- endset -%}
    {%- set final_cut = 'unix_micros(window_end) - 1' if by_time else '__sw_rows' -%}
    {#- The firings: window columns, __sw_cut (a row number, or a time in microseconds),
        __sw_fired_at, __sw_is_final -#}
    {%- set firings -%}
        {%- if fire.kind == 'every_rows' %}
            select {{ prefix }}__sw_seq as __sw_cut, timestamp_micros(__sw_ts) as __sw_fired_at, false as __sw_is_final
            from {{ numbered }} as __sw_rows_in
            where __sw_seq % {{ fire.rows }} = 0
        {%- elif fire.kind == 'when' %}
            select {% for column in window_columns %}__sw_rows_in.{{ column }}, {% endfor %}__sw_rows_in.__sw_seq as __sw_cut, timestamp_micros(__sw_rows_in.__sw_ts) as __sw_fired_at, false as __sw_is_final
            from {{ numbered }} as __sw_rows_in
            inner join (
                select {{ prefix }}min(__sw_seq) as __sw_first_seq
                from (
                    select
                        {{ prefix }}__sw_seq
                        {%- for agg in fire.names %},
                        {{ agg.sql }} over ({{ partition }}order by __sw_seq rows between unbounded preceding and current row) as {{ agg.name }}
                        {%- endfor %}
                    from {{ numbered }} as __sw_running_rows
                ) as __sw_running
                where {{ fire.condition }}
                {{ group_windows }}
            ) as __sw_first
                on {% for column in window_columns %}__sw_rows_in.{{ column }} <=> __sw_first.{{ column }} and {% endfor %}__sw_rows_in.__sw_seq = __sw_first.__sw_first_seq
        {%- elif fire.kind == 'every' %}
            {#- timers on the grid of `every` (aligned to the epoch), from the first one after the
                window's first row, while before the window's last instant (the final firing);
                in a global window, up to the first one after the input's last time -#}
            select {{ prefix }}__sw_timer as __sw_cut, timestamp_micros(__sw_timer) as __sw_fired_at, false as __sw_is_final
            from (
                select *
                from (
                    select
                        {{ prefix }}
                        min(__sw_ts) - pmod(min(__sw_ts), {{ fire.every_us }}) + {{ fire.every_us }} as __sw_first_timer,
                        {%- if is_global %}
                        max(__sw_input_last) - pmod(max(__sw_input_last), {{ fire.every_us }}) + {{ fire.every_us }} as __sw_last_timer
                        {%- else %}
                        (unix_micros(window_end) - 2) - pmod(unix_micros(window_end) - 2, {{ fire.every_us }}) as __sw_last_timer
                        {%- endif %}
                    from {{ numbered }} as __sw_rows_in
                    {{ group_windows }}
                ) as __sw_timer_ranges
                where __sw_first_timer <= __sw_last_timer
            ) as __sw_timer_windows
            lateral view explode(sequence(__sw_first_timer, __sw_last_timer, cast({{ fire.every_us }} as bigint))) __sw_timers as __sw_timer
        {%- endif %}
        {%- if not is_global %}
            {%- if fire.kind != 'end' %}
            union all
            {%- endif %}
            select {{ window_columns | join(', ') }}, {{ final_cut }} as __sw_cut, timestamp_micros(unix_micros(window_end) - 1) as __sw_fired_at, true as __sw_is_final
            from {{ numbered }} as __sw_last_rows
            where __sw_seq = __sw_rows
        {%- endif %}
    {%- endset -%}
    {%- set key_aliases = [] -%}
    {%- for column in window_columns -%}
        {%- do key_aliases.append('__sw_window_' ~ loop.index) -%}
    {%- endfor -%}
    {%- set firing_partition = ('partition by ' ~ (window_columns + ['__sw_order']) | join(', ') ~ ' ') -%}
(
    select
        {%- for column in window_columns %}
        {{ spark_windows._sw_wall_clock('unix_micros(' ~ column ~ ')') ~ ' as ' ~ column if wall and column in ['window_start', 'window_end'] else column }},
        {%- endfor %}
        cast(row_number() over ({{ partition }}order by __sw_order) as bigint) as firing,
        {{ spark_windows._sw_wall_clock('unix_micros(__sw_fired_at)') if wall else '__sw_fired_at' }} as fired_at,
        __sw_is_final as is_final
        {%- for agg in aggs %},
        {{ agg.name }}
        {%- endfor %}
    from (
        select
            {{ prefix }}__sw_order, __sw_fired_at, __sw_is_final
            {%- for agg in aggs %},
            {{ agg.sql }} as {{ agg.name }}
            {%- endfor %}
        from (
            {%- if evict is none %}
            select * from (
            {%- elif evict.kind == 'keep_last' %}
            {#- CountEvictor: the last rows of the firing, in arrival (time) order -#}
            select * from (
                select *, max(__sw_seq) over ({{ firing_partition }}) as __sw_last_seq
                from (
            {%- elif evict.kind == 'within' %}
            {#- TimeEvictor: rows whose time is after the firing's newest time minus the interval -#}
            select * from (
                select *, max(__sw_ts) over ({{ firing_partition }}) as __sw_newest_ts
                from (
            {%- else %}
            {#- DeltaEvictor: a row leaves at the first firing whose last row is at least
                `delta` away, and stays out (Flink writes the evicted state back) -#}
            select * from (
                select *, min(case when __sw_evicts then __sw_order end) over (partition by {{ (window_columns + ['__sw_seq']) | join(', ') }}) as __sw_evicted_at
                from (
                    select *, abs(({{ evict.of }}) - __sw_last_value) >= {{ evict.threshold }} as __sw_evicts
                    from (
                        select *, last_value({{ evict.of }}) over ({{ firing_partition }}order by __sw_seq rows between unbounded preceding and unbounded following) as __sw_last_value
                        from (
            {%- endif %}
            select __sw_rows_in.*, __sw_fire.__sw_order, __sw_fire.__sw_fired_at, __sw_fire.__sw_is_final
            from {{ numbered }} as __sw_rows_in
            inner join (
                select
                    {%- for column in window_columns %}
                    {{ column }} as {{ key_aliases[loop.index0] }},
                    {%- endfor %}
                    __sw_cut, __sw_fired_at, __sw_is_final,
                    row_number() over ({{ partition }}order by __sw_cut, __sw_is_final) as __sw_order,
                    lag(__sw_cut) over ({{ partition }}order by __sw_cut, __sw_is_final) as __sw_previous_cut
                from ({{ firings }}
                ) as __sw_firing_list
            ) as __sw_fire
                on {% for column in window_columns %}__sw_rows_in.{{ column }} <=> __sw_fire.{{ key_aliases[loop.index0] }} and {% endfor %}__sw_rows_in.{{ position }} <= __sw_fire.__sw_cut
                {%- if purge %}
                and (__sw_fire.__sw_previous_cut is null or __sw_rows_in.{{ position }} > __sw_fire.__sw_previous_cut)
                {%- endif %}
            {%- if evict is none %}
            ) as __sw_pairs
            {%- elif evict.kind == 'keep_last' %}
                ) as __sw_pairs
            ) as __sw_counted
            where __sw_seq > __sw_last_seq - {{ evict.rows }}
            {%- elif evict.kind == 'within' %}
                ) as __sw_pairs
            ) as __sw_timed
            where __sw_ts > __sw_newest_ts - {{ evict.within_us }}
            {%- else %}
                        ) as __sw_pairs
                    ) as __sw_with_last
                ) as __sw_deltas
            ) as __sw_evicted
            where __sw_evicted_at is null or __sw_order < __sw_evicted_at
            {%- endif %}
        ) as __sw_kept
        group by {{ prefix }}__sw_order, __sw_fired_at, __sw_is_final
    ) as __sw_fired
)
{%- endmacro %}
