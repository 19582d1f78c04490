{#- spark_windows._sw_ddl_fields(schema, macro_name, arg_name): reads a Spark DDL schema string such
    as 'order_id string, price double, tags array<string>' at compile time, so a typo is a compile
    error that names the field, not a Spark error at run time. Returns [{name, type, quoted}].
    Accepts `name type` or `name: type` items separated by commas outside <...> and (...), names of
    letters, digits and underscores (or in backticks), and types whose first word is a Spark type. -#}
{% macro _sw_ddl_fields(schema, macro_name, arg_name) %}
    {%- set types = [
        'boolean', 'tinyint', 'byte', 'smallint', 'short', 'int', 'integer', 'bigint', 'long',
        'float', 'real', 'double', 'decimal', 'dec', 'numeric', 'string', 'varchar', 'char',
        'binary', 'date', 'timestamp', 'timestamp_ntz', 'timestamp_ltz', 'array', 'map', 'struct',
        'variant',
    ] -%}
    {%- set example = "'order_id string, customer_id int, price double'" -%}
    {%- if schema is not string or schema.strip() == '' -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": " ~ arg_name ~ " (" ~ schema ~ ") must be a Spark DDL schema string, such as " ~ example) }}
    {%- endif -%}
    {#- DDL quotes names in backticks only; <...> and (...) nest, and a comma at depth 0 ends a field -#}
    {%- set scan = spark_windows._sw_scan_sql(schema, quotes='`', brackets='()<>', comments=false) -%}
    {%- if scan.depth != 0 or scan.quote is not none -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": " ~ arg_name ~ " ('" ~ schema ~ "') has unbalanced <>, () or backticks; expected a Spark DDL schema such as " ~ example) }}
    {%- endif -%}
    {%- set fields = [] -%}
    {%- set seen = [] -%}
    {%- for item in spark_windows._sw_split_at_commas(schema, scan.commas) -%}
        {%- set match = modules.re.fullmatch('\\s*(`[^`]+`|[A-Za-z_][A-Za-z0-9_]*)\\s*:?\\s+([A-Za-z_]+)(.*?)\\s*', item) -%}
        {%- if not match -%}
            {{ exceptions.raise_compiler_error(
                macro_name ~ ": " ~ arg_name ~ " item '" ~ item.strip() ~ "' is not 'name type'; expected a Spark DDL schema such as " ~ example) }}
        {%- endif -%}
        {%- set type_name = match.group(2).lower() -%}
        {%- if type_name not in types -%}
            {{ exceptions.raise_compiler_error(
                macro_name ~ ": " ~ arg_name ~ " field '" ~ match.group(1) ~ "' has the type '" ~ match.group(2)
                ~ "', which is not a Spark type; accepted: " ~ types | join(', ')) }}
        {%- endif -%}
        {%- set field_name = match.group(1).strip('`') -%}
        {%- if field_name.lower() in seen -%}
            {{ exceptions.raise_compiler_error(
                macro_name ~ ": " ~ arg_name ~ " names the field '" ~ field_name ~ "' twice") }}
        {%- endif -%}
        {%- do seen.append(field_name.lower()) -%}
        {%- do fields.append({'name': field_name, 'type': (match.group(2) ~ match.group(3)).strip(), 'quoted': '`' ~ field_name ~ '`'}) -%}
    {%- endfor -%}
    {{ return(fields) }}
{% endmacro %}
