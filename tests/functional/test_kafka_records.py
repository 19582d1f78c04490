"""Slow tests of kafka_records on the test session's Spark: values worked out by hand (decoded,
malformed, not objects, tombstones, keys), and the malformed_values_at_most data test failing on
the landed orders example when the limit is below its two malformed records."""

from __future__ import annotations

import pytest

from dev.dbt_harness import run_dbt

pytestmark = pytest.mark.slow

LANDED = "__sw_kafka_landed"
ERROR = "value is not a JSON object matching value_schema: "
# (offset, key, value): None is a NULL key or value
RECORDS = [
    (0, "k0", '{"a": 1, "b": "x", "c": [1, 2]}'),
    (1, "k1", '{"a": 2, "extra": true}'),
    (2, "k2", "{}"),
    (3, "k3", '{"a": "one", "b": "y"}'),
    (4, "k4", "not json"),
    (5, "k5", '{"a": 3, "b": '),
    (6, "k6", "null"),
    (7, "k7", "42"),
    (8, None, None),
    (9, "k9", '{"a": 2147483648}'),
]


def load(spark):
    def literal(text):
        return "cast(null as binary)" if text is None else "cast('" + text.replace("'", "''") + "' as binary)"

    values = ", ".join(
        f"({literal(key)}, {literal(value)}, 'orders', 0, cast({offset} as bigint), "
        f"timestamp_micros({offset} * 1000000), 0)"
        for offset, key, value in RECORDS
    )
    spark.sql(
        f"create or replace temp view {LANDED} as select * from values {values} "
        "as t(key, value, topic, `partition`, `offset`, `timestamp`, timestampType)"
    )
    return LANDED


def test_values_decode_or_are_kept_with_the_reason(spark, renderer):
    sql = renderer.call("kafka_records", load(spark), "a int, b string, c array<int>")
    rows = spark.sql(
        f"select `offset`, key, unix_micros(rowtime), a, b, c, value_error from {sql} order by `offset`"
    ).collect()
    assert [tuple(row) for row in rows] == [
        (0, "k0", 0, 1, "x", [1, 2], None),
        (1, "k1", 1_000_000, 2, None, None, None),  # a field not in the schema is ignored
        (2, "k2", 2_000_000, None, None, None, None),  # missing fields are NULL
        (3, "k3", 3_000_000, None, None, None, ERROR + '{"a": "one", "b": "y"}'),  # "one" is no int
        (4, "k4", 4_000_000, None, None, None, ERROR + "not json"),
        (5, "k5", 5_000_000, None, None, None, ERROR + '{"a": 3, "b": '),
        (6, "k6", 6_000_000, None, None, None, ERROR + "null"),  # JSON, but no object
        (7, "k7", 7_000_000, None, None, None, ERROR + "42"),
        (8, None, 8_000_000, None, None, None, None),  # a tombstone is not an error
        (9, "k9", 9_000_000, None, None, None, ERROR + '{"a": 2147483648}'),  # beyond int
    ]


def test_output_columns_keys_and_kept_columns(spark, renderer):
    view = load(spark)
    sql = renderer.call("kafka_records", view, "a int", "json", "binary")
    frame = spark.sql(f"select * from {sql}")
    assert [(f.name, f.dataType.simpleString()) for f in frame.schema.fields] == [
        ("key", "binary"),
        ("topic", "string"),
        ("partition", "int"),
        ("offset", "bigint"),
        ("rowtime", "timestamp"),
        ("timestamp_type", "int"),
        ("a", "int"),
        ("value_error", "string"),
    ]
    with_landing = f"(select *, `timestamp` + interval 1 minute as landed_at from {view})"
    sql = renderer.call("kafka_records", with_landing, "a int", "json", "none", None, ["landed_at"])
    assert spark.sql(f"select * from {sql}").columns == [
        "topic",
        "partition",
        "offset",
        "rowtime",
        "timestamp_type",
        "landed_at",
        "a",
        "value_error",
    ]
    spark.sql(
        "create or replace temp view __sw_kafka_keys as select * from values "
        "(cast('{\"id\": 7}' as binary), cast('{\"a\": 1}' as binary), 'orders', 0, cast(0 as bigint), "
        "timestamp_micros(0), 0) as t(key, value, topic, `partition`, `offset`, `timestamp`, timestampType)"
    )
    sql = renderer.call("kafka_records", "__sw_kafka_keys", "a int", "json", "json", "id bigint")
    assert [tuple(row) for row in spark.sql(f"select key.id, a from {sql}").collect()] == [(7, 1)]


def test_malformed_values_at_most_fails_when_the_topic_has_more_than_allowed(warehouse, dbt_target):
    # the example has two malformed records and allows two; allowing one must fail that test only
    result = run_dbt(
        [
            "test",
            "--target",
            dbt_target,
            "--select",
            "kafka_orders_records",
            "--vars",
            "{kafka_orders_max_malformed: 1}",
        ],
        expect_pass=False,
    )
    failed = sorted(row.node.name for row in result.result.results if str(row.status) == "fail")
    assert len(failed) == 1 and failed[0].startswith("spark_windows_malformed_values_at_most_kafka_orders_records")
    run_dbt(["test", "--target", dbt_target, "--select", "kafka_orders_records"])
