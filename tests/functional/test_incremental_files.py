"""Slow tests: windowed_incremental with input_file_col reads every landed row exactly once,
whatever its ingestion time.

A throwaway project installs spark_windows as a package. Its input is a Parquet table of clicks
that the tests land file by file, as a landing job does; the models read each row's file as
`_metadata.file_path`. The landings hold what a clock cannot order: ingestion times at or below
an earlier landing's newest, equal ones, and a file written early that appears in the table
after a later one (with its old modification time). After each landing the tumbling and the
session model run (one run is stopped before its commit and run again); their windows must be
those of every landed row, computed by the plain-Python model in tests/support/reference_windows.py,
each row counted once. The same landings make a model that tells new rows by ingestion time
fail, with the number of rows it would miss.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from reference_windows import session, tumble
from scratch_project import scratch_project
from stop_at import StopAt

from dev.dbt_harness import run_dbt

pytestmark = pytest.mark.slow

SCHEMA = os.environ.get("SPARK_WINDOWS_SCHEMA", "spark_windows") + "_incremental_files"
LANDED = f"{SCHEMA}.landed_clicks"
MINUTE = 60_000_000
GAP = 2 * MINUTE
INPUT = f"""
select user_id, click_ts, amount, ingested_at, _metadata.file_path as source_file
from {LANDED}
"""


def model(window: str, by_file: bool = True, emit: str | None = None) -> str:
    """A model of the clicks' counts and revenue per user, in `window` (a Python dict's text)."""
    lines = [
        "materialized='windowed_incremental'",
        "time_col='click_ts'",
        "ingestion_time_col='ingested_at'",
        *(["input_file_col='source_file'"] if by_file else []),
        f"window={window}",
        "group_by=['user_id']",
        "aggregates={'clicks': 'count(*)', 'revenue': 'sum(amount)'}",
        "watermark_delay='1 hour'",
        *([f"emit='{emit}'"] if emit else []),
        "partition_size='1 hour'",
    ]
    return "{{ config(\n    " + ",\n    ".join(lines) + "\n) }}\n"


MODELS = {
    "clicks_per_minute": model("{'type': 'tumble', 'size': '1 minute'}"),
    "click_sessions": model("{'type': 'session', 'gap': '2 minutes'}", emit="changelog"),
    # the same windows told apart by ingestion time: the landings break its precondition
    "clicks_per_minute_by_time": model("{'type': 'tumble', 'size': '1 minute'}", by_file=False),
}
BY_FILE = "clicks_per_minute click_sessions"


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(f"2024-05-01 {text}")


def clicks(*rows: tuple[str, str, int, str]) -> list[tuple]:
    """(user, click time, amount, ingestion time), times of 2024-05-01."""
    return [(user, at(click), amount, at(ingested)) for user, click, amount, ingested in rows]


# Landed in this order, each by one INSERT (new Parquet files). The second lands rows ingested at or before the
# first's newest ingestion time (08:03:00), one of them at exactly that time.
FIRST = clicks(
    ("ann", "08:00:10", 1, "08:01:00"),
    ("ann", "08:00:50", 2, "08:02:00"),
    ("bob", "08:01:30", 3, "08:03:00"),
)
SECOND = clicks(
    ("ann", "08:01:40", 4, "08:02:30"),
    ("bob", "08:02:10", 5, "08:03:00"),
    ("bob", "08:05:00", 6, "08:05:30"),
)
# written before THIRD, visible in the table only after it (copied in with its old time)
EARLY = clicks(
    ("ann", "08:02:20", 7, "08:02:40"),
    ("cid", "08:03:00", 8, "08:02:50"),
)
THIRD = clicks(
    ("ann", "08:06:00", 9, "08:07:00"),
    ("cid", "08:04:30", 10, "08:07:10"),
)
FOURTH = clicks(("bob", "08:06:30", 11, "08:08:00"))


@pytest.fixture(scope="module")
def project(tmp_path_factory, dbt_target) -> dict:
    if dbt_target != "local":
        pytest.skip("lands files in a table folder of the local target")
    root = tmp_path_factory.mktemp("incremental_files")
    scratch_project(
        root, "incremental_files", dbt_target, {f"{name}.sql": text + INPUT for name, text in MODELS.items()}
    )
    run_dbt(["show", "--inline", "select 1"], project_dir=root)  # starts Spark as the profile sets it up
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()
    spark.sql(f"create database if not exists {SCHEMA}")
    spark.sql(f"drop table if exists {LANDED}")
    spark.sql(
        f"create table {LANDED} (user_id string, click_ts timestamp, amount int, ingested_at timestamp) using parquet"
    )
    return {"root": root, "spark": spark, "landed": []}


def land(project: dict, rows: list[tuple], table: str = LANDED) -> None:
    """Lands `rows` in `table`: new Parquet files (one INSERT of literal rows)."""
    values = ", ".join(
        f"('{user}', timestamp'{click}', {amount}, timestamp'{ingested}')" for user, click, amount, ingested in rows
    )
    project["spark"].sql(f"insert into {table} values {values}")
    if table == LANDED:
        project["landed"].extend(rows)


def table_folder(project: dict, table: str) -> Path:
    location = project["spark"].sql(f"describe table extended {table}").where("col_name = 'Location'").first()[1]
    return Path(unquote(urlparse(location).path))


def run(project: dict, select: str, expect_pass: bool = True, full_refresh: bool = False) -> str:
    shown = []
    args = ["run", "--select", *select.split()] + (["--full-refresh"] if full_refresh else [])
    result = run_dbt(args, expect_pass, project["root"], [lambda event: shown.append(str(event.info.msg))])
    return "\n".join([str(result.exception), *shown])


def rows(project: dict, query: str) -> list[tuple]:
    return [tuple(row) for row in project["spark"].sql(query).collect()]


def us(moment: dt.datetime) -> int:
    return int(moment.replace(tzinfo=dt.timezone.utc).timestamp()) * 1_000_000


def expected(landed: list[tuple], windows) -> list[tuple]:
    """(user, start, end, clicks, revenue) of the plain-Python windows of every landed row."""
    found = windows([(user, us(click), amount) for user, click, amount, _ in landed])
    return sorted((user, start, end, len(values), sum(values)) for (user, start, end), values in found.items())


def actual(project: dict, model: str) -> list[tuple]:
    return sorted(
        rows(
            project,
            f"select user_id, unix_micros(window_start), unix_micros(window_end), clicks, revenue from {SCHEMA}.{model}",
        )
    )


def assert_every_row_counted_once(project: dict) -> None:
    landed = project["landed"]
    assert actual(project, "clicks_per_minute") == expected(landed, lambda events: tumble(events, MINUTE))
    assert actual(project, "click_sessions") == expected(landed, lambda events: session(events, GAP))
    files = {path for (path,) in rows(project, f"select distinct _metadata.file_path from {LANDED}")}
    for model in ["clicks_per_minute", "click_sessions"]:
        processed = rows(
            project,
            f"select key, value from {SCHEMA}.{model}__state "
            "lateral view explode(from_json(arrival_counts, 'map<string,bigint>')) entry as key, value",
        )
        # each file processed by one committed run, with its rows
        assert sorted(path for path, _ in processed) == sorted(files), model
        assert sum(count for _, count in processed) == len(landed), model
        (new_rows,) = rows(project, f"select sum(new_rows) from {SCHEMA}.{model}__state")[0]
        assert new_rows == len(landed), model


def test_rows_landed_below_the_processed_ingestion_time_are_read_once(project):
    land(project, FIRST)
    run(project, f"{BY_FILE} clicks_per_minute_by_time", full_refresh=True)
    assert_every_row_counted_once(project)

    # two of SECOND's rows are ingested at or before 08:03:00, the newest the first run processed
    land(project, SECOND)
    shown = run(project, "clicks_per_minute_by_time", expect_pass=False)
    assert re.search(
        r"windowed_incremental: 2 rows of \S+clicks_per_minute_by_time's input have an ingested_at", shown
    ), shown[-3000:]
    run(project, BY_FILE)
    assert_every_row_counted_once(project)

    # EARLY is written, THIRD lands and is processed, then EARLY's file appears in the table
    spool = f"{SCHEMA}.spooled_clicks"
    project["spark"].sql(f"drop table if exists {spool}")
    project["spark"].sql(f"create table {spool} like {LANDED}")
    land(project, EARLY, spool)
    land(project, THIRD)
    run(project, BY_FILE)
    assert_every_row_counted_once(project)
    for early_file in table_folder(project, spool).glob("*.parquet"):
        shutil.copy2(early_file, table_folder(project, LANDED) / f"early-{early_file.name}")
    project["spark"].sql(f"refresh table {LANDED}")
    project["landed"].extend(EARLY)
    run(project, BY_FILE)
    assert_every_row_counted_once(project)

    # nothing new: no run commits
    batches = rows(project, f"select count(*) from {SCHEMA}.click_sessions__state")
    run(project, BY_FILE)
    assert rows(project, f"select count(*) from {SCHEMA}.click_sessions__state") == batches


def test_a_run_stopped_before_its_commit_leaves_its_files_to_the_next(project):
    land(project, FOURTH)
    warehouse = type("Warehouse", (), {"rows": lambda self, query: rows(project, query)})()
    with StopAt(warehouse, "click_sessions", r"insert into [`\w.]*click_sessions__state"):
        run(project, "click_sessions", expect_pass=False)
    with StopAt(warehouse, "clicks_per_minute", r"insert into [`\w.]*clicks_per_minute__state"):
        run(project, "clicks_per_minute", expect_pass=False)
    run(project, BY_FILE)
    assert_every_row_counted_once(project)


FIFTH = clicks(("dan", "09:00:00", 12, "09:00:30"), ("dan", "09:00:40", 13, "09:01:00"))
SIXTH = clicks(("eve", "10:00:00", 14, "10:00:20"))
SEVENTH = clicks(("eve", "10:30:00", 15, "10:30:10"))


def files_of(project: dict) -> set[str]:
    return {path for (path,) in rows(project, f"select distinct _metadata.file_path from {LANDED}")}


def test_a_removed_file_is_counted_back_once_and_later_runs_list_only_new_files(project, monkeypatch):
    """After a commit a run names the processed files in its listing, so that Spark reads none of
    their rows, and counts the whole input: the full listing, which opens every file, runs only when
    the counts do not add up. A processed file removed from the input (retention) makes them
    not add up once: the next run's commit enters its rows back, and the runs after it list
    only new files again."""
    from dbt.adapters.spark.connections import SparkConnectionManager

    listings = []
    original = SparkConnectionManager.add_query

    def add_query(manager, sql, *args, **kwargs):
        for name, alias in [("unlisted", "__sw_unlisted"), ("full", "__sw_listed")]:
            if re.search(rf"\)\s+as {alias}\b", sql):
                listings.append(name)
        return original(manager, sql, *args, **kwargs)

    monkeypatch.setattr(SparkConnectionManager, "add_query", add_query)
    before = files_of(project)
    land(project, FIFTH)
    retired = files_of(project) - before
    run(project, BY_FILE)
    assert sorted(listings) == ["unlisted", "unlisted"]
    assert_every_row_counted_once(project)

    # FIFTH's files are removed; SIXTH lands
    for path in retired:
        removed = Path(unquote(urlparse(path).path))
        removed.unlink()
        (removed.parent / f".{removed.name}.crc").unlink(missing_ok=True)
    project["spark"].sql(f"refresh table {LANDED}")
    land(project, SIXTH)
    listings.clear()
    run(project, BY_FILE)
    assert sorted(listings) == ["full", "full", "unlisted", "unlisted"]
    (input_rows,) = rows(project, f"select count(*) from {LANDED}")[0]
    for model in ["clicks_per_minute", "click_sessions"]:
        entries = rows(
            project,
            f"select key, sum(value) from {SCHEMA}.{model}__state "
            "lateral view explode(from_json(arrival_counts, 'map<string,bigint>')) entry as key, value group by key",
        )
        assert {path for path, count in entries if count == 0} == retired, model
        assert sum(count for _, count in entries) == input_rows, model

    land(project, SEVENTH)
    listings.clear()
    run(project, BY_FILE)
    assert sorted(listings) == ["unlisted", "unlisted"]
    # FIFTH's rows stay counted in the windows that took them
    landed = project["landed"]
    assert actual(project, "clicks_per_minute") == expected(landed, lambda events: tumble(events, MINUTE))
    assert actual(project, "click_sessions") == expected(landed, lambda events: session(events, GAP))


def test_a_processed_file_that_changed_is_refused(project):
    counted = rows(project, f"select _metadata.file_path, count(*) from {LANDED} group by 1 order by 2 desc")
    (larger, _), (smaller, _) = counted[0], counted[-1]
    assert counted[0][1] != counted[-1][1], counted
    # a processed file rewritten in place with other rows (without the checksum file of the old)
    rewritten = Path(unquote(urlparse(smaller).path))
    shutil.copyfile(Path(unquote(urlparse(larger).path)), rewritten)
    (rewritten.parent / f".{rewritten.name}.crc").unlink(missing_ok=True)
    project["spark"].sql(f"refresh table {LANDED}")
    shown = run(project, "clicks_per_minute", expect_pass=False)
    assert f"windowed_incremental: the input file {smaller} of " in shown, shown[-3000:]
    assert " rows of the model's input when a committed run processed it, and now holds " in shown, shown[-3000:]
