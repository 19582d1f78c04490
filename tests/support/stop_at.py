"""Stops a dbt run of this process at a chosen statement, as a kill at that point would."""

from __future__ import annotations

import re

import pytest


def is_script(sql: str) -> bool:
    """Whether `sql` is a SQL script (BEGIN ... END), after the comment dbt puts before a query."""
    return re.match(r"\s*(/\*.*?\*/\s*)?BEGIN\b", sql, re.DOTALL | re.IGNORECASE) is not None


def cut_script(script: str, position: int, message: str) -> str:
    """`script` (a SQL script, BEGIN ... END) with `select raise_error(message)` put before the
    statement that holds `position`: Spark runs the statements before it, then fails, as a kill
    there would leave them. A statement starts on the line after one that ends with `;`, `BEGIN`
    or `THEN` (how the runs write their scripts)."""
    lines = script[:position].split("\n")
    start = len(lines) - 1
    while start > 0 and not re.search(r"(;|\bBEGIN|\bTHEN)\s*$", lines[start - 1]):
        start -= 1
    offset = sum(len(line) + 1 for line in lines[:start])
    quoted = message.replace("\\", "\\\\").replace("'", "\\'")
    return f"{script[:offset]}select raise_error('{quoted}');\n{script[offset:]}"


class StopAt:
    """Stops the dbt runs of this process at the `occurrence`-th statement on model `name`'s
    tables that matches `pattern`, before Spark runs it. The statement raises, and dbt-spark runs
    no rollback, so the tables are left as a run killed at that point leaves them. Inside a SQL
    script (a run's writes on Spark 4.1 and newer) the script is cut there instead: its
    statements before the match run, then it fails (cut_script). The Spark settings a run swaps
    and gives back after are given back here, as a new Spark would start."""

    def __init__(self, warehouse, name: str, pattern: str, occurrence: int = 1):
        self.warehouse = warehouse
        self.name = name
        self.pattern = re.compile(pattern, re.IGNORECASE | re.DOTALL)
        self.occurrence = occurrence
        self.seen = 0

    def __enter__(self):
        from dbt.adapters.spark.connections import SparkConnectionManager
        from dbt_common.exceptions import DbtRuntimeError

        self.settings = dict(self.warehouse.rows("set"))
        original = SparkConnectionManager.add_query

        def add_query(manager, sql, *args, **kwargs):
            match = self.pattern.search(sql) if self.name in sql else None
            if match:
                self.seen += 1
                if self.seen == self.occurrence:
                    if is_script(sql):
                        sql = cut_script(sql, match.start(), f"stopped by the test before: {match.group(0)}")
                    else:
                        raise DbtRuntimeError(f"stopped by the test before: {sql}")
            return original(manager, sql, *args, **kwargs)

        self.patch = pytest.MonkeyPatch()
        self.patch.setattr(SparkConnectionManager, "add_query", add_query)
        return self

    def __exit__(self, *exc):
        self.patch.undo()
        after = dict(self.warehouse.rows("set"))
        for key, value in after.items():
            if key not in self.settings:
                self.warehouse.rows(f"reset {key}")
            elif self.settings[key] != value:
                self.warehouse.rows(f"set {key}={self.settings[key]}")
        assert self.seen >= self.occurrence, f"no run reached statement {self.occurrence} matching {self.pattern}"
