"""Slow tests of windowed_incremental with session windows against tests/support/reference_incremental_sessions.py.

The example models models/incremental/user_sessions_incremental.sql (emit_policy every_run),
user_sessions_incremental_on_watermark.sql (on_watermark) and user_sessions_incremental_final.sql
(final) read `raw_clicks`, a view of the
clicks that arrived by SPARK_WINDOWS_CLICKS_ARRIVED_UNTIL. Replaying the arrivals at the cut-offs
(CUTS, in support/incremental_cases.py; one dbt run per cut-off for these and the sensor models,
support/incremental_replay.py) is a stream of micro-batches designed to hold every case
of the semantics: sessions extended at either end, merged by one row and by the rows of one run,
rows late by their own window and by touching an expired session, a run with nothing new,
sessions becoming final, a row without event time (tests/unit/test_reference_incremental_sessions.py
checks that they all occur).
"""

from __future__ import annotations

import re

import pytest
from incremental_cases import CUTS, click_arrivals, reference_session_models, us
from incremental_cases import SESSION_MODEL as MODEL
from incremental_driver import SESSION_MODELS
from incremental_tables import assert_changelog_replays_to_the_table, assert_tables_match, expected_session_tables
from reference_incremental_sessions import SessionModel
from stop_at import is_script

from dev.dbt_harness import run_dbt


def assert_run_times_agree(tables: dict, where: str, name: str = MODEL) -> None:
    """Each batch's late and changelog rows carry the run_started_at of its state row."""
    times = tables[f"{name}:run_times"]
    started = dict(times["state"])
    assert None not in started.values(), f"{where}: a state row has no run_started_at"
    ordered = [started[batch] for batch in sorted(started)]
    assert ordered == sorted(ordered), f"{where}: run_started_at goes back from one batch to the next: {started}"
    for table in ("late", "changelog"):
        for batch, moment in times.get(table, []):
            assert started.get(batch) == moment, f"{where}: {table} of batch {batch} has run_started_at {moment}"


def session_tables(tables: dict) -> dict:
    """The tables of every session model."""
    return {name: rows for name, rows in tables.items() if name.split(":", 1)[0] in SESSION_MODELS}


def assert_session_models_match(tables: dict, models: dict[str, SessionModel], where: str) -> None:
    for name, model in models.items():
        assert_tables_match(tables, expected_session_tables(model, name), where, same_length=True)
        if model.emit_policy != "final":  # no changelog: the model's table is one
            assert_changelog_replays_to_the_table(tables, where, name)
        assert_run_times_agree(tables, where, name)


@pytest.mark.slow
def test_replay_of_session_windows_matches_the_reference_model(incremental_replay):
    """Both session models in the replay of the arrivals (conftest's incremental_replay), run by
    run; the replay also ran the model's data tests on the tables the runs built."""
    source = click_arrivals()
    models = reference_session_models()
    assert [cut for cut, _ in incremental_replay.runs] == CUTS
    for index, (cut, tables) in enumerate(incremental_replay.runs):
        after = session_tables(tables)
        reports = [model.run(source, us(cut)) for model in models.values()]
        where = f"after the run with clicks arrived by {cut} (run {index + 1}{incremental_replay.killed()})"
        if index > 0 and not reports[0].new:
            before = session_tables(incremental_replay.runs[index - 1][1])
            assert after == before, f"{where}: a run with no new rows changed a table"
        assert_session_models_match(after, models, where)
    model = models[MODEL]
    assert model.late and any(row[-3] for row in after[f"{MODEL}:windows"])
    # on_watermark shows only the sessions the watermark passed, each emitted at least once
    on_watermark = models["user_sessions_incremental_on_watermark"]
    shown = after["user_sessions_incremental_on_watermark:windows"]
    assert shown and all(row[2] <= on_watermark.watermark and row[-2] >= 1 for row in shown)
    assert len(shown) < len(on_watermark.table)
    # final appends the sessions of several runs, each once (same_length above), not the open ones
    final = after["user_sessions_incremental_final:final"]
    assert len({row[0] for row in final}) >= 3 and len(final) < len(models["user_sessions_incremental_final"].table)

    # --full-refresh: one first run over all rows; the rows late before now join sessions
    fresh = reference_session_models()
    for model in fresh.values():
        model.run(source, us(CUTS[-1]))
    refreshed = session_tables(incremental_replay.refreshed)
    where = "after --full-refresh"
    assert_session_models_match(refreshed, fresh, where)
    for name in SESSION_MODELS:
        assert not refreshed[f"{name}:late"] and [row[0] for row in refreshed[f"{name}:state"]] == [1]
        sessions = "final" if name == "user_sessions_incremental_final" else "windows"
        assert refreshed[f"{name}:{sessions}"] != after[f"{name}:{sessions}"], (
            f"{name}: the late rows should join sessions now"
        )


@pytest.mark.slow
def test_a_session_run_changes_the_tables_partitions_with_nothing_cached(warehouse, monkeypatch, dbt_target):
    """A run caches the new rows, the stored sessions they can touch and those they touch, for its
    touch and staging queries. Each change of a table's partitions re-plans every cached query
    that reads the table (0.2-0.7 s a statement on a small table): the run drops them once the
    staging table is written, so that the table's partitions are dropped and added with Spark's
    cache empty."""
    if dbt_target == "iceberg":
        pytest.skip("the partitions of Parquet tables; an Iceberg table replaces them in one commit")
    if warehouse.spark is None:
        pytest.skip("reads Spark's cache in this process; runs on the local target")
    from dbt.adapters.spark.connections import SparkConnectionManager

    cache = warehouse.spark._jsparkSession.sharedState().cacheManager()
    changes = re.compile(rf"alter table [`\w.]*{MODEL}`? (drop|add) ", re.IGNORECASE)
    cached_at_changes = []
    views = set()  # the temporary views the run cached
    original = SparkConnectionManager.add_query

    def add_query(manager, sql, *args, **kwargs):
        views.update(re.findall(r"create or replace temporary view (\w+)", sql))
        found = changes.search(sql)
        if found and is_script(sql):
            # a run's script (Spark 4.1+) runs its statements in order: every view the run cached
            # is dropped before its first partition change
            dropped = set(re.findall(r"drop view if exists (\w+)", sql[: found.start()]))
            cached_at_changes.append(not views <= dropped)
        elif found:
            cached_at_changes.append(not cache.isEmpty())
        return original(manager, sql, *args, **kwargs)

    command = ["run", "--select", f"raw_clicks {MODEL}"]
    run_dbt([*command, "--full-refresh"], env={"SPARK_WINDOWS_CLICKS_ARRIVED_UNTIL": CUTS[0]})
    warehouse.spark.catalog.clearCache()  # what a run stopped by an earlier test may have left
    monkeypatch.setattr(SparkConnectionManager, "add_query", add_query)
    run_dbt(command, env={"SPARK_WINDOWS_CLICKS_ARRIVED_UNTIL": CUTS[1]})
    assert cached_at_changes, "the run should have dropped and added partitions of the table"
    assert views, "the run should have cached its batch and the sessions it touches"
    assert not any(cached_at_changes), (
        f"Spark's cache held queries at {cached_at_changes.count(True)} partition changes"
    )
