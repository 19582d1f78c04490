"""window_aggregate's plan from Spark's own statistics: a table of the test session, analyzed,
read by the macros' DESCRIBE queries as dbt's run_query returns their rows. The fast tests
(tests/unit/test_window_aggregate_plan_choice.py) check each rule on rows written like these;
this one checks that Spark prints them so."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from dev.macro_renderer import MacroRenderer, Relation

pytestmark = pytest.mark.slow

SUMS = {"n": "count(*)", "total": "sum(v)"}
HOP = {"type": "hop", "slide": "30 minutes", "size": "3 hours"}

# 14,400 rows, one every 6 seconds of 2024-03-01 (00:00:00 to 23:59:54: 47 whole slides of 30
# minutes and one more, 48), k in 8 values, v in 100: 14,400 / (8 x 48) = 37.5 rows per key and
# slide; by k and v, at most 800 groups: 0.375
ROWS = """
    select cast(id % 8 as string) as k, cast(id % 100 as int) as v,
           timestamp_micros(1709251200000000 + id * 6000000) as ts
    from range(14400)
"""


@pytest.fixture(scope="module")
def table(spark, warehouse):
    name = f"{warehouse.schema}.sw_plan_statistics"
    spark.sql(f"drop table if exists {name}")
    spark.sql(f"create table {name} using parquet as {ROWS}")
    yield name
    spark.sql(f"drop table if exists {name}")


def renderer_on(spark) -> MacroRenderer:
    """The project's macros, whose run_query sends its query to the test session, and whose
    adapter finds a table's columns with the table's statistics as dbt-spark does: the
    `Statistics` row of DESCRIBE TABLE EXTENDED, parsed by dbt-spark's SparkColumn."""
    from dbt.adapters.spark.column import SparkColumn

    def rows(sql):
        return [tuple(r) for r in spark.sql(sql).collect()]

    def columns(relation):
        described = rows(f"describe table extended {relation}")
        stats = SparkColumn.convert_table_stats(next((r[1] for r in described if r[0] == "Statistics"), None))
        names = [r for r in described[: [r[0] for r in described].index("")]]
        return [SimpleNamespace(name=name, dtype=data_type, table_stats=stats) for name, data_type, _ in names]

    renderer = MacroRenderer()
    renderer.env.globals["run_query"] = lambda sql: SimpleNamespace(rows=rows(sql))
    renderer.env.globals["adapter"].get_columns_in_relation = columns
    return renderer


def plan_comment(spark, table: str, keys: list[str]) -> str:
    relation = Relation(table)  # its columns and statistics: from Spark
    sql = renderer_on(spark).call("window_aggregate", relation, "ts", HOP, keys, SUMS)
    return sql.split("\n", 1)[0]


def test_a_table_made_by_create_table_as_select_has_no_statistics_yet(spark, table):
    """CREATE TABLE AS SELECT leaves 0 rows and no column statistics: unknown, one phase."""
    assert plan_comment(spark, table, ["k"]) == "/* window_aggregate plan: one_phase (6 windows per row) */"


def test_an_analyzed_table_gives_its_rows_per_group_and_slide(spark, table):
    spark.sql(f"analyze table {table} compute statistics for columns ts, k, v")
    assert (
        plan_comment(spark, table, ["k"])
        == "/* window_aggregate plan: two_phase (6 windows per row; 37.5 rows per group and slide) */"
    )
    assert (
        plan_comment(spark, table, ["k", "v"])
        == "/* window_aggregate plan: one_phase (6 windows per row; 0.4 rows per group and slide) */"
    )
