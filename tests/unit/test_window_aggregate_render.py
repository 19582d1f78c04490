"""Fast tests: window_aggregate rendered with plain Jinja. Its compile errors; which plan each
aggregate gets (slices or copied rows); that aggregate text reaches the SQL as written; and the
SQL of every plan parsed with sqlglot."""

from __future__ import annotations

import pytest
from render_cases import CUMULATE, HOP, SESSION, SPECS, TUMBLE, WINDOW_COLUMNS, is_row_copy, render
from sqlglot import exp

from dev.macro_renderer import CompilerError, MacroRenderer, output_names, parse_relation

pytestmark = pytest.mark.fast

BAD_CALLS = [
    # agg_phase_strategy
    (
        {"agg_phase_strategy": "local_global"},
        "window_aggregate: agg_phase_strategy 'local_global' is not one of 'one_phase' (the default: rows shuffled "
        "by group_by, then added into panes) or 'two_phase' (rows added into panes before the shuffle",
    ),
    ({"agg_phase_strategy": True}, "window_aggregate: agg_phase_strategy True is not one of 'one_phase'"),
    # the window
    (
        {"window": {"type": "slide", "size": "1 minute"}},
        "window_aggregate: window ({'type': 'slide', 'size': '1 minute'}) must be a dict whose 'type' is tumble, "
        "hop, cumulate or session, such as {'type': 'tumble', 'size': '1 minute'}",
    ),
    ({"window": "5 minutes"}, "window_aggregate: window (5 minutes) must be a dict whose 'type' is tumble"),
    ({"window": {"size": "1 minute"}}, "must be a dict whose 'type' is tumble, hop, cumulate or session"),
    (
        {"window": {"type": "hop", "size": "1 hour"}},
        "window_aggregate: window ({'type': 'hop', 'size': '1 hour'}) is missing 'slide'; a hop window needs "
        "slide and size",
    ),
    ({"window": {"type": "cumulate", "step": "1 minute"}}, "is missing 'size'; a cumulate window needs step and size"),
    ({"window": {"type": "session"}}, "is missing 'gap'; a session window needs gap"),
    (
        {"window": {"type": "tumble", "size": "1 minute", "slide": "1 minute"}},
        "has the unknown key 'slide'; a tumble window takes size, offset",
    ),
    ({"window": {"type": "session", "gap": "1 minute", "offset": "1 minute"}}, "a session window takes gap"),
    (
        {"window": {"type": "hop", "slide": "70 minutes", "size": "1 hour"}},
        "window_aggregate (hop window): slide ('70 minutes') is longer than size ('1 hour')",
    ),
    (
        {"window": {"type": "hop", "slide": "70 minutes", "size": "1 hour", "allow_gaps": "true"}},
        "window_aggregate (hop window): allow_gaps (true) must be true or false",
    ),
    (
        {"window": {"type": "tumble", "size": "1 hour", "allow_gaps": True}},
        "has the unknown key 'allow_gaps'; a tumble window takes size, offset",
    ),
    (
        {"window": {"type": "cumulate", "step": "1 hour", "size": "90 minutes"}},
        "window_aggregate (cumulate window): size ('90 minutes') must be a whole multiple of step ('1 hour')",
    ),
    # group_by
    ({"group_by": "k"}, "window_aggregate: group_by ('k') must be a list of column names, such as ['user_id']"),
    ({"group_by": ["k", ""]}, "window_aggregate: group_by (['k', '']) must be a list of column names"),
    # aggregates: empty or not a dict
    ({"aggregates": {}}, "window_aggregate: aggregates ({}) must be a dict of output column name to one aggregate"),
    ({"aggregates": ["count(*)"]}, "window_aggregate: aggregates (['count(*)']) must be a dict"),
    # functions it cannot compute
    (
        {"aggregates": {"x": "foo(v)"}},
        "window_aggregate: aggregate 'x' ('foo(v)') uses foo(), which window_aggregate cannot compute; accepted: "
        "a dict of output column name to one aggregate call",
    ),
    ({"aggregates": {"x": "upper(s)"}}, "('upper(s)') uses upper(), which window_aggregate cannot compute"),
    # expressions that are not one aggregate call
    *[
        (
            {"aggregates": {"x": sql}},
            f"window_aggregate: aggregate 'x' ('{sql}') is not a single aggregate call; write one aggregate per "
            "output column (compute ratios on the result)",
        )
        for sql in ["sum(v)/count(v)", "sum(v) + 1", "v", "(sum(v))", "sum(v", "", "count(*) count(*)", "sum(v))"]
    ],
    ({"aggregates": {"x": 3}}, "window_aggregate: aggregate 'x' ('3') is not a single aggregate call"),
    # FILTER: refused, with what to write instead
    (
        {"aggregates": {"x": "count(*) filter (where v > 0)"}},
        "window_aggregate: aggregate 'x' ('count(*) filter (where v > 0)') has a FILTER clause, which "
        "window_aggregate does not take; put the condition inside the aggregate instead (here: count_if(v > 0)): "
        "count_if(condition) for count(*), sum(case when condition then expr end) for sum(expr)",
    ),
    (
        {"aggregates": {"x": "sum(v) FILTER(WHERE s = 'a  b')"}},
        "has a FILTER clause, which window_aggregate does not take; put the condition inside the aggregate "
        "instead (here: sum(case when s = 'a  b' then v end))",
    ),
    (
        {"aggregates": {"x": "count(distinct v) filter (where v > 0)"}},
        "has a FILTER clause, which window_aggregate does not take; put the condition inside the aggregate "
        "instead: count_if(condition) for count(*), sum(case when condition then expr end) for sum(expr)",
    ),
    # OVER: a window function, not an aggregate per window
    (
        {"aggregates": {"x": "sum(v) over (partition by k)"}},
        "window_aggregate: aggregate 'x' ('sum(v) over (partition by k)') is a window function (OVER); "
        "window_aggregate computes one value per group and window: write the aggregate alone, such as sum(v), "
        "and put the columns it is partitioned by in group_by",
    ),
    ({"aggregates": {"x": "max(v) OVER w"}}, "is a window function (OVER)"),
    ({"aggregates": {"x": "count(*) over()"}}, "is a window function (OVER)"),
    # output names
    *[
        (
            {"aggregates": {name: "count(*)"}},
            f"window_aggregate: aggregates has the output name '{name}', which is not a plain column name; name "
            "each output column with letters, digits and underscores, not starting with a digit, such as 'readings'",
        )
        for name in ["a b", "1x", "sensor-count", "", "`n`", "t.n", "n)"]
    ],
    ({"aggregates": {1: "count(*)"}}, "window_aggregate: aggregates has the output name 1, which is not a plain"),
    (
        {"aggregates": {"__sw_n": "count(*)"}},
        "window_aggregate: aggregates has the output name '__sw_n', which starts with __sw, the prefix of "
        "window_aggregate's helper columns",
    ),
    *[
        (
            {"aggregates": {name: "count(*)"}},
            f"window_aggregate: aggregates has the output name '{name}', which is a window column the output holds "
            "already (window_start, window_end, window_time); choose another name, such as 'readings'",
        )
        for name in ["window_start", "window_end", "Window_Time"]
    ],
    (
        {"group_by": ["sensor_id", "k"], "aggregates": {"n": "count(*)", "K": "max(v)"}},
        "window_aggregate: aggregates has the output name 'K', which is a group_by column (group_by: "
        "['sensor_id', 'k']) the output holds already; choose another name, such as 'readings'",
    ),
    (
        {"group_by": ["e.sensor_id"], "aggregates": {"sensor_id": "count(*)"}},
        "output name 'sensor_id', which is a group_by column",
    ),
    # sessions check the aggregates too
    ({"window": SESSION, "aggregates": {"window_end": "count(*)"}}, "output name 'window_end', which is a window"),
    ({"window": SESSION, "aggregates": {"x": "sum(v) filter (where v > 0)"}}, "has a FILTER clause"),
]


@pytest.mark.parametrize("arguments, message", BAD_CALLS, ids=repr)
def test_bad_calls_are_compile_errors_that_say_what_is_accepted(renderer, arguments, message):
    with pytest.raises(CompilerError) as error:
        render(renderer, **arguments)
    assert message in str(error.value)


@pytest.mark.parametrize("sql", ["sum(DISTINCT(v))", "avg(Distinct v)", "count(distinct v, w)"])
@pytest.mark.parametrize("kind", ["tumble", "hop", "cumulate"])
def test_distinct_sums_and_tuples_use_the_row_copy_plan(renderer, sql, kind):
    # per-pane distinct sums cannot be added: a value seen in two panes would count twice
    rendered = render(renderer, SPECS[kind], aggregates={"n": "count(*)", "d": sql})
    assert is_row_copy(rendered)
    assert f"{sql} as d" in rendered
    assert output_names(rendered) == ["k", *WINDOW_COLUMNS, "n", "d"]


DISTINCT_ARGUMENTS = [
    ("count(distinct v)", "v"),
    ("count(distinct(v))", "(v)"),
    ("count(distinct\tv)", "v"),
    ("count(\n  distinct v\n)", "v"),
    ("count(distinct`v`)", "`v`"),
    ("COUNT(DISTINCT abs(v) div 10)", "abs(v) div 10"),
]


@pytest.mark.parametrize("sql", [sql for sql, _ in DISTINCT_ARGUMENTS])
def test_a_tumbling_count_distinct_groups_the_tumbling_rows(renderer, sql):
    # one pane per window: each row is in one window, GROUP BY is the plan
    rendered = render(renderer, TUMBLE, aggregates={"n": "count(*)", "d": sql})
    assert is_row_copy(rendered)
    assert f"{sql} as d" in rendered
    one_pane_hop = render(renderer, {"type": "hop", "slide": "1 minute", "size": "1 minute"}, aggregates={"d": sql})
    assert is_row_copy(one_pane_hop)


@pytest.mark.parametrize("sql, argument", DISTINCT_ARGUMENTS)
@pytest.mark.parametrize("kind", ["hop", "cumulate"])
def test_count_distinct_on_sliding_windows_is_swept_without_copying_rows(renderer, sql, argument, kind):
    rendered = render(renderer, SPECS[kind], aggregates={"n": "count(*)", "d": sql})
    assert not is_row_copy(rendered)
    assert "__sw_windowed" not in rendered
    assert f"{argument} as __sw_value" in rendered
    assert f"where ts is not null and ({argument}) is not null" in rendered, "NULL values never count"
    assert "coalesce(__sw_distinct.__sw_d1, 0) as d" in rendered
    assert output_names(rendered) == ["k", *WINDOW_COLUMNS, "n", "d"]


def test_hop_distinct_runs_start_and_end_where_panes_are_more_than_a_window_apart(renderer):
    # a value in panes p < q counts in every window from p to q + n - 1 when q - p <= n (60)
    rendered = render(renderer, HOP, aggregates={"d": "count(distinct v)"})
    assert "case when __sw_previous_pane is null or __sw_pane - __sw_previous_pane > 60 then __sw_pane end" in rendered
    assert "case when __sw_next_pane is null or __sw_next_pane - __sw_pane > 60 then __sw_pane + 60 end" in rendered
    assert "posexplode(array(" in rendered and "1 - 2 * __sw_leaves as __sw_d1" in rendered


def test_cumulate_distinct_counts_a_value_from_its_first_pane_in_the_block(renderer):
    # the first pane is a min per (group, block, value), with no window over each value's panes;
    # the running sum restarts in each block and its last change fills the windows to the block's end
    rendered = render(renderer, CUMULATE, aggregates={"d": "count(distinct v)"})
    assert "k, min(__sw_pane) as __sw_at" in rendered
    assert "group by k, __sw_pane - pmod(__sw_pane, 60), __sw_value" in rendered
    assert "__sw_previous_pane" not in rendered and "posexplode" not in rendered
    block = "partition by k, __sw_at - pmod(__sw_at, 60) order by __sw_at"
    assert f"sum(__sw_d1) over ({block} rows between unbounded preceding and current row)" in rendered
    assert f"coalesce(lead(__sw_at) over ({block}), __sw_at - pmod(__sw_at, 60) + 60) as __sw_next_at" in rendered


@pytest.mark.parametrize("kind", ["hop", "cumulate"])
def test_several_distinct_counts_share_one_sweep_and_one_join(renderer, kind):
    aggregates = {
        "users": "count(distinct u)",
        "hi": "max(v)",
        "items": "count(distinct(item))",
        "users_again": "count(DISTINCT u)",
    }
    rendered = render(renderer, SPECS[kind], ["tenant", "t.k"], aggregates)
    tree = parse_relation(rendered)
    assert len(list(tree.find_all(exp.Join))) == 1
    assert "coalesce(__sw_distinct.__sw_d1, 0) as users" in rendered
    assert "coalesce(__sw_distinct.__sw_d2, 0) as items" in rendered
    assert "coalesce(__sw_distinct.__sw_d1, 0) as users_again" in rendered
    assert "__sw_d3" not in rendered
    assert "__sw_sliced.tenant <=> __sw_distinct.tenant and" in rendered, "NULL keys join too"
    assert "__sw_sliced.k <=> __sw_distinct.k and" in rendered
    assert "unix_micros(__sw_sliced.window_end) = (__sw_distinct.__sw_pane + 1) * 60000000 + 0" in rendered
    assert output_names(rendered) == ["tenant", "k", *WINDOW_COLUMNS, *aggregates]


@pytest.mark.parametrize("sql", ["count(distinct_users)", "sum(distinctness)", "count(all_v)", "max(Distinct_v)"])
def test_columns_whose_names_start_with_distinct_or_all_are_merged_from_slices(renderer, sql):
    rendered = render(renderer, HOP, aggregates={"x": sql})
    assert not is_row_copy(rendered)
    assert sql in rendered


@pytest.mark.parametrize("kind", ["tumble", "hop", "cumulate", "session"])
@pytest.mark.parametrize(
    "aggregate, literal",
    [
        ("count(case when s = 'a  b' then 1 end)", "a  b"),
        ("sum(case when s = ' tab\there ' then v end)", " tab\there "),
        ("max(case when s = 'x\n  y' then v end)", "x\n  y"),
        ("sum(case when s = ')' then v end)", ")"),
        ("count(case when s = '(' then 1 end)", "("),
        ("min(case when s = 'it\\'s )' then v end)", "it's )"),
        ('avg(case when s = ") (" then v end)', ") ("),
        ("sum(`odd)  column`)", None),
    ],
)
def test_string_literals_reach_the_sql_as_written(renderer, kind, aggregate, literal):
    rendered = render(renderer, SPECS[kind], aggregates={"x": aggregate})
    argument = aggregate[aggregate.index("(") + 1 : -1]
    assert argument in rendered, "the argument keeps its own text, whitespace and all"
    tree = parse_relation(rendered)
    if literal is not None:
        literals = {node.this for node in tree.find_all(exp.Literal) if node.is_string}
        assert literal in literals
    else:
        assert "odd)  column" in {node.name for node in tree.find_all(exp.Identifier)}


@pytest.mark.parametrize(
    "sql, split",
    [
        ("count(*)", ["count", "*", ""]),
        ("  Sum( v )  filter (where k = ')')", ["sum", "v", "filter (where k = ')')"]),
        ("max(`a)`) / 2", ["max", "`a)`", "/ 2"]),
        # an escaped quote stays inside the literal; -- is no comment to the split
        ("max(',\\')') -- (", ["max", "',\\')'", "-- ("]),
        (")f(x)", None),
        ("f)((x))", None),
        ("(x)", None),
        ("f(x", None),
        ("f()", None),
        ("a.b(x)", None),
    ],
    ids=repr,
)
def test_an_aggregate_splits_into_function_argument_and_tail(renderer, sql, split):
    assert renderer.call("_sw_split_call", sql) == split


@pytest.mark.parametrize("kind", ["tumble", "hop", "cumulate"])
@pytest.mark.parametrize("sql", ["sum(all v)", "sum(ALL v)", "avg(all(v))", "count(All\n v)", "max(all v)"])
def test_the_all_quantifier_is_dropped_from_sliced_arguments(renderer, kind, sql):
    rendered = render(renderer, SPECS[kind], aggregates={"x": sql})
    assert not is_row_copy(rendered)
    lowered = rendered.lower()
    assert "all v" not in lowered and "all(v)" not in lowered and "all\n v" not in lowered
    parse_relation(rendered)
    if kind == "hop" and not sql.startswith(("count", "max")):
        assert "typeof(v)" in rendered or "typeof((v))" in rendered


PLANS = {
    # name: (window, aggregates, text only that plan holds, text it must not hold)
    "tumble": (TUMBLE, {"n": "count(*)", "total": "sum(v)", "mean": "avg(v)", "hi": "max(v)"}, "__sw_pane", "over ("),
    "hop_sweep_counts": (HOP, {"n": "count(*)", "n_v": "count(v)"}, "__sw_leaves desc", "union all"),
    "hop_sweep_sums": (HOP, {"n": "count(*)", "total": "sum(v)"}, "__sw_leaves desc", "__sw_windowed"),
    "hop_two_stacks": (
        HOP,
        {"lo": "min(v)", "hi": "max(v)", "mean": "avg(v)", "total": "sum(v)"},
        "_suffix_before",
        "__sw_at",
    ),
    "cumulate": (
        CUMULATE,
        {"n": "count(*)", "total": "sum(v)", "lo": "min(v)", "mean": "avg(v)"},
        "__sw_block",
        "__sw_at",
    ),
    # sessions of a fixed gap: GROUP BY of each row's session index, no session rows
    "session": (
        SESSION,
        {"n": "count(*)", "total": "sum(v)", "mean": "avg(v)", "users": "count(distinct u)"},
        "__sw_session_index\n)",
        "__sw_windowed",
    ),
    "hop_distinct": (
        HOP,
        {"n": "count(*)", "users": "count(distinct u)", "hi": "max(v)"},
        "__sw_distinct",
        "__sw_windowed",
    ),
    "hop_distinct_only": (HOP, {"users": "count(distinct u)"}, "__sw_distinct", "__sw_windowed"),
    "cumulate_distinct": (
        CUMULATE,
        {"users": "count(distinct u)", "total": "sum(v)", "items": "count(distinct item)"},
        "__sw_distinct",
        "__sw_windowed",
    ),
    "hop_row_copy": (
        HOP,
        {"n": "count(*)", "users": "count(distinct(u))", "p50": "percentile(v, 0.5)"},
        "__sw_windowed",
        "__sw_pane",
    ),
    # a size that is no whole multiple of the slide, and gaps: each row copied into its windows
    "hop_not_a_multiple": (
        {"type": "hop", "slide": "7 minutes", "size": "1 hour"},
        {"n": "count(*)", "total": "sum(v)", "users": "count(distinct u)"},
        "__sw_windowed",
        "__sw_pane",
    ),
    "hop_with_gaps": (
        {"type": "hop", "slide": "1 hour", "size": "10 minutes", "allow_gaps": True},
        {"n": "count(*)", "hi": "max(v)"},
        "__sw_windowed",
        "__sw_pane",
    ),
}


@pytest.mark.parametrize("plan", sorted(PLANS))
@pytest.mark.parametrize("group_by", [[], ["k"], ["tenant", "user_id"]])
@pytest.mark.parametrize("relation", ["events", "`analytics`.`events`", "(select * from raw_events where k <> 'x')"])
def test_every_plan_renders_spark_sql_with_the_output_columns(renderer, plan, group_by, relation):
    window, aggregates, holds, lacks = PLANS[plan]
    rendered = render(renderer, window, group_by, aggregates, relation)
    parse_relation(rendered)  # raises on SQL sqlglot cannot read as Spark
    assert output_names(rendered) == [*group_by, *WINDOW_COLUMNS, *aggregates]
    assert holds in rendered
    assert lacks not in rendered


def test_the_hop_sweep_has_both_branches_when_a_sum_may_be_inexact(renderer):
    # sum(v) is exact for integers and decimals only: the sweep and the two-stacks branch, each
    # guarded by the same typeof() condition, one negated
    rendered = render(renderer, HOP, aggregates={"n": "count(*)", "total": "sum(v)"})
    tree = parse_relation(rendered)
    union = tree.find(exp.Union)
    assert union is not None
    assert "__sw_at" in union.left.sql(dialect="spark")
    assert "_suffix_before" in union.right.sql(dialect="spark")
    assert rendered.count("typeof(v) in ('tinyint', 'smallint', 'int', 'bigint')") == 2


@pytest.mark.parametrize("group_by", [[], ["k"]])
def test_two_stacks_read_the_previous_suffix_n_minus_1_grid_rows_back_only_at_that_pane(renderer, group_by):
    # hop(1 hour, 1 minute): 60 panes a window. Each column's previous suffix is the grid row 59
    # rows back, taken only when that row is pane __sw_pane - 59; no frame of panes is kept.
    # The lookup runs down the panes (lead), in the order of the suffix's own frames
    aggregates = {"lo": "min(v)", "spread": "stddev(v)"}
    rendered = render(renderer, HOP, group_by, aggregates)
    tree = parse_relation(rendered)
    looked_up = {}
    for alias in tree.find_all(exp.Alias):
        if alias.alias.endswith("_before"):
            looked_up[alias.alias] = alias.this
    partials = renderer.call("_sw_partial_columns", renderer.call("_sw_parse_aggregates", aggregates, "m"))
    means = [column for column in partials["columns"] if column["merge"] == "mean"]
    assert len(looked_up) == len(partials["columns"]) + len(means)
    down = "order by __sw_reverse_block, __sw_pane desc"
    order = down if not group_by else f"partition by k {down}"
    for name, value in looked_up.items():
        sql = value.sql(dialect="spark").lower()
        column = name.removesuffix("_before")
        assert f"lead({column}, 59) over ({order})" in sql
        assert f"lead(__sw_pane, 59) over ({order}) = __sw_pane - 59" in sql
        assert "__sw_pane - __sw_block < 59" in sql
    assert not [
        window
        for window in tree.find_all(exp.Window)
        if window.args.get("spec") and "range" in window.args["spec"].sql().lower()
    ]


@pytest.mark.parametrize("group_by", [[], ["k"]])
def test_two_stacks_suffix_and_lookup_share_one_order(renderer, group_by):
    # Spark sorts once for window functions whose partition and order columns give the same
    # sequence: every suffix frame and every lookup must be (group, -block, pane descending)
    rendered = render(renderer, HOP, group_by, {"lo": "min(v)", "total": "sum(v)", "spread": "stddev(v)"})
    keys = [("k", False)] if group_by else []
    suffix_or_lookup = set()
    for window in parse_relation(rendered).find_all(exp.Window):
        order = window.args.get("order")
        if order is None or not any(ordered.args.get("desc") for ordered in order.expressions):
            continue
        partition = [(column.name, False) for column in window.args.get("partition_by") or []]
        ordering = [(ordered.this.name, bool(ordered.args.get("desc"))) for ordered in order.expressions]
        suffix_or_lookup.add(tuple(partition + ordering))
    assert suffix_or_lookup == {tuple(keys + [("__sw_reverse_block", False), ("__sw_pane", True)])}


def sweep_orders(rendered: str) -> list[list[tuple[str, bool]]]:
    """The ORDER BY of every window function of the sweep, as [(column, descending)]."""
    orders = []
    for window in parse_relation(rendered).find_all(exp.Window):
        order = window.args.get("order")
        if order is None:
            continue
        keys = [(ordered.this.name, bool(ordered.args.get("desc"))) for ordered in order.expressions]
        if keys[0][0] == "__sw_at":
            orders.append(keys)
    return orders


@pytest.mark.parametrize("group_by", [[], ["k"]])
@pytest.mark.parametrize("aggregates", [{"n": "count(*)"}, {"n": "count(*)", "total": "sum(v)"}])
def test_the_hop_sweep_takes_a_leaving_pane_before_an_entering_one(renderer, group_by, aggregates):
    # ties of __sw_at in a fixed order: the running sum between the two events of one __sw_at is
    # the window before without its first pane (a part of a window), never that window plus the
    # entering pane, which can overflow where the window's sum does not
    rendered = render(renderer, HOP, group_by, aggregates)
    orders = sweep_orders(rendered)
    # a running sum per partial column, and lead(__sw_at)
    partials = renderer.call("_sw_partial_columns", renderer.call("_sw_parse_aggregates", aggregates, "m"))
    assert len(orders) == len(partials["columns"]) + 1
    assert all(order == [("__sw_at", False), ("__sw_leaves", True)] for order in orders)
    # __sw_leaves is 1 for the event that subtracts its pane
    assert "case when __sw_leaves = 1 then -coalesce(__sw_p1, 0) else coalesce(__sw_p1, 0) end" in rendered
    assert "__sw_pane + __sw_leaves * 60 as __sw_at" in rendered


# --- features of newer Spark releases ----------------------------------------------------------


@pytest.mark.parametrize("version, refused", [("3.5.8", True), ("4.0.5", True), ("4.1.4", False), ("4.3.0", False)])
def test_kll_sketches_are_refused_before_spark_4_1_with_what_to_write_instead(version, refused):
    renderer = MacroRenderer(spark_version=version)
    aggregates = {"p50": "kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(v), 0.5)"}
    if not refused:
        assert "kll_merge_agg_bigint" in render(renderer, HOP, aggregates=aggregates)
        return
    with pytest.raises(CompilerError) as error:
        render(renderer, HOP, aggregates=aggregates)
    release = ".".join(version.split(".")[:2])
    assert str(error.value) == (
        "window_aggregate: aggregate 'p50' ('kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(v), 0.5)') uses "
        f"KLL sketches, which Spark 4.1 introduced; this Spark is {release}. Upgrade Spark, or write "
        "approx_percentile(expr, 0.5) (computed from copied rows, slower for hop and cumulate)"
    )


def test_hll_sketches_are_accepted_on_spark_3_5():
    renderer = MacroRenderer(spark_version="3.5.8")
    rendered = render(renderer, HOP, aggregates={"users": "hll_sketch_estimate(hll_sketch_agg(u))"})
    assert "hll_union_agg" in rendered


SLICED_AGGREGATES = {
    "sweep": {"n": "count(*)", "total": "sum(v)"},
    "two stacks": {"lo": "min(v)", "spread": "stddev(v)"},
    "distinct": {"n": "count(*)", "users": "count(distinct u)"},
    "sketch": {"users": "hll_sketch_estimate(hll_sketch_agg(u))"},
}


@pytest.mark.parametrize("plan", sorted(SLICED_AGGREGATES))
@pytest.mark.parametrize("kind", ["hop", "cumulate"])
def test_two_phase_adds_rows_into_panes_before_any_shuffle(renderer, kind, plan):
    # one phase: the raw rows are shuffled by group (distribute by), panes are added after it;
    # two phases: no distribute by, so Spark's partial aggregation runs before its shuffle
    one_phase = render(renderer, SPECS[kind], aggregates=SLICED_AGGREGATES[plan])
    shuffled = "from (select * from events distribute by k) as __sw_source"
    # the distinct values stay shuffled as rows: one shuffle, not one by value and one by group
    kept = 1 if plan == "distinct" else 0
    panes = one_phase.count(shuffled) - kept  # the sum's sweep and two-stacks branches: 2
    assert panes >= 1
    for value in ["two_phase", "TWO_PHASE"]:
        two_phase = render(renderer, SPECS[kind], aggregates=SLICED_AGGREGATES[plan], agg_phase_strategy=value)
        assert two_phase.count(shuffled) == kept
        assert without_choice(two_phase) == without_choice(one_phase).replace(
            shuffled, "from events as __sw_source", panes
        )
    given = render(renderer, SPECS[kind], aggregates=SLICED_AGGREGATES[plan], agg_phase_strategy="One_Phase")
    assert without_choice(given) == without_choice(one_phase)


def without_choice(sql: str) -> str:
    """`sql` without the comment that names window_aggregate's plan."""
    first, rest = sql.split("\n", 1)
    assert first.startswith("/* window_aggregate plan: "), first
    return rest


@pytest.mark.parametrize("kind", ["tumble", "session"])
def test_windows_without_a_second_shuffle_take_either_phase_strategy_alike(renderer, kind):
    # a tumbling window is its pane, a session window its own slice: nothing to choose
    assert render(renderer, SPECS[kind], agg_phase_strategy="two_phase") == render(renderer, SPECS[kind])
