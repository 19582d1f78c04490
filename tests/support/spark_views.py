"""Temp views of literal rows for the slow tests that run rendered macro SQL on Spark."""

from __future__ import annotations


def literal(value, kind: str, cast: bool = False) -> str:
    """A Spark SQL literal of `kind`; timestamps are given in microseconds, so no zone is involved.
    Other values are written bare (Spark types them: 5 is an int, 1.5 a decimal) or, with `cast`,
    as cast(value as kind)."""
    if value is None:
        return f"cast(null as {kind})"
    if kind == "string":
        return f"'{value}'"
    if kind == "timestamp":
        return f"timestamp_micros({value})"
    return f"cast({value} as {kind})" if cast else str(value)


def temp_view(spark, name: str, columns: dict[str, str], rows) -> str:
    """Creates (or replaces) temp view `name` holding `rows`, columns name -> kind; returns name."""
    if not rows:
        nulls = ", ".join(f"cast(null as {kind}) as {column}" for column, kind in columns.items())
        spark.sql(f"create or replace temp view {name} as select {nulls} where false")
        return name
    kinds = list(columns.values())
    values = ", ".join("(" + ", ".join(literal(value, kind) for value, kind in zip(row, kinds)) + ")" for row in rows)
    spark.sql(f"create or replace temp view {name} as select * from values {values} as rows({', '.join(columns)})")
    return name
