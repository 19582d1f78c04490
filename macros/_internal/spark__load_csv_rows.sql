{#-
    Seeds for this project's examples and tests. dbt-spark 1.11's own spark__load_csv_rows
    binds every value through Python string formatting in the `session` method: an empty CSV
    field becomes the string 'None', timestamps lose their microseconds and integers pass
    through float. This version writes each value as an exact SQL literal instead, so a seed
    holds what its CSV says. It applies where this project is the root project.
-#}
{% macro spark__load_csv_rows(model, agate_table) %}
    {%- set column_override = model['config'].get('column_types', {}) -%}
    {%- set statements = [] -%}
    {%- for chunk in agate_table.rows | batch(get_batch_size()) -%}
        {%- set sql -%}
            insert into {{ this.render() }} values
            {% for row in chunk -%}
                (
                {%- for col_name in agate_table.column_names -%}
                    {%- set type = column_override.get(col_name, adapter.convert_type(agate_table, loop.index0)) -%}
                    cast({{ spark_windows._sw_seed_literal(row[loop.index0]) }} as {{ type }})
                    {%- if not loop.last %}, {% endif -%}
                {%- endfor -%}
                ){%- if not loop.last %},{% endif %}
            {% endfor %}
        {%- endset -%}
        {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
        {%- if loop.first -%}
            {%- do statements.append(sql) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(statements[0] if statements else '') }}
{% endmacro %}


{% macro _sw_seed_literal(value) -%}
    {%- if value is none -%}
        null
    {%- elif value.isoformat is defined -%}
        '{{ value.isoformat(" ") if value.hour is defined else value.isoformat() }}'
    {%- else -%}
        '{{ (value | string) | replace("\\", "\\\\") | replace("'", "\\'") }}'
    {%- endif -%}
{%- endmacro %}
