"""Slow tests: session windows whose gap is a SQL expression evaluated per row (Flink's dynamic
gap), run on the test session's Spark and compared with the plain-Python model in
reference_dynamic_gaps.py; then hand-computed cases for NULL, zero, negative and month gaps.

Events carry `gap_us` (bigint microseconds, possibly NULL, zero or negative) and `gap`, the same
gap as a day-time interval. Times and gaps are written as microseconds, so no zone is involved.
"""

from __future__ import annotations

import pytest
import reference_windows
from hypothesis import given
from hypothesis import strategies as st
from properties import aggregated, expected
from property_settings import property_settings
from pyspark.errors import AnalysisException
from reference_dynamic_gaps import session_dynamic
from spark_views import literal

pytestmark = pytest.mark.slow

VIEW = "__sw_dynamic_gap_events"
UNITS = {"millisecond": 1_000, "second": 1_000_000, "minute": 60_000_000, "hour": 3_600_000_000}
MINUTE = UNITS["minute"]
DAY = 86_400_000_000
# the same per-row gap written three ways: a day-time interval column, day-time interval
# arithmetic, and a calendar interval (CalendarIntervalType)
GAP_EXPRESSIONS = {
    "column": "gap",
    "day_time": "gap_us * interval 1 microsecond",
    "calendar": "cast(concat(gap_us, ' microseconds') as interval)",
}
AGGREGATES = {"cnt": "count(*)", "cnt_v": "count(v)", "total": "sum(v)", "mn": "min(v)", "mx": "max(v)"}
PROPERTY_SETTINGS = property_settings(100)


def load_gapped_events(spark, rows) -> str:
    """A temp view of (k, ts, v, gap_us) rows, plus `gap` = gap_us as a day-time interval."""
    if not rows:
        spark.sql(
            f"create or replace temp view {VIEW} as "
            "select cast(null as string) as k, cast(null as timestamp) as ts, cast(null as int) as v, "
            "cast(null as bigint) as gap_us, cast(null as bigint) * interval 1 microsecond as gap where false"
        )
        return VIEW

    values = ", ".join(
        f"({literal(k, 'string')}, {literal(t, 'timestamp')}, {literal(v, 'int', cast=True)}, "
        f"{literal(g, 'bigint', cast=True)})"
        for k, t, v, g in rows
    )
    spark.sql(
        f"create or replace temp view {VIEW} as "
        "select k, ts, v, gap_us, gap_us * interval 1 microsecond as gap "
        f"from values {values} as events(k, ts, v, gap_us)"
    )
    return VIEW


@st.composite
def gapped_events(draw):
    """Up to 30 events on a grid of one unit (so windows touch often) or anywhere, each with a
    gap that is NULL, zero, negative, a few units or up to 60 units (2.5 days for hours)."""
    unit = UNITS[draw(st.sampled_from(sorted(UNITS)))]
    times = st.one_of(
        st.none(),
        st.integers(-20, 20).map(lambda n: n * unit),
        st.integers(-20 * unit, 20 * unit),
    )
    gaps = st.one_of(
        st.none(),
        st.just(0),
        st.integers(-5, -1).map(lambda n: n * unit),
        st.integers(-unit, -1),
        st.integers(1, 8).map(lambda n: n * unit),
        st.integers(1, 8 * unit),
        st.integers(1, 60).map(lambda n: n * unit),
    )
    return draw(
        st.lists(
            st.tuples(st.sampled_from(["a", "b", None]), times, st.one_of(st.none(), st.integers(-1000, 1000)), gaps),
            max_size=30,
        )
    )


@PROPERTY_SETTINGS
@given(rows=gapped_events(), form=st.sampled_from(sorted(GAP_EXPRESSIONS)), keyed=st.booleans())
def test_dynamic_gap_sessions_match_the_python_model(spark, renderer, rows, form, keyed):
    view = load_gapped_events(spark, rows)
    gap = GAP_EXPRESSIONS[form]
    events = [(k if keyed else None, t, v) for k, t, v, _ in rows]
    want = expected(session_dynamic(events, [g for *_, g in rows]))

    windowed = renderer.call("session", view, "ts", gap, ["k"] if keyed else None)
    assert aggregated(spark, windowed, keyed=keyed) == want

    # window_aggregate's session type passes the expression to session()
    spec = {"type": "session", "gap": gap}
    sliced = renderer.call("window_aggregate", view, "ts", spec, ["k"] if keyed else [], AGGREGATES)
    key = "k" if keyed else "cast(null as string)"
    columns = ", ".join(AGGREGATES)
    query = f"select {key}, unix_micros(window_start), unix_micros(window_end), {columns} from {sliced}"
    assert sorted((tuple(row) for row in spark.sql(query).collect()), key=repr) == want


def sessions(spark, renderer, rows, gap, keys=None):
    """Each session as (k, start, end, window_time, sorted v) in microseconds, sorted."""
    view = load_gapped_events(spark, rows)
    windowed = renderer.call("session", view, "ts", gap, keys)
    query = f"""
        select k, unix_micros(window_start), unix_micros(window_end), unix_micros(window_time),
               sort_array(collect_list(v))
        from {windowed}
        group by k, window_start, window_end, window_time
    """
    return sorted(((row[0], row[1], row[2], row[3], list(row[4])) for row in spark.sql(query).collect()), key=repr)


def model_sessions(windows):
    """The model's windows in the shape `sessions` returns."""
    return sorted(((k, start, end, end - 1, sorted(values)) for (k, start, end), values in windows.items()), key=repr)


def test_a_row_whose_gap_is_null_belongs_to_no_session(spark, renderer):
    M = MINUTE
    rows = [
        ("a", 0, 1, 10 * M),
        ("a", 5 * M, 2, None),  # NULL gap: in no session
        ("a", 10 * M, 3, 10 * M),  # touches [0, 10 min): same session
        ("a", None, 4, 10 * M),  # NULL time: in no session
        ("a", 40 * M, 5, None),
    ]
    assert sessions(spark, renderer, rows, "gap", ["k"]) == [("a", 0, 20 * M, 20 * M - 1, [1, 3])]
    # coalesce keeps such rows, without holding the session open
    assert sessions(spark, renderer, rows, "coalesce(gap, interval 0 seconds)", ["k"]) == [
        ("a", 0, 20 * M, 20 * M - 1, [1, 2, 3]),
        ("a", 40 * M, 40 * M, 40 * M - 1, [5]),
    ]


def test_a_zero_gap_row_joins_what_reaches_it_and_holds_nothing_open(spark, renderer):
    M = MINUTE
    rows = [
        ("a", 0, 1, 0),
        ("a", 0, 2, 0),  # same instant: same session, which is [0, 0)
        ("a", 1, 3, 0),  # one microsecond later: a session of its own
        ("a", 10 * M, 4, 5 * M),
        ("a", 15 * M, 5, 0),  # touches [10, 15 min): joins, the end stays 15 min
        ("a", 15 * M, 6, 0),
        ("a", 15 * M + 1, 7, 0),  # nothing reaches it
    ]
    assert sessions(spark, renderer, rows, "gap", ["k"]) == [
        ("a", 0, 0, -1, [1, 2]),
        ("a", 1, 1, 0, [3]),
        ("a", 10 * M, 15 * M, 15 * M - 1, [4, 5, 6]),
        ("a", 15 * M + 1, 15 * M + 1, 15 * M, [7]),
    ]


def test_a_negative_gap_counts_as_zero(spark, renderer):
    M = MINUTE
    rows = [
        ("a", 0, 1, 10 * M),
        ("a", 5 * M, 2, -100 * M),  # inside [0, 10 min): joins, the end stays 10 min
        ("a", 10 * M, 3, 10 * M),  # touches: joins, the end becomes 20 min
        ("a", 100 * M, 4, -5 * M),  # [100 min, 100 min), not [100, 95)
        ("a", 100 * M, 5, -1),  # same instant: joins (a literal -5 min end would split them)
        ("a", 100 * M + 1, 6, 3 * M),
    ]
    want = [
        ("a", 0, 20 * M, 20 * M - 1, [1, 2, 3]),
        ("a", 100 * M, 100 * M, 100 * M - 1, [4, 5]),
        ("a", 100 * M + 1, 103 * M + 1, 103 * M, [6]),
    ]
    for gap in GAP_EXPRESSIONS.values():
        assert sessions(spark, renderer, rows, gap, ["k"]) == want
    events = [(k, t, v) for k, t, v, _ in rows]
    assert model_sessions(session_dynamic(events, [g for *_, g in rows])) == want


def test_window_end_is_the_largest_time_plus_gap_not_the_last_rows(spark, renderer):
    M = MINUTE
    rows = [
        ("a", 0, 1, None),  # 30 minutes: the session lasts until 30 min
        ("a", 5 * M, 2, None),
        ("a", 12 * M, 3, None),  # ends at 22 min, but the session at 30 min
        ("b", 0, 4, None),
        ("b", 12 * M, 5, None),  # 12 min > 10 min: a new session
    ]
    gap = "case when v = 1 then interval 30 minutes else interval 10 minutes end"
    assert sessions(spark, renderer, rows, gap, ["k"]) == [
        ("a", 0, 30 * M, 30 * M - 1, [1, 2, 3]),
        ("b", 0, 10 * M, 10 * M - 1, [4]),
        ("b", 12 * M, 22 * M, 22 * M - 1, [5]),
    ]


def test_a_constant_gap_expression_equals_the_fixed_gap(spark, renderer):
    M = MINUTE
    times = [0, 90 * M, 180 * M + 1, 200 * M, 200 * M, -90 * M, None, 400 * M]
    rows = [(k, t, i, None) for i, t in enumerate(times) for k in ("a", None)]
    events = [(k, t, v) for k, t, v, _ in rows]
    fixed = sessions(spark, renderer, rows, "90 minutes", ["k"])
    assert sessions(spark, renderer, rows, "interval 1 hour 30 minutes", ["k"]) == fixed
    assert sessions(spark, renderer, rows, "make_dt_interval(0, 1, 30)", ["k"]) == fixed
    assert fixed == model_sessions(reference_windows.session(events, 90 * M))
    assert fixed == model_sessions(session_dynamic(events, [90 * M] * len(events)))


@pytest.mark.parametrize(
    "gap",
    [
        "interval 1 year 2 months",  # a year-month interval
        "interval 1 month + interval 0 months",
        "cast('1 month 2 days' as interval)",  # a calendar interval with months
        "make_interval(0, 1)",
        "case when v = 2 then cast('1 month' as interval) else cast('10 minutes' as interval) end",
    ],
)
def test_a_gap_with_months_or_years_fails_the_query(spark, renderer, gap):
    rows = [("a", 0, 1, MINUTE), ("a", MINUTE, 2, MINUTE)]
    with pytest.raises(Exception) as error:
        sessions(spark, renderer, rows, gap, ["k"])
    assert not isinstance(error.value, AnalysisException), error.value
    assert "USER_RAISED_EXCEPTION" in str(error.value)
    assert "spark_windows.session: gap (" in str(error.value)
    assert ") of a row has a month or year part" in str(error.value)


def test_months_are_checked_only_on_rows_that_have_them(spark, renderer):
    rows = [("a", 0, 1, MINUTE), ("a", MINUTE, 2, MINUTE)]
    gap = "case when v = 99 then cast('1 month' as interval) else cast('10 minutes' as interval) end"
    assert sessions(spark, renderer, rows, gap, ["k"]) == [("a", 0, 11 * MINUTE, 11 * MINUTE - 1, [1, 2])]


def test_a_gap_that_is_a_number_is_a_spark_analysis_error(spark, renderer):
    with pytest.raises(AnalysisException):
        sessions(spark, renderer, [("a", 0, 1, MINUTE)], "gap_us", ["k"])


@pytest.mark.parametrize(
    "gap", ["interval 200 days", "cast('200 days' as interval)", "make_interval(0, 0, 0, 200, 0, 0, 0)"]
)
def test_days_are_24_hours_whatever_the_session_time_zone(spark, renderer, gap):
    # 1970-01-01 + 200 days crosses the start of daylight saving time in New York
    rows = [("a", 0, 1, None), ("a", 150 * DAY, 2, None), ("a", 400 * DAY, 3, None)]
    before = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "America/New_York")
    try:
        found = sessions(spark, renderer, rows, gap, ["k"])
    finally:
        spark.conf.set("spark.sql.session.timeZone", before)
    assert found == [
        ("a", 0, 350 * DAY, 350 * DAY - 1, [1, 2]),
        ("a", 400 * DAY, 600 * DAY, 600 * DAY - 1, [3]),
    ]
