"""Slow tests: variances and standard deviations in window_aggregate, merged from each pane's
count, mean and sum of squared deviations, against the row-copy plan (the table-valued macro,
then GROUP BY), the Python model and exact rational arithmetic.

- On small random events (hypothesis, the events of support/properties.py: NULL values, NULL keys,
  times before 1970, empty groups) they equal GROUP BY's and the model's to 1e-9 (relative, or
  absolute below 1e-6), NULL where a window has too few values.
- On values far from 0 (about 1e9, spread over a few units), where subtracting sums of squares
  would leave nothing but rounding, they stay within 1e-6 of the exact variance.
"""

from __future__ import annotations

import math
import statistics
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from properties import (
    PROPERTY_SETTINGS,
    UNITS,
    aggregate_query,
    both_plans,
    grid_case,
    load_events,
    model_windows,
    table_valued_args,
    window_spec,
)

pytestmark = pytest.mark.slow

VARIANCES = {
    "vs": "var_samp(v)",
    "vp": "VAR_POP(v)",
    "sd": "stddev(v)",
    "sdp": "stddev_pop(v)",
    "vr": "variance(v)",
    "sds": "std(v)",
}


def close(actual, expected, relative=1e-9, absolute=1e-6) -> bool:
    if actual is None or expected is None:
        return actual is None and expected is None
    return math.isclose(actual, expected, rel_tol=relative, abs_tol=absolute)


def rows_close(actual: list[tuple], expected: list[tuple], first: int) -> bool:
    """Equal rows, the columns from `first` on compared with close()."""
    return len(actual) == len(expected) and all(
        a[:first] == e[:first] and all(close(x, y) for x, y in zip(a[first:], e[first:]))
        for a, e in zip(actual, expected)
    )


def model_variances(values: list) -> list:
    present = [v for v in values if v is not None]
    sample = statistics.variance(present) if len(present) > 1 else None
    population = statistics.pvariance(present) if present else None
    return [
        sample,
        population,
        None if sample is None else math.sqrt(sample),
        None if population is None else math.sqrt(population),
        sample,
        None if sample is None else math.sqrt(sample),
    ]


# a mutant of the shifted deviations failed only at the 135th example of 200, and no other test
# fails it (dev/mutate_properties.py; tests/README.md, "How many examples")
@settings(PROPERTY_SETTINGS, max_examples=300)
@given(case=grid_case(), kind=st.sampled_from(["tumble", "hop", "cumulate"]), keyed=st.booleans())
def test_variances_equal_group_by_and_the_model(spark, renderer, case, kind, keyed):
    rows, unit_name, step_n, ratio, offset_n = case
    view = load_events(spark, rows)
    spec = window_spec(kind, unit_name, step_n, ratio, offset_n)
    aggregates = {"cnt": "count(*)", **VARIANCES, "total": "sum(v)"}
    actual, expected = both_plans(spark, renderer, view, kind, spec, keyed, aggregates)
    assert [row[:4] for row in actual] == [row[:4] for row in expected]
    assert rows_close([row[:-1] for row in actual], [row[:-1] for row in expected], 4)

    model_input = rows if keyed else [(None, t, v) for _, t, v in rows]
    windows = model_windows(kind, model_input, UNITS[unit_name], step_n, ratio, offset_n)
    model = sorted(
        ((key, start, end, len(values), *model_variances(values)) for (key, start, end), values in windows.items()),
        key=repr,
    )
    assert rows_close([row[:-1] for row in actual], model, 4)


WINDOWS = {
    "tumble": {"type": "tumble", "size": "8 seconds"},
    "hop": {"type": "hop", "slide": "1 second", "size": "8 seconds"},
    "cumulate": {"type": "cumulate", "step": "1 second", "size": "8 seconds"},
}


@pytest.mark.parametrize("kind", sorted(WINDOWS))
def test_variances_of_values_far_from_zero_stay_exact_to_a_millionth(spark, renderer, kind):
    """Values 1e9 + 0..9 with a drift of 0.1 a second: the window's sum of squares is about 1e18
    times its count, its sum of squared deviations a few units each, so sum(x^2) - sum(x)^2 / n
    in doubles would be rounding noise. Each window's pane means differ, so the merge matters."""
    spark.range(0, 2000, 1, 3).selectExpr(
        "cast(id % 3 as string) as k",
        "timestamp_micros(id * 20000 - 20000000) as ts",
        "1e9 + id * 0.002 + pmod(id * 7, 10) as v",
    ).createOrReplaceTempView("__sw_far_events")
    spec = WINDOWS[kind]
    aggregates = {"vs": "var_samp(v)", "sdp": "stddev_pop(v)"}
    sliced = renderer.call("window_aggregate", "__sw_far_events", "ts", spec, ["k"], aggregates)
    actual = spark.sql(aggregate_query(sliced, list(aggregates), True)).collect()
    windowed = renderer.call(kind, "__sw_far_events", "ts", *table_valued_args(kind, spec))
    query = (
        "select k, unix_micros(window_start), unix_micros(window_end), collect_list(cast(v as string)) "
        f"from {windowed} group by k, window_start, window_end"
    )
    values = {tuple(row[:3]): [Fraction(v) for v in row[3]] for row in spark.sql(query).collect()}
    assert len(actual) == len(values) >= 15
    for key, start, end, sample, population_sd in actual:
        window_values = values[(key, start, end)]
        n = len(window_values)
        mean = sum(window_values) / n
        m2 = sum((v - mean) ** 2 for v in window_values)
        exact_sample = m2 / (n - 1) if n > 1 else None
        assert close(sample, None if exact_sample is None else float(exact_sample), 1e-6, 0), (key, start, end)
        assert close(population_sd, math.sqrt(m2 / n), 1e-6, 0), (key, start, end)
