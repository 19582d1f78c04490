"""Slow tests on the `iceberg` target (scripts/iceberg.sh): windowed_incremental with
file_format='iceberg' keeps Iceberg tables, commits each by Iceberg's own commits, finishes or
undoes a run stopped at any of its statements, compacts its state table, and refuses tables of
another file_format until --full-refresh.

A throwaway project in a temporary folder installs spark_windows as a package and holds one
small model: clicks per page and minute, from four rows written in the model, arriving at 08:01,
08:02, 08:03 and 08:04. Watermark delay 0: no row is late. Hand-computed, the windows after the
run of 08:04: home 08:00 (08:00:10, 08:00:40), cart 08:02 (08:02:30), home 08:03 (08:03:40).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from scratch_project import run_shown, scratch_project
from stop_at import StopAt

pytestmark = pytest.mark.slow

SCHEMA = os.environ.get("SPARK_WINDOWS_SCHEMA", "spark_windows") + "_incremental_iceberg"
MODEL = """
{{ config(
    materialized='windowed_incremental',
    file_format=env_var('CLICKS_FILE_FORMAT', 'iceberg'),
    time_col='click_ts',
    ingestion_time_col='ingested_at',
    window={'type': 'tumble', 'size': '1 minute'},
    group_by=['page'],
    aggregates={'clicks': 'count(*)', 'home_clicks': "count_if(page = 'home')"},
    watermark_delay='0 seconds',
    emit='changelog',
    partition_size='1 minute',
    compact_state_every=2,
) }}

select page, click_ts, ingested_at
from values
    ('home', timestamp '2024-05-01 08:00:10', timestamp '2024-05-01 08:01:00'),
    ('home', timestamp '2024-05-01 08:00:40', timestamp '2024-05-01 08:02:00'),
    ('cart', timestamp '2024-05-01 08:02:30', timestamp '2024-05-01 08:03:00'),
    ('home', timestamp '2024-05-01 08:03:40', timestamp '2024-05-01 08:04:00')
    as arrivals(page, click_ts, ingested_at)
where ingested_at <= timestamp '{{ env_var("CLICKS_UNTIL") }}'
"""
KEPT = ["page_clicks", "page_clicks__late", "page_clicks__changelog", "page_clicks__state"]
CUTS = ["2024-05-01 08:01:00", "2024-05-01 08:02:00", "2024-05-01 08:03:00", "2024-05-01 08:04:00"]
# (page, window start, clicks, home clicks) after the run of each cut-off, by hand
WINDOWS = {
    CUTS[0]: [("home", "08:00", 1, 1)],
    CUTS[1]: [("home", "08:00", 2, 2)],
    CUTS[2]: [("cart", "08:02", 1, 0), ("home", "08:00", 2, 2)],
    CUTS[3]: [("cart", "08:02", 1, 0), ("home", "08:00", 2, 2), ("home", "08:03", 1, 1)],
}
# the changelog after the run of 08:04: one insert per window, and the home 08:00 window's
# second version (update_before, update_after) from the run of 08:02
CHANGELOG = [
    (1, "+I", "home", "08:00", 1),
    (2, "-U", "home", "08:00", 1),
    (2, "+U", "home", "08:00", 2),
    (3, "+I", "cart", "08:02", 1),
    (4, "+I", "home", "08:03", 1),
]


@pytest.fixture(scope="module")
def project(tmp_path_factory, dbt_target, warehouse) -> dict:
    if dbt_target != "iceberg":
        pytest.skip("needs the iceberg target: scripts/iceberg.sh runs it")
    root = tmp_path_factory.mktemp("incremental_iceberg")
    scratch_project(root, "incremental_iceberg", dbt_target, {"page_clicks.sql": MODEL})
    return {"root": root, "warehouse": warehouse}


def run(
    project: dict, until: str, expect_pass: bool = True, full_refresh: bool = False, file_format: str = "iceberg"
) -> str:
    return run_shown(
        ["run"] + (["--full-refresh"] if full_refresh else []),
        project["root"],
        expect_pass,
        {"CLICKS_UNTIL": until, "CLICKS_FILE_FORMAT": file_format},
    )


def sql(project: dict, query: str) -> list[tuple]:
    return project["warehouse"].rows(query)


def windows(project: dict) -> list[tuple]:
    return sorted(
        sql(project, f"select page, date_format(window_start, 'HH:mm'), clicks, home_clicks from {SCHEMA}.page_clicks")
    )


def changelog(project: dict) -> list[tuple]:
    return sorted(
        sql(
            project,
            f"select batch_id, op, page, date_format(window_start, 'HH:mm'), clicks from {SCHEMA}.page_clicks__changelog",
        ),
        key=lambda row: (row[0], row[2], row[3], "-+".index(row[1][0])),
    )


def batches(project: dict) -> list[int]:
    return [row[0] for row in sql(project, f"select batch_id from {SCHEMA}.page_clicks__state order by batch_id")]


def provider(project: dict, table: str) -> str:
    rows = sql(project, f"describe table extended {SCHEMA}.{table}")
    return {name: value for name, value, *_ in rows}["Provider"]


def schema_folder(project: dict) -> Path:
    (location,) = [value for name, value in sql(project, f"describe schema extended {SCHEMA}") if name == "Location"]
    return Path(location.removeprefix("file:"))


def snapshots(project: dict, table: str) -> list[str]:
    """The operations of the table's snapshots, oldest first."""
    return [row[0] for row in sql(project, f"select operation from {SCHEMA}.{table}.snapshots order by committed_at")]


def test_each_run_commits_the_windows_by_one_iceberg_replace(project):
    started = time.time()
    for index, cut in enumerate(CUTS):
        run(project, cut, full_refresh=index == 0)
        assert windows(project) == WINDOWS[cut], cut
    assert batches(project) == [1, 2, 3, 4]
    assert changelog(project) == CHANGELOG
    for table in KEPT:
        assert provider(project, table) == "iceberg", table
    # each run's staging table was dropped with its files (on a file system Iceberg leaves the
    # folders, empty)
    staged = schema_folder(project).glob("page_clicks__pending_*/**/*")
    assert [path for path in staged if path.is_file() and path.stat().st_mtime >= started] == []
    # the table made empty by the first run, then one commit a run: each REPLACE WHERE is an
    # Iceberg overwrite of the partitions the run rewrites
    assert snapshots(project, "page_clicks")[1:] == ["overwrite"] * 4
    # compact_state_every=2: after the runs of batches 2 and 4 the state table is one data file
    assert sql(project, f"select count(*) from {SCHEMA}.page_clicks__state.files") == [(1,)]
    # no staging table is left
    assert not sql(project, f"show tables in {SCHEMA} like 'page_clicks__pending_*'")


@pytest.mark.parametrize(
    ("stopped_at", "committed"),
    [
        # before its commit: the changelog's rows of the batch are written, the commit row not
        (r"insert into \S+page_clicks__state\b", False),
        # after its commit, before the table takes the staged partitions
        (r"insert into \S+page_clicks\s+replace where", True),
        # after the table took them, before the staging table is dropped
        (r"drop table if exists \S+page_clicks__pending_", True),
    ],
)
def test_a_run_stopped_at_any_statement_is_finished_or_undone_by_the_next(project, stopped_at, committed):
    """Stopped as a kill would stop it, a run leaves either no commit (the next run drops what it
    wrote and runs the batch again) or a commit whose staging table the next run applies again:
    each window once, each changelog row once."""
    run(project, CUTS[0], full_refresh=True)
    run(project, CUTS[1])
    with StopAt(project["warehouse"], "page_clicks", stopped_at):
        run(project, CUTS[2], expect_pass=False)
    assert batches(project) == ([1, 2, 3] if committed else [1, 2])
    run(project, CUTS[3])
    assert batches(project) == ([1, 2, 3, 4] if committed else [1, 2, 3])
    assert windows(project) == WINDOWS[CUTS[3]]
    if committed:
        expected = CHANGELOG
    else:
        # the batch of 08:03 never committed: the run of 08:04 is batch 3, with the rows of both
        expected = [row for row in CHANGELOG if row[0] < 3] + [
            (3, "+I", "cart", "08:02", 1),
            (3, "+I", "home", "08:03", 1),
        ]
    assert changelog(project) == expected
    assert not sql(project, f"show tables in {SCHEMA} like 'page_clicks__pending_*'")


def test_tables_of_another_file_format_are_refused_until_a_full_refresh(project):
    """A model whose file_format changed since its tables were made is refused before anything
    changes. From Parquet to Iceberg, --full-refresh makes its tables again as Iceberg tables;
    from Iceberg back to Parquet it is refused too, naming the folders to delete first (Iceberg
    leaves a dropped table's folders)."""
    tables = ", ".join(f"{SCHEMA}.{table}" for table in KEPT)
    # the earlier tests left Iceberg tables: gone, with their folders, as the refusal below says
    for table in KEPT:
        sql(project, f"drop table if exists {SCHEMA}.{table} purge")
        shutil.rmtree(schema_folder(project) / table, ignore_errors=True)
    run(project, CUTS[0], full_refresh=True, file_format="parquet")
    run(project, CUTS[1], file_format="parquet")
    assert [provider(project, table) for table in KEPT] == ["parquet"] * 4

    shown = run(project, CUTS[2], expect_pass=False)
    assert f"the model's file_format is 'iceberg', but {tables} are not Iceberg tables" in shown, shown[-3000:]
    assert "Run the model once with --full-refresh" in shown
    assert batches(project) == [1, 2]

    run(project, CUTS[2], full_refresh=True)
    assert [provider(project, table) for table in KEPT] == ["iceberg"] * 4
    assert windows(project) == WINDOWS[CUTS[2]]

    shown = run(project, CUTS[3], expect_pass=False, file_format="parquet")
    assert f"the model's file_format is 'parquet', but {tables} are Iceberg tables" in shown, shown[-3000:]
    shown = run(project, CUTS[3], expect_pass=False, full_refresh=True, file_format="parquet")
    assert f"the model's file_format is 'parquet', and {SCHEMA}.page_clicks (file:" in shown, shown[-3000:]
    assert "drop each with `drop table ... purge`, delete the folder named with it" in shown
    # nothing was changed: the model runs on as it was
    assert [provider(project, table) for table in KEPT] == ["iceberg"] * 4
    run(project, CUTS[3])
    assert windows(project) == WINDOWS[CUTS[3]]
