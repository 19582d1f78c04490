"""Fast tests: sketch aggregates in window_aggregate rendered with plain Jinja. Which forms are
merged from one sketch per pane, how hop and cumulate merge them, and which approximate
aggregates keep the row-copy plan."""

from __future__ import annotations

import pytest
from render_cases import HOP, SPECS, WINDOW_COLUMNS, is_row_copy, render

from dev.macro_renderer import CompilerError, output_names, parse_relation

pytestmark = pytest.mark.fast

HLL = "hll_sketch_estimate(hll_sketch_agg(u))"


@pytest.mark.parametrize("kind", ["tumble", "hop", "cumulate"])
@pytest.mark.parametrize("sql, argument", [(HLL, "u"), ("HLL_SKETCH_ESTIMATE(hll_sketch_agg(u, 14))", "u, 14")])
def test_hll_sketch_estimates_merge_per_pane_sketches(renderer, kind, sql, argument):
    rendered = render(renderer, SPECS[kind], aggregates={"n": "count(*)", "users": sql})
    assert not is_row_copy(rendered)
    assert f"hll_sketch_agg({argument}) as __sw_p2" in rendered, "one sketch per pane"
    assert "hll_sketch_estimate(__sw_p2) as users" in rendered
    if kind != "tumble":
        assert "hll_union_agg(__sw_p2) over (" in rendered, "sketches merge by union in running frames"
        assert "sum(__sw_p2)" not in rendered
    if kind == "hop":
        assert "__sw_at" not in rendered, "a sketch cannot be subtracted: two stacks, no sweep"
        assert (
            "case when __sw_p2_prefix is null then __sw_p2_suffix_before when __sw_p2_suffix_before is null "
            "then __sw_p2_prefix else hll_union(__sw_p2_prefix, __sw_p2_suffix_before) end as __sw_p2"
        ) in rendered
    parse_relation(rendered)
    assert output_names(rendered) == ["k", *WINDOW_COLUMNS, "n", "users"]


KLL = [
    ("kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(v), 0.5)", "bigint", "v", "0.5"),
    (
        "kll_sketch_get_quantile_double(kll_sketch_agg_double(x, 400), array(0.1, 0.9))",
        "double",
        "x, 400",
        "array(0.1, 0.9)",
    ),
    ("KLL_SKETCH_GET_QUANTILE_FLOAT(kll_sketch_agg_float(cast(x as float)),0.99)", "float", "cast(x as float)", "0.99"),
]


@pytest.mark.parametrize("kind", ["tumble", "hop", "cumulate"])
@pytest.mark.parametrize("sql, type_, argument, rank", KLL)
def test_kll_quantiles_merge_per_pane_sketches(renderer, kind, sql, type_, argument, rank):
    rendered = render(renderer, SPECS[kind], aggregates={"n": "count(*)", "q": sql, "hi": "max(v)"})
    assert not is_row_copy(rendered)
    assert f"kll_sketch_agg_{type_}({argument}) as __sw_p2" in rendered, "one sketch per pane"
    # a window without a value gives NULL (Spark's quantile of an empty sketch fails)
    assert (
        f"case when kll_sketch_get_n_{type_}(__sw_p2) > 0 then kll_sketch_get_quantile_{type_}(__sw_p2, {rank}) end as q"
    ) in rendered
    if kind != "tumble":
        assert f"kll_merge_agg_{type_}(__sw_p2) over (" in rendered
    if kind == "hop":
        assert f"kll_sketch_merge_{type_}(__sw_p2_prefix, __sw_p2_suffix_before)" in rendered
    parse_relation(rendered)
    assert output_names(rendered) == ["k", *WINDOW_COLUMNS, "n", "q", "hi"]


def test_a_running_sketch_over_grid_panes_without_rows_is_null(renderer):
    # the two stacks lay out grid panes without rows; merging only those gives an empty sketch
    # of the default size, which a union with a sketch of another size refuses: NULL instead
    rendered = render(renderer, HOP, aggregates={"users": "hll_sketch_estimate(hll_sketch_agg(u, 8))"})
    assert (
        "case when count(__sw_p2) over (partition by k, __sw_block order by __sw_pane rows between unbounded "
        "preceding and current row) > 0 then hll_union_agg(__sw_p2) over (partition by k, __sw_block order by "
        "__sw_pane rows between unbounded preceding and current row) end as __sw_p2_prefix"
    ) in " ".join(rendered.split())


@pytest.mark.parametrize(
    "sql",
    [
        "approx_count_distinct(u)",
        "approx_count_distinct(u, 0.01)",
        "percentile_approx(v, 0.5)",
        "approx_percentile(v, 0.5, 100)",
    ],
)
@pytest.mark.parametrize("kind", ["hop", "cumulate"])
def test_approx_count_distinct_and_percentile_approx_keep_their_own_numbers(renderer, sql, kind):
    # HLL++ and Spark's quantile summary are other algorithms, with other numbers, than the
    # sketches merged from panes: computed as written from the copied rows
    rendered = render(renderer, SPECS[kind], aggregates={"x": sql})
    assert is_row_copy(rendered)
    assert f"{sql} as x" in rendered


@pytest.mark.parametrize(
    "sql",
    [
        "kll_sketch_get_quantile_double(kll_sketch_agg_bigint(v), 0.5)",  # types that differ
        "kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(v))",  # no rank
        "kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(v), )",
        "hll_sketch_estimate(hll_union_agg(sketch))",
        "hll_sketch_estimate(hll_sketch_agg(u) filter (where u > 0))",
    ],
)
def test_sketch_reads_of_other_forms_are_compile_errors(renderer, sql):
    with pytest.raises(CompilerError) as error:
        render(renderer, HOP, aggregates={"x": sql})
    assert "which window_aggregate cannot compute; accepted: " in str(error.value)
    assert "kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(expr[, k]), rank)" in str(error.value)
