"""Fast tests of tests/support/reference_incremental_sessions.py: hand-computed cases, and the example
scenario (seeds/examples/click_arrivals.csv at the cut-offs of incremental_cases.py) holds
every case the slow replay test is meant to cover, each in the run it was designed for. Last, the
emissions of every incremental example model (sensor and click arrivals, both emit policies)."""

from __future__ import annotations

import functools

import pytest
from incremental_cases import (
    CUTS,
    arrivals,
    click_arrivals,
    reference_model,
    reference_models,
    reference_session_models,
    us,
)
from reference_incremental import MINUTE, Row, count_rows, sum_of_values
from reference_incremental_sessions import (
    OWN_WINDOW_EXPIRED,
    TOUCHES_EXPIRED_SESSION,
    SessionModel,
    replay,
    sessions_of,
)

pytestmark = pytest.mark.fast

US = 1  # one microsecond


def row(key, minute, value=1, ingested=0):
    return Row(key, None if minute is None else minute * MINUTE, value, ingested * MINUTE)


def model(delay=0, lateness=0, gap=10) -> SessionModel:
    return SessionModel(gap * MINUTE, delay * MINUTE, lateness * MINUTE, {"clicks": count_rows, "total": sum_of_values})


def m(minutes):
    return minutes * MINUTE


def ops(changelog: list, batch_id: int) -> list[tuple]:
    """A batch's changelog rows as (op, key, start, end, clicks, total, is_final), starts and ends in minutes."""
    return sorted(
        (row.op, row.key, row.start / MINUTE, row.end / MINUTE, row.values["clicks"], row.values["total"], row.is_final)
        for row in changelog
        if row.batch_id == batch_id
    )


# --- hand-computed cases ----------------------------------------------------------------


def test_rows_a_gap_apart_share_a_session_and_one_microsecond_more_splits_it():
    touching = sessions_of([row("a", 0), row("a", 10), row("a", 20)], m(10))
    assert [(s.start, s.end, len(s.rows)) for s in touching] == [(0, m(30), 3)]
    apart = sessions_of([row("a", 0), Row("a", m(10) + US, 1, 0)], m(10))
    assert [(s.start, s.end) for s in apart] == [(0, m(10)), (m(10) + US, m(20) + US)]


def test_null_group_is_a_group_and_null_time_is_in_no_session_and_not_late():
    reference = model()
    source = [row(None, 0, 2), row("a", 0, 3), row("a", None, 4), row(None, 5, None)]
    reference.run(source, m(1))
    assert {key: (image.end, image.values) for key, image in reference.table.items()} == {
        (None, 0): (m(15), {"clicks": 2, "total": 2}),
        ("a", 0): (m(10), {"clicks": 1, "total": 3}),
    }
    assert reference.state == [(1, 0, m(5), m(5), 4, 0, 2)]
    assert reference.late == []


def test_rows_of_one_run_merging_three_sessions_give_one_update_and_two_deletes():
    reference = model(lateness=100)
    source = [row("a", 0, 1, 1), row("a", 20, 2, 2), row("a", 40, 4, 3), row("a", 10, 8, 6), row("a", 30, 16, 7)]
    reference.run(source, m(5))
    assert ops(reference.changelog, 1) == [
        ("+I", "a", 0, 10, 1, 1, False),
        ("+I", "a", 20, 30, 1, 2, False),
        ("+I", "a", 40, 50, 1, 4, False),
    ]
    report = reference.run(source, m(10))
    assert [len(bridged) for _, bridged in report.accepted] == [2, 2]  # no single row touches three
    assert ops(reference.changelog, 2) == [
        ("+U", "a", 0, 50, 5, 31, False),
        ("-D", "a", 20, 30, 1, 2, False),
        ("-D", "a", 40, 50, 1, 4, False),
        ("-U", "a", 0, 10, 1, 1, False),
    ]
    assert reference.state[-1] == (2, m(7), m(40), m(40), 2, 0, 1)


def test_a_row_bridging_two_sessions_updates_the_first_and_deletes_the_second():
    reference = model(lateness=100)
    source = [row("a", 0, 1, 1), row("a", 19, 2, 2), row("a", 10, 4, 6)]
    reference.run(source, m(5))
    reference.run(source, m(10))
    assert ops(reference.changelog, 2) == [
        ("+U", "a", 0, 29, 3, 7, False),
        ("-D", "a", 19, 29, 1, 2, False),
        ("-U", "a", 0, 10, 1, 1, False),
    ]


def test_a_row_before_the_start_replaces_the_session_with_a_delete_and_an_insert():
    reference = model(lateness=100)
    source = [row("a", 10, 1, 1), row("a", 5, 2, 6)]
    reference.run(source, m(5))
    reference.run(source, m(10))
    assert ops(reference.changelog, 2) == [("+I", "a", 5, 20, 2, 3, False), ("-D", "a", 10, 20, 1, 1, False)]
    assert list(reference.table) == [("a", m(5))]


def test_a_row_touching_an_expired_session_is_late_though_its_own_window_is_not():
    # W_prev = 20 after run 1; a's session [0, 10) expired (10 + 5 <= 20)
    reference = model(lateness=5)
    source = [row("a", 0, 1, 1), row("b", 20, 1, 2), row("a", 6, 2, 6), row("a", 10, 4, 7)]
    source.append(Row("a", m(10) + US, 8, m(8)))
    stored = dict(reference.run(source, m(5)).after)
    report = reference.run(source, m(10))
    assert [(late.ts / MINUTE, reason) for late, reason in report.late] == [
        (6, TOUCHES_EXPIRED_SESSION),
        (10, TOUCHES_EXPIRED_SESSION),
    ]
    assert reference.late[0][1:] == ([(m(6), m(16))], m(20), 2)
    assert reference.table[("a", 0)] == stored[("a", 0)]
    assert ops(reference.changelog, 2) == [("+I", "a", (m(10) + US) / MINUTE, (m(20) + US) / MINUTE, 1, 8, False)]
    assert reference.state[-1] == (2, m(8), m(20), m(20), 3, 2, 1)


def test_a_row_whose_own_window_expired_is_late_from_the_boundary_on():
    # W_prev = 30: a window [t, t + 10) is expired when t + 10 + 5 <= 30
    reference = model(lateness=5)
    source = [row("b", 30, 1, 1), row("a", 15, 2, 6), Row("c", m(15) + US, 4, m(7))]
    reference.run(source, m(5))
    report = reference.run(source, m(10))
    assert [(late.key, reason) for late, reason in report.late] == [("a", OWN_WINDOW_EXPIRED)]
    assert reference.late == [(source[1], [(m(15), m(25))], m(30), 2)]
    assert ("c", m(15) + US) in reference.table


def test_a_session_becoming_final_is_updated_in_the_table_without_a_changelog_row():
    reference = model()
    source = [row("a", 0, 1, 1), row("b", 10, 1, 6)]
    reference.run(source, m(5))
    assert reference.table[("a", 0)].is_final is False
    reference.run(source, m(10))
    assert reference.table[("a", 0)].is_final is True  # 10 + 0 <= W = 10
    assert ops(reference.changelog, 2) == [("+I", "b", 10, 20, 1, 1, False)]


def test_a_run_with_nothing_new_changes_nothing():
    reference = model()
    source = [row("a", 0, 1, 1)]
    reference.run(source, m(5))
    snapshot = (dict(reference.table), list(reference.changelog), list(reference.state), reference.batch_id)
    report = reference.run(source, m(5))
    assert report.new == [] and report.changelog == []
    assert (reference.table, reference.changelog, reference.state, reference.batch_id) == snapshot


def test_replay_refuses_a_changelog_that_does_not_fit_the_table():
    image = ("a", 0, m(10), 1, 1)
    assert replay([(1, "+I", *image), (2, "-U", *image), (2, "+U", "a", 0, m(20), 2, 2)]) == {("a", 0): (m(20), 2, 2)}
    with pytest.raises(AssertionError, match="not in the table"):
        replay([(1, "-D", *image)])
    with pytest.raises(AssertionError, match="already there"):
        replay([(1, "+I", *image), (2, "+I", *image)])


# --- the example scenario ----------------------------------------------------------------

# case -> the run (1-based, over CUTS) it was designed into; see the report of each run below
DESIGNED = {
    "out-of-order row": 3,  # u1 07:52 arrives after u1 08:04
    "row extending a session at its end": 2,  # u1 08:04 touches [07:54, 08:04) exactly
    "row extending a session at its start": 3,  # u1 07:52 before [07:54, 08:14)
    "row bridging exactly two sessions": 8,  # u2 08:12 joins [08:02, 08:12) and [08:19, 08:29)
    "rows of one run merging three sessions": 14,  # u3 08:22 and 08:35
    "row late by its own window": 11,  # u2 07:40
    "row late by its own window, at the boundary": 12,  # u2 08:00: 08:00 + 10 + 20 min = W_prev
    "row touching an expired session, own window not expired": 3,  # u3 07:38 touches [07:30, 07:40)
    "run with nothing new": 7,  # 08:20 again
    "session becoming final without other change": 12,  # u1 [07:52, 08:14)
    "row with NULL event time": 5,
    "row of the NULL user group accepted": 1,
    "NULL group session extended at its start": 11,  # NULL-user 08:00 before [08:03, 08:20)
    "session with NULL revenue updated": 10,  # u5
}


def scenario_cases() -> dict[str, set[int]]:
    """Replays the example and names the cases each run holds."""
    reference = reference_model()
    source = click_arrivals()
    found: dict[str, set[int]] = {case: set() for case in DESIGNED}
    for number, cut in enumerate(CUTS, start=1):
        newest_before, watermark_before = reference.max_event, reference.watermark
        report = reference.run(source, us(cut))
        changes = {(op, key, start) for _, op, key, start, *_ in report.changelog}

        def add(case: str, happened: bool, number=number) -> None:
            if happened:
                found[case].add(number)

        add("run with nothing new", number > 1 and not report.new)
        add("row with NULL event time", any(new.ts is None for new in report.new))
        add(
            "out-of-order row",
            any(new.ts is not None and newest_before is not None and new.ts < newest_before for new in report.new),
        )
        for new, reason in report.late:
            own_window_end = new.ts + reference.gap + reference.lateness
            add("row late by its own window", reason == OWN_WINDOW_EXPIRED)
            add(
                "row late by its own window, at the boundary",
                reason == OWN_WINDOW_EXPIRED and own_window_end == watermark_before,
            )
            add(
                "row touching an expired session, own window not expired",
                reason == TOUCHES_EXPIRED_SESSION and own_window_end > watermark_before,
            )
        for new, bridged in report.accepted:
            add("row of the NULL user group accepted", new.key is None)
            if len(bridged) == 1:
                [stored] = bridged
                add(
                    "row extending a session at its end",
                    new.ts + reference.gap > stored.end and ("+U", stored.key, stored.start) in changes,
                )
                at_start = new.ts < stored.start and ("-D", stored.key, stored.start) in changes
                add("row extending a session at its start", at_start)
                add("NULL group session extended at its start", at_start and new.key is None)
            if len(bridged) == 2:
                first, second = sorted(bridged, key=lambda s: s.start)
                add(
                    "row bridging exactly two sessions",
                    ("+U", first.key, first.start) in changes and ("-D", second.key, second.start) in changes,
                )
        for (key, start), image in report.after.items():
            inside = [k for k, old in report.before.items() if k[0] == key and start <= k[1] and old.end <= image.end]
            add("rows of one run merging three sessions", len(inside) == 3 and (key, start) in report.before)
            old = report.before.get((key, start))
            if old is not None:
                unchanged = (old.end, old.values) == (image.end, image.values)
                add("session becoming final without other change", unchanged and image.is_final and not old.is_final)
                add(
                    "session with NULL revenue updated",
                    not unchanged and old.values["revenue"] is None and image.values["revenue"] is None,
                )
    return found


@pytest.mark.parametrize("case", sorted(DESIGNED))
def test_the_example_scenario_holds_the_case_in_its_designed_run(case):
    assert len(set(CUTS)) >= 12
    runs = scenario_cases()[case]
    assert DESIGNED[case] in runs, f"{case}: designed for run {DESIGNED[case]}, found in runs {sorted(runs)}"


def test_the_example_scenario_loses_no_row_and_keeps_expired_sessions():
    reference = reference_model()
    source = click_arrivals()
    for number, cut in enumerate(CUTS, start=1):
        previous = reference.watermark
        report = reference.run(source, us(cut))
        arrived = [row for row in source if row.ingested <= us(cut)]
        assert len(reference.accepted) + len(reference.late) == sum(row.ts is not None for row in arrived)
        replayed = replay(
            [
                (b, op, k, s, e, v["clicks"], v["revenue"], revision, timing)
                for b, op, k, s, e, v, _, revision, timing in reference.changelog
            ]
        )
        table = {
            key: (image.end, image.values["clicks"], image.values["revenue"], image.revision, image.timing)
            for key, image in reference.shown().items()
        }
        assert replayed == table, f"run {number}: the changelog does not replay to the table"
        for key, old in report.before.items():
            if previous is not None and old.end + reference.lateness <= previous:
                assert (report.after[key].end, report.after[key].values) == (old.end, old.values), f"run {number}"
        by_group: dict = {}
        for key, start in sorted(report.after, key=lambda item: (str(item[0]), item[1])):
            by_group.setdefault(key, []).append((start, report.after[(key, start)].end))
        for spans in by_group.values():
            assert all(later[0] > earlier[1] for earlier, later in zip(spans, spans[1:])), f"run {number}: {spans}"
    # the slow test's --full-refresh must show a difference: rows once late now join sessions
    fresh = reference_model()
    fresh.run(source, us(CUTS[-1]))
    assert fresh.late == [] and fresh.table != reference.table


# --- the emissions of the example models ------------------------------------------------------


@functools.cache
def example_emissions() -> dict[str, list[tuple]]:
    """Replays every incremental example model at its scenario's cut-offs: model -> its emissions
    (+I, +U) as (batch_id, identity, timing, untouched), `untouched` when the run accepted no row
    into the window (sessions: the session's end and aggregates are the ones before the run)."""
    found = {}
    for name, model in reference_models().items():
        source = arrivals()
        for cut in CUTS:
            model.run(source, us(cut))
        found[name] = [
            (
                row.batch_id,
                (row.key, row.start, row.end),
                row.timing,
                (row.key, row.start, row.end) not in model.touched[row.batch_id],
            )
            for row in model.changelog
            if row.op in ("+I", "+U")
        ]
    for name, model in reference_session_models().items():
        source = click_arrivals()
        found[name] = []
        for cut in CUTS:
            report = model.run(source, us(cut))
            for row in report.changelog:
                if row.op in ("+I", "+U"):
                    old = report.before.get((row.key, row.start))
                    untouched = old is not None and (old.end, old.values) == (row.end, row.values)
                    found[name].append((row.batch_id, (row.key, row.start), row.timing, untouched))
    return found


ON_WATERMARK_EXAMPLES = ["sensor_vehicles_incremental_on_watermark", "user_sessions_incremental_on_watermark"]
EVERY_RUN_EXAMPLES = [
    "sensor_vehicles_incremental_tumbling",
    "sensor_vehicles_incremental_hopping",
    "user_sessions_incremental",
]


@pytest.mark.parametrize("name", ON_WATERMARK_EXAMPLES)
def test_an_on_watermark_example_emits_a_window_on_time_in_a_run_that_did_not_touch_it(name):
    emissions = example_emissions()[name]
    assert any(timing == "on_time" and untouched for _, _, timing, untouched in emissions)
    assert all(timing != "early" for _, _, timing, _ in emissions)


@pytest.mark.parametrize(
    "name",
    ["sensor_vehicles_incremental_on_watermark", "user_sessions_incremental_on_watermark"],
)
def test_an_on_watermark_example_fires_late(name):
    assert any(timing == "late" for _, _, timing, _ in example_emissions()[name])


@pytest.mark.parametrize("name", EVERY_RUN_EXAMPLES)
def test_an_every_run_example_emits_a_window_early_and_again_in_a_later_run(name):
    emissions = example_emissions()[name]
    first_early: dict = {}
    for batch, identity, timing, _ in emissions:
        if timing == "early":
            first_early.setdefault(identity, batch)
    assert any(identity in first_early and batch > first_early[identity] for batch, identity, _, _ in emissions)
