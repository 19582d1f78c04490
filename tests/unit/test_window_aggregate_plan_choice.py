"""Fast tests: which plan window_aggregate takes (README, "Which plan window_aggregate takes"),
one test per documented rule, read from the comment the compiled SQL starts with and from the
plan's own marks (panes, copied rows, Spark's window())."""

from __future__ import annotations

import pytest
from render_cases import CUMULATE, HOP, is_row_copy

from dev.macro_renderer import CompilerError, MacroRenderer, Relation, parse_relation

pytestmark = pytest.mark.fast

SUMS = {"n": "count(*)", "total": "sum(v)"}


@pytest.fixture(scope="module")
def renderer() -> MacroRenderer:
    return MacroRenderer()


# a table whose column types are known when the model compiles
EVENTS = Relation(
    "events", [("k", "string"), ("ts", "timestamp"), ("v", "int"), ("u", "bigint"), ("d", "decimal(20,10)")]
)


def plan_of(renderer, window, aggregates=SUMS, agg_phase_strategy=None, plan=None, relation=EVENTS) -> tuple[str, str]:
    """(the comment naming the plan, the SQL), the SQL checked to parse."""
    sql = renderer.call("window_aggregate", relation, "ts", window, ["k"], aggregates, None, agg_phase_strategy, plan)
    parse_relation(sql)
    first = sql.split("\n", 1)[0]
    return (first if first.startswith("/*") else ""), sql


def hop(windows_per_row: int, slide_minutes: int = 30) -> dict:
    return {"type": "hop", "slide": f"{slide_minutes} minutes", "size": f"{windows_per_row * slide_minutes} minutes"}


@pytest.mark.parametrize("aggregates", [SUMS, {"n": "count(v)", "lo": "min(v)", "hi": "max(d)", "users": "sum(u)"}])
def test_a_hop_of_two_windows_per_row_of_counts_integer_sums_and_extremes_copies_rows(renderer, aggregates):
    """Each row in two windows: copied into both and grouped, cheaper than panes merged two by
    two, at one row per key and slide and at 62 (docs/benchmarks.md, "Few windows per row");
    these aggregates have the same type and value in every plan."""
    comment, sql = plan_of(renderer, hop(2), aggregates)
    assert comment == "/* window_aggregate plan: row_copy (2 windows per row) */"
    assert is_row_copy(sql)


@pytest.mark.parametrize(
    ("aggregates", "relation"),
    [
        ({"users": "count(distinct u)"}, EVENTS),
        ({"users": "hll_sketch_estimate(hll_sketch_agg(u))"}, EVENTS),
        ({"n": "count(*)", "spread": "stddev(v)"}, EVENTS),
        # avg adds in double when grouped, exactly in panes; a decimal sum keeps another scale
        ({"n": "count(*)", "mean": "avg(v)"}, EVENTS),
        ({"n": "count(*)", "total": "sum(d)"}, EVENTS),
        # a sum whose column type is not known (a query, or an expression)
        (SUMS, "events"),
        ({"total": "sum(v * 2)"}, EVENTS),
    ],
)
def test_a_hop_of_two_windows_per_row_merges_panes_where_copied_rows_could_change_a_result(
    renderer, aggregates, relation
):
    comment, sql = plan_of(renderer, hop(2), aggregates, relation=relation)
    assert comment == "/* window_aggregate plan: one_phase (2 windows per row) */"
    assert not is_row_copy(sql)


@pytest.mark.parametrize("windows_per_row", [3, 6, 12, 60])
def test_a_hop_of_three_or_more_windows_per_row_merges_panes(renderer, windows_per_row):
    comment, sql = plan_of(renderer, hop(windows_per_row))
    assert comment == f"/* window_aggregate plan: one_phase ({windows_per_row} windows per row) */"
    assert "__sw_pane" in sql and "window(ts" not in sql


@pytest.mark.parametrize("aggregates", [SUMS, {"users": "count(distinct u)"}, {"lo": "min(v)", "mean": "avg(v)"}])
def test_a_cumulating_window_merges_panes_at_any_size(renderer, aggregates):
    comment, sql = plan_of(renderer, {"type": "cumulate", "step": "30 minutes", "size": "1 hour"}, aggregates)
    assert comment == "/* window_aggregate plan: one_phase (cumulate) */"
    assert "__sw_pane" in sql or "__sw_distinct" in sql


def test_an_aggregate_panes_cannot_merge_copies_rows_whatever_the_size(renderer):
    comment, sql = plan_of(renderer, hop(2), {"median_v": "percentile_approx(v, 0.5)"})
    assert comment == "/* window_aggregate plan: row_copy (an aggregate that panes cannot merge) */"
    assert is_row_copy(sql)


def test_a_hop_whose_size_is_no_multiple_of_its_slide_copies_rows(renderer):
    comment, sql = plan_of(renderer, {"type": "hop", "slide": "2 minutes", "size": "5 minutes"})
    assert comment.startswith("/* window_aggregate plan: row_copy (no pane makes every window")
    assert is_row_copy(sql)


@pytest.mark.parametrize(
    ("plan", "mark"),
    [
        ("one_phase", "__sw_pane"),
        ("two_phase", "__sw_pane"),
        ("row_copy", "__sw_windowed"),
        ("spark_window", "window(ts"),
    ],
)
def test_the_analysts_plan_wins(renderer, plan, mark):
    """Each plan, named, on a hop the default would plan otherwise (60 windows per row, or 2)."""
    for window in [hop(60), hop(2)]:
        comment, sql = plan_of(renderer, window, plan=plan.upper())
        assert comment == f"/* window_aggregate plan: {plan} (given) */"
        assert mark in sql


def test_agg_phase_strategy_names_a_pane_plan(renderer):
    comment, _ = plan_of(renderer, hop(2), agg_phase_strategy="two_phase")
    assert comment == "/* window_aggregate plan: two_phase (given) */"


def test_tumbling_windows_and_sessions_have_one_plan_and_no_comment(renderer):
    assert plan_of(renderer, {"type": "tumble", "size": "1 minute"})[0] == ""
    assert plan_of(renderer, {"type": "session", "gap": "10 minutes"})[0] == ""


@pytest.mark.parametrize(
    ("window", "arguments", "message"),
    [
        (HOP, {"plan": "fastest"}, "window_aggregate: plan 'fastest' is not one of 'one_phase'"),
        (HOP, {"plan": 2}, "window_aggregate: plan 2 is not one of 'one_phase'"),
        (CUMULATE, {"plan": "spark_window"}, "window_aggregate: plan 'spark_window' is for hop and tumble windows"),
        (
            {"type": "hop", "slide": "10 minutes", "size": "5 minutes", "allow_gaps": True},
            {"plan": "spark_window"},
            "window_aggregate: plan 'spark_window' cannot take a hop with gaps",
        ),
        (
            HOP,
            {"plan": "row_copy", "agg_phase_strategy": "two_phase"},
            "window_aggregate: plan ('row_copy') and agg_phase_strategy ('two_phase') disagree; give one of them",
        ),
    ],
)
def test_a_plan_it_cannot_take_is_refused_with_what_it_accepts(renderer, window, arguments, message):
    with pytest.raises(CompilerError) as error:
        plan_of(renderer, window, **arguments)
    assert str(error.value).startswith(message)
