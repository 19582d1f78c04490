{#- Argument checks shared by the public macros. Each raises a compile error that names the
    macro, the argument, the value received and what is accepted. -#}

{% macro _sw_require_relation(relation, macro_name) %}
    {%- if relation is none or (relation is string and relation.strip() == '') -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": relation is empty; pass ref('...'), source('...', '...') or the name of a table or CTE") }}
    {%- endif -%}
{% endmacro %}


{% macro _sw_require_column(value, macro_name, arg_name) %}
    {%- if value is not string or value.strip() == '' -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": " ~ arg_name ~ " (" ~ (value if value is not string else "'" ~ value ~ "'")
            ~ ") must be a column name given as a non-empty string, such as 'event_ts'") }}
    {%- endif -%}
{% endmacro %}


{#- Returns the list of column names, [] for none. A bare string is refused, not split into letters. -#}
{% macro _sw_column_list(value, macro_name, arg_name) %}
    {%- if value is none -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set is_list = value is iterable and value is not string and value is not mapping -%}
    {%- if not is_list or (value | select('string') | map('trim') | select | list | length) != (value | list | length) -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": " ~ arg_name ~ " (" ~ (value if value is not string else "'" ~ value ~ "'")
            ~ ") must be a list of column names, such as ['user_id'] or ['tenant', 'user_id']") }}
    {%- endif -%}
    {{ return(value | list) }}
{% endmacro %}
