{#- Argument checks shared by the public macros. Each raises a compile error that names the
    macro, the argument, the value received and what is accepted. Given a list as `errors`, a
    check appends its message there and returns none instead, so a caller can report every
    problem of a config at once. -#}

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
{% endmacro %}


{% macro _sw_require_column(value, macro_name, arg_name, errors=none) %}
    {%- if value is not string or value.strip() == '' -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": " ~ arg_name ~ " (" ~ (value if value is not string else "'" ~ value ~ "'")
            ~ ") must be a column name given as a non-empty string, such as 'event_ts'", errors)) }}
    {%- endif -%}
{% endmacro %}


{#- Returns the list of column names, [] for none. A bare string is refused, not split into letters. -#}
{% macro _sw_column_list(value, macro_name, arg_name, errors=none) %}
    {%- if value is none -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set is_list = value is iterable and value is not string and value is not mapping -%}
    {%- if not is_list or (value | select('string') | map('trim') | select | list | length) != (value | list | length) -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": " ~ arg_name ~ " (" ~ (value if value is not string else "'" ~ value ~ "'")
            ~ ") must be a list of column names, such as ['user_id'] or ['tenant', 'user_id']", errors)) }}
    {%- endif -%}
    {{ return(value | list) }}
{% endmacro %}
