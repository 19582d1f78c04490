"""Slow tests: sketches in window_aggregate (one sketch per pane, merged per window) against the
row-copy plan (the table-valued macro, then GROUP BY) and the exact values.

- On small random events (hypothesis, the events of support/properties.py: NULL values, NULL keys,
  times before 1970, empty groups) every window's sketch holds all its values, so HLL
  estimates and KLL quantiles equal GROUP BY's and the exact distinct count and quantile.
- On 400 and 20,000 random rows, HLL estimates equal GROUP BY's wherever the window's sketch
  still lists its hashes (few values) and are within 5 relative standard errors of the exact
  distinct count everywhere; KLL quantiles equal the exact ones where a window holds at most
  k values and are within twice KLL's rank error (99% confidence) of them everywhere.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from properties import (
    KLL,
    PROPERTY_SETTINGS,
    UNITS,
    both_plans,
    grid_case,
    load_events,
    model_windows,
    table_valued_args,
    window_spec,
)

pytestmark = pytest.mark.slow

HLL = "hll_sketch_estimate(hll_sketch_agg(v))"
HLL_8 = "hll_sketch_estimate(hll_sketch_agg(v, 8))"
# every sketch aggregate: the two HLL estimates and a quantile of each KLL sketch of properties.KLL
ALL_SKETCHES = {
    "users": HLL,
    "users_8": HLL_8,
    **{
        name: f"kll_sketch_get_quantile_{t}(kll_sketch_agg_{t}({args}), {rank})"
        for name, (t, args, rank) in KLL.items()
    },
}
SKETCHES = {name: ALL_SKETCHES[name] for name in ["users", "users_8", "median", "quartile", "deciles"]}
# sketches that hold every value of a window of at most 30 rows: an HLL sketch of lgConfigK 12
# lists the hashes of up to about 390 distinct values, a KLL sketch keeps k values
SMALL_WINDOW_SKETCHES = {name: ALL_SKETCHES[name] for name in ["users", "median", "quartile", "deciles_40"]}


def inclusive_quantile(values: list[int], rank: float):
    """The smallest value whose share of values at or below it reaches `rank` (KLL's inclusive
    quantile); for the ranks used here (0.25, 0.5) rank * n is exact."""
    ordered = sorted(values)
    return ordered[max(math.ceil(rank * len(ordered)) - 1, 0)]


# every mutant of the macros it uses failed by the 20th example (dev/mutate_properties.py;
# tests/README.md, "How many examples")
@settings(PROPERTY_SETTINGS, max_examples=100)
@given(case=grid_case(), kind=st.sampled_from(["tumble", "hop", "cumulate"]), keyed=st.booleans())
def test_sketches_of_small_windows_equal_group_by_and_the_exact_values(spark, renderer, case, kind, keyed):
    rows, unit_name, step_n, ratio, offset_n = case
    view = load_events(spark, rows)
    spec = window_spec(kind, unit_name, step_n, ratio, offset_n)
    aggregates = {"cnt": "count(*)", **SMALL_WINDOW_SKETCHES, "mx": "max(v)"}
    actual, expected = both_plans(spark, renderer, view, kind, spec, keyed, aggregates)
    assert actual == expected

    model_input = rows if keyed else [(None, t, v) for _, t, v in rows]
    windows = model_windows(kind, model_input, UNITS[unit_name], step_n, ratio, offset_n)
    model = []
    for (key, start, end), values in windows.items():
        present = [v for v in values if v is not None]
        median = inclusive_quantile(present, 0.5) if present else None
        quartile = float(inclusive_quantile(present, 0.25)) if present else None
        model.append((key, start, end, len(values), len(set(present)), median, quartile))
    picked = sorted((row[:7] for row in actual), key=repr)
    assert picked == sorted(model, key=repr)


# HLL's relative standard error is 1.04 / sqrt(2 ** lgConfigK); five of them
HLL_BOUND = {"users": 5 * 1.04 / 2**6, "users_8": 5 * 1.04 / 2**4}
HLL_LG_K = {"users": 12, "users_8": 8}


def kll_rank_error(k: int) -> float:
    """DataSketches' normalized rank error of one quantile at 99% confidence."""
    return 2.296 / k**0.9723


KLL_K = {"median": 200, "quartile": 50, "deciles": 20}
KLL_RANKS = {"median": [0.5], "quartile": [0.25], "deciles": [0.1, 0.5, 0.9]}

WINDOWS = {
    "tumble": {"type": "tumble", "size": "8 seconds"},
    "hop": {"type": "hop", "slide": "2 seconds", "size": "8 seconds", "offset": "1 second"},
    "cumulate": {"type": "cumulate", "step": "2 seconds", "size": "8 seconds"},
}


def random_events(spark, rows: int, seed: int) -> str:
    """Three keys and a NULL key, times from -20 s to 20 s around the epoch and 1% NULL, values
    from 0 to `rows` with 5% NULL, in three input partitions."""
    spark.range(0, rows, 1, 3).selectExpr(
        "case when id % 4 = 3 then null else cast(id % 4 as string) end as k",
        f"case when rand({seed}) < 0.01 then null "
        f"else timestamp_micros(cast(rand({seed + 1}) * 40000000 as bigint) - 20000000) end as ts",
        f"case when rand({seed + 2}) < 0.05 then null else cast(rand({seed + 3}) * {rows} as int) end as v",
    ).createOrReplaceTempView("__sw_sketch_events")
    return "__sw_sketch_events"


@pytest.mark.parametrize("kind", sorted(WINDOWS))
@pytest.mark.parametrize("rows, seed", [(400, 1), (20000, 2)])
def test_sketches_of_large_windows_stay_within_the_documented_error(spark, renderer, kind, rows, seed):
    view = random_events(spark, rows, seed)
    spec = WINDOWS[kind]
    actual, expected = both_plans(spark, renderer, view, kind, spec, True, SKETCHES)
    assert [row[:3] for row in actual] == [row[:3] for row in expected], "the same windows"
    windowed = renderer.call(kind, view, "ts", *table_valued_args(kind, spec))
    values = {}
    sizes = ", ".join(f"length(hll_sketch_agg(v, {lg_k}))" for lg_k in HLL_LG_K.values())
    query = (
        f"select k, unix_micros(window_start), unix_micros(window_end), "
        f"collect_list(v), {sizes} from {windowed} group by k, window_start, window_end"
    )
    for key, start, end, window_values, *sketch_sizes in spark.sql(query).collect():
        values[(key, start, end)] = (sorted(window_values), sketch_sizes)
    worst = {}
    for row, reference in zip(actual, expected):
        window_values, sketch_sizes = values[row[:3]]
        named = dict(zip(SKETCHES, row[3:]))
        named_reference = dict(zip(SKETCHES, reference[3:]))
        exact = len(set(window_values))
        if exact == 0:
            assert [named[name] for name in SKETCHES] == [0, 0, None, None, None], row
            continue
        for position, name in enumerate(HLL_BOUND):
            # an HLL sketch lists the hashes of few values (a list or a set) and keeps a register
            # array of 2 ** lgConfigK bytes once it has many; the list is merged exactly
            if sketch_sizes[position] < 2 ** HLL_LG_K[name]:
                assert named[name] == named_reference[name], (name, row)
            error = abs(named[name] - exact) / exact
            worst[name] = max(worst.get(name, 0), error)
            assert error <= HLL_BOUND[name], (name, row, exact)
        for name, k in KLL_K.items():
            quantiles = named[name] if isinstance(named[name], list) else [named[name]]
            for rank, quantile in zip(KLL_RANKS[name], quantiles):
                if len(window_values) <= k:
                    assert quantile == inclusive_quantile(window_values, rank), (name, rank, row)
                below = bisect_left(window_values, quantile) / len(window_values)
                at_or_below = bisect_right(window_values, quantile) / len(window_values)
                error = max(below - rank, rank - at_or_below, 0)
                worst[name] = max(worst.get(name, 0), error)
                assert error <= 2 * kll_rank_error(k), (name, rank, row)
    print(kind, rows, {name: round(error, 4) for name, error in worst.items()})
