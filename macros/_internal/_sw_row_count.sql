{#- spark_windows._sw_row_count(value, macro_name, arg_name): a number of rows (count_window's size and
    slide). Accepts a positive integer only: not a string, a float, a boolean or zero. -#}
{% macro _sw_row_count(value, macro_name, arg_name) %}
    {%- if value is boolean or value is not integer or value < 1 -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": " ~ arg_name ~ " (" ~ (value if value is not string else "'" ~ value ~ "'")
            ~ ") must be a positive integer number of rows, such as 100 (a number, not a string)") }}
    {%- endif -%}
    {{ return(value) }}
{% endmacro %}
