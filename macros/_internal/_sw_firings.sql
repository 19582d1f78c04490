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
