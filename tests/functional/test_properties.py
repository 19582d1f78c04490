"""Slow property tests: on random events and random window parameters, each window macro,
aggregated, equals the plain-Python model in reference_windows.py.

The events hold ties, times before 1970, NULL times, NULL values and NULL keys. The SQL comes
from the project's macros (rendered by macro_renderer) and runs on the test session's Spark.
"""

from __future__ import annotations

import functools
import re
from collections import Counter

import pytest
import reference_windows as ref
from hypothesis import given, settings
from hypothesis import strategies as st
from properties import (
    EXAMPLES,
    PROPERTY_SETTINGS,
    UNITS,
    aggregate_query,
    aggregated,
    duration,
    expected,
    grid_case,
    load_events,
    model_windows,
    window_spec,
)

pytestmark = pytest.mark.slow

# examples each window kind's property test ran; each test checks its own count (runs_every_example)
EXAMPLES_RUN = Counter()
# tumble, hop and cumulate: every mutant of their macros failed by the 11th example
# (dev/mutate_properties.py; tests/README.md, "How many examples")
GRID_EXAMPLES = 100


def runs_every_example(kind: str, examples: int = EXAMPLES):
    """Makes a property test fail unless Hypothesis ran `examples` examples of it: max_examples is
    an upper bound. The test counts its examples in EXAMPLES_RUN[kind]; the count starts at 0 and
    is checked once Hypothesis is done, in the same test, whichever tests run and in what order."""

    def decorate(test):
        @functools.wraps(test)
        def counted(*args, **kwargs):
            EXAMPLES_RUN[kind] = 0
            test(*args, **kwargs)
            assert EXAMPLES_RUN[kind] >= examples, f"fewer than {examples} examples of {kind}: {EXAMPLES_RUN[kind]}"

        return counted

    return decorate


@runs_every_example("tumble", GRID_EXAMPLES)
@settings(PROPERTY_SETTINGS, max_examples=GRID_EXAMPLES)
@given(case=grid_case())
def test_tumble_matches_the_python_model(spark, renderer, case):
    EXAMPLES_RUN["tumble"] += 1
    rows, unit_name, size_n, _, offset_n = case
    unit = UNITS[unit_name]
    view = load_events(spark, rows)
    sql = renderer.call("tumble", view, "ts", duration(size_n, unit_name), duration(offset_n, unit_name))
    assert aggregated(spark, sql) == expected(ref.tumble(rows, size_n * unit, offset_n * unit))


@runs_every_example("hop", GRID_EXAMPLES)
@settings(PROPERTY_SETTINGS, max_examples=GRID_EXAMPLES)
@given(case=grid_case())
def test_hop_matches_the_python_model(spark, renderer, case):
    EXAMPLES_RUN["hop"] += 1
    rows, unit_name, slide_n, ratio, offset_n = case
    unit = UNITS[unit_name]
    view = load_events(spark, rows)
    sql = renderer.call(
        "hop",
        view,
        "ts",
        duration(slide_n, unit_name),
        duration(slide_n * ratio, unit_name),
        duration(offset_n, unit_name),
    )
    assert aggregated(spark, sql) == expected(ref.hop(rows, slide_n * unit, slide_n * ratio * unit, offset_n * unit))


@runs_every_example("cumulate", GRID_EXAMPLES)
@settings(PROPERTY_SETTINGS, max_examples=GRID_EXAMPLES)
@given(case=grid_case())
def test_cumulate_matches_the_python_model(spark, renderer, case):
    EXAMPLES_RUN["cumulate"] += 1
    rows, unit_name, step_n, ratio, offset_n = case
    unit = UNITS[unit_name]
    view = load_events(spark, rows)
    sql = renderer.call(
        "cumulate",
        view,
        "ts",
        duration(step_n, unit_name),
        duration(step_n * ratio, unit_name),
        duration(offset_n, unit_name),
    )
    assert aggregated(spark, sql) == expected(ref.cumulate(rows, step_n * unit, step_n * ratio * unit, offset_n * unit))


@runs_every_example("session")
@PROPERTY_SETTINGS
@given(case=grid_case(), keyed=st.booleans())
def test_session_matches_the_python_model(spark, renderer, case, keyed):
    EXAMPLES_RUN["session"] += 1
    rows, unit_name, gap_n, _, _ = case
    unit = UNITS[unit_name]
    view = load_events(spark, rows)
    sql = renderer.call("session", view, "ts", duration(gap_n, unit_name), ["k"] if keyed else None)
    model_rows = rows if keyed else [(None, t, v) for _, t, v in rows]
    assert aggregated(spark, sql, keyed=keyed) == expected(ref.session(model_rows, gap_n * unit))


AGGREGATE_SETS = {
    # min and max: the two-stacks plan for hop
    "all": {"cnt": "count(*)", "cnt_v": "count(v)", "total": "sum(v)", "mn": "min(v)", "mx": "max(v)"},
    # counts and exact sums only: the sweep plan for hop
    "invertible": {"cnt": "count(*)", "cnt_v": "count(v)", "total": "sum(v)"},
    # a floating-point sum cannot be subtracted exactly: the two-stacks branch of the sweep plan
    "float_sum": {"cnt": "count(*)", "total": "sum(cast(v as double))", "mean": "avg(v)"},
    # count(distinct ...) of one expression: swept from the panes each value occurs in (hop,
    # cumulate), next to the slice plan of the other aggregates
    "count_distinct": {
        "cnt": "count(*)",
        "cnt_d": "count(distinct v)",
        "mx": "max(v)",
        "cnt_dp": "count(distinct(v))",
        "cnt_d10": "count(distinct abs(v) div 10)",
    },
    "count_distinct_only": {"cnt_d": "count(distinct v)"},
    # sum(distinct ...) cannot be merged from slices: the row-copy plan, for every window type
    "distinct": {
        "cnt": "count(*)",
        "cnt_d": "count(distinct v)",
        "cnt_dp": "count(distinct(v))",
        "total_d": "sum(DISTINCT(v))",
    },
}


def model_rows(windows, aggregate_set):
    rows = []
    for key, start, end, cnt, cnt_v, total, mn, mx in ref.aggregate(windows):
        values = {"cnt": cnt, "cnt_v": cnt_v, "total": total, "mn": mn, "mx": mx}
        values["mean"] = None if not cnt_v else total / cnt_v
        distinct = {v for v in windows[(key, start, end)] if v is not None}
        values["cnt_d"] = values["cnt_dp"] = len(distinct)
        values["total_d"] = sum(distinct) if distinct else None
        values["cnt_d10"] = len({abs(v) // 10 for v in distinct})
        if aggregate_set == "float_sum" and total is not None:
            values["total"] = float(total)
        rows.append((key, start, end, *[values[name] for name in AGGREGATE_SETS[aggregate_set]]))
    return sorted(rows, key=repr)


# window_aggregate's plan: none (its choice), the pane plan in one phase or two, the row-copy plan,
# or Spark's window() (hop and tumble only: drawn for another window, the choice stands)
STRATEGIES = [None, "one_phase", "two_phase", "row_copy", "spark_window"]


@PROPERTY_SETTINGS
@given(
    case=grid_case(),
    kind=st.sampled_from(["tumble", "hop", "cumulate", "session"]),
    keyed=st.booleans(),
    aggregate_set=st.sampled_from(sorted(AGGREGATE_SETS)),
    strategy=st.sampled_from(STRATEGIES),
)
def test_window_aggregate_matches_the_python_model_and_the_table_valued_macros(
    spark, renderer, case, kind, keyed, aggregate_set, strategy
):
    check_window_aggregate(spark, renderer, case, kind, keyed, aggregate_set, strategy)


# every mutant failed by the 6th example, a mutant of the two-stacks grid by the 25th; with
# the strategy drawn, a new draw of mutants by the 4th (dev/mutate_properties.py;
# tests/README.md, "How many examples")
@settings(PROPERTY_SETTINGS, max_examples=100)
@given(
    case=grid_case(),
    kind=st.sampled_from(["hop", "cumulate"]),
    keyed=st.booleans(),
    aggregate_set=st.sampled_from(["count_distinct", "count_distinct_only"]),
    strategy=st.sampled_from(STRATEGIES),
)
def test_window_aggregate_count_distinct_on_sliding_windows(
    spark, renderer, case, kind, keyed, aggregate_set, strategy
):
    """The distinct sweep (no copied rows) on more examples than the test above gives it."""
    check_window_aggregate(spark, renderer, case, kind, keyed, aggregate_set, strategy)


def check_window_aggregate(spark, renderer, case, kind, keyed, aggregate_set, strategy=None):
    """window_aggregate equals the Python model and the table-valued macro followed by GROUP BY."""
    rows, unit_name, step_n, ratio, offset_n = case
    unit = UNITS[unit_name]
    aggregates = AGGREGATE_SETS[aggregate_set]
    view = load_events(spark, rows)
    spec = window_spec(kind, unit_name, step_n, ratio, offset_n)
    group_by = ["k"] if keyed else []
    if strategy == "spark_window" and kind not in ["hop", "tumble"]:
        strategy = None
    sliced = renderer.call("window_aggregate", view, "ts", spec, group_by, aggregates, None, None, strategy)
    if strategy == "two_phase" and keyed and kind in ["hop", "cumulate"] and ratio > 1 and "__sw_pane" in sliced:
        one_phase = renderer.call("window_aggregate", view, "ts", spec, group_by, aggregates, None, "one_phase")
        assert sliced.split("\n", 1)[1] != one_phase.split("\n", 1)[1], "two phases: rows not shuffled by group first"
    # the default's choice, named in the comment the SQL starts with (hop and cumulate)
    chosen = strategy or next(iter(re.findall(r"window_aggregate plan: (\w+)", sliced)), None)
    panes = chosen in ["one_phase", "two_phase"]
    if kind == "session":
        assert "group by " in sliced and "__sw_windowed" not in sliced, "sessions grouped by their index"
    elif chosen == "spark_window":
        assert "window(ts, " in sliced and "__sw_windowed" not in sliced, "Spark's window()"
    elif aggregate_set == "distinct" or strategy == "row_copy":
        assert "__sw_windowed" in sliced and "__sw_pane" not in sliced, "the row-copy plan"
    if panes and aggregate_set.startswith("count_distinct") and kind in ["hop", "cumulate"] and ratio > 1:
        assert "__sw_distinct" in sliced and "__sw_windowed" not in sliced, "the distinct sweep"
    actual = sorted((tuple(r) for r in spark.sql(aggregate_query(sliced, list(aggregates), keyed)).collect()), key=repr)
    model_input = rows if keyed else [(None, t, v) for _, t, v in rows]
    assert actual == model_rows(model_windows(kind, model_input, unit, step_n, ratio, offset_n), aggregate_set)

    if kind == "tumble":
        tvf_args = (spec["size"], spec.get("offset"))
    elif kind == "session":
        tvf_args = (spec["gap"], ["k"] if keyed else None)
    else:
        tvf_args = (spec["slide" if kind == "hop" else "step"], spec["size"], spec.get("offset"))
    windowed = renderer.call(kind, view, "ts", *tvf_args)
    grouped = ", ".join(f"{sql} as {name}" for name, sql in aggregates.items())
    through_tvf = sorted(
        (tuple(r) for r in spark.sql(aggregate_query(windowed, list(aggregates), keyed, grouped)).collect()),
        key=repr,
    )
    assert actual == through_tvf


ANY_HOP_EXAMPLES = 60


@settings(PROPERTY_SETTINGS, max_examples=ANY_HOP_EXAMPLES)
@given(
    case=grid_case(),
    size_n=st.integers(1, 13),
    keyed=st.booleans(),
)
def test_hop_of_any_size_and_slide_matches_the_python_model_and_spark_window(spark, renderer, case, size_n, keyed):
    """Sizes that are no whole multiple of the slide, and slides longer than the size (gaps):
    hop and window_aggregate equal the Python model, and Spark's own window() on the same rows
    where it accepts them (not with gaps)."""
    EXAMPLES_RUN["any_hop"] += 1
    rows, unit_name, slide_n, _, offset_n = case
    unit = UNITS[unit_name]
    slide, size, offset = (duration(n, unit_name) for n in (slide_n, size_n, offset_n))
    gaps = slide_n > size_n
    view = load_events(spark, rows)
    model_input = rows if keyed else [(None, t, v) for _, t, v in rows]
    expected_rows = model_rows(ref.hop(model_input, slide_n * unit, size_n * unit, offset_n * unit), "all")
    aggregates = AGGREGATE_SETS["all"]
    grouped = ", ".join(f"{sql} as {name}" for name, sql in aggregates.items())

    windowed = renderer.call("hop", view, "ts", slide, size, offset, gaps)
    through_tvf = spark.sql(aggregate_query(windowed, list(aggregates), keyed, grouped)).collect()
    assert sorted((tuple(r) for r in through_tvf), key=repr) == expected_rows

    spec = {"type": "hop", "slide": slide, "size": size, "offset": offset, "allow_gaps": gaps}
    sliced = renderer.call("window_aggregate", view, "ts", spec, ["k"] if keyed else [], aggregates)
    through_aggregate = spark.sql(aggregate_query(sliced, list(aggregates), keyed)).collect()
    assert sorted((tuple(r) for r in through_aggregate), key=repr) == expected_rows

    if gaps:
        return  # Spark's window() refuses a slide longer than the size
    # Spark's window() starts windows at startTime + k * slide, startTime within one slide
    start_time = duration((offset_n % slide_n), unit_name)
    spark_window = (
        f"(select *, w.start as window_start, w.end as window_end from (select *, "
        f"window(ts, '{size}', '{slide}', '{start_time}') as w from {view} where ts is not null))"
    )
    through_spark = spark.sql(aggregate_query(spark_window, list(aggregates), keyed, grouped)).collect()
    assert sorted((tuple(r) for r in through_spark), key=repr) == expected_rows


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("aggregates", [{"total": "sum(v)", "cnt": "count(*)"}, {"total": "sum(v)", "mean": "avg(v)"}])
def test_window_aggregate_hop_sums_overflow_only_where_group_by_does(spark, renderer, sign, aggregates):
    """Under ANSI mode a bigint sum out of range fails the query. Each window here holds two
    panes of 4e18 (8e18, in range); a window plus one more pane (1.2e19) is not. In the hop
    sweep a pane leaves and the next enters at the same window end: the leaving one is taken
    first, so no running sum holds three panes."""
    ansi = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "true")
    try:
        minutes = [0, 1, 2, 3, 4, 5, 7, 8, 9, 10]
        spark.sql(
            "create or replace temp view __sw_big_events as select 'a' as k, timestamp_micros(m * 60000000) as ts, "
            f"cast({sign * 4 * 10**18} as bigint) as v from values {', '.join(f'({m})' for m in minutes)} as e(m)"
        )
        spec = {"type": "hop", "slide": "1 minute", "size": "2 minutes"}
        # the pane plan named: two windows per row would copy rows by default
        sliced = renderer.call(
            "window_aggregate", "__sw_big_events", "ts", spec, ["k"], aggregates, None, None, "one_phase"
        )
        assert "__sw_leaves desc" in sliced, "the sweep plan"
        actual = sorted(tuple(r) for r in spark.sql(aggregate_query(sliced, list(aggregates), True)).collect())
        windowed = renderer.call("hop", "__sw_big_events", "ts", "1 minute", "2 minutes")
        grouped = ", ".join(f"{sql} as {name}" for name, sql in aggregates.items())
        through_tvf = sorted(
            tuple(r) for r in spark.sql(aggregate_query(windowed, list(aggregates), True, grouped)).collect()
        )
        assert actual == through_tvf
        assert max(abs(row[3]) for row in actual) == 8 * 10**18
    finally:
        spark.conf.set("spark.sql.ansi.enabled", ansi)


@pytest.mark.parametrize("kind, scale", [("tumble", 10), ("cumulate", 10), ("hop", 9), ("hop_min_max", 9)])
def test_window_aggregate_decimal_sums_keep_the_scale_the_readme_states(spark, renderer, kind, scale):
    """A decimal(20, 10) column: tumble and cumulate sums keep all 10 decimals; hop sums keep
    9 (Spark keeps 38 digits: the two-stacks merge of two decimal(38, 10) sums drops one), in
    both the sweep and the two-stacks plan, and equal GROUP BY's rounded to 9."""
    from decimal import ROUND_HALF_UP, Decimal

    values = ["1.2345678912", "0.0000000012", "3.3333333333", "-0.0000000007", "9999999999.9999999999"]
    spark.sql(
        "create or replace temp view __sw_decimal_events as select 'a' as k, timestamp_micros(m * 60000000) as ts, "
        "cast(v as decimal(20, 10)) as v from values "
        + ", ".join(f"({minute}, '{value}')" for minute, value in enumerate(values))
        + " as e(m, v)"
    )
    aggregates = {"total": "sum(v)"} if kind != "hop_min_max" else {"total": "sum(v)", "mx": "max(v)"}
    window = {"type": kind[:3] if kind.startswith("hop") else kind, "size": "2 minutes"}
    window.update({"hop": {"slide": "1 minute"}, "cumulate": {"step": "1 minute"}}.get(window["type"], {}))
    sliced = renderer.call("window_aggregate", "__sw_decimal_events", "ts", window, ["k"], aggregates)
    result = spark.sql(aggregate_query(sliced, ["total"], True))
    assert result.schema["total"].dataType.scale == scale
    actual = sorted(tuple(r) for r in result.collect())
    tvf_args = {"tumble": ("2 minutes",), "cumulate": ("1 minute", "2 minutes"), "hop": ("1 minute", "2 minutes")}
    windowed = renderer.call(window["type"], "__sw_decimal_events", "ts", *tvf_args[window["type"]])
    grouped = spark.sql(aggregate_query(windowed, ["total"], True, "sum(v) as total")).collect()
    step = Decimal(1).scaleb(-scale)
    expected = sorted((*r[:3], r[3].quantize(step, rounding=ROUND_HALF_UP)) for r in grouped)
    assert actual == expected
