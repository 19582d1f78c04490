{#- Session gaps: a fixed duration, or a SQL expression evaluated per row (Flink's
    `withDynamicGap`).

    How a gap string is read (_sw_gap_is_expression): it is an EXPRESSION when
      1. it holds a character other than letters, digits, blanks and _ ' . + -
         (parentheses, operators, commas, backticks, `=`, ...), or
      2. after an optional leading `interval` it has more than two words, and it either starts
         with `interval` or does not start with a number: `case channel when 'mobile' then
         interval 30 minutes else interval 10 minutes end`, `interval 1 hour 30 minutes`, or
      3. it is a single column name (`session_gap`, `c.session_gap`) that is not `interval` or
         a time unit word (`minutes`, `day`, ...).
    Everything else is read as a fixed DURATION by _sw_duration_us, so what looks like a
    malformed duration ('10 minuets', '0 minutes', '-5 minutes', '5', 'five minutes',
    '1 hour 30 minutes', 'minutes') stays a compile error. Every string _sw_duration_us
    accepts is a duration by this rule. -#}

{% macro _sw_gap_is_expression(value) %}
    {%- set unit_words = [
        'interval', 'microsecond', 'millisecond', 'second', 'minute', 'hour', 'day', 'week',
        'month', 'quarter', 'year',
    ] -%}
    {%- if value is not string -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set words = value.lower().split() -%}
    {%- if words | length == 0 -%}
        {{ return(false) }}
    {%- endif -%}
    {%- for word in words -%}
        {%- if not modules.re.fullmatch("[a-z0-9_'.+-]+", word) -%}
            {{ return(true) }}
        {%- endif -%}
    {%- endfor -%}
    {%- set leading_interval = words[0] == 'interval' -%}
    {%- set rest = words[1:] if leading_interval else words -%}
    {%- if rest | length > 2 -%}
        {{ return(leading_interval or rest[0][0] not in "0123456789+-.'") }}
    {%- endif -%}
    {%- if words | length == 1
        and words[0] not in unit_words
        and (words[0][:-1] if words[0].endswith('s') else words[0]) not in unit_words
        and modules.re.fullmatch("[a-z_][a-z0-9_]*([.][a-z_][a-z0-9_]*)*", words[0]) -%}
        {{ return(true) }}
    {%- endif -%}
    {{ return(false) }}
{% endmacro %}


{#- The gap in microseconds (a Python integer) when it is a fixed duration, none when it is an
    expression. A malformed duration is a compile error that also names the expression form. -#}
{% macro _sw_session_gap_us(gap, macro_name, errors=none) %}
    {%- set or_accepted -%}
        a SQL expression giving each row's gap as an interval, such as "case when channel = 'mobile' then interval 30 minutes else interval 10 minutes end" or a column name (a string is read as an expression only when it holds more than '<integer> <unit>': parentheses, operators, several words, or a lone column name)
    {%- endset -%}
    {%- if spark_windows._sw_gap_is_expression(gap) -%}
        {%- do spark_windows._sw_require_expression(gap, macro_name, 'gap', 'a fixed duration such as \'10 minutes\', or ' ~ or_accepted) -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(spark_windows._sw_duration_us(gap, macro_name, 'gap', or_accepted=or_accepted, errors=errors)) }}
{% endmacro %}


{#- A dynamic gap whose type is known must be an interval: a number or a string would fail in
    Spark with a message about the macro's inner columns, naming neither the gap nor the cast to
    write. A lone column (`session_gap`) of `relation` has its type in `described` (from
    _sw_describe); an expression over a table or view is typed by Spark (_sw_expression_type)
    without reading a row. Over a CTE or a query the type is not known before Spark runs it. -#}
{% macro _sw_require_interval_gap(relation, gap, described, macro_name) %}
    {%- set text = gap.strip() -%}
    {%- set is_column = modules.re.fullmatch('[A-Za-z_][A-Za-z0-9_]*|`(?:[^`]|``)+`', text) -%}
    {%- if described is none -%}
        {{ return(none) }}
    {%- elif is_column -%}
        {%- set data_type = spark_windows._sw_column_types(described).get(spark_windows._sw_column_key(text)) -%}
    {%- else -%}
        {%- set data_type = spark_windows._sw_expression_type(relation, text) -%}
    {%- endif -%}
    {%- if not data_type or data_type.startswith('interval') -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set value = text if is_column else '(' ~ text ~ ')' -%}
    {%- if data_type in ['tinyint', 'smallint', 'int', 'bigint', 'float', 'double'] or data_type.startswith('decimal') -%}
        {%- set cast = value ~ " * interval 1 minute, if it holds minutes (interval 1 second for seconds)" -%}
    {%- else -%}
        {%- set cast = "cast(" ~ text ~ " as interval), if it holds text such as '10 minutes', or cast(" ~ text ~ " as int) * interval 1 minute for a number of minutes" -%}
    {%- endif -%}
    {{ exceptions.raise_compiler_error(
        macro_name ~ ": gap ('" ~ gap ~ "') is " ~ ("a column" if is_column else "an expression") ~ " of type " ~ data_type ~ " in " ~ relation
        ~ "; a per-row gap must be an interval of days, hours, minutes or seconds. Write the conversion as the gap, such as "
        ~ cast) }}
{% endmacro %}


{#- The rows of a dynamic-gap session, each with its gap as bigint microseconds
    (__sw_gap_us), for _sw_session_windows.

    The gap is converted to microseconds without the session time zone: it is added to the
    epoch as a TIMESTAMP_NTZ (no zone, a day is 24 hours) and the difference is read field by
    field. Rows whose gap is NULL belong to no session (like rows whose time is NULL); a
    negative gap counts as zero; a gap with a month or year part fails the query. -#}
{% macro _sw_dynamic_gap_rows(relation, time_col, gap, keys, key_aliases, input_columns='__sw_source.*', mode=none) -%}
    {%- set epoch = "cast('1970-01-01 00:00:00' as timestamp_ntz)" -%}
    select
        __sw_row,
        {%- for alias in key_aliases %}
        {{ alias }},
        {%- endfor %}
        __sw_ts,
        greatest(
            cast(extract(day from __sw_gap_span) as bigint) * 86400000000
            + cast(extract(hour from __sw_gap_span) as bigint) * 3600000000
            + cast(extract(minute from __sw_gap_span) as bigint) * 60000000
            + cast(extract(second from __sw_gap_span) * 1000000 as bigint),
            0
        ) as __sw_gap_us
    from (
        select
            __sw_row,
            {%- for alias in key_aliases %}
            {{ alias }},
            {%- endfor %}
            __sw_ts,
            case
                when lower(cast(__sw_gap as string)) rlike 'year|month' then raise_error(concat(
                    'spark_windows.session: gap (', cast(__sw_gap as string), ') of a row has a month or year part; ',
                    'months and years have no fixed length: give the gap in days, hours, minutes, seconds or milliseconds'
                ))
                else ({{ epoch }} + __sw_gap) - {{ epoch }}
            end as __sw_gap_span
        from (
            select
                struct({{ input_columns }}) as __sw_row,
                {%- for key in keys %}
                {{ key }} as {{ key_aliases[loop.index0] }},
                {%- endfor %}
                {{ spark_windows._sw_time_us(time_col, mode) }} as __sw_ts,
                (
                    {{ gap }}
                ) as __sw_gap
            from {{ relation }} as __sw_source
            where {{ time_col }} is not null
        ) as __sw_gap_rows
        where __sw_gap is not null
    ) as __sw_spans
{%- endmacro %}
