{#- kafka_records: Kafka records landed in a table with Spark's Kafka source schema (key, value,
    topic, partition, offset, timestamp, timestampType), decoded: the value's fields by a schema,
    the key, and the record timestamp as the event time `rowtime`; `keep_columns` passes the
    landing table's own columns through. A value that does not decode
    is kept, with its fields NULL and the reason in `value_error`. -#}
{% macro kafka_records(relation, value_schema, value_format='json', key_format='string', key_schema=none, keep_columns=none) -%}
    {{ return(adapter.dispatch('kafka_records', 'spark_windows')(relation, value_schema, value_format, key_format, key_schema, keep_columns)) }}
{%- endmacro %}


{% macro default__kafka_records(relation, value_schema, value_format='json', key_format='string', key_schema=none, keep_columns=none) -%}
    {{ spark_windows._sw_unsupported_adapter('kafka_records') }}
{%- endmacro %}


{% macro spark__kafka_records(relation, value_schema, value_format='json', key_format='string', key_schema=none, keep_columns=none) -%}
    {%- set name = 'kafka_records' -%}
    {%- do spark_windows._sw_require_relation(relation, name) -%}
    {%- if value_format is not string or value_format.lower() != 'json' -%}
        {{ exceptions.raise_compiler_error(
            name ~ ": value_format (" ~ value_format ~ ") must be 'json' (a JSON object per record, decoded with the schema). "
            ~ "Avro and Protobuf need Spark's from_avro/from_protobuf jars and a schema registry's 5-byte header removed: "
            ~ "decode them in the landing job, or land them as JSON") }}
    {%- endif -%}
    {%- set value_fields = spark_windows._sw_ddl_fields(value_schema, name, 'value_schema') -%}
    {%- set key_kind = key_format.lower() if key_format is string else key_format -%}
    {%- if key_kind not in ['string', 'json', 'binary', 'none'] -%}
        {{ exceptions.raise_compiler_error(
            name ~ ": key_format (" ~ key_format ~ ") must be 'string' (the key's bytes as UTF-8 text), 'json' (with key_schema), "
            ~ "'binary' (the bytes unchanged) or 'none' (no key column)") }}
    {%- endif -%}
    {%- if key_kind == 'json' -%}
        {%- set key_fields = spark_windows._sw_ddl_fields(key_schema, name, 'key_schema') -%}
    {%- elif key_schema is not none -%}
        {{ exceptions.raise_compiler_error(
            name ~ ": key_schema (" ~ key_schema ~ ") is only read with key_format='json', not '" ~ key_format ~ "'") }}
    {%- endif -%}
    {%- set kept = spark_windows._sw_column_list(keep_columns, name, 'keep_columns') -%}
    {%- set taken = ['key', 'topic', 'partition', 'offset', 'rowtime', 'timestamp_type', 'value_error'] -%}
    {%- for column in kept -%}
        {%- if column.strip('`').lower() in taken + ['value', 'timestamp', 'timestamptype', 'headers'] -%}
            {{ exceptions.raise_compiler_error(
                name ~ ": keep_columns has '" ~ column ~ "', a Kafka column that kafka_records decodes or renames; "
                ~ "keep_columns is for the landing table's own columns, such as ['landed_at']") }}
        {%- endif -%}
    {%- endfor -%}
    {%- for field in value_fields -%}
        {%- if field.name.lower() in taken or field.name.lower().startswith('__sw') -%}
            {{ exceptions.raise_compiler_error(
                name ~ ": value_schema has the field '" ~ field.name ~ "', which is a column the output holds already ("
                ~ taken | join(', ') ~ "); rename it in a select over the result, or choose another name in the schema") }}
        {%- endif -%}
    {%- endfor -%}
    {%- set json_options = "map('columnNameOfCorruptRecord', '__sw_corrupt', 'mode', 'PERMISSIVE')" -%}
(
    select
        {%- if key_kind == 'string' %}
        cast(__sw_decoded.key as string) as key,
        {%- elif key_kind == 'binary' %}
        __sw_decoded.key as key,
        {%- elif key_kind == 'json' %}
        from_json(cast(__sw_decoded.key as string), '{{ key_schema | replace("'", "\\'") }}') as key,
        {%- endif %}
        __sw_decoded.topic as topic,
        __sw_decoded.`partition` as `partition`,
        __sw_decoded.`offset` as `offset`,
        __sw_decoded.`timestamp` as rowtime,
        __sw_decoded.timestampType as timestamp_type,
        {%- for column in kept %}
        __sw_decoded.{{ column }},
        {%- endfor %}
        {%- for field in value_fields %}
        case when not __sw_decoded.__sw_malformed then __sw_decoded.__sw_value.{{ field.quoted }} end as {{ field.quoted }},
        {%- endfor %}
        case
            when __sw_decoded.__sw_malformed
                then concat('value is not a JSON object matching value_schema: ', left(cast(__sw_decoded.value as string), 200))
        end as value_error
    from (
        {#- malformed: a value that is not JSON, does not fit the schema (the corrupt-record field
            is set), or parses to no object at all (a JSON null, a bare number) -#}
        select
            *,
            __sw_parsed.value is not null and (__sw_parsed.__sw_value is null or __sw_parsed.__sw_value.__sw_corrupt is not null) as __sw_malformed
        from (
            select
                __sw_landed.*,
                from_json(cast(__sw_landed.value as string), '{{ (value_schema ~ ', __sw_corrupt string') | replace("'", "\\'") }}', {{ json_options }}) as __sw_value
            from {{ relation }} as __sw_landed
        ) as __sw_parsed
    ) as __sw_decoded
)
{%- endmacro %}
