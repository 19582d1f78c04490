"""Fast tests of kafka_records and the malformed_values_at_most data test: rendered with plain
Jinja, checked with sqlglot; every bad argument is a compile error saying what is accepted."""

from __future__ import annotations

import itertools

import pytest

from dev.macro_renderer import CompilerError, MacroRenderer, output_names, parse

pytestmark = pytest.mark.fast

SCHEMAS = {
    "order_id string, customer_id int, price double": ["order_id", "customer_id", "price"],
    "id: bigint, `product id` string, amount decimal(10, 2)": ["id", "product id", "amount"],
    "o struct<a: int, b: array<string>>, tags map<string, int>, at timestamp": ["o", "tags", "at"],
    "note string": ["note"],
}
KAFKA = ["topic", "partition", "offset", "rowtime", "timestamp_type"]


@pytest.mark.parametrize(
    "schema, key_format, keep, relation",
    list(
        itertools.product(
            SCHEMAS, ["string", "binary", "none", "JSON"], [None, ["landed_at"]], ["landed", "(select * from raw)"]
        )
    ),
    ids=repr,
)
def test_kafka_records_renders_spark_sql_with_the_record_columns(renderer, schema, key_format, keep, relation):
    key_schema = "k string" if key_format == "JSON" else None
    sql = renderer.call("kafka_records", relation, schema, "json", key_format, key_schema, keep)
    key = [] if key_format == "none" else ["key"]
    assert output_names(sql) == [*key, *KAFKA, *(keep or []), *SCHEMAS[schema], "value_error"]


def test_the_schema_string_is_passed_to_from_json_with_the_corrupt_record_field(renderer):
    sql = renderer.call("kafka_records", "landed", "note string, n int")
    assert (
        "from_json(cast(__sw_landed.value as string), 'note string, n int, __sw_corrupt string', map('columnNameOfCorruptRecord', '__sw_corrupt', 'mode', 'PERMISSIVE'))"
        in sql
    )


SCHEMA_ERROR = "must be a Spark DDL schema string, such as 'order_id string, customer_id int, price double'"
BAD_CALLS = [
    (("", "a int"), "kafka_records: relation is empty"),
    (("landed", None), f"kafka_records: value_schema (None) {SCHEMA_ERROR}"),
    (("landed", "  "), "kafka_records: value_schema (  ) must be a Spark DDL schema string"),
    (
        ("landed", "price dubble"),
        "kafka_records: value_schema field 'price' has the type 'dubble', which is not a Spark type; accepted: boolean,",
    ),
    (("landed", "a int,, b int"), "kafka_records: value_schema item '' is not 'name type'"),
    (
        ("landed", "order id string"),
        "kafka_records: value_schema field 'order' has the type 'id', which is not a Spark type",
    ),
    (("landed", "a int, A string"), "kafka_records: value_schema names the field 'A' twice"),
    (
        ("landed", "a map<string, int"),
        "kafka_records: value_schema ('a map<string, int') has unbalanced <>, () or backticks",
    ),
    (
        ("landed", "rowtime timestamp"),
        "kafka_records: value_schema has the field 'rowtime', which is a column the output holds already",
    ),
    (("landed", "value_error string"), "value_schema has the field 'value_error'"),
    (("landed", "a int", "avro"), "kafka_records: value_format (avro) must be 'json'"),
    (("landed", "a int", None), "kafka_records: value_format (None) must be 'json'"),
    (
        ("landed", "a int", "json", "text"),
        "kafka_records: key_format (text) must be 'string' (the key's bytes as UTF-8 text), 'json' (with key_schema)",
    ),
    (("landed", "a int", "json", "json"), "kafka_records: key_schema (None) must be a Spark DDL schema string"),
    (
        ("landed", "a int", "json", "string", "k string"),
        "kafka_records: key_schema (k string) is only read with key_format='json', not 'string'",
    ),
    (
        ("landed", "a int", "json", "string", None, "landed_at"),
        "kafka_records: keep_columns ('landed_at') must be a list of column names",
    ),
    (
        ("landed", "a int", "json", "string", None, ["timestamp"]),
        "kafka_records: keep_columns has 'timestamp', a Kafka column that kafka_records decodes or renames",
    ),
]


@pytest.mark.parametrize("call, message", BAD_CALLS, ids=repr)
def test_bad_arguments_are_compile_errors_that_say_what_is_accepted(renderer, call, message):
    with pytest.raises(CompilerError) as error:
        renderer.call("kafka_records", *call)
    assert message in str(error.value)


def test_other_adapters_get_a_clear_error_from_the_default_branch():
    with pytest.raises(CompilerError) as error:
        MacroRenderer(adapter_type="postgres").call("kafka_records", "landed", "a int")
    assert "spark_windows.kafka_records has no implementation for the 'postgres' adapter" in str(error.value)


def render_test(renderer, **kwargs) -> str:
    """The generic test's SQL (dbt registers `{% test x %}` as the macro `test_x`)."""
    return renderer.call("test_malformed_values_at_most", "my_model", **kwargs)


def test_malformed_values_at_most_counts_non_null_errors_against_the_limit(renderer):
    sql = render_test(renderer, max_count=2)
    parse(sql)
    assert "where value_error is not null" in sql
    assert "where __sw_malformed_rows > __sw_max_count" in sql
    assert "2 as __sw_max_count" in sql
    assert "where bad_json is not null" in render_test(renderer, column="bad_json")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"max_count": -1}, "malformed_values_at_most: max_count (-1) must be a whole number of rows, 0 or more"),
        ({"max_count": "2"}, "malformed_values_at_most: max_count ('2') must be a whole number"),
        ({"max_count": 1.5}, "max_count (1.5) must be a whole number"),
        ({"column": ""}, "malformed_values_at_most: column ('') must be a column name"),
    ],
    ids=repr,
)
def test_malformed_values_at_most_bad_arguments(renderer, kwargs, message):
    with pytest.raises(CompilerError) as error:
        render_test(renderer, **kwargs)
    assert message in str(error.value)
