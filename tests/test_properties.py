"""Slow property tests: on random events and random window parameters, each window macro,
aggregated, equals the plain-Python model in reference_windows.py.

The events hold ties, times before 1970, NULL times, NULL values and NULL keys. The SQL comes
from the project's macros (rendered by macro_renderer) and runs on the test session's Spark.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference_windows as ref

pytestmark = pytest.mark.slow

EXAMPLES = 200
UNITS = {"millisecond": 1_000, "second": 1_000_000, "minute": 60_000_000}
PROPERTY_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@st.composite
def events(draw, unit):
    """Up to 30 events spread over about 40 units around the epoch, with repeated times."""
    times = st.one_of(
        st.none(),
        st.integers(-20 * unit, 20 * unit),
        st.sampled_from([-unit, 0, unit, 3 * unit // 2]),  # ties and boundaries
    )
    rows = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["a", "b", None]),
                times,
                st.one_of(st.none(), st.integers(-1000, 1000)),
            ),
            max_size=30,
        )
    )
    return rows


@st.composite
def grid_case(draw):
    """Events plus (unit name, step count, size multiple, offset count) for tumble/hop/cumulate."""
    unit_name = draw(st.sampled_from(sorted(UNITS)))
    unit = UNITS[unit_name]
    return (
        draw(events(unit)),
        unit_name,
        draw(st.integers(1, 5)),
        draw(st.integers(1, 6)),
        draw(st.integers(-12, 12)),
    )


def duration(count: int, unit_name: str) -> str:
    return f"{count} {unit_name}s"


def load_events(spark, rows) -> str:
    """A temp view of the events; times are given in microseconds, so no zone is involved."""
    if not rows:
        spark.sql(
            "create or replace temp view __sw_property_events as "
            "select cast(null as string) as k, cast(null as timestamp) as ts, cast(null as int) as v "
            "where false"
        )
        return "__sw_property_events"

    def literal(value, kind):
        if value is None:
            return f"cast(null as {kind})"
        if kind == "string":
            return f"'{value}'"
        if kind == "timestamp":
            return f"timestamp_micros({value})"
        return str(value)

    values = ", ".join(
        f"({literal(k, 'string')}, {literal(t, 'timestamp')}, {literal(v, 'int')})" for k, t, v in rows
    )
    spark.sql(
        "create or replace temp view __sw_property_events as "
        f"select * from values {values} as events(k, ts, v)"
    )
    return "__sw_property_events"


def aggregated(spark, windowed_sql: str, keyed: bool = True) -> list[tuple]:
    key = "k" if keyed else "cast(null as string)"
    query = f"""
        select {key}, unix_micros(window_start), unix_micros(window_end),
               count(*), count(v), sum(v), min(v), max(v)
        from {windowed_sql}
        group by {key}, window_start, window_end
    """
    return sorted((tuple(row) for row in spark.sql(query).collect()), key=repr)


def expected(windows) -> list[tuple]:
    return sorted(ref.aggregate(windows), key=repr)


@pytest.fixture(scope="module")
def spark(warehouse):
    return warehouse.spark


@PROPERTY_SETTINGS
@given(case=grid_case())
def test_tumble_matches_the_python_model(spark, renderer, case):
    rows, unit_name, size_n, _, offset_n = case
    unit = UNITS[unit_name]
    view = load_events(spark, rows)
    sql = renderer.call("tumble", view, "ts", duration(size_n, unit_name), duration(offset_n, unit_name))
    assert aggregated(spark, sql) == expected(ref.tumble(rows, size_n * unit, offset_n * unit))


@PROPERTY_SETTINGS
@given(case=grid_case())
def test_hop_matches_the_python_model(spark, renderer, case):
    rows, unit_name, slide_n, ratio, offset_n = case
    unit = UNITS[unit_name]
    view = load_events(spark, rows)
    sql = renderer.call(
        "hop", view, "ts", duration(slide_n, unit_name), duration(slide_n * ratio, unit_name),
        duration(offset_n, unit_name),
    )
    assert aggregated(spark, sql) == expected(ref.hop(rows, slide_n * unit, slide_n * ratio * unit, offset_n * unit))


@PROPERTY_SETTINGS
@given(case=grid_case())
def test_cumulate_matches_the_python_model(spark, renderer, case):
    rows, unit_name, step_n, ratio, offset_n = case
    unit = UNITS[unit_name]
    view = load_events(spark, rows)
    sql = renderer.call(
        "cumulate", view, "ts", duration(step_n, unit_name), duration(step_n * ratio, unit_name),
        duration(offset_n, unit_name),
    )
    assert aggregated(spark, sql) == expected(
        ref.cumulate(rows, step_n * unit, step_n * ratio * unit, offset_n * unit)
    )


@PROPERTY_SETTINGS
@given(case=grid_case(), keyed=st.booleans())
def test_session_matches_the_python_model(spark, renderer, case, keyed):
    rows, unit_name, gap_n, _, _ = case
    unit = UNITS[unit_name]
    view = load_events(spark, rows)
    sql = renderer.call("session", view, "ts", duration(gap_n, unit_name), ["k"] if keyed else None)
    model_rows = rows if keyed else [(None, t, v) for _, t, v in rows]
    assert aggregated(spark, sql, keyed=keyed) == expected(ref.session(model_rows, gap_n * unit))
