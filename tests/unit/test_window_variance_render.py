"""Fast tests: variances and standard deviations in window_aggregate rendered with plain Jinja.
They are merged from each pane's count, mean and sum of squared deviations (never from sums of
squares), with shifts taken from a pane of the frame."""

from __future__ import annotations

import pytest
from render_cases import SPECS, WINDOW_COLUMNS, is_row_copy, render

from dev.macro_renderer import output_names, parse_relation

pytestmark = pytest.mark.fast

STATISTICS = [
    ("var_samp(v)", "case when __sw_p2 - 1 > 0 then greatest(__sw_p4, 0) / (__sw_p2 - 1) end"),
    ("VARIANCE(v)", "case when __sw_p2 - 1 > 0 then greatest(__sw_p4, 0) / (__sw_p2 - 1) end"),
    ("var_pop(v)", "case when __sw_p2 > 0 then greatest(__sw_p4, 0) / (__sw_p2) end"),
    ("stddev(v)", "sqrt(case when __sw_p2 - 1 > 0 then greatest(__sw_p4, 0) / (__sw_p2 - 1) end)"),
    ("std(v)", "sqrt(case when __sw_p2 - 1 > 0 then greatest(__sw_p4, 0) / (__sw_p2 - 1) end)"),
    ("stddev_samp(v)", "sqrt(case when __sw_p2 - 1 > 0 then greatest(__sw_p4, 0) / (__sw_p2 - 1) end)"),
    ("stddev_pop(v)", "sqrt(case when __sw_p2 > 0 then greatest(__sw_p4, 0) / (__sw_p2) end)"),
]


@pytest.mark.parametrize("kind", ["tumble", "hop", "cumulate"])
@pytest.mark.parametrize("sql, final", STATISTICS)
def test_variances_merge_pane_counts_means_and_squared_deviations(renderer, kind, sql, final):
    rendered = render(renderer, SPECS[kind], aggregates={"n": "count(*)", "x": sql})
    assert not is_row_copy(rendered)
    assert "count(v) as __sw_p2" in rendered
    assert "avg(cast(v as double)) as __sw_p3" in rendered
    assert "var_pop(cast(v as double)) * count(v) as __sw_p4" in rendered
    assert f"{final} as x" in rendered
    assert "sum(__sw_p4 + __sw_p2 * (__sw_p3 - __sw_p3_" in rendered or kind == "tumble"
    if kind == "hop":
        assert "__sw_at" not in rendered, "means cannot be subtracted: two stacks, no sweep"
        assert "__sw_p3_suffix_shift_before" in rendered
    parse_relation(rendered)
    assert output_names(rendered) == ["k", *WINDOW_COLUMNS, "n", "x"]


def test_variance_and_standard_deviation_of_one_argument_share_their_partials(renderer):
    rendered = render(renderer, SPECS["hop"], aggregates={"a": "var_samp(v)", "b": "stddev_pop(v)", "c": "count(v)"})
    assert rendered.count("var_pop(cast(v as double)) * count(v) as") == 1
    assert [line.strip() for line in rendered.splitlines() if line.strip().startswith("count(v) as")] == [
        "count(v) as __sw_p2,"
    ]
    assert "sqrt(case when __sw_p2 > 0 then greatest(__sw_p4, 0) / (__sw_p2) end) as b" in rendered


@pytest.mark.parametrize("kind", ["hop", "cumulate"])
def test_shifts_are_means_of_panes_inside_the_frame(renderer, kind):
    rendered = " ".join(render(renderer, SPECS[kind], aggregates={"x": "var_pop(v)"}).split())
    block = "partition by k, __sw_pane - pmod(__sw_pane, 60) order by __sw_pane"
    frame = "rows between unbounded preceding and unbounded following"
    # cumulate windows all start at the block's start: the block's first pane with a value is
    # in each that has one; a hop prefix holds its block's first such pane, a suffix its last
    assert f"first_value(__sw_p3, true) over ({block} {frame})" in rendered
    if kind == "hop":
        assert f"last_value(__sw_p3, true) over ({block} {frame}) as __sw_p3_last" in rendered
        prefix = "sum(__sw_p2 * (__sw_p3 - __sw_p3_first)) over (partition by k, __sw_block order by __sw_pane rows"
        suffix = (
            "sum(__sw_p2 * (__sw_p3 - __sw_p3_last)) over (partition by k, __sw_reverse_block order by __sw_pane desc"
        )
        assert prefix in rendered and suffix in rendered
    else:
        assert "__sw_p3_shift + __sw_p3 / nullif(__sw_p2, 0) as __sw_p3" in rendered
        assert "__sw_p4 - __sw_p3 * __sw_p3 / nullif(__sw_p2, 0) as __sw_p4" in rendered


@pytest.mark.parametrize("sql", ["var_samp(distinct v)", "stddev(DISTINCT v)", "covar_pop(v, w)", "kurtosis(v)"])
def test_distinct_variances_and_other_moments_keep_the_row_copy_plan(renderer, sql):
    rendered = render(renderer, SPECS["hop"], aggregates={"x": sql})
    assert is_row_copy(rendered)
