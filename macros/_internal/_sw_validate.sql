{#- Argument checks shared by the public macros. Each raises a compile error that names the
    macro, the argument, the value received and what is accepted.

    Nothing a macro renders may reach beyond its own place in the SQL: column arguments must be
    column names (_sw_is_column_name), and the arguments that are SQL by design (a string
    relation, order terms, aggregate calls, a session's gap expression) must be self-contained
    expressions (_sw_require_expression). -#}

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


{% macro _sw_require_column(value, macro_name, arg_name) %}
    {%- if value is not string or value.strip() == '' -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": " ~ arg_name ~ " (" ~ (value if value is not string else "'" ~ value ~ "'")
            ~ ") must be a column name given as a non-empty string, such as 'event_ts'") }}
    {%- endif -%}
    {%- if not spark_windows._sw_is_column_name(value) -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": " ~ arg_name ~ " ('" ~ value ~ "') is not a column name; expected a column name such as 'event_ts': "
            ~ spark_windows._sw_column_name_rule() ~ ". Compute other values in a CTE first") }}
    {%- endif -%}
{% endmacro %}


{#- Returns the list of column names, [] for none. A bare string is refused, not split into
    letters. With names=false the items may be anything non-blank (the caller checks them). -#}
{% macro _sw_column_list(value, macro_name, arg_name, names=true) %}
    {%- if value is none -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set is_list = value is iterable and value is not string and value is not mapping -%}
    {%- if not is_list or (value | select('string') | map('trim') | select | list | length) != (value | list | length) -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": " ~ arg_name ~ " (" ~ (value if value is not string else "'" ~ value ~ "'")
            ~ ") must be a list of column names, such as ['user_id'] or ['tenant', 'user_id']") }}
    {%- endif -%}
    {%- for item in value if names and not spark_windows._sw_is_column_name(item) -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": " ~ arg_name ~ " item ('" ~ item ~ "') is not a column name; expected a list of column names, "
            ~ "such as ['user_id'] or ['tenant', 'user_id'], each " ~ spark_windows._sw_column_name_rule()
            ~ ". Compute other values in a CTE first") }}
    {%- endfor -%}
    {{ return(value | list) }}
{% endmacro %}


{#- Checks that the SQL text `value` (a string) stays within its own expression: outside string
    literals ('...', "...", a backslash escaping the next character), quoted names (`...`) and
    comments, its parentheses balance and never close more than they opened, it holds no `;`,
    every quote is closed, and every comment ends inside it (a -- comment at a line break, a
    /* comment at */), so it cannot hide what the macro writes after it. `accepted` says what
    the argument is, for the message; `shown` is the value to show when `value` is part of it. -#}
{% macro _sw_require_expression(value, macro_name, arg_name, accepted, shown=none) %}
    {%- set state = namespace(quote=none, comment=none, escaped=false, depth=0, previous='', problem=none) -%}
    {%- for char in value if state.problem is none -%}
        {%- set pair = state.previous ~ char -%}
        {%- set state.previous = char -%}
        {%- if state.comment == '--' -%}
            {%- if char == '\n' -%}
                {%- set state.comment = none -%}
            {%- endif -%}
        {%- elif state.comment == '/*' -%}
            {%- if pair == '*/' -%}
                {%- set state.comment = none -%}
                {%- set state.previous = '' -%}
            {%- endif -%}
        {%- elif state.quote is not none -%}
            {%- if state.escaped -%}
                {%- set state.escaped = false -%}
            {%- elif char == '\\' and state.quote != '`' -%}
                {%- set state.escaped = true -%}
            {%- elif char == state.quote -%}
                {%- set state.quote = none -%}
                {%- set state.previous = '' -%}
            {%- endif -%}
        {%- elif pair in ['--', '/*'] -%}
            {%- set state.comment = pair -%}
            {%- set state.previous = '' -%}
        {%- elif pair == '*/' -%}
            {%- set state.problem = "closes a comment (*/) it did not open" -%}
        {%- elif char in ["'", '"', '`'] -%}
            {%- set state.quote = char -%}
        {%- elif char == '(' -%}
            {%- set state.depth = state.depth + 1 -%}
        {%- elif char == ')' -%}
            {%- set state.depth = state.depth - 1 -%}
            {%- if state.depth < 0 -%}
                {%- set state.problem = "closes a parenthesis it did not open" -%}
            {%- endif -%}
        {%- elif char == ';' -%}
            {%- set state.problem = "holds a ';'" -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if state.problem is none and state.comment == '--' -%}
        {%- set state.problem = "ends inside a -- comment (end it with a line break)" -%}
    {%- elif state.problem is none and state.comment == '/*' -%}
        {%- set state.problem = "leaves a /* comment open" -%}
    {%- elif state.problem is none and state.quote is not none -%}
        {%- set state.problem = "leaves a quote (" ~ state.quote ~ ") open" -%}
    {%- elif state.problem is none and state.depth > 0 -%}
        {%- set state.problem = "leaves a parenthesis open" -%}
    {%- endif -%}
    {%- if state.problem is not none -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": " ~ arg_name ~ " ('" ~ (value if shown is none else shown) ~ "') " ~ state.problem ~ "; it must be one self-contained SQL "
            ~ "expression (balanced parentheses, closed quotes and comments, no ';'): " ~ accepted) }}
    {%- endif -%}
{% endmacro %}
