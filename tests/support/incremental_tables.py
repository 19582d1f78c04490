"""The incremental models' tables: the session reference model's, and checks that tables match and changelogs replay."""

from __future__ import annotations

import json

from incremental_cases import SESSION_MODEL
from incremental_driver import MODELS, SESSION_MODELS
from reference_incremental import replay
from reference_incremental_sessions import SessionModel


def expected_session_tables(model: SessionModel, name: str = SESSION_MODEL) -> dict:
    """The reference model's tables in the shape of incremental_driver.read_tables: the sessions
    the model shows (on_watermark: those the watermark passed), late rows, changelog and state;
    with final, the sessions appended once final instead of the sessions and the changelog, and
    the state without the count of updated sessions."""
    columns = SESSION_MODELS[name]
    late = [
        [row.key, row.ts, row.value, row.ingested, [list(window) for window in missed], watermark, batch]
        for row, missed, watermark, batch in model.late
    ]
    state = [list(row) for row in model.state]
    tables = {f"{name}:late": sorted(late, key=json.dumps)}
    if model.emit_policy == "final":
        # each session once, as it turned final
        final = [
            [batch, key, start, end, *(values[column] for column in columns)]
            for batch, key, start, end, values in model.finals
        ]
        tables[f"{name}:final"] = sorted(final, key=json.dumps)
        tables[f"{name}:state"] = sorted([row[:-1] for row in state], key=json.dumps)
        return tables
    windows = [
        [key, start, image.end, *(image.values[column] for column in columns), image.is_final]
        + [image.revision, image.timing]
        for (key, start), image in model.shown().items()
    ]
    changelog = [
        [row.batch_id, row.op, row.key, row.start, row.end, *(row.values[column] for column in columns)]
        + [row.is_final, row.revision, row.timing]
        for row in model.changelog
    ]
    tables[f"{name}:windows"] = sorted(windows, key=json.dumps)
    tables[f"{name}:changelog"] = sorted(changelog, key=json.dumps)
    tables[f"{name}:state"] = sorted(state, key=json.dumps)
    return tables


def assert_tables_match(actual: dict, expected: dict, where: str, same_length: bool = False) -> None:
    """Each expected table is there and holds the expected rows and no other; with `same_length`
    also as many rows (so a row held twice fails too)."""
    for name, rows in expected.items():
        assert name in actual, f"{where}: table {name} is missing"
        missing = [row for row in rows if row not in actual[name]]
        extra = [row for row in actual[name] if row not in rows]
        assert not missing and not extra and (not same_length or len(rows) == len(actual[name])), (
            f"{where}: {name} differs from the reference model\n"
            f"  expected but missing ({len(missing)}): {missing[:5]}\n  unexpected ({len(extra)}): {extra[:5]}"
        )


def assert_changelog_replays_to_the_table(actual: dict, where: str, name: str = SESSION_MODEL) -> None:
    """Deleting -D / -U and inserting +U / +I by identity, batch by batch, rebuilds the table of
    model `name`, revision and timing included (is_final left out: a window or session that turns
    final without being emitted is not logged). A window's identity is (key, window_start,
    window_end); a session's is (key, window_start), its end being part of what changes."""
    sessions = name in SESSION_MODELS
    width = len(SESSION_MODELS[name] if sessions else MODELS[name])
    identity = 2 if sessions else 3
    changelog = [row[: 5 + width] + row[6 + width :] for row in actual[f"{name}:changelog"]]
    try:
        rebuilt = replay(changelog, identity)
    except AssertionError as error:
        raise AssertionError(f"{where}: the changelog of {name} does not replay: {error}") from error
    table = {
        tuple(row[:identity]): tuple(row[identity : 3 + width] + row[4 + width :]) for row in actual[f"{name}:windows"]
    }
    assert len(table) == len(actual[f"{name}:windows"]), (
        f"{where}: two {'sessions' if sessions else 'windows'} of {name} share their identity"
    )
    assert rebuilt == table, (
        f"{where}: replaying the changelog of {name} gives another table\n"
        f"  only in the replay: {sorted(set(rebuilt.items()) - set(table.items()), key=str)[:5]}\n"
        f"  only in the table: {sorted(set(table.items()) - set(rebuilt.items()), key=str)[:5]}"
    )
