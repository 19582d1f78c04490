"""Fast tests of the emit policy and the firing metadata (revision, timing) of the reference models
(tests/support/reference_incremental.py, tests/support/reference_incremental_sessions.py): hand-computed cases for
tumble, hop and session windows under 'every_run' and 'on_watermark', then random streams
checked against the invariants the rules imply."""

from __future__ import annotations

import copy
import random

import pytest
from reference_incremental import MINUTE, Model, Row, count_rows, replay, sum_of_values
from reference_incremental_sessions import SessionModel
from reference_incremental_sessions import replay as replay_sessions

pytestmark = pytest.mark.fast

F, T = False, True  # is_final


def row(key, minute, value, ingested):
    return Row(key, None if minute is None else minute * MINUTE, value, ingested * MINUTE)


def windows(kind: str, policy: str, size: int, slide: int, lateness: int) -> Model:
    """A model with no watermark delay, counting rows (n) and summing values (total)."""
    aggregates = {"n": count_rows, "total": sum_of_values}
    return Model(kind, size * MINUTE, slide * MINUTE, 0, lateness * MINUTE, aggregates, emit_policy=policy)


def sessions(policy: str, lateness: int, gap: int = 10) -> SessionModel:
    aggregates = {"n": count_rows, "total": sum_of_values}
    return SessionModel(gap * MINUTE, 0, lateness * MINUTE, aggregates, emit_policy=policy)


def log(model, batch_id: int) -> list[tuple]:
    """A batch's changelog as (op, key, start, end, n, total, is_final, revision, timing), in minutes."""
    return sorted(
        (row.op, row.key, row.start // MINUTE, row.end // MINUTE, row.values["n"], row.values["total"])
        + (row.is_final, row.revision, row.timing)
        for row in model.changelog
        if row.batch_id == batch_id
    )


def shown(model) -> dict:
    """The table the model shows: identity in minutes -> (n, total, is_final, revision, timing);
    sessions: (key, start) -> (end, n, total, is_final, revision, timing)."""
    if isinstance(model, SessionModel):
        return {
            (key, start // MINUTE): (image.end // MINUTE, image.values["n"], image.values["total"])
            + (image.is_final, image.revision, image.timing)
            for (key, start), image in model.shown().items()
        }
    return {
        (key, start // MINUTE, end // MINUTE): (image.values["n"], image.values["total"])
        + (image.is_final, image.revision, image.timing)
        for (key, start, end), image in model.shown().items()
    }


def assert_changelog_replays_to_the_shown_table(model) -> None:
    """Replaying the changelog gives the shown table, is_final left out (a window turning final
    without an emission is not logged)."""
    rows = [(*row[:5], row.values["n"], row.values["total"], row.revision, row.timing) for row in model.changelog]
    if isinstance(model, SessionModel):
        expected = {
            identity: (image.end, image.values["n"], image.values["total"], image.revision, image.timing)
            for identity, image in model.shown().items()
        }
        assert replay_sessions(rows) == expected
    else:
        expected = {
            identity: (image.values["n"], image.values["total"], image.revision, image.timing)
            for identity, image in model.shown().items()
        }
        assert replay(rows) == expected


# --- tumble -------------------------------------------------------------------------------

# tumble 10 minutes, no delay (W = the newest event time), lateness 20
TUMBLE_SOURCE = [
    row("a", 1, 1, 1),
    row("a", 5, 2, 2),
    row("a", 12, 4, 2),
    row("a", 8, 8, 3),  # W_prev = 12: [0, 10) takes it (10 + 20 > 12)
    row("a", 40, 16, 3),
]


def test_tumble_every_run_emits_early_then_on_time_then_late():
    model = windows("tumble", "every_run", 10, 10, 20)
    # run 1: W = 1; [0, 10) is new and ends after W: early
    model.run(TUMBLE_SOURCE, 1 * MINUTE)
    assert log(model, 1) == [("+I", "a", 0, 10, 1, 1, F, 1, "early")]
    # run 2: W = 12; [0, 10) recomputed and ends by W, its last timing early: on_time, revision 2
    model.run(TUMBLE_SOURCE, 2 * MINUTE)
    assert log(model, 2) == [
        ("+I", "a", 10, 20, 1, 4, F, 1, "early"),
        ("+U", "a", 0, 10, 2, 3, F, 2, "on_time"),
        ("-U", "a", 0, 10, 1, 1, F, 1, "early"),
    ]
    # run 3: W = 40; [0, 10) recomputed after its on_time emission: late, final (10 + 20 <= 40);
    # [10, 20) untouched: no row, though it turned final
    model.run(TUMBLE_SOURCE, 3 * MINUTE)
    assert log(model, 3) == [
        ("+I", "a", 40, 50, 1, 16, F, 1, "early"),
        ("+U", "a", 0, 10, 3, 11, T, 3, "late"),
        ("-U", "a", 0, 10, 2, 3, F, 2, "on_time"),
    ]
    # every_run shows every window
    assert shown(model) == {
        ("a", 0, 10): (3, 11, T, 3, "late"),
        ("a", 10, 20): (1, 4, T, 1, "early"),
        ("a", 40, 50): (1, 16, F, 1, "early"),
    }
    assert_changelog_replays_to_the_shown_table(model)


def test_tumble_on_watermark_shows_a_window_once_the_watermark_passed_its_end():
    model = windows("tumble", "on_watermark", 10, 10, 20)
    # run 1: W = 1 < 10: [0, 10) is in the state, not shown, never emitted
    model.run(TUMBLE_SOURCE, 1 * MINUTE)
    assert log(model, 1) == [] and shown(model) == {}
    assert model.image(("a", 0, 10 * MINUTE)).revision == 0
    # run 2: W = 12 passes [0, 10): +I on_time; [10, 20) is recomputed but 20 > W
    model.run(TUMBLE_SOURCE, 2 * MINUTE)
    assert log(model, 2) == [("+I", "a", 0, 10, 2, 3, F, 1, "on_time")]
    assert shown(model) == {("a", 0, 10): (2, 3, F, 1, "on_time")}
    # run 3: W = 40. [0, 10) takes a row after it was shown: a late firing. [10, 20), untouched
    # by this run, is emitted now that W passed it, with every row so far and already final
    model.run(TUMBLE_SOURCE, 3 * MINUTE)
    assert ("a", 10 * MINUTE, 20 * MINUTE) not in model.touched[3]
    assert log(model, 3) == [
        ("+I", "a", 10, 20, 1, 4, T, 1, "on_time"),
        ("+U", "a", 0, 10, 3, 11, T, 2, "late"),
        ("-U", "a", 0, 10, 2, 3, F, 1, "on_time"),
    ]
    # [40, 50) ends after W = 40: not shown
    assert shown(model) == {
        ("a", 0, 10): (3, 11, T, 2, "late"),
        ("a", 10, 20): (1, 4, T, 1, "on_time"),
    }
    assert_changelog_replays_to_the_shown_table(model)


# --- hop ----------------------------------------------------------------------------------

# hop size 10, slide 5 (a row at t is in [t - t % 5 - 5, ...) and [t - t % 5, ...)), no delay, lateness 10
HOP_SOURCE = [
    row("a", 7, 1, 1),  # [0, 10) and [5, 15)
    row("a", 11, 2, 2),  # [5, 15) and [10, 20)
    row("a", 9, 4, 3),  # [0, 10) and [5, 15); W_prev = 11: both live (10 + 10 > 11)
    row("a", 16, 8, 3),  # [10, 20) and [15, 25)
    row("a", 6, 16, 4),  # [0, 10) and [5, 15); W_prev = 16: both live (20 > 16)
    row("a", 30, 32, 4),  # [25, 35) and [30, 40)
]


def test_hop_every_run_emits_each_recomputed_window_with_the_next_revision():
    model = windows("hop", "every_run", 10, 5, 10)
    model.run(HOP_SOURCE, 1 * MINUTE)  # W = 7
    assert log(model, 1) == [("+I", "a", 0, 10, 1, 1, F, 1, "early"), ("+I", "a", 5, 15, 1, 1, F, 1, "early")]
    model.run(HOP_SOURCE, 2 * MINUTE)  # W = 11: [0, 10) untouched, so not emitted though W passed it
    assert log(model, 2) == [
        ("+I", "a", 10, 20, 1, 2, F, 1, "early"),
        ("+U", "a", 5, 15, 2, 3, F, 2, "early"),
        ("-U", "a", 5, 15, 1, 1, F, 1, "early"),
    ]
    model.run(HOP_SOURCE, 3 * MINUTE)  # W = 16: [0, 10) and [5, 15) end by W now
    assert log(model, 3) == [
        ("+I", "a", 15, 25, 1, 8, F, 1, "early"),
        ("+U", "a", 0, 10, 2, 5, F, 2, "on_time"),
        ("+U", "a", 5, 15, 3, 7, F, 3, "on_time"),
        ("+U", "a", 10, 20, 2, 10, F, 2, "early"),
        ("-U", "a", 0, 10, 1, 1, F, 1, "early"),
        ("-U", "a", 5, 15, 2, 3, F, 2, "early"),
        ("-U", "a", 10, 20, 1, 2, F, 1, "early"),
    ]
    model.run(HOP_SOURCE, 4 * MINUTE)  # W = 30: both re-emitted late, and final (end + 10 <= 30)
    assert log(model, 4) == [
        ("+I", "a", 25, 35, 1, 32, F, 1, "early"),
        ("+I", "a", 30, 40, 1, 32, F, 1, "early"),
        ("+U", "a", 0, 10, 3, 21, T, 3, "late"),
        ("+U", "a", 5, 15, 4, 23, T, 4, "late"),
        ("-U", "a", 0, 10, 2, 5, F, 2, "on_time"),
        ("-U", "a", 5, 15, 3, 7, F, 3, "on_time"),
    ]
    assert shown(model) == {
        ("a", 0, 10): (3, 21, T, 3, "late"),
        ("a", 5, 15): (4, 23, T, 4, "late"),
        ("a", 10, 20): (2, 10, T, 2, "early"),
        ("a", 15, 25): (1, 8, F, 1, "early"),
        ("a", 25, 35): (1, 32, F, 1, "early"),
        ("a", 30, 40): (1, 32, F, 1, "early"),
    }
    assert_changelog_replays_to_the_shown_table(model)


def test_hop_on_watermark_emits_untouched_windows_on_time_and_recomputed_ones_late():
    model = windows("hop", "on_watermark", 10, 5, 10)
    model.run(HOP_SOURCE, 1 * MINUTE)  # W = 7: nothing ends by 7
    assert log(model, 1) == [] and shown(model) == {}
    # W = 11: [0, 10), untouched by this run (11 is in [5, 15) and [10, 20)), is emitted on time
    model.run(HOP_SOURCE, 2 * MINUTE)
    assert ("a", 0, 10 * MINUTE) not in model.touched[2]
    assert log(model, 2) == [("+I", "a", 0, 10, 1, 1, F, 1, "on_time")]
    # W = 16: [0, 10) was shown and takes 9: late; [5, 15) is shown for the first time: on_time
    model.run(HOP_SOURCE, 3 * MINUTE)
    assert log(model, 3) == [
        ("+I", "a", 5, 15, 3, 7, F, 1, "on_time"),
        ("+U", "a", 0, 10, 2, 5, F, 2, "late"),
        ("-U", "a", 0, 10, 1, 1, F, 1, "on_time"),
    ]
    # W = 30: two late firings; [10, 20) and [15, 25), untouched, are emitted on time
    model.run(HOP_SOURCE, 4 * MINUTE)
    assert log(model, 4) == [
        ("+I", "a", 10, 20, 2, 10, T, 1, "on_time"),
        ("+I", "a", 15, 25, 1, 8, F, 1, "on_time"),
        ("+U", "a", 0, 10, 3, 21, T, 3, "late"),
        ("+U", "a", 5, 15, 4, 23, T, 2, "late"),
        ("-U", "a", 0, 10, 2, 5, F, 2, "late"),
        ("-U", "a", 5, 15, 3, 7, F, 1, "on_time"),
    ]
    # [25, 35) and [30, 40) end after W = 30
    assert shown(model) == {
        ("a", 0, 10): (3, 21, T, 3, "late"),
        ("a", 5, 15): (4, 23, T, 2, "late"),
        ("a", 10, 20): (2, 10, T, 1, "on_time"),
        ("a", 15, 25): (1, 8, F, 1, "on_time"),
    }
    assert_changelog_replays_to_the_shown_table(model)


def test_the_policies_differ_only_in_what_is_emitted_and_shown():
    every_run, on_watermark = windows("hop", "every_run", 10, 5, 10), windows("hop", "on_watermark", 10, 5, 10)
    for until in range(1, 5):
        every_run.run(HOP_SOURCE, until * MINUTE)
        on_watermark.run(HOP_SOURCE, until * MINUTE)
        assert every_run.table == on_watermark.table and every_run.touched == on_watermark.touched
        assert (every_run.late, every_run.watermark) == (on_watermark.late, on_watermark.watermark)


# --- sessions -----------------------------------------------------------------------------

# sessions with a 10-minute gap, no delay, lateness 30
SESSION_SOURCE = [
    row("a", 0, 1, 1),
    row("a", 5, 2, 2),  # extends [0, 10) to [0, 15)
    row("b", 20, 1, 2),
    row("a", 2, 4, 3),  # inside [0, 15): same end, new values
    row("b", 40, 1, 3),  # a session of its own: [20, 30) stays as it is
]


def test_sessions_every_run_emit_early_then_on_time_then_late():
    model = sessions("every_run", 30)
    model.run(SESSION_SOURCE, 1 * MINUTE)  # W = 0
    assert log(model, 1) == [("+I", "a", 0, 10, 1, 1, F, 1, "early")]
    model.run(SESSION_SOURCE, 2 * MINUTE)  # W = 20
    assert log(model, 2) == [
        ("+I", "b", 20, 30, 1, 1, F, 1, "early"),
        ("+U", "a", 0, 15, 2, 3, F, 2, "on_time"),
        ("-U", "a", 0, 10, 1, 1, F, 1, "early"),
    ]
    model.run(SESSION_SOURCE, 3 * MINUTE)  # W = 40
    assert log(model, 3) == [
        ("+I", "b", 40, 50, 1, 1, F, 1, "early"),
        ("+U", "a", 0, 15, 3, 7, F, 3, "late"),
        ("-U", "a", 0, 15, 2, 3, F, 2, "on_time"),
    ]
    assert shown(model) == {
        ("a", 0): (15, 3, 7, F, 3, "late"),
        ("b", 20): (30, 1, 1, F, 1, "early"),
        ("b", 40): (50, 1, 1, F, 1, "early"),
    }
    assert_changelog_replays_to_the_shown_table(model)


def test_sessions_on_watermark_show_nothing_before_the_watermark_passes_their_end():
    model = sessions("on_watermark", 30)
    report = model.run(SESSION_SOURCE, 1 * MINUTE)  # W = 0 < 10
    assert log(model, 1) == [] and shown(model) == {}
    assert report.after[("a", 0)].revision == 0 and report.after[("a", 0)].timing is None
    model.run(SESSION_SOURCE, 2 * MINUTE)  # W = 20 passes [0, 15), not [20, 30)
    assert log(model, 2) == [("+I", "a", 0, 15, 2, 3, F, 1, "on_time")]
    # W = 40: a's shown session takes a row: late; b's [20, 30), untouched, is shown on time
    report = model.run(SESSION_SOURCE, 3 * MINUTE)
    assert report.before[("b", 20 * MINUTE)].end == report.after[("b", 20 * MINUTE)].end
    assert log(model, 3) == [
        ("+I", "b", 20, 30, 1, 1, F, 1, "on_time"),
        ("+U", "a", 0, 15, 3, 7, F, 2, "late"),
        ("-U", "a", 0, 15, 2, 3, F, 1, "on_time"),
    ]
    assert shown(model) == {("a", 0): (15, 3, 7, F, 2, "late"), ("b", 20): (30, 1, 1, F, 1, "on_time")}
    assert_changelog_replays_to_the_shown_table(model)


# W = 15 after run 1; a@8 extends a's shown [0, 10) to [0, 18), past W; c@20 moves W past 18
EXTENDED_SOURCE = [row("a", 0, 1, 1), row("b", 15, 1, 1), row("a", 8, 2, 2), row("c", 20, 1, 3)]


def test_a_session_extended_past_the_watermark_is_taken_back_then_shown_late():
    model = sessions("on_watermark", 30)
    model.run(EXTENDED_SOURCE, 1 * MINUTE)
    assert log(model, 1) == [("+I", "a", 0, 10, 1, 1, F, 1, "on_time")]
    # run 2: W stays 15 < 18: the shown session is deleted, its state keeps revision and timing
    report = model.run(EXTENDED_SOURCE, 2 * MINUTE)
    assert log(model, 2) == [("-D", "a", 0, 10, 1, 1, F, 1, "on_time")]
    assert shown(model) == {}
    after = report.after[("a", 0)]
    assert (after.end, after.values, after.revision, after.timing) == (18 * MINUTE, {"n": 2, "total": 3}, 1, "on_time")
    # run 3: W = 20 passes 18: +I with the next revision; its first emission was on time, so late
    model.run(EXTENDED_SOURCE, 3 * MINUTE)
    assert log(model, 3) == [("+I", "a", 0, 18, 2, 3, F, 2, "late")]
    assert shown(model) == {("a", 0): (18, 2, 3, F, 2, "late")}
    assert_changelog_replays_to_the_shown_table(model)


def test_with_every_run_a_session_extended_past_the_watermark_is_emitted_early_again():
    model = sessions("every_run", 30)
    model.run(EXTENDED_SOURCE, 1 * MINUTE)  # W = 15: a's [0, 10) ends by W on its first emission
    assert log(model, 1) == [("+I", "a", 0, 10, 1, 1, F, 1, "on_time"), ("+I", "b", 15, 25, 1, 1, F, 1, "early")]
    model.run(EXTENDED_SOURCE, 2 * MINUTE)  # its new end 18 > W = 15: early
    assert log(model, 2) == [("+U", "a", 0, 18, 2, 3, F, 2, "early"), ("-U", "a", 0, 10, 1, 1, F, 1, "on_time")]
    model.run(EXTENDED_SOURCE, 3 * MINUTE)  # unchanged: W passing its end emits nothing
    assert log(model, 3) == [("+I", "c", 20, 30, 1, 1, F, 1, "early")]
    assert shown(model)[("a", 0)] == (18, 2, 3, F, 2, "early")
    assert_changelog_replays_to_the_shown_table(model)


def test_on_watermark_deletes_shown_sessions_that_merge_and_forgets_unshown_ones():
    model = sessions("on_watermark", 100)
    source = [row("a", 0, 1, 1), row("a", 20, 2, 1), row("b", 35, 4, 1), row("a", 10, 8, 2), row("b", 30, 16, 2)]
    model.run(source, 1 * MINUTE)  # W = 35: a's two sessions are shown, b's [35, 45) is not
    assert log(model, 1) == [("+I", "a", 0, 10, 1, 1, F, 1, "on_time"), ("+I", "a", 20, 30, 1, 2, F, 1, "on_time")]
    # a@10 bridges a's sessions into [0, 30); b@30 replaces b's unshown [35, 45) by [30, 45)
    report = model.run(source, 2 * MINUTE)
    assert log(model, 2) == [
        ("+U", "a", 0, 30, 3, 11, F, 2, "late"),
        ("-D", "a", 20, 30, 1, 2, F, 1, "on_time"),
        ("-U", "a", 0, 10, 1, 1, F, 1, "on_time"),
    ]
    assert ("b", 35 * MINUTE) in report.before and ("b", 30 * MINUTE) in report.after
    assert shown(model) == {("a", 0): (30, 3, 11, F, 2, "late")}
    assert_changelog_replays_to_the_shown_table(model)


# --- every kind and policy ----------------------------------------------------------------


@pytest.mark.parametrize("kind", ["tumble", "hop", "session"])
@pytest.mark.parametrize("policy", ["every_run", "on_watermark"])
def test_a_run_with_nothing_new_changes_nothing(kind, policy):
    model = sessions(policy, 30) if kind == "session" else windows(kind, policy, 10, 5, 10)
    source = [*HOP_SOURCE[:4], row("a", None, 1, 3)]  # the last run ends with a row without time
    for until in (1, 2, 3):
        model.run(source, until * MINUTE)
    snapshot = copy.deepcopy(model.__dict__)
    model.run(source, 3 * MINUTE)
    model.run(source, 4 * MINUTE)
    after = copy.deepcopy(model.__dict__)
    for state in (snapshot, after):
        state.pop("reports", None)  # a session model reports every run, also one with nothing new
    assert after == snapshot


def random_source(rng: random.Random) -> list[Row]:
    """Rows of three keys (one NULL), mostly in order, some far behind, a few without time."""
    rows, newest = [], 0
    for ingested in sorted(rng.sample(range(1, 400), 60)):
        newest = max(newest, ingested // 4)
        behind = rng.choice([0, 0, 1, 2, 3, 4, 6, 8, 12, 30])
        minute = None if rng.random() < 0.05 else max(0, newest - behind)
        value = None if rng.random() < 0.1 else rng.randrange(10)
        rows.append(row(rng.choice(["a", "b", None]), minute, value, ingested))
    return rows


def random_models(delay: int, lateness: int, policy: str) -> list:
    aggregates = {"n": count_rows, "total": sum_of_values}
    return [
        Model("tumble", 5 * MINUTE, 5 * MINUTE, delay, lateness, aggregates, policy),
        Model("hop", 6 * MINUTE, 2 * MINUTE, delay, lateness, aggregates, policy),
        Model("cumulate", 6 * MINUTE, 2 * MINUTE, delay, lateness, aggregates, policy),
        SessionModel(3 * MINUTE, delay, lateness, aggregates, policy),
    ]


class Consumer:
    """Applies a model's changelog batch by batch, checking each row against what it holds."""

    def __init__(self, model) -> None:
        self.model = model
        self.width = 2 if isinstance(model, SessionModel) else 3  # (key, start) or (key, start, end)
        self.images: dict = {}  # identity -> (end, values, revision, timing) as last inserted
        self.revisions: dict = {}  # identity -> revision of its last emission, also once deleted

    def apply(self, batch_id: int) -> None:
        """A -U / -D takes back exactly the image shown; a +U / +I carries the next revision, and
        its timing is early exactly when the window ends after the watermark (never on_watermark)."""
        model = self.model
        batch = [row for row in model.changelog if row.batch_id == batch_id]
        for row in batch:
            if row.op in ("-U", "-D"):
                shown_image = self.images.pop(tuple(row[2 : 2 + self.width]))
                assert shown_image == (row.end, row.values, row.revision, row.timing), row
        for row in batch:
            if row.op in ("+U", "+I"):
                identity = tuple(row[2 : 2 + self.width])
                assert identity not in self.images, row
                assert row.revision == self.revisions.get(identity, 0) + 1, f"a revision skipped: {row}"
                self.revisions[identity] = row.revision
                self.images[identity] = (row.end, row.values, row.revision, row.timing)
                early = model.watermark is None or row.end > model.watermark
                assert (row.timing == "early") == early, row
                assert not (early and model.emit_policy == "on_watermark"), row


def passed(end: int, watermark: int | None) -> bool:
    return watermark is not None and end <= watermark


@pytest.mark.parametrize("seed", range(30))
def test_random_streams_keep_revisions_gapless_and_the_changelog_replays_to_the_shown_table(seed):
    rng = random.Random(seed)
    source = random_source(rng)
    delay, lateness = rng.choice([0, 2, 5]) * MINUTE, rng.choice([0, 4, 15]) * MINUTE
    every_run = random_models(delay, lateness, "every_run")
    on_watermark = random_models(delay, lateness, "on_watermark")
    models = every_run + on_watermark
    consumers = [Consumer(model) for model in models]
    for until in sorted(rng.choices(range(0, 420), k=12)):
        for model, consumer in zip(models, consumers):
            batches = model.batch_id
            model.run(source, until * MINUTE)
            if model.batch_id != batches:
                consumer.apply(model.batch_id)
            assert_changelog_replays_to_the_shown_table(model)
            table = model.shown()
            assert all(image.revision >= 1 for image in table.values())
            for identity in model.table:
                end = model.table[identity].end if isinstance(model, SessionModel) else identity[2]
                assert (identity in table) == (model.emit_policy == "every_run" or passed(end, model.watermark))
        # the policies differ in nothing but what is emitted and shown
        for every, on in zip(every_run, on_watermark):
            assert (every.late, every.watermark, every.batch_id) == (on.late, on.watermark, on.batch_id)
            if isinstance(every, SessionModel):
                assert every.state == on.state
                assert {key: (image.end, image.values, image.is_final) for key, image in every.table.items()} == {
                    key: (image.end, image.values, image.is_final) for key, image in on.table.items()
                }
            else:
                assert every.table == on.table
