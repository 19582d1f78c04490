{#- window_firings: what a Flink window with a trigger (and an evictor) would have emitted, one
    row per firing of each window, with the aggregates as of that firing.

    Rows are taken per window in event-time order, ties broken by the row's JSON text (the rule
    of count_window). A firing is a cut of that order: a row number (count and condition
    triggers, and the final firing) or an event time (timers of the `every` trigger). Each
    firing holds the rows up to its cut (accumulating) or since the previous cut (purge);
    the evictor then removes rows, as Flink's evictBefore, before the aggregates. -#}
{% macro window_firings(relation, time_col, window, group_by, aggregates, trigger=none, purge=false, evictor=none) -%}
    {{ return(adapter.dispatch('window_firings', 'spark_windows')(relation, time_col, window, group_by, aggregates, trigger, purge, evictor)) }}
{%- endmacro %}


{% macro default__window_firings(relation, time_col, window, group_by, aggregates, trigger=none, purge=false, evictor=none) -%}
    {{ spark_windows._sw_unsupported_adapter('window_firings') }}
{%- endmacro %}


{% macro spark__window_firings(relation, time_col, window, group_by, aggregates, trigger=none, purge=false, evictor=none) -%}
    {%- set name = 'window_firings' -%}
    {%- do spark_windows._sw_require_relation(relation, name) -%}
    {%- do spark_windows._sw_require_column(time_col, name, 'time_col') -%}
    {%- set spec = spark_windows._sw_firings_window(window, name) -%}
    {%- set keys = spark_windows._sw_column_list(group_by, name, 'group_by') -%}
    {%- set aggs = spark_windows._sw_parse_aggregates(aggregates, name, keys) -%}
    {%- for agg in aggs -%}
        {%- if agg.name.lower() in ['firing', 'fired_at', 'is_final'] -%}
            {{ exceptions.raise_compiler_error(
                name ~ ": aggregates has the output name '" ~ agg.name ~ "', which is a column the output holds already "
                ~ "(firing, fired_at, is_final); choose another name, such as 'readings'") }}
        {%- endif -%}
    {%- endfor -%}
    {%- set fire = spark_windows._sw_firings_trigger(trigger, spec, aggs, name) -%}
    {%- do spark_windows._sw_refuse_in_microbatch(name, "its firings are numbered over all of a window's rows, and a global window holds the rows of every batch") -%}
    {%- if purge is not boolean -%}
        {{ exceptions.raise_compiler_error(
            name ~ ": purge (" ~ purge ~ ") must be true (each firing holds the rows since the previous one, Flink's PurgingTrigger) "
            ~ "or false (each firing holds every row of the window so far)") }}
    {%- endif -%}
    {%- set evict = spark_windows._sw_firings_evictor(evictor, name) -%}
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
