"""Slow tests of windowed_incremental with session windows against tests/support/reference_incremental_sessions.py.

The example models models/incremental/user_sessions_incremental.sql (emit_policy every_run) and
user_sessions_incremental_on_watermark.sql (on_watermark) read `raw_clicks`, a view of the
clicks that arrived by the var `clicks_arrived_until`. Replaying the arrivals at the cut-offs
below is a stream of micro-batches designed to hold every case of the semantics: sessions
extended at either end, merged by one row and by the rows of one run, rows late by their own
window and by touching an expired session, a run with nothing new, sessions becoming final, a
row without event time (tests/test_reference_incremental_sessions.py checks that they all occur).
"""

from __future__ import annotations

import csv
import datetime
import json
import os

import pytest
from dbt_harness import PROJECT_DIR, run_dbt
from incremental_driver import SESSION_MODELS, read_tables
from reference_incremental import MINUTE, Row, count_rows, mean_of_values, sum_of_values
from reference_incremental_sessions import SessionModel, replay

SCHEMA = os.environ.get("SPARK_WINDOWS_SCHEMA", "spark_windows")
MODEL = "user_sessions_incremental"
ARRIVALS = PROJECT_DIR / "seeds" / "examples" / "click_arrivals.csv"
# ingestion cut-offs of the scheduled runs: 14 batches, one repeated cut (nothing new), then all.
# The same times as the sensor replay, so the crash test (which runs both) follows this scenario too.
CUTS = [f"2024-05-01 08:{minute:02d}:00" for minute in (4, 6, 8, 12, 16, 20, 20, 24, 28, 32, 36, 40, 44, 48)]
CUTS.append("2024-05-01 09:00:00")


def us(text: str) -> int | None:
    """A UTC timestamp text as integer microseconds since the epoch."""
    if not text:
        return None
    moment = datetime.datetime.fromisoformat(text).replace(tzinfo=datetime.timezone.utc)
    return int(moment.timestamp()) * 1_000_000 + moment.microsecond


def click_arrivals() -> list[Row]:
    with ARRIVALS.open() as handle:
        return [
            Row(
                key=row["user_id"] or None,
                ts=us(row["click_ts"]),
                value=int(row["amount"]) if row["amount"] else None,
                ingested=us(row["ingested_at"]),
            )
            for row in csv.DictReader(handle)
        ]


def reference_model(name: str = MODEL) -> SessionModel:
    """The config of models/incremental/<name>.sql, in the reference model's terms: the two session
    models differ in their emit policy, and the on_watermark one also averages the amounts (an
    aggregate a run cannot merge from stored sessions: it reads their rows again)."""
    on_watermark = name.endswith("_on_watermark")
    return SessionModel(
        gap=10 * MINUTE,
        delay=5 * MINUTE,
        lateness=20 * MINUTE,
        aggregates={
            "clicks": count_rows,
            "revenue": sum_of_values,
            **({"average_amount": mean_of_values} if on_watermark else {}),
        },
        emit_policy="on_watermark" if on_watermark else "every_run",
    )


def reference_session_models() -> dict[str, SessionModel]:
    return {name: reference_model(name) for name in SESSION_MODELS}


def expected_session_tables(model: SessionModel, name: str = MODEL) -> dict:
    """The reference model's tables in the shape of incremental_driver.read_tables: the sessions
    the model shows (on_watermark: those the watermark passed), late rows, changelog, state."""
    columns = SESSION_MODELS[name]
    windows = [
        [key, start, image.end, *(image.values[column] for column in columns), image.is_final]
        + [image.revision, image.timing]
        for (key, start), image in model.shown().items()
    ]
    late = [
        [row.key, row.ts, row.value, row.ingested, [list(window) for window in missed], watermark, batch]
        for row, missed, watermark, batch in model.late
    ]
    changelog = [
        [row.batch_id, row.op, row.key, row.start, row.end, *(row.values[column] for column in columns)]
        + [row.is_final, row.revision, row.timing]
        for row in model.changelog
    ]
    return {
        f"{name}:windows": sorted(windows, key=json.dumps),
        f"{name}:late": sorted(late, key=json.dumps),
        f"{name}:changelog": sorted(changelog, key=json.dumps),
        f"{name}:state": sorted([list(row) for row in model.state], key=json.dumps),
    }


def assert_session_tables_match(actual: dict, expected: dict, where: str) -> None:
    for name, rows in expected.items():
        assert name in actual, f"{where}: table {name} is missing"
        missing = [row for row in rows if row not in actual[name]]
        extra = [row for row in actual[name] if row not in rows]
        assert not missing and not extra and len(rows) == len(actual[name]), (
            f"{where}: {name} differs from the reference model\n"
            f"  expected but missing ({len(missing)}): {missing[:5]}\n  unexpected ({len(extra)}): {extra[:5]}"
        )


def assert_changelog_replays_to_the_table(actual: dict, where: str, name: str = MODEL) -> None:
    """Deleting -D / -U and inserting +U / +I, batch by batch, rebuilds the table, revision and
    timing included (is_final left out: a session that turns final without emission is not logged)."""
    width = len(SESSION_MODELS[name])
    changelog = [row[: 5 + width] + row[6 + width :] for row in actual[f"{name}:changelog"]]
    try:
        rebuilt = replay(changelog)
    except AssertionError as error:
        raise AssertionError(f"{where}: the changelog of {name} does not replay: {error}") from error
    table = {(row[0], row[1]): tuple(row[2 : 3 + width] + row[4 + width :]) for row in actual[f"{name}:windows"]}
    assert len(table) == len(actual[f"{name}:windows"]), (
        f"{where}: two sessions of {name} share (user_id, window_start)"
    )
    assert rebuilt == table, (
        f"{where}: replaying the changelog of {name} gives another table\n"
        f"  only in the replay: {sorted(set(rebuilt.items()) - set(table.items()), key=str)[:5]}\n"
        f"  only in the table: {sorted(set(table.items()) - set(rebuilt.items()), key=str)[:5]}"
    )


def assert_run_times_agree(rows_of, where: str, name: str = MODEL) -> None:
    """Each batch's late and changelog rows carry the run_started_at of its state row."""
    started = dict(rows_of(f"select batch_id, unix_micros(run_started_at) from {SCHEMA}.{name}__state"))
    assert None not in started.values(), f"{where}: a state row has no run_started_at"
    times = [started[batch] for batch in sorted(started)]
    assert times == sorted(times), f"{where}: run_started_at goes back from one batch to the next: {started}"
    for table in ("late", "changelog"):
        for batch, moment in rows_of(
            f"select distinct batch_id, unix_micros(run_started_at) from {SCHEMA}.{name}__{table}"
        ):
            assert started.get(batch) == moment, f"{where}: {table} of batch {batch} has run_started_at {moment}"


def run_clicks(until: str, full_refresh: bool = False) -> None:
    command = ["run", "--select", "raw_clicks+", "--vars", json.dumps({"clicks_arrived_until": until})]
    run_dbt(command + (["--full-refresh"] if full_refresh else []))


def session_tables(rows_of) -> dict:
    """The tables of every session model."""
    return {
        name: rows for name, rows in read_tables(rows_of, SCHEMA).items() if name.split(":", 1)[0] in SESSION_MODELS
    }


def assert_session_models_match(rows_of, tables: dict, models: dict[str, SessionModel], where: str) -> None:
    for name, model in models.items():
        assert_session_tables_match(tables, expected_session_tables(model, name), where)
        assert_changelog_replays_to_the_table(tables, where, name)
        assert_run_times_agree(rows_of, where, name)


@pytest.mark.slow
def test_replay_of_session_windows_matches_the_reference_model(warehouse):
    """Both session models (`dbt run --select raw_clicks+` builds them together), run by run."""
    source = click_arrivals()
    models = reference_session_models()
    for index, cut in enumerate(CUTS):
        before = session_tables(warehouse.rows)
        run_clicks(cut, full_refresh=index == 0)
        reports = [model.run(source, us(cut)) for model in models.values()]
        after = session_tables(warehouse.rows)
        where = f"after the run with clicks arrived by {cut} (run {index + 1})"
        if index > 0 and not reports[0].new:
            assert after == before, f"{where}: a run with no new rows changed a table"
        assert_session_models_match(warehouse.rows, after, models, where)
    model = models[MODEL]
    assert model.late and any(row[-3] for row in after[f"{MODEL}:windows"])
    # on_watermark shows only the sessions the watermark passed, each emitted at least once
    on_watermark = models["user_sessions_incremental_on_watermark"]
    shown = after["user_sessions_incremental_on_watermark:windows"]
    assert shown and all(row[2] <= on_watermark.watermark and row[-2] >= 1 for row in shown)
    assert len(shown) < len(on_watermark.table)
    # the model's data tests hold on the table the runs built: no overlapping sessions, and every
    # click with a time is counted once, in a session or in the late table
    run_dbt(["test", "--select", MODEL, "--vars", json.dumps({"clicks_arrived_until": CUTS[-1]})])

    # --full-refresh: one first run over all rows; the rows late before now join sessions
    run_clicks(CUTS[-1], full_refresh=True)
    fresh = reference_session_models()
    for model in fresh.values():
        model.run(source, us(CUTS[-1]))
    refreshed = session_tables(warehouse.rows)
    where = "after --full-refresh"
    assert_session_models_match(warehouse.rows, refreshed, fresh, where)
    for name in SESSION_MODELS:
        assert not refreshed[f"{name}:late"] and [row[0] for row in refreshed[f"{name}:state"]] == [1]
        assert refreshed[f"{name}:windows"] != after[f"{name}:windows"], (
            f"{name}: the late rows should join sessions now"
        )
