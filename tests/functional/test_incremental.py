"""Slow tests of the windowed_incremental materialization against tests/support/reference_incremental.py.

The example models (models/incremental/) read `raw_sensor_readings`, a view of the readings that
arrived by SPARK_WINDOWS_ARRIVED_UNTIL. Replaying the arrivals run by run (with the session models,
support/incremental_replay.py) is a stream of micro-batches: out of order, with rows beyond the
allowed lateness, and a run with nothing new.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from incremental_cases import CUTS, arrivals, click_arrivals, reference_models, reference_session_models, us
from incremental_driver import FINAL_MODELS, MODELS, SESSION_MODELS, read_tables
from incremental_tables import assert_changelog_replays_to_the_table, assert_tables_match, expected_session_tables
from reference_incremental import Model
from stop_at import StopAt

from dev.dbt_harness import run_dbt

pytestmark = pytest.mark.slow

SCHEMA = os.environ.get("SPARK_WINDOWS_SCHEMA", "spark_windows")
# the models of MODELS that keep a changelog (emit='changelog')
WITH_CHANGELOG = ["sensor_vehicles_incremental_tumbling", "sensor_vehicles_incremental_on_watermark"]


def expected_tables(models: dict[str, Model]) -> dict:
    """The reference models' tables in the shape of incremental_driver.read_tables: the windows
    the model shows (on_watermark: those the watermark passed), the late rows, the changelog;
    with final instead of the windows those appended once final, and those downstream."""
    tables = {"pending": []}
    for name, model in models.items():
        columns = MODELS[name]
        late = [
            [row.key, row.ts, row.value, row.ingested, [list(window) for window in missed], watermark, batch]
            for row, missed, watermark, batch in model.late
        ]
        tables[f"{name}:late"] = sorted(late, key=json.dumps)
        if name not in FINAL_MODELS:
            windows = [
                [key, start, end, *(image.values[column] for column in columns)]
                + [image.is_final, image.revision, image.timing]
                for (key, start, end), image in model.shown().items()
            ]
            tables[f"{name}:windows"] = sorted(windows, key=json.dumps)
        if FINAL_MODELS.get(name):
            # each window once, as it turned final; downstream, the busy ones (20 vehicles or more)
            final = [
                [batch, key, start, end, *(values[column] for column in columns)]
                for batch, key, start, end, values in model.finals
            ]
            tables[f"{name}:final"] = sorted(final, key=json.dumps)
            tables[f"{name}:downstream"] = sorted((row for row in final if (row[4] or 0) >= 20), key=json.dumps)
        if name in WITH_CHANGELOG:
            changelog = [
                [row.batch_id, row.op, row.key, row.start, row.end, *(row.values[column] for column in columns)]
                + [row.is_final, row.revision, row.timing]
                for row in model.changelog
            ]
            tables[f"{name}:changelog"] = sorted(changelog, key=json.dumps)
    return tables


def assert_window_changelogs_replay_to_the_tables(actual: dict, where: str) -> None:
    """The changelog of each model that keeps one replays to its table."""
    for name in WITH_CHANGELOG:
        assert_changelog_replays_to_the_table(actual, where, name)


def assert_each_final_window_once(actual: dict, expected: dict, where: str) -> None:
    """With emit_policy='final' each window is in the model's table once (and downstream once):
    as many rows as the reference, and no window twice."""
    for name, downstream in FINAL_MODELS.items():
        if name not in MODELS:
            continue  # sessions: test_incremental_sessions.py
        for table in (f"{name}:final",) + ((f"{name}:downstream",) if downstream else ()):
            windows = [tuple(row[1:4]) for row in actual[table]]
            assert len(windows) == len(set(windows)) == len(expected[table]), f"{where}: {table} holds a window twice"


def assert_state_matches(actual: dict, models: dict[str, Model], where: str) -> None:
    for name, model in models.items():
        state = actual[f"{name}:state"]
        assert sorted(row[0] for row in state) == list(range(1, model.batch_id + 1)), f"{where}: {name} commits"
        last = max(state, key=lambda row: row[0])
        assert last[1:4] == [model.processed_until, model.max_event, model.watermark], f"{where}: {name} state"


def test_replay_of_out_of_order_batches_matches_the_reference_model(incremental_replay):
    """The sensor models in the replay of the arrivals (conftest's incremental_replay), run by run."""
    source = arrivals()
    models = reference_models()
    assert len({cut for cut in CUTS}) >= 10
    assert [cut for cut, _ in incremental_replay.runs] == CUTS
    mine = lambda tables: {name: rows for name, rows in tables.items() if name.split(":")[0] in MODELS}  # noqa: E731
    late_total = 0
    for index, (cut, after) in enumerate(incremental_replay.runs):
        for model in models.values():
            model.run(source, us(cut))
        where = f"after the run with rows arrived by {cut} (run {index + 1}{incremental_replay.killed()})"
        if index > 0 and cut == CUTS[index - 1]:
            before = incremental_replay.runs[index - 1][1]
            assert mine(after) == mine(before), f"{where}: a run with no new rows changed a table"
        expected = expected_tables(models)
        assert_tables_match(after, expected, where)
        assert_each_final_window_once(after, expected, where)
        assert_state_matches(after, models, where)
        assert_window_changelogs_replay_to_the_tables(after, where)
        late_total = sum(len(model.late) for model in models.values())
    # the stream must exercise what the test is about
    assert late_total >= 3, "the arrivals should hold rows beyond the allowed lateness"
    finals = [row[-3] for row in after["sensor_vehicles_incremental_tumbling:windows"]]
    assert any(finals) and not all(finals)
    updates = [row for row in after["sensor_vehicles_incremental_tumbling:changelog"] if row[1] == "+U"]
    assert updates, "some windows should have been revised by late rows"
    # on_watermark shows only the windows the watermark passed, each emitted at least once
    shown = after["sensor_vehicles_incremental_on_watermark:windows"]
    watermark = models["sensor_vehicles_incremental_on_watermark"].watermark
    assert shown and all(row[2] <= watermark and row[-2] >= 1 for row in shown)
    assert len(shown) < len(models["sensor_vehicles_incremental_on_watermark"].table)
    # final appends the windows of several runs, not the open ones; downstream keeps some of them
    final = after["sensor_vehicles_incremental_final:final"]
    assert len({row[0] for row in final}) >= 3 and len(final) < len(models["sensor_vehicles_incremental_final"].table)
    assert 0 < len(after["sensor_vehicles_incremental_final:downstream"]) < len(final)

    # --full-refresh: every window from all rows, late ones included; no late rows left
    fresh = reference_models()
    for model in fresh.values():
        model.run(source, us(CUTS[-1]))
    refreshed = incremental_replay.refreshed
    assert_tables_match(refreshed, expected_tables(fresh), "after --full-refresh")
    assert_window_changelogs_replay_to_the_tables(refreshed, "after --full-refresh")
    assert all(not refreshed[f"{name}:late"] for name in MODELS)


# --- crash safety: kill the dbt process at random points of a run, re-run, compare ---------


def test_runs_killed_at_random_points_and_run_again_end_as_if_each_ran_once(incremental_replay):
    """Kill -9 in the middle of runs at random points (conftest's incremental_replay on the local
    target: its driver processes, four of them killed, each with its Spark, at a time between
    0.5 s and the longest warm run after the run started); the next process runs the killed
    cut-off again, as a scheduler would, and goes on. After that run every table of the five
    models is as if each run had run once: the replay tests check every run, this one each run
    after a kill, against the reference models run once per cut-off."""
    if not incremental_replay.kills:
        pytest.skip("kills an embedded Spark; runs on the local target")
    landed = {kill.cut: kill for kill in incremental_replay.kills if kill.landed}
    assert landed, f"no kill fell within its run{incremental_replay.killed()}"
    source, clicks = arrivals(), click_arrivals()
    models, sessions = reference_models(), reference_session_models()
    checked = 0
    for cut, tables in incremental_replay.runs:
        for model in models.values():
            model.run(source, us(cut))
        for session_model in sessions.values():
            session_model.run(clicks, us(cut))
        if cut not in landed:
            continue
        checked += 1
        where = f"after the run of {cut} again{incremental_replay.killed()}"
        assert_tables_match(tables, expected_tables(models), where, same_length=True)
        assert_state_matches(tables, models, where)
        assert_window_changelogs_replay_to_the_tables(tables, where)
        for name, session_model in sessions.items():
            assert_tables_match(tables, expected_session_tables(session_model, name), where, same_length=True)
            if name not in FINAL_MODELS:  # no changelog: the model's table is one
                assert_changelog_replays_to_the_table(tables, where, name)
    assert checked >= len(landed)


# --- the write-once commit stopped at each of its steps ---------------------------------------


def table_folder(warehouse, table: str) -> Path:
    rows = warehouse.rows(f"describe formatted {SCHEMA}.{table}")
    location = next(row[1] for row in rows if (row[0] or "").strip() == "Location")
    return Path(location.removeprefix("file:"))


# the model: its input view and the environment variable that sets the view's cut-off
STOPPED_MODELS = {
    "sensor_vehicles_incremental_tumbling": ("raw_sensor_readings", "SPARK_WINDOWS_ARRIVED_UNTIL"),
    "user_sessions_incremental": ("raw_clicks", "SPARK_WINDOWS_CLICKS_ARRIVED_UNTIL"),
}


def skip_on_iceberg(dbt_target: str) -> None:
    """The Parquet commit's folders and partitions: Iceberg tables have neither (their commit is
    tested in test_incremental_iceberg.py)."""
    if dbt_target == "iceberg":
        pytest.skip("the write-once commit of Parquet tables; Iceberg tables commit by Iceberg")


@pytest.mark.parametrize("name", list(STOPPED_MODELS))
def test_a_write_once_run_stopped_in_its_commit_is_finished_by_the_next_and_leaves_no_old_files(
    warehouse, name, dbt_target
):
    """Stops a model's runs before the commit row, between the commit row and the re-pointing,
    between dropping the replaced partitions and adding the new ones, (sessions) before the
    staged rows the table does not take are deleted, and before the staging table is dropped;
    the runs after each end as if every run had run once, and the table's folder holds only the
    files its partitions read."""
    skip_on_iceberg(dbt_target)
    if warehouse.spark is None:
        pytest.skip("reads the table's folder on this machine; runs on the local target")
    view, cut_variable = STOPPED_MODELS[name]
    session = name in SESSION_MODELS
    source = click_arrivals() if session else arrivals()
    model = reference_session_models()[name] if session else reference_models()[name]
    read = lambda: read_tables(warehouse.rows, SCHEMA, [name])  # noqa: E731
    commits = lambda: len(warehouse.rows(f"select batch_id from {SCHEMA}.{name}__state"))  # noqa: E731
    # each pattern matches the statement sent alone and its text in a run's script (Spark 4.1+),
    # where the apply builds `alter table <table> drop if exists ...` and `... add ...` as text
    alter = rf"alter table [`\w.]*{name}`? "

    def run(until: str, full_refresh: bool = False, expect_pass: bool = True) -> None:
        command = ["run", "--select", f"{view} {name}"] + (["--full-refresh"] if full_refresh else [])
        run_dbt(command, expect_pass=expect_pass, env={cut_variable: until})

    run(CUTS[0], full_refresh=True)
    model.run(source, us(CUTS[0]))
    folder = table_folder(warehouse, name)
    # before its commit row: the run's staged files stay in its folder, uncommitted
    with StopAt(warehouse, name, rf"insert into [`\w.]*{name}__state"):
        run(CUTS[1], expect_pass=False)
    assert commits() == 1 and read()["pending"], "the stopped run should have left its staging table"
    assert list((folder / "run-2").rglob("*.parquet")), "the stopped run should have written its folder"
    # the same batch again (the stopped one is discarded, its folder written over), stopped
    # after its commit row, before the table drops the partitions it replaces
    with StopAt(warehouse, name, alter + "drop if exists"):
        run(CUTS[1], expect_pass=False)
    model.run(source, us(CUTS[1]))
    assert commits() == 2
    # the next run finishes that one (its first ADD), then stops between its own DROP and ADD
    with StopAt(warehouse, name, alter + "add", occurrence=2):
        run(CUTS[2], expect_pass=False)
    model.run(source, us(CUTS[2]))
    # the next run finishes that one, then stops once its partitions are re-pointed: a session
    # run before it deletes the staged rows the table does not take, a fixed-window run before
    # it drops its staging table
    last = CUTS[3]
    trash = rf"create table [`\w.]*{name}__trash" if session else rf"drop table (if exists )?[`\w.]*{name}__pending_"
    with StopAt(warehouse, name, trash, occurrence=2):
        run(last, expect_pass=False)
    model.run(source, us(last))
    if session:  # and the next finishes that one but for dropping its staging table: the run
        # after it finds every partition re-pointed and the unplaced rows deleted already
        last = CUTS[4]
        with StopAt(warehouse, name, rf"drop table (if exists )?[`\w.]*{name}__pending_"):
            run(last, expect_pass=False)  # stopped in its recovery: no batch of its own
    # the next run finds every partition of that one re-pointed already
    following = CUTS[CUTS.index(last) + 1]
    run(following)
    model.run(source, us(following))

    actual = read()
    where = "after runs stopped at each step of the write-once commit"
    if session:
        assert_tables_match(actual, expected_session_tables(model, name), where, same_length=True)
    else:
        assert_tables_match(actual, expected_tables({name: model}), where, same_length=True)
        assert_state_matches(actual, {name: model}, where)
    assert_changelog_replays_to_the_table(actual, where, name)

    # no file of a replaced partition, of staged rows the table does not take or of the stopped
    # uncommitted run is left in the folder
    read_files = {
        Path(unquote(urlparse(row[0]).path))  # a URI: `%3A` in a folder name is `%253A`
        for row in warehouse.rows(f"select distinct _metadata.file_path from {SCHEMA}.{name}")
    }
    on_disk = {path for path in folder.rglob("*") if path.is_file() and not path.name.startswith(("_", "."))}
    assert on_disk == read_files, (
        f"{where}: files no partition reads: {sorted(map(str, on_disk - read_files))[:5]}; "
        f"read but missing: {sorted(map(str, read_files - on_disk))[:5]}"
    )
    partition_folders = {path for path in folder.rglob("window_partition=*") if path.is_dir()}
    assert partition_folders == {path.parent for path in read_files}, f"{where}: partition folders left"
    assert any(path.parent.parent != folder for path in read_files), "some partitions should be in run folders"


def test_a_full_refresh_after_a_compaction_stopped_before_its_purge_starts_the_state_in_its_own_folder(
    warehouse, dbt_target
):
    """The hopping example compacts its state table every 4 runs (compact_state_every=4). Its
    compaction of batch 4 is stopped once the table is re-pointed, before the folder it left is
    deleted. A --full-refresh then deletes that folder before it creates the state table there
    again (Spark creates no managed table in a folder that exists), and the runs after compact
    it again at batch 4, into one folder beside its own; the tables end as the reference
    model's."""
    skip_on_iceberg(dbt_target)
    if warehouse.spark is None:
        pytest.skip("reads the state table's folders on this machine; runs on the local target")
    name = "sensor_vehicles_incremental_hopping"
    schema_folder = table_folder(warehouse, name).parent

    def run(until: str, full_refresh: bool = False, expect_pass: bool = True) -> None:
        command = ["run", "--select", f"raw_sensor_readings {name}"] + (["--full-refresh"] if full_refresh else [])
        run_dbt(command, expect_pass=expect_pass, env={"SPARK_WINDOWS_ARRIVED_UNTIL": until})

    def state_folders() -> list[str]:
        """The state table's folders and its trash table's."""
        return sorted(path.name for path in schema_folder.iterdir() if path.name.startswith(f"{name}__state"))

    for index, cut in enumerate(CUTS[:3]):
        run(cut, full_refresh=index == 0)
    with StopAt(warehouse, f"{name}__state", rf"alter table [`\w.]*{name}__state__trash`? add"):
        run(CUTS[3], expect_pass=False)
    assert state_folders() == [f"{name}__state", f"{name}__state-a", f"{name}__state__trash"]

    run(CUTS[0], full_refresh=True)
    assert state_folders() == [f"{name}__state"]
    model, source = reference_models()[name], arrivals()
    model.run(source, us(CUTS[0]))
    for cut in CUTS[1:5]:
        run(cut)
        model.run(source, us(cut))
    assert state_folders() == [f"{name}__state-a"]
    # the compacted file of batches 1-4, then batch 5's
    assert len(list((schema_folder / f"{name}__state-a").glob("*.parquet"))) == 2
    actual = read_tables(warehouse.rows, SCHEMA, [name])
    where = "after a full refresh that followed a stopped compaction"
    assert_tables_match(actual, expected_tables({name: model}), where, same_length=True)
    assert_state_matches(actual, {name: model}, where)


def test_a_final_run_stopped_anywhere_appends_its_windows_once(warehouse, dbt_target):
    """emit_policy='final': a run stopped before its commit (after it wrote its open rows, or its
    windows) leaves the model's table as it was, and its batch runs again; a run stopped after
    its commit, before the table takes the batch's windows, is finished by the next run. Each
    window ends in the model's table once, and never shows before its run committed."""
    if dbt_target == "iceberg":
        pytest.skip("emit_policy='final' keeps Parquet tables")
    name = "sensor_vehicles_incremental_final"
    model = reference_models()[name]
    source = arrivals()

    def run(until: str, full_refresh: bool = False, expect_pass: bool = True) -> None:
        command = ["run", "--select", f"raw_sensor_readings {name}"] + (["--full-refresh"] if full_refresh else [])
        run_dbt(command, expect_pass=expect_pass, env={"SPARK_WINDOWS_ARRIVED_UNTIL": until})

    def final_table() -> list:
        return read_tables(warehouse.rows, SCHEMA, [name])[f"{name}:final"]

    commits = lambda: len(warehouse.rows(f"select batch_id from {SCHEMA}.{name}__state"))  # noqa: E731
    windows_written = rf"insert overwrite directory '[^']*/{name}/batch_id="
    committed = rf"insert into [`\w.]*{name}__state"
    published = rf"alter table [`\w.]*{name}`? add if not exists"
    # index of the run -> where it stops, and whether that is before its commit
    stops = {
        2: (windows_written, True),
        4: (committed, True),
        5: (published, False),
        7: (committed, True),
        8: (windows_written, True),
        10: (published, False),
    }
    for index, cut in enumerate(CUTS[:12]):
        if index in stops:
            pattern, before_commit = stops[index]
            shown = final_table() if index > 0 else []
            with StopAt(warehouse, name, pattern):
                run(cut, expect_pass=False)
            assert final_table() == shown, f"run {index + 1}, stopped at {pattern}: the model's table changed"
            if before_commit:  # the batch runs again
                assert commits() == model.batch_id
                run(cut)
        else:
            run(cut, full_refresh=index == 0)
        model.run(source, us(cut))
        assert commits() == model.batch_id, cut
    run(CUTS[12])
    model.run(source, us(CUTS[12]))
    actual = read_tables(warehouse.rows, SCHEMA, [name])
    expected = expected_tables({name: model})
    where = "after final runs stopped before and after their commits"
    tables = {f"{name}:{table}": expected[f"{name}:{table}"] for table in ("late", "final")}
    assert_tables_match(actual, tables, where, same_length=True)
    assert len({row[0] for row in actual[f"{name}:final"]}) >= 3, "windows should turn final in several runs"
    assert not actual["pending"]
