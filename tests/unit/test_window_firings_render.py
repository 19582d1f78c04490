"""Fast tests of window_firings: rendered with plain Jinja, checked with sqlglot; every bad argument
is a compile error saying what is accepted. Also checks the simulation of reference_firings.py
against facts worked out by hand, so that the slow tests compare the SQL with a model that is
itself right.
"""

from __future__ import annotations

import itertools

import pytest
import reference_firings as model

from dev.macro_renderer import CompilerError, MacroRenderer, output_names

pytestmark = pytest.mark.fast

AGGREGATES = {"n": "count(*)", "total": "sum(v)", "hi": "max(v)"}
WINDOWS = [
    {"type": "tumble", "size": "1 minute"},
    {"type": "tumble", "size": "1 day", "offset": "-8 hours"},
    {"type": "hop", "slide": "30 seconds", "size": "2 minutes"},
    {"type": "cumulate", "step": "1 minute", "size": "1 hour"},
    {"type": "session", "gap": "10 minutes"},
    {"type": "session", "gap": "case when k = 'x' then interval 1 minute else interval 5 minutes end"},
    {"type": "global"},
]
TRIGGERS = [
    None,
    {"every_rows": 3},
    {"every": "10 seconds"},
    {"when": "total > 100"},
    {"when": "hi - n >= 2 and total is not null"},
]
EVICTORS = [
    None,
    {"keep_last": 5},
    {"within": "10 seconds"},
    {"delta": 5, "of": "v"},
    {"delta": 0.5, "of": "price * 2"},
]
RELATIONS = ["events", "`analytics`.`events`", "(select * from raw_events where k <> 'x')"]


def calls():
    """Every window, trigger and evictor together; purge and the group columns take turns."""
    combinations = itertools.product(WINDOWS, TRIGGERS, EVICTORS)
    for index, (window, trigger, evictor) in enumerate(combinations):
        if window["type"] == "global" and trigger is None:
            continue
        yield window, trigger, index % 2 == 1, evictor, [[], ["k"], ["tenant", "user_id"]][index % 3]


@pytest.mark.parametrize("call", list(calls()), ids=repr)
def test_window_firings_renders_spark_sql_with_the_firing_columns(renderer, call):
    window, trigger, purge, evictor, group_by = call
    for relation in RELATIONS:
        sql = renderer.call("window_firings", relation, "ts", window, group_by, AGGREGATES, trigger, purge, evictor)
        names = output_names(sql)
        window_columns = [] if window["type"] == "global" else ["window_start", "window_end"]
        assert names == [*group_by, *window_columns, "firing", "fired_at", "is_final", *AGGREGATES]


def test_purge_only_changes_the_join_to_rows_since_the_previous_firing(renderer):
    args = ("events", "ts", WINDOWS[0], ["k"], AGGREGATES, {"every_rows": 2})
    accumulating = renderer.call("window_firings", *args, False)
    purging = renderer.call("window_firings", *args, True)
    assert "__sw_previous_cut is null or" not in accumulating
    assert "__sw_previous_cut is null or __sw_rows_in.__sw_seq > __sw_fire.__sw_previous_cut" in purging


def test_timer_trigger_cuts_by_time_and_count_trigger_by_row_number(renderer):
    args = ("events", "ts", WINDOWS[0], ["k"], AGGREGATES)
    assert "__sw_rows_in.__sw_ts <= __sw_fire.__sw_cut" in renderer.call(
        "window_firings", *args, {"every": "10 seconds"}
    )
    assert "__sw_rows_in.__sw_seq <= __sw_fire.__sw_cut" in renderer.call("window_firings", *args, {"every_rows": 2})


def test_a_global_window_has_no_final_firing(renderer):
    sql = renderer.call("window_firings", "events", "ts", {"type": "global"}, ["k"], AGGREGATES, {"every_rows": 2})
    assert "true as __sw_is_final" not in sql
    sql = renderer.call("window_firings", "events", "ts", WINDOWS[0], ["k"], AGGREGATES, {"every_rows": 2})
    assert "true as __sw_is_final" in sql


ACCEPTED_TRIGGERS = "none (fire once, at the end of the window), {'every_rows': 3}"
ACCEPTED_EVICTORS = "none, {'keep_last': 5} (the last 5 rows, Flink's CountEvictor)"
BAD_CALLS = [
    ((None, "ts", WINDOWS[0], [], AGGREGATES), "window_firings: relation is empty"),
    (("ev", "", WINDOWS[0], [], AGGREGATES), "window_firings: time_col ('') must be a column name"),
    (
        ("ev", "ts", {"type": "sliding", "size": "1 minute"}, [], AGGREGATES),
        "window_firings: window ({'type': 'sliding', 'size': '1 minute'}) must be a dict whose 'type' is tumble, hop, cumulate, session or global",
    ),
    (("ev", "ts", "1 minute", [], AGGREGATES), "window_firings: window (1 minute) must be a dict"),
    (
        ("ev", "ts", {"type": "global", "size": "1 minute"}, [], AGGREGATES, {"every_rows": 2}),
        "a global window takes none: {'type': 'global'}",
    ),
    (("ev", "ts", {"type": "tumble"}, [], AGGREGATES), "window_firings: window ({'type': 'tumble'}) is missing 'size'"),
    (("ev", "ts", WINDOWS[0], "k", AGGREGATES), "window_firings: group_by ('k') must be a list of column names"),
    (("ev", "ts", WINDOWS[0], [], {}), "window_firings: aggregates ({}) must be a dict of output column name"),
    (
        ("ev", "ts", WINDOWS[0], [], {"firing": "count(*)"}),
        "aggregates has the output name 'firing', which is a column the output holds already",
    ),
    (("ev", "ts", WINDOWS[0], [], {"fired_at": "max(ts)"}), "(firing, fired_at, is_final); choose another name"),
    (
        ("ev", "ts", {"type": "global"}, ["k"], AGGREGATES),
        f"window_firings: trigger is none, but a global window never ends, so it would never fire; give a trigger: {ACCEPTED_TRIGGERS}",
    ),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, {"count": 3}),
        f"window_firings: trigger ({{'count': 3}}) must be {ACCEPTED_TRIGGERS}",
    ),
    (("ev", "ts", WINDOWS[0], [], AGGREGATES, "every 3 rows"), "window_firings: trigger (every 3 rows) must be none"),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, {"every_rows": 3, "every": "1 second"}),
        "window_firings: trigger ({'every_rows': 3, 'every': '1 second'}) must be none",
    ),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, {"every_rows": 0}),
        "window_firings: trigger 'every_rows' (0) must be a positive integer number of rows",
    ),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, {"every_rows": "3"}),
        "window_firings: trigger 'every_rows' ('3') must be a positive integer",
    ),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, {"every": "3"}),
        "window_firings: trigger 'every' ('3') is not a duration",
    ),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, {"every": "0 seconds"}),
        "window_firings: trigger 'every' ('0 seconds') must be greater than zero",
    ),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, {"when": ""}),
        "window_firings: trigger 'when' () must be a condition on the aggregates",
    ),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, {"when": "sum(amount) > 100"}),
        "window_firings: trigger 'when' ('sum(amount) > 100') calls the aggregate sum(); name an output column of aggregates instead (aggregates: n, total, hi)",
    ),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, {"when": "amount > 100"}),
        "window_firings: trigger 'when' ('amount > 100') names none of the aggregates (n, total, hi)",
    ),
    (
        ("ev", "ts", WINDOWS[0], [], {"users": "count(distinct user_id)"}, {"when": "users >= 3"}),
        "uses the aggregate 'users' (count(distinct user_id)), a distinct aggregate, which Spark cannot compute as a running total",
    ),
    (
        ("ev", "ts", WINDOWS[0], [], {"users": "hll_sketch_estimate(hll_sketch_agg(user_id))"}, {"when": "users >= 3"}),
        "uses the aggregate 'users' (hll_sketch_estimate(hll_sketch_agg(user_id))), a sketch estimate, which Spark cannot compute",
    ),
    (
        (
            "ev",
            "ts",
            WINDOWS[0],
            [],
            {"p50": "kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(amount), 0.5)"},
            {"when": "p50 > 10"},
        ),
        "uses the aggregate 'p50' (kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(amount), 0.5)), a sketch estimate",
    ),
    (("ev", "ts", WINDOWS[0], [], AGGREGATES, None, "yes"), "window_firings: purge (yes) must be true"),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, None, False, {"keep": 5}),
        f"window_firings: evictor ({{'keep': 5}}) must be {ACCEPTED_EVICTORS}",
    ),
    (("ev", "ts", WINDOWS[0], [], AGGREGATES, None, False, 5), "window_firings: evictor (5) must be none"),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, None, False, {"keep_last": -1}),
        "window_firings: evictor 'keep_last' (-1) must be a positive integer",
    ),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, None, False, {"within": "soon"}),
        "window_firings: evictor 'within' ('soon') is not a duration",
    ),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, None, False, {"delta": 5}),
        "window_firings: evictor ({'delta': 5}) must be none",
    ),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, None, False, {"delta": 0, "of": "v"}),
        "window_firings: evictor 'delta' (0) must be a positive number",
    ),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, None, False, {"delta": "5", "of": "v"}),
        "window_firings: evictor 'delta' ('5') must be a positive number",
    ),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, None, False, {"delta": True, "of": "v"}),
        "window_firings: evictor 'delta' (True) must be a positive number",
    ),
    (
        ("ev", "ts", WINDOWS[0], [], AGGREGATES, None, False, {"delta": 5, "of": ""}),
        "window_firings: evictor 'of' ('') must be a column name",
    ),
]


@pytest.mark.parametrize("call, message", BAD_CALLS, ids=repr)
def test_bad_arguments_are_compile_errors_that_say_what_is_accepted(renderer, call, message):
    with pytest.raises(CompilerError) as error:
        renderer.call("window_firings", *call)
    assert message in str(error.value)


def test_other_adapters_get_a_clear_error_from_the_default_branch():
    with pytest.raises(CompilerError) as error:
        MacroRenderer(adapter_type="postgres").call("window_firings", "ev", "ts", WINDOWS[0], [], AGGREGATES)
    assert "spark_windows.window_firings has no implementation for the 'postgres' adapter" in str(error.value)


# --- the simulation, against hand-computed facts ---------------------------------------------

SECOND = 1_000_000


def simulate(rows, window, trigger=None, purge=False, evictor=None):
    """Rows (seconds, value) of one key through the simulation; firings as (firing, fired_at in
    seconds, is_final, values)."""
    records = [{"ts": seconds * SECOND, "v": value, "i": index} for index, (seconds, value) in enumerate(rows)]
    out = model.simulate(
        records,
        window,
        trigger,
        purge,
        evictor,
        lambda buffer: {"values": [row["v"] for row in buffer]},
        key_of=lambda row: None,
        time_of=lambda row: row["ts"],
        text_of=lambda row: str(row["i"]),
        value_of=lambda row: row["v"],
    )
    return [(f["firing"], f["fired_at"] / SECOND, f["is_final"], f["values"]) for f in out]


TUMBLE = {"type": "tumble", "size": 10 * SECOND}
END = 10 - 1e-6


def test_model_count_trigger_accumulates_or_purges_and_fires_at_the_end():
    rows = [(1, 1), (2, 2), (4, 3), (5, 4), (8, 5)]
    assert simulate(rows, TUMBLE, ("every_rows", 2)) == [
        (1, 2, False, [1, 2]),
        (2, 5, False, [1, 2, 3, 4]),
        (3, END, True, [1, 2, 3, 4, 5]),
    ]
    assert simulate(rows, TUMBLE, ("every_rows", 2), purge=True) == [
        (1, 2, False, [1, 2]),
        (2, 5, False, [3, 4]),
        (3, END, True, [5]),
    ]


def test_model_timers_fire_every_interval_from_the_first_row_and_skip_empty_purged_firings():
    rows = [(1, 1), (8, 2)]
    assert simulate(rows, TUMBLE, ("every", 3 * SECOND)) == [
        (1, 3, False, [1]),
        (2, 6, False, [1]),
        (3, 9, False, [1, 2]),
        (4, END, True, [1, 2]),
    ]
    assert simulate(rows, TUMBLE, ("every", 3 * SECOND), purge=True) == [(1, 3, False, [1]), (2, 9, False, [2])]


def test_model_sessions_take_a_row_exactly_gap_later_and_timers_follow_the_grown_session():
    session = {"type": "session", "gap": 4 * SECOND}
    # 1 s opens [1, 5); 5 s touches it: one session [1, 9), its timers at 3, 6 s and the end
    assert simulate([(1, 1), (5, 2)], session, ("every", 3 * SECOND)) == [
        (1, 3, False, [1]),
        (2, 6, False, [1, 2]),
        (3, 9 - 1e-6, True, [1, 2]),
    ]
    # 10 s is after the end: a new session
    assert [f[3] for f in simulate([(1, 1), (5, 2), (10, 3)], session)] == [[1, 2], [3]]


def test_model_evictors():
    rows = [(1, 1), (2, 5), (3, 2)]
    # DeltaEvictor removes for good: 1 leaves at 5, then 5 leaves at 2
    assert [f[3] for f in simulate(rows, TUMBLE, ("every_rows", 1), evictor=("delta", 3))] == [[1], [5], [2], [2]]
    assert [f[3] for f in simulate(rows, TUMBLE, ("every_rows", 1), evictor=("keep_last", 2))] == [
        [1],
        [1, 5],
        [5, 2],
        [5, 2],
    ]
    # TimeEvictor of 1 s keeps times after the newest - 1 s
    assert [f[3] for f in simulate(rows, TUMBLE, ("every_rows", 3), evictor=("within", SECOND))] == [[2], [2]]


def test_model_global_window_timers_stop_after_the_input_ends():
    assert simulate([(1, 1), (4, 2)], {"type": "global"}, ("every", 3 * SECOND)) == [
        (1, 3, False, [1]),
        (2, 6, False, [1, 2]),
    ]
    assert simulate([(1, 1), (4, 2)], {"type": "global"}, ("every_rows", 3)) == []
