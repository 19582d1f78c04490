"""Slow tests on the `iceberg` target (scripts/iceberg.sh): windowed_incremental with
iceberg_input reads the rows Iceberg snapshots appended to its input since its last run, exactly
once, whatever the rows' landing times; passes over a compaction; and refuses a snapshot that
deleted or rewrote rows, a start snapshot that expired, and a table without row lineage
(format-version 2), each with its message, changing nothing.

A throwaway project in a temporary folder installs spark_windows as a package. The test lands
click rows into an Iceberg table of format-version 3 (`landed_clicks`, the source
`landed.clicks`) by appends whose `landed_at` go backwards, repeat and overlap. Two models read
it: `clicks_by_snapshot` (windowed_incremental, hop of 2 minutes every minute, watermark delay
1 hour: no row is late) and `clicks_all_rows`, a table of window_aggregate over every row, which
each run's windows must equal; `click_sessions_by_snapshot` and `click_sessions_all_rows` the
same for sessions of a 1-minute gap with an average (a run re-reads the rows of the sessions it
touches). The windows after the landings are also computed by hand (below).
"""

from __future__ import annotations

import os
import re

import pytest
from scratch_project import run_shown, scratch_project

pytestmark = pytest.mark.slow

NAME = "incremental_iceberg_input"
SCHEMA = os.environ.get("SPARK_WINDOWS_SCHEMA", "spark_windows") + "_" + NAME
LANDED = f"{SCHEMA}.landed_clicks"
WINDOW = "{'type': 'hop', 'slide': '1 minute', 'size': '2 minutes'}"
AGGREGATES = "{'clicks': 'count(*)', 'amount': 'sum(amount)'}"
# sessions with an aggregate that needs the rows: a run re-reads the rows of the sessions it touches
SESSION = "{'type': 'session', 'gap': '1 minute'}"
SESSION_AGGREGATES = "{'clicks': 'count(*)', 'average': 'avg(amount)'}"


def by_snapshot(window: str, aggregates: str) -> str:
    """A windowed_incremental model of the landed clicks, read by snapshot."""
    return f"""
{{{{ config(
    materialized='windowed_incremental',
    file_format='iceberg',
    time_col='click_ts',
    iceberg_input='landed.clicks',
    sequence_col='landed_sequence',
    window={window},
    group_by=['page'],
    aggregates={aggregates},
    watermark_delay='1 hour',
    partition_size='1 hour',
) }}}}

select page, click_ts, amount, _last_updated_sequence_number as landed_sequence
from {{{{ source('landed', 'clicks') }}}}
"""


def all_rows(window: str, aggregates: str, columns: str) -> str:
    """A table of window_aggregate over every landed click."""
    return f"""
{{{{ config(materialized='table', file_format='iceberg') }}}}

select page, window_start, window_end, {columns}
from {{{{ spark_windows.window_aggregate(source('landed', 'clicks'), 'click_ts', {window}, ['page'], {aggregates}) }}}}
"""


MODELS = {
    "sources.yml": f"""
version: 2
sources:
  - name: landed
    schema: {SCHEMA}
    tables:
      - name: clicks
        identifier: landed_clicks
""",
    "clicks_by_snapshot.sql": by_snapshot(WINDOW, AGGREGATES),
    "clicks_all_rows.sql": all_rows(WINDOW, AGGREGATES, "clicks, amount"),
    "click_sessions_by_snapshot.sql": by_snapshot(SESSION, SESSION_AGGREGATES),
    "click_sessions_all_rows.sql": all_rows(SESSION, SESSION_AGGREGATES, "clicks, average"),
}

# the landings: (page, click time, amount, landed_at); each list is one append (one snapshot).
# landed_at goes back (the second landing), repeats (the third) and overlaps (the fourth): by
# ingestion time the later landings' rows would be at or below the newest time processed
FIRST = [("home", "08:00:10", 1, "08:10"), ("cart", "08:01:20", 2, "08:10")]
BACKWARDS = [("home", "08:00:50", 3, "08:05")]
REPEATED = [("home", "08:02:30", 4, "08:05")]
OVERLAPPING = [("cart", "08:01:40", 5, "08:07")]
# (page, window start, clicks, amount) by hand: a row at t is in the windows starting at the
# minute of t and the minute before
AFTER_FIRST = [("cart", "08:00", 1, 2), ("cart", "08:01", 1, 2), ("home", "07:59", 1, 1), ("home", "08:00", 1, 1)]
AFTER_SECOND = [
    ("cart", "08:00", 1, 2),
    ("cart", "08:01", 1, 2),
    ("home", "07:59", 2, 4),
    ("home", "08:00", 2, 4),
    ("home", "08:01", 1, 4),
    ("home", "08:02", 1, 4),
]
AFTER_THIRD = [("cart", "08:00", 2, 7), ("cart", "08:01", 2, 7)] + AFTER_SECOND[2:]
# (page, session start, end, clicks, average) after the fourth landing, by hand: a gap of a
# minute or more between a page's clicks starts a new session
SESSIONS_AFTER_THIRD = [
    ("cart", "08:01:20", "08:02:40", 2, 3.5),
    ("home", "08:00:10", "08:01:50", 2, 2.0),
    ("home", "08:02:30", "08:03:30", 1, 4.0),
]


@pytest.fixture(scope="module")
def project(tmp_path_factory, dbt_target, warehouse) -> dict:
    if dbt_target != "iceberg":
        pytest.skip("needs the iceberg target: scripts/iceberg.sh runs it")
    root = tmp_path_factory.mktemp(NAME)
    scratch_project(root, NAME, dbt_target, MODELS)
    return {"root": root, "warehouse": warehouse}


def sql(project: dict, query: str) -> list[tuple]:
    return project["warehouse"].rows(query)


def land_table(project: dict, format_version: int = 3) -> None:
    """The landed table made again, empty."""
    sql(project, f"create schema if not exists {SCHEMA}")
    sql(project, f"drop table if exists {LANDED} purge")
    sql(
        project,
        f"create table {LANDED} (page string, click_ts timestamp, amount int, landed_at timestamp) "
        f"using iceberg tblproperties ('format-version' = '{format_version}')",
    )


def land(project: dict, rows: list[tuple]) -> None:
    """One append: one snapshot of the landed table."""
    values = ", ".join(
        f"('{page}', timestamp '2024-05-01 {at}', {amount}, timestamp '2024-05-01 {landed}:00')"
        for page, at, amount, landed in rows
    )
    sql(project, f"insert into {LANDED} values {values}")


def run(project: dict, expect_pass: bool = True, full_refresh: bool = False) -> str:
    return run_shown(["run"] + (["--full-refresh"] if full_refresh else []), project["root"], expect_pass)


def windows(project: dict, model: str = "clicks_by_snapshot") -> list[tuple]:
    return sorted(
        sql(project, f"select page, date_format(window_start, 'HH:mm'), clicks, amount from {SCHEMA}.{model}")
    )


def sessions(project: dict, model: str = "click_sessions_by_snapshot") -> list[tuple]:
    return sorted(
        sql(
            project,
            f"select page, date_format(window_start, 'HH:mm:ss'), date_format(window_end, 'HH:mm:ss'), clicks, average "
            f"from {SCHEMA}.{model}",
        )
    )


def batches(project: dict) -> list[int]:
    return [
        row[0] for row in sql(project, f"select batch_id from {SCHEMA}.clicks_by_snapshot__state order by batch_id")
    ]


def newest_snapshot(project: dict) -> tuple[int, str]:
    """The landed table's newest snapshot: (id, operation)."""
    (row,) = sql(project, f"select snapshot_id, operation from {LANDED}.snapshots order by committed_at desc limit 1")
    return row


def test_appends_are_read_once_whatever_their_landing_times_and_a_compaction_is_passed_over(project):
    land_table(project)
    land(project, FIRST)
    run(project, full_refresh=True)
    assert windows(project) == AFTER_FIRST
    assert sessions(project) == sessions(project, "click_sessions_all_rows")
    # two appends between runs, landed_at going back, then repeating: home 08:00:50 joins the
    # stored session of 08:00:10
    land(project, BACKWARDS)
    land(project, REPEATED)
    run(project)
    assert windows(project) == AFTER_SECOND
    assert sessions(project) == sessions(project, "click_sessions_all_rows")
    # a compaction keeps each row's sequence number: its rows are not read again
    (rewritten,) = sql(
        project,
        f"call spark_catalog.system.rewrite_data_files(table => '{LANDED}', options => map('min-input-files', '2'))",
    )
    assert rewritten[0] >= 2, rewritten
    assert newest_snapshot(project)[1] == "replace"
    land(project, OVERLAPPING)
    run(project)
    assert windows(project) == AFTER_THIRD
    assert windows(project) == windows(project, "clicks_all_rows")
    assert sessions(project) == SESSIONS_AFTER_THIRD
    assert sessions(project) == sessions(project, "click_sessions_all_rows")
    assert batches(project) == [1, 2, 3]
    # nothing new: no commit, the same windows
    run(project)
    assert batches(project) == [1, 2, 3]
    assert windows(project) == AFTER_THIRD


def test_a_snapshot_that_deleted_rows_is_refused_until_a_full_refresh(project):
    land_table(project)
    land(project, FIRST + BACKWARDS)
    run(project, full_refresh=True)
    land(project, REPEATED)
    sql(project, f"delete from {LANDED} where amount = 3")
    deleted, operation = newest_snapshot(project)
    assert operation in ("overwrite", "delete")
    shown = run(project, expect_pass=False)
    assert (
        f"{LANDED}, the Iceberg input of {SCHEMA}.clicks_by_snapshot, changed rows since its last run read it" in shown
    )
    assert f"snapshot {deleted} ({operation}, made current at " in shown, shown[-3000:]
    assert "This run changed nothing. Run the model once with --full-refresh" in shown
    assert batches(project) == [1]
    assert windows(project) == [
        ("cart", "08:00", 1, 2),
        ("cart", "08:01", 1, 2),
        ("home", "07:59", 2, 4),
        ("home", "08:00", 2, 4),
    ]
    # the windows of the rows as they are now: home 08:00:50 is gone, home 08:02:30 came
    run(project, full_refresh=True)
    expected = [row for row in AFTER_SECOND if row[0] == "cart"] + [
        ("home", "07:59", 1, 1),
        ("home", "08:00", 1, 1),
        ("home", "08:01", 1, 4),
        ("home", "08:02", 1, 4),
    ]
    assert windows(project) == sorted(expected)
    assert windows(project) == windows(project, "clicks_all_rows")


def test_an_expired_start_snapshot_is_refused(project):
    land_table(project)
    land(project, FIRST)
    run(project, full_refresh=True)
    land(project, BACKWARDS)
    run(project)
    (config,) = sql(project, f"select config from {SCHEMA}.clicks_by_snapshot__state where batch_id = 2")
    started = int(re.search(r'"input_snapshot": (\d+)', config[0]).group(1))
    land(project, REPEATED)
    sql(
        project,
        f"call spark_catalog.system.expire_snapshots(table => '{LANDED}', "
        "older_than => timestamp '2999-01-01 00:00:00', retain_last => 1)",
    )
    shown = run(project, expect_pass=False)
    assert (
        f"snapshot {started} of {LANDED}, which the last run of {SCHEMA}.clicks_by_snapshot read up to, is no longer"
        in shown
    ), shown[-3000:]
    assert "expire only snapshots older than the model's last run" in shown
    assert batches(project) == [1, 2]
    run(project, full_refresh=True)
    assert windows(project) == AFTER_SECOND


def test_a_table_without_row_lineage_is_refused_until_upgraded(project):
    land_table(project, format_version=2)
    land(project, FIRST)
    shown = run(project, expect_pass=False, full_refresh=True)
    assert "2 rows of " in shown and "input have a NULL landed_sequence (sequence_col)" in shown, shown[-3000:]
    assert f"alter table {LANDED} set tblproperties ('format-version' = '3')" in shown
    # upgraded as the message says: the rows take their sequence numbers at the next commit
    sql(project, f"alter table {LANDED} set tblproperties ('format-version' = '3')")
    land(project, BACKWARDS + REPEATED)
    run(project, full_refresh=True)
    assert windows(project) == AFTER_SECOND
    land(project, OVERLAPPING)
    run(project)
    assert windows(project) == AFTER_THIRD
    assert windows(project) == windows(project, "clicks_all_rows")
