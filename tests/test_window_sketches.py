"""Slow tests: HLL sketch estimates in window_aggregate (per-pane sketches merged by union) equal
the estimate of one sketch built over each window's rows (the table-valued macro, then GROUP
BY), and stay within the documented error of the exact distinct count."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

WINDOWS = {
    "tumble": ({"type": "tumble", "size": "8 seconds"}, ("8 seconds",)),
    "hop": (
        {"type": "hop", "slide": "2 seconds", "size": "8 seconds", "offset": "1 second"},
        ("2 seconds", "8 seconds", "1 second"),
    ),
    "cumulate": ({"type": "cumulate", "step": "2 seconds", "size": "8 seconds"}, ("2 seconds", "8 seconds")),
}
SKETCHES = {"users": "hll_sketch_estimate(hll_sketch_agg(v))", "users_lg8": "hll_sketch_estimate(hll_sketch_agg(v, 8))"}
# HLL's relative standard error is 1.04 / sqrt(2^lgConfigK) (DataSketches); five of them
RELATIVE_ERROR = {"users": 5 * 1.04 / 2**6, "users_lg8": 5 * 1.04 / 2**4}


def random_events(spark, rows: int, seed: int) -> str:
    """Three keys and a NULL key, times from -20 s to 20 s around the epoch and some NULL,
    values up to `rows` distinct with 5% NULL."""
    spark.range(rows).selectExpr(
        "case when id % 4 = 3 then null else cast(id % 4 as string) end as k",
        f"case when rand({seed}) < 0.01 then null else timestamp_micros(cast(rand({seed + 1}) * 40000000 as bigint) - 20000000) end as ts",
        f"case when rand({seed + 2}) < 0.05 then null else cast(rand({seed + 3}) * {rows} as int) end as v",
    ).createOrReplaceTempView("__sw_sketch_events")
    return "__sw_sketch_events"


@pytest.mark.parametrize("kind", sorted(WINDOWS))
@pytest.mark.parametrize("rows, seed", [(40, 1), (3000, 2), (60000, 3)])
def test_hll_estimates_equal_one_sketch_over_the_window_and_the_documented_error(spark, renderer, kind, rows, seed):
    view = random_events(spark, rows, seed)
    window, tvf_args = WINDOWS[kind]
    sliced = renderer.call("window_aggregate", view, "ts", window, ["k"], {"n": "count(*)", **SKETCHES})
    assert "hll_sketch_agg(v) as __sw_p2" in sliced and "__sw_windowed" not in sliced, "merged from pane sketches"
    names = ", ".join(["n", *SKETCHES])
    query = f"select k, unix_micros(window_start), unix_micros(window_end), {names} from {sliced}"
    actual = sorted((tuple(r) for r in spark.sql(query).collect()), key=repr)
    windowed = renderer.call(kind, view, "ts", *tvf_args)
    grouped = ", ".join(["count(*)", *SKETCHES.values(), "count(distinct v)"])
    query = (
        f"select k, unix_micros(window_start), unix_micros(window_end), {grouped} "
        f"from {windowed} group by k, window_start, window_end"
    )
    expected = sorted((tuple(r) for r in spark.sql(query).collect()), key=repr)
    assert [row[:-1] for row in expected] == actual
    for row in expected:
        exact = row[-1]
        for position, name in enumerate(SKETCHES, start=4):
            assert abs(row[position] - exact) <= RELATIVE_ERROR[name] * exact, (name, row)
