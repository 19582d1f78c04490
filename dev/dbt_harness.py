"""Runs dbt in-process, so one Spark JVM serves a whole pytest session, and reads results."""

from __future__ import annotations

import os
from pathlib import Path

from dbt.cli.main import dbtRunner, dbtRunnerResult

from dev.project import PROJECT_DIR

# the targets of profiles/profiles.yml whose Spark runs inside the dbt process
EMBEDDED_TARGETS = ("local", "iceberg")


class DbtFailed(AssertionError):
    """A dbt command that should have passed did not, or the other way round."""


def configure_environment(state_dir: Path, target: str) -> None:
    """Points dbt at this project's profiles and a private metastore and warehouse."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["DBT_PROFILES_DIR"] = str(PROJECT_DIR / "profiles")
    os.environ["SPARK_WINDOWS_STATE_DIR"] = str(state_dir)
    os.environ["SPARK_WINDOWS_TARGET"] = target
    os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")


def run_dbt(
    args: list[str],
    expect_pass: bool = True,
    project_dir: Path = PROJECT_DIR,
    callbacks: list | None = None,
    env: dict[str, str] | None = None,
) -> dbtRunnerResult:
    """Runs `dbt <args>` in this process from the project directory; `callbacks` get dbt's events.
    `env`: environment variables set for this invocation only. Inputs that change from one run to
    the next go there rather than in --vars: dbt parses the whole project again whenever its vars
    change, but only the files that read an environment variable when that one changes."""
    cwd = os.getcwd()
    before = {name: os.environ.get(name) for name in env or {}}
    os.chdir(project_dir)
    os.environ.update(env or {})
    try:
        result = dbtRunner(callbacks=callbacks or []).invoke([*args, "--project-dir", str(project_dir)])
    finally:
        os.chdir(cwd)
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
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
        f"{row.node.unique_id}: {row.message}" for row in rows if str(row.status) not in ("success", "pass")
    )


class Warehouse:
    """Reads what dbt built, with SQL; `spark` is set on the `local` target only."""

    spark = None

    def __init__(self, schema: str):
        self.schema = schema

    def rows(self, sql: str) -> list[tuple]:
        raise NotImplementedError

    def column_types(self, table: str) -> list[tuple[str, str]]:
        rows = self.rows(f"describe {self.schema}.{table}")
        columns = []
        for name, data_type, *_ in rows:
            if not name or name.startswith("#"):
                break  # partition information follows
            columns.append((name, data_type))
        return columns

    def table_as_text(self, table: str) -> tuple[list[str], list[tuple]]:
        """All rows of a table with every value as text, timestamps with 6 decimals in UTC."""
        columns = self.column_types(table)
        selected = [
            f"date_format(`{name}`, 'yyyy-MM-dd HH:mm:ss.SSSSSS')"
            if data_type == "timestamp"
            else f"cast(`{name}` as string)"
            for name, data_type in columns
        ]
        query = f"select {', '.join(selected)} from {self.schema}.{table}"
        return [name for name, _ in columns], self.rows(query)


class SessionWarehouse(Warehouse):
    """An embedded target (`local`, `iceberg`): the Spark session dbt opened in this process."""

    def __init__(self, schema: str):
        super().__init__(schema)
        from pyspark.sql import SparkSession

        self.spark = SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()

    def rows(self, sql: str) -> list[tuple]:
        return [tuple(row) for row in self.spark.sql(sql).collect()]


class ThriftWarehouse(Warehouse):
    """The `cluster` target: a Thrift (HiveServer2) server, as dbt-spark's thrift method uses."""

    def __init__(self, schema: str):
        super().__init__(schema)
        self.connection = None

    def _connect(self):
        from pyhive import hive

        return hive.connect(
            host=os.environ.get("SPARK_WINDOWS_THRIFT_HOST", "127.0.0.1"),
            port=int(os.environ.get("SPARK_WINDOWS_THRIFT_PORT", "10000")),
            username=os.environ.get("SPARK_WINDOWS_THRIFT_USER", "dbt"),
            configuration={"spark.sql.session.timeZone": "UTC"},
        )

    def rows(self, sql: str) -> list[tuple]:
        for attempt in (1, 2):
            if self.connection is None:
                self.connection = self._connect()
            cursor = self.connection.cursor()
            try:
                cursor.execute(sql)
                return [tuple(row) for row in cursor.fetchall()]
            except Exception:  # a Thrift server restarted since: connect again, once
                self.connection = None
                if attempt == 2:
                    raise
            finally:
                cursor.close()
        raise AssertionError("unreachable")


def open_warehouse(target: str, schema: str) -> Warehouse:
    return SessionWarehouse(schema) if target in EMBEDDED_TARGETS else ThriftWarehouse(schema)
