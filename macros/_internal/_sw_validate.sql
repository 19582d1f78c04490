{#- Argument checks shared by the public macros. Each raises a compile error that names the
    macro, the argument, the value received and what is accepted. Given a list as `errors`, a
    check appends its message there and returns none instead, so a caller can report every
    problem of a config at once.

    Nothing a macro renders may reach beyond its own place in the SQL: column arguments must be
    column names (_sw_is_column_name), and the arguments that are SQL by design (a string
    relation, order terms, aggregate calls, a session's gap expression) must be self-contained
    expressions (_sw_require_expression). -#}

{% macro _sw_refuse(message, errors=none) %}
    {%- if errors is none -%}
        {{ exceptions.raise_compiler_error(message) }}
    {%- endif -%}
    {%- do errors.append(message) -%}
    {{ return(none) }}
{% endmacro %}


{% macro _sw_require_relation(relation, macro_name) %}
    {%- if relation is none or (relation is string and relation.strip() == '') -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": relation is empty; pass ref('...'), source('...', '...') or the name of a table or CTE") }}
    {%- endif -%}
    {#- a string is a table or CTE name, or one parenthesized query: nothing may follow it -#}
    {%- set accepted = "ref('...'), source('...', '...'), the name of a table or CTE (events, `db`.`events`), "
        ~ "or one query in parentheses ((select * from events where ...))" -%}
    {%- set text = relation.strip() if relation is string else '' -%}
    {%- if relation is string and not spark_windows._sw_is_column_name(text) -%}
        {%- if not (text.startswith('(') and text.endswith(')')) -%}
            {{ exceptions.raise_compiler_error(
                macro_name ~ ": relation ('" ~ relation ~ "') is neither a table name nor a query in parentheses; expected " ~ accepted) }}
        {%- endif -%}
        {#- the inside must balance on its own, so the first parenthesis closes at the end -#}
        {%- do spark_windows._sw_require_expression(text[1:-1], macro_name, 'relation', accepted, shown=relation) -%}
    {%- endif -%}
{% endmacro %}


{#- What a column argument accepts, for the messages. -#}
{% macro _sw_column_name_rule() %}
    {{ return("letters, digits and underscores, not starting with a digit, or any name in backticks "
        ~ "(`event time`), optionally after a table name and a dot (e.event_ts)") }}
{% endmacro %}


{#- True when `value` is a column reference: one or more parts separated by dots, each a plain
    name ([A-Za-z_][A-Za-z0-9_]*) or a name in backticks (a backtick inside it doubled). -#}
{% macro _sw_is_column_name(value) %}
    {%- set part = '(?:[A-Za-z_][A-Za-z0-9_]*|`(?:[^`]|``)+`)' -%}
    {{ return(value is string and modules.re.fullmatch(part ~ '(?:[.]' ~ part ~ ')*', value.strip()) is not none) }}
{% endmacro %}


{% macro _sw_require_column(value, macro_name, arg_name, errors=none) %}
    {%- if value is not string or value.strip() == '' -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": " ~ arg_name ~ " (" ~ (value if value is not string else "'" ~ value ~ "'")
            ~ ") must be a column name given as a non-empty string, such as 'event_ts'", errors)) }}
    {%- endif -%}
    {%- if not spark_windows._sw_is_column_name(value) -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": " ~ arg_name ~ " ('" ~ value ~ "') is not a column name; expected a column name such as 'event_ts': "
            ~ spark_windows._sw_column_name_rule() ~ ". Compute other values in a CTE first", errors)) }}
    {%- endif -%}
{% endmacro %}


{#- Returns the list of column names, [] for none. A bare string is refused, not split into
    letters. With names=false the items may be anything non-blank (the caller checks them). -#}
{% macro _sw_column_list(value, macro_name, arg_name, names=true, errors=none) %}
    {%- if value is none -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set is_list = value is iterable and value is not string and value is not mapping -%}
    {%- if not is_list or (value | select('string') | map('trim') | select | list | length) != (value | list | length) -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": " ~ arg_name ~ " (" ~ (value if value is not string else "'" ~ value ~ "'")
            ~ ") must be a list of column names, such as ['user_id'] or ['tenant', 'user_id']", errors)) }}
    {%- endif -%}
    {%- for item in value if names and not spark_windows._sw_is_column_name(item) -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": " ~ arg_name ~ " item ('" ~ item ~ "') is not a column name; expected a list of column names, "
            ~ "such as ['user_id'] or ['tenant', 'user_id'], each " ~ spark_windows._sw_column_name_rule()
            ~ ". Compute other values in a CTE first", errors)) }}
    {%- endfor -%}
    {{ return(value | list) }}
{% endmacro %}


{#- Checks that the SQL text `value` (a string) stays within its own expression: outside string
    literals ('...', "...", a backslash escaping the next character), quoted names (`...`) and
    comments, its parentheses balance and never close more than they opened, it holds no `;`,
    every quote is closed, and every comment ends inside it (a -- comment at a line break, a
    /* comment at */), so it cannot hide what the macro writes after it (read by _sw_scan_sql).
    `accepted` says what the argument is, for the message; `shown` is the value to show when
    `value` is part of it. -#}
{% macro _sw_require_expression(value, macro_name, arg_name, accepted, shown=none) %}
    {%- set scan = spark_windows._sw_scan_sql(value) -%}
    {%- set stopped_by = {
        ')': "closes a parenthesis it did not open",
        ';': "holds a ';'",
        '*/': "closes a comment (*/) it did not open",
    } -%}
    {%- set problem = none -%}
    {%- if scan.stops -%}
        {%- set problem = stopped_by[scan.stops[0].what] -%}
    {%- elif scan.comment == '--' -%}
        {%- set problem = "ends inside a -- comment (end it with a line break)" -%}
    {%- elif scan.comment == '/*' -%}
        {%- set problem = "leaves a /* comment open" -%}
    {%- elif scan.quote is not none -%}
        {%- set problem = "leaves a quote (" ~ scan.quote ~ ") open" -%}
    {%- elif scan.depth > 0 -%}
        {%- set problem = "leaves a parenthesis open" -%}
    {%- endif -%}
    {%- if problem is not none -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": " ~ arg_name ~ " ('" ~ (value if shown is none else shown) ~ "') " ~ problem ~ "; it must be one self-contained SQL "
            ~ "expression (balanced parentheses, closed quotes and comments, no ';'): " ~ accepted) }}
    {%- endif -%}
{% endmacro %}


{#- What a public macro returns while dbt parses the project (`execute` is false): dbt reads
    only the ref(), source() and config() calls of a model then, and discards the SQL. The
    arguments are checked when the model is compiled, so a bad argument fails the models that
    hold it (dbt compile, run, build) and not the parsing of the whole project (dbt ls, dbt
    parse, and every other model), as dbt-utils checks its arguments under `if execute`. -#}
{% macro _sw_parse_placeholder() %}
    {{ return('(select 1 as __sw_parsing)') }}
{% endmacro %}


{#- True when `relation` is a relation object of a table or view (what ref() and source()
    return), not a string and not an ephemeral model (a CTE), as dbt-utils recognizes one. -#}
{% macro _sw_is_table(relation) %}
    {%- set is_relation = relation is mapping and relation.get('metadata', {}).get('type', '').endswith('Relation') -%}
    {{ return(is_relation and not relation.is_cte) }}
{% endmacro %}


{#- The table or view behind `relation`, a relation object: dbt renders a ref() or source() it
    filters (microbatch's event_time range, --sample) or limits (--empty) as a subquery, which
    Spark cannot describe; the same relation without the filter and the limit can be. -#}
{% macro _sw_unfiltered(relation) %}
    {{ return(relation.incorporate(event_time_filter=none, limit=none)) }}
{% endmacro %}


{#- The columns of `relation`, as (name, type) pairs, when the macro can know them at compile
    time: when it is a relation object (what ref() and source() return, filtered or not; not an
    ephemeral model) that exists in the warehouse. None otherwise: a string (a CTE, a query), or
    while dbt parses the project. -#}
{% macro _sw_describe(relation) %}
    {{ return(spark_windows._sw_describe_with_rows(relation).columns) }}
{% endmacro %}


{#- What the adapter finds of `relation` (see _sw_describe), in one lookup: {columns: its (name,
    type) pairs or none, rows: the row count Spark keeps for the table or none}. dbt-spark reads
    the row count with the columns (`table_stats`, from the `Statistics` row of DESCRIBE TABLE
    EXTENDED or of SHOW TABLE EXTENDED): it is there once the table is analyzed, and 0 where
    CREATE TABLE AS SELECT made the table and nothing analyzed it since. -#}
{% macro _sw_describe_with_rows(relation) %}
    {%- if not execute or not spark_windows._sw_is_table(relation) -%}
        {{ return({'columns': none, 'rows': none}) }}
    {%- endif -%}
    {%- set columns = adapter.get_columns_in_relation(spark_windows._sw_unfiltered(relation)) -%}
    {%- set described = [] -%}
    {%- for column in columns -%}
        {%- do described.append((column.name, (column.dtype or '') | lower)) -%}
    {%- endfor -%}
    {%- set stats = (columns[0].table_stats if columns and columns[0].table_stats is defined else none) or {} -%}
    {{ return({'columns': described if described else none, 'rows': stats.get('stats:rows:value') or none}) }}
{% endmacro %}


{#- The columns of `sql`, a query, as (name, lower-case type) pairs like _sw_describe's, from
    DESCRIBE QUERY: Spark analyses the query and reads no row. A query Spark cannot analyse fails
    here, with Spark's message naming what is wrong. -#}
{% macro _sw_describe_query(sql) %}
    {%- set columns = [] -%}
    {%- for row in run_query('describe query ' ~ sql).rows -%}
        {%- do columns.append((row[0] | string, row[1] | string | lower)) -%}
    {%- endfor -%}
    {{ return(columns) }}
{% endmacro %}


{#- The Spark type (lower case) of `sql`, an expression over the columns of `relation` (a table
    or view, as _sw_describe takes), none when Spark names none. -#}
{% macro _sw_expression_type(relation, sql) %}
    {%- set columns = spark_windows._sw_describe_query(
        'select (' ~ sql ~ ') as __sw_value from ' ~ spark_windows._sw_unfiltered(relation) ~ ' as __sw_source') -%}
    {{ return(columns[0][1] if columns else none) }}
{% endmacro %}


{#- The column a column reference names, without its table: `e.event_ts` -> `event_ts`,
    ``t.`event time` `` -> `` `event time` ``. -#}
{% macro _sw_column_name(reference) %}
    {{ return(modules.re.search('(`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_]*)$', reference.strip()).group(1)) }}
{% endmacro %}


{#- The column names of `relation` (see _sw_describe; none when unknown). Given `time_cols`, a
    mapping of argument name to column (such as {'time_col': 'event_ts'}), each of those columns
    that is among them must be of a time type (_sw_require_time_type). `described` is what
    _sw_describe returned for it, when the caller asked already (false: look it up). -#}
{% macro _sw_relation_columns(relation, macro_name=none, time_cols={}, described=false) %}
    {%- set described = spark_windows._sw_describe(relation) if described is false else described -%}
    {%- if described is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set types = spark_windows._sw_column_types(described) -%}
    {%- for arg_name, column in time_cols.items() -%}
        {%- do spark_windows._sw_require_time_type(relation, types, column, macro_name, arg_name) -%}
    {%- endfor -%}
    {{ return(described | map(attribute=0) | list) }}
{% endmacro %}


{#- Lower-case column name to Spark type, of _sw_describe's pairs (none: {}). -#}
{% macro _sw_column_types(described) %}
    {%- set types = {} -%}
    {%- for name, data_type in described or [] -%}
        {%- do types.update({name | lower: data_type}) -%}
    {%- endfor -%}
    {{ return(types) }}
{% endmacro %}


{#- A column name as _sw_column_types keys it: without its backticks (`` inside them is one `),
    in lower case. -#}
{% macro _sw_column_key(name) %}
    {%- set text = name.strip() -%}
    {{ return((text[1:-1].replace('``', '`') if text.startswith('`') else text) | lower) }}
{% endmacro %}


{#- Time columns must be timestamps where their type is known (`types`: lower-case column name
    to Spark type). timestamp_ntz and date are cast in the session time zone, as everywhere; any
    other type (a string, a number) is a compile error that names the column, its type and the
    cast to write: a string could hold anything, and dbt-spark's casts turn what does not convert
    into NULL. Where the type is not known, _sw_ts checks each value when the query runs. -#}
{% macro _sw_require_time_type(relation, types, column, macro_name, arg_name) %}
    {%- set text = column.strip() -%}
    {%- set key = spark_windows._sw_column_key(text) -%}
    {%- set data_type = types.get(key) -%}
    {%- if not data_type or data_type in ['timestamp', 'timestamp_ntz', 'date'] -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if data_type.startswith('string') or data_type.startswith('varchar') or data_type.startswith('char') -%}
        {%- set cast = "to_timestamp(" ~ text ~ ", 'yyyy-MM-dd HH:mm:ss') as " ~ key ~ "_ts, or cast(" ~ text ~ " as timestamp) for ISO 8601 text" -%}
    {%- elif data_type in ['tinyint', 'smallint', 'int', 'bigint', 'float', 'double'] or data_type.startswith('decimal') -%}
        {%- set cast = "timestamp_seconds(" ~ text ~ ") as " ~ key ~ "_ts for seconds since 1970 (timestamp_millis, timestamp_micros for smaller units)" -%}
    {%- else -%}
        {%- set cast = "cast(" ~ text ~ " as timestamp) as " ~ key ~ "_ts, if that is what it holds" -%}
    {%- endif -%}
    {{ exceptions.raise_compiler_error(
        macro_name ~ ": " ~ arg_name ~ " ('" ~ column ~ "') is a column of type " ~ data_type ~ " in " ~ relation
        ~ "; expected a timestamp (or timestamp_ntz, or date) column. Convert it in a CTE or the model that builds "
        ~ relation.identifier ~ " first, such as " ~ cast ~ ", and pass that column") }}
{% endmacro %}


{#- Checks that each of `names` (column names given for `arg_name`) is one of `columns`, the
    relation's columns (none: unknown, nothing to check). Names are compared without case, as
    Spark does; a qualified name (e.ts) is left to Spark. -#}
{% macro _sw_require_known_columns(relation, columns, names, macro_name, arg_name) %}
    {%- if columns is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set known = columns | map('lower') | list -%}
    {%- for name in names -%}
        {%- set text = name.strip() -%}
        {%- set plain = modules.re.fullmatch('[A-Za-z_][A-Za-z0-9_]*', text) is not none -%}
        {%- set quoted = modules.re.fullmatch('`(?:[^`]|``)+`', text) is not none -%}
        {%- set column = text if plain else (text[1:-1].replace('``', '`') if quoted else none) -%}
        {%- if column is not none and column.lower() not in known -%}
            {{ exceptions.raise_compiler_error(
                macro_name ~ ": " ~ arg_name ~ " ('" ~ name ~ "') is not a column of " ~ relation
                ~ "; expected one of its columns: " ~ columns | join(', ')) }}
        {%- endif -%}
    {%- endfor -%}
{% endmacro %}


{#- The input columns a table-valued macro returns: `alias`.* without the input's own columns
    named like the ones the macro adds (`added`, such as window_start, window_end and
    window_time), so windows of windows (a per-minute result grouped again into hours) have one
    set of window columns, the new one. `columns` are the input's columns (none: unknown). The
    others are listed by name (`* except (...)` is Spark 4 syntax; Spark 3.5 has no such form).
    With a string relation or an ephemeral model the macro cannot know them: when time_col is
    itself one of the added columns, the input surely holds one, and that is a compile error
    that says what to do. -#}
{% macro _sw_input_columns(alias, relation, columns, time_col, added, macro_name) %}
    {%- if columns is none -%}
        {%- if not spark_windows._sw_is_table(relation) and time_col.strip().strip('`').lower() in added -%}
            {{ exceptions.raise_compiler_error(
                macro_name ~ ": time_col ('" ~ time_col ~ "') is a window column of the input " ~ relation
                ~ ", so the input holds windows already and its " ~ added | join(', ') ~ " would collide with the new ones. "
                ~ "Pass the input as ref('...') or source('...', '...'): " ~ macro_name ~ " then replaces the input's window columns. "
                ~ "Or rename them first in a query that lists the columns it keeps, such as (select sensor_id, vehicles, " ~ time_col.strip()
                ~ " as minute_time from per_minute) with time_col 'minute_time'") }}
        {%- endif -%}
        {{ return(alias ~ '.*') }}
    {%- endif -%}
    {%- set kept = [] -%}
    {%- for column in columns if column.lower() not in added -%}
        {%- do kept.append(alias ~ '.`' ~ column | replace('`', '``') ~ '`') -%}
    {%- endfor -%}
    {%- if kept | length == columns | length -%}
        {{ return(alias ~ '.*') }}
    {%- endif -%}
    {%- if kept | length == 0 -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": the input " ~ relation ~ " has only window columns (" ~ columns | join(', ')
            ~ "), which the new windows replace, so no input column would be left; add a column to the input, such as (select "
            ~ time_col.strip() ~ " as minute_time from ...) with time_col 'minute_time'") }}
    {%- endif -%}
    {{ return(kept | join(', ')) }}
{% endmacro %}
