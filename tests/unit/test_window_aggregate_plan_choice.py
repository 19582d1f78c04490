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


@pytest.mark.parametrize(
    "aggregates", [{"users": "count(distinct u)"}, {"n": "count(*)", "users": "count(distinct u)"}]
)
def test_a_hop_of_two_windows_per_row_of_distinct_counts_groups_by_sparks_window(renderer, aggregates):
    """A count(distinct) has the same type and value in every plan; Spark's window() expands the
    rows in its own plan, ahead of copied rows and of panes where groups are sparse."""
    comment, sql = plan_of(renderer, hop(2), aggregates)
    assert comment == "/* window_aggregate plan: spark_window (2 windows per row) */"
    assert "window(ts, " in sql and "__sw_pane" not in sql


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


# 3,000,000 rows over 10 days (480 slides of 30 minutes, and one): with 1,000 keys 6.2 rows per
# key and slide, with 100 keys 62.4
ANALYZED = {
    "rows": 3_000_000,
    "ts": {
        "min": "2024-03-01 00:00:00.000000 +0000",
        "max": "2024-03-11 00:00:00.000000 +0000",
        "distinct_count": "2999000",
    },
    "k": {"distinct_count": "1000"},
    "v": {"distinct_count": "100"},
}


def analyzed(statistics=ANALYZED, columns=EVENTS.columns) -> Relation:
    return Relation("events", columns, statistics=statistics)


def dense(keys: int = 100) -> dict:
    return {**ANALYZED, "k": {"distinct_count": str(keys)}}


@pytest.mark.parametrize(
    ("window", "aggregates"),
    [
        (hop(3), SUMS),
        (hop(60), {"n": "count(*)", "mean": "avg(v)", "hi": "max(v)"}),
        (hop(6), {"users": "hll_sketch_estimate(hll_sketch_agg(u))"}),
        (hop(2), {"n": "count(*)", "mean": "avg(v)"}),
        (hop(2), {"users": "count(distinct u)"}),
        ({"type": "cumulate", "step": "30 minutes", "size": "1 day"}, SUMS),
    ],
)
def test_dense_groups_by_the_tables_statistics_add_rows_into_panes_before_the_shuffle(renderer, window, aggregates):
    """At 62.4 rows per group and slide (12 or more) each task adds its rows into panes first."""
    comment, sql = plan_of(renderer, window, aggregates, relation=analyzed(dense()))
    windows = f"{hop_ratio(window)} windows per row" if window["type"] == "hop" else "cumulate"
    assert comment == f"/* window_aggregate plan: two_phase ({windows}; 62.4 rows per group and slide) */"
    one_phase = plan_of(renderer, window, aggregates, plan="one_phase")[1]
    assert sql.split("\n", 1)[1] != one_phase.split("\n", 1)[1]


def hop_ratio(window: dict) -> int:
    return int(window["size"].split()[0]) // int(window["slide"].split()[0])


def test_sparse_groups_by_the_tables_statistics_merge_panes_after_the_shuffle(renderer):
    comment, _ = plan_of(renderer, hop(3), relation=analyzed())
    assert comment == "/* window_aggregate plan: one_phase (3 windows per row; 6.2 rows per group and slide) */"


@pytest.mark.parametrize(("keys", "plan", "density"), [(500, "two_phase", "12.5"), (530, "one_phase", "11.8")])
def test_two_phases_from_twelve_rows_per_group_and_slide(renderer, keys, plan, density):
    """Between 7.8 rows per key and slide (one phase the faster on every shape measured) and
    15.6 (two phases ahead for distinct counts and HLL, within 13 % behind otherwise)."""
    comment, _ = plan_of(renderer, hop(6), relation=analyzed(dense(keys)))
    assert comment == f"/* window_aggregate plan: {plan} (6 windows per row; {density} rows per group and slide) */"


@pytest.mark.parametrize(
    ("statistics", "plan", "density"), [(dense(), "row_copy", "62.4"), (ANALYZED, "spark_window", "6.2")]
)
def test_two_windows_per_row_of_counts_and_sums_copy_rows_where_dense_and_group_by_sparks_window_where_sparse(
    renderer, statistics, plan, density
):
    """At 1 row per key and slide Spark's window() led the row copy by 7-18 %, at 62.5 the row
    copy led by 11 %; with nothing known, rows are copied."""
    comment, _ = plan_of(renderer, hop(2), relation=analyzed(statistics))
    assert comment == f"/* window_aggregate plan: {plan} (2 windows per row; {density} rows per group and slide) */"


@pytest.mark.parametrize(
    ("statistics", "keys", "expected"),
    [
        # 10 x 10 groups, at most: 62.4 rows per group and slide
        ({**ANALYZED, "k": {"distinct_count": "10"}, "v": {"distinct_count": "10"}}, ["k", "v"], "62.4"),
        # 1,000 x 100 groups, at most: 0.1
        (ANALYZED, ["k", "v"], "0.1"),
        # no key: one group, 6,237.0
        (ANALYZED, [], "6237.0"),
        # a day of one hour: 25 slides
        (
            {**ANALYZED, "ts": {"min": "2024-03-01", "max": "2024-03-01 12:00:00"}, "k": {"distinct_count": "1"}},
            ["k"],
            "120000.0",
        ),
    ],
)
def test_the_rows_per_group_and_slide_are_the_rows_over_the_keys_distinct_counts_and_the_slides(
    renderer, statistics, keys, expected
):
    sql = renderer.call("window_aggregate", analyzed(statistics), "ts", hop(3), keys, SUMS)
    assert sql.split("\n", 1)[0].endswith(f"; {expected} rows per group and slide) */")


@pytest.mark.parametrize(
    "statistics",
    [
        {},  # never analyzed
        {**ANALYZED, "rows": None},  # analyzed with NOSCAN: no row count
        {**ANALYZED, "rows": 0},  # made by CREATE TABLE AS SELECT, not analyzed since
        {**ANALYZED, "ts": {"min": "NULL", "max": "NULL"}},  # the time column not analyzed
        {**ANALYZED, "k": {}},  # the key not analyzed
    ],
)
def test_without_statistics_enough_to_tell_the_rows_per_group_panes_are_merged_after_the_shuffle(renderer, statistics):
    statistics = {name: value for name, value in statistics.items() if value is not None}
    comment, _ = plan_of(renderer, hop(3), relation=analyzed(statistics))
    assert comment == "/* window_aggregate plan: one_phase (3 windows per row) */"


@pytest.mark.parametrize(
    "relation",
    [
        # dbt compiles a model before the table it reads exists (dbt compile, a first build): a
        # DESCRIBE would fail
        Relation("events", []),
        # the row count comes with the columns dbt-spark looks up: none, nothing more to read
        EVENTS,
        Relation("events", EVENTS.columns, statistics={"rows": 0}),
    ],
)
def test_a_table_without_a_row_count_is_not_described(relation):
    """No query is sent, and the plan is the one chosen without statistics."""
    quiet = MacroRenderer()

    def refuse(sql):
        raise AssertionError(f"a query was sent: {sql}")

    quiet.env.globals["run_query"] = refuse
    sql = quiet.call("window_aggregate", relation, "ts", hop(3), ["k"], SUMS)
    assert sql.split("\n", 1)[0] == "/* window_aggregate plan: one_phase (3 windows per row) */"


def test_a_nested_key_has_no_statistics(renderer):
    """Spark keeps statistics of top-level columns: a struct field's distinct count is unknown."""
    relation = analyzed(columns=[*EVENTS.columns, ("payload", "struct<id:string>")])
    sql = renderer.call("window_aggregate", relation, "ts", hop(3), ["payload.id"], SUMS)
    assert sql.split("\n", 1)[0] == "/* window_aggregate plan: one_phase (3 windows per row) */"
