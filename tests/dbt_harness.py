"""Runs dbt in-process, so one Spark JVM serves a whole pytest session, and reads results."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from dbt.cli.main import dbtRunner, dbtRunnerResult

PROJECT_DIR = Path(__file__).resolve().parent.parent


class DbtFailed(AssertionError):
    """A dbt command that should have passed did not, or the other way round."""


def configure_environment(state_dir: Path, target: str) -> None:
    """Points dbt at this project's profiles and a private metastore and warehouse."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["DBT_PROFILES_DIR"] = str(PROJECT_DIR / "profiles")
    os.environ["SPARK_WINDOWS_STATE_DIR"] = str(state_dir)
    os.environ["SPARK_WINDOWS_TARGET"] = target
    os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")


def run_dbt(args: list[str], expect_pass: bool = True) -> dbtRunnerResult:
    """Runs `dbt <args>` in this process from the project directory."""
    cwd = os.getcwd()
    os.chdir(PROJECT_DIR)
    try:
        result = dbtRunner().invoke([*args, "--project-dir", str(PROJECT_DIR)])
    finally:
        os.chdir(cwd)
    if result.success != expect_pass:
        detail = result.exception or _failures(result)
        raise DbtFailed(
            f"dbt {' '.join(args)}: expected {'success' if expect_pass else 'failure'}, got "
            f"{'success' if result.success else 'failure'}: {detail}"
        )
    return result


def _failures(result: dbtRunnerResult) -> str:
    rows = getattr(result.result, "results", None) or []
    return "; ".join(
        f"{row.node.unique_id}: {row.message}"
        for row in rows
        if str(row.status) not in ("success", "pass")
    )


@dataclass
class Warehouse:
    """The Spark session dbt opened, and the schema the project builds into."""

    spark: object
    schema: str

    def rows(self, sql: str) -> list[tuple]:
        return [tuple(row) for row in self.spark.sql(sql).collect()]

    def table_as_text(self, table: str) -> tuple[list[str], list[tuple]]:
        """All rows of a table with every value as text, timestamps with 6 decimals in UTC."""
        frame = self.spark.table(f"{self.schema}.{table}")
        columns = []
        for field in frame.schema.fields:
            if field.dataType.typeName() == "timestamp":
                columns.append(f"date_format(`{field.name}`, 'yyyy-MM-dd HH:mm:ss.SSSSSS')")
            else:
                columns.append(f"cast(`{field.name}` as string)")
        query = f"select {', '.join(columns)} from {self.schema}.{table}"
        return [field.name for field in frame.schema.fields], self.rows(query)
