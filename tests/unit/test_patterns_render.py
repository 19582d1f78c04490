"""Fast tests of the windowed patterns: window_top_n and window_deduplicate rendered with plain
Jinja and checked with sqlglot, every bad argument's message, the default__ branches, and the
pattern example models (window join, OVER over a time range, grouping sets) parsed as Spark SQL.
"""

from __future__ import annotations

import itertools

import pytest
import sqlglot
from sqlglot import exp

from dev.macro_renderer import CompilerError, MacroRenderer, output_names, parse, parse_relation
from dev.project import PROJECT_DIR

pytestmark = pytest.mark.fast

RELATIONS = ["windowed", "`analytics`.`item_units`", "(select * from raw_windows where k <> 'x')"]
PARTITIONS = [None, [], ["k"], ["tenant", "user_id"], ("k",)]
JSON_TIE = "TO_JSON(__sw_row, MAP('timeZone', 'UTC', 'ignoreNullFields', 'false'"


def row_number_window(tree: exp.Expression) -> exp.Window:
    (window,) = [w for w in tree.find_all(exp.Window) if isinstance(w.this, exp.RowNumber)]
    return window


def kept_rows_filter(tree: exp.Expression) -> str:
    return tree.find(exp.Subquery).this.args["where"].this.sql(dialect="spark")


# --- window_top_n ---------------------------------------------------------------------------

TOP_N_ORDERS = [
    ["price desc"],
    ["price"],
    ["price DESC NULLS LAST", "supplier_id"],
    ["units desc nulls first", "item_id asc"],
    ["coalesce(units, 0) desc", "length(item_id) asc nulls last", "item_id"],
    ["`unit price` desc"],
    ("price desc",),
]


def top_n_calls():
    for relation, partition_by, order_by, n in itertools.product(RELATIONS, PARTITIONS, TOP_N_ORDERS, [1, 3, 100]):
        yield (relation, partition_by, order_by, n)


@pytest.mark.parametrize("call", list(top_n_calls()), ids=repr)
def test_window_top_n_renders_spark_sql_that_keeps_n_rows_per_window_and_partition(renderer, call):
    relation, partition_by, order_by, n = call
    tree = parse_relation(renderer.call("window_top_n", *call))
    assert output_names(tree) == ["*", "rownum"], "every input column, then rownum"
    window = row_number_window(tree)
    assert [p.sql(dialect="spark") for p in window.args["partition_by"]] == [
        "window_start",
        "window_end",
        *(partition_by or []),
    ]
    order = window.args["order"].expressions
    assert len(order) == len(order_by) + 1
    expected_terms = [
        sqlglot.parse_one(f"select 1 order by {term}", read="spark").args["order"].expressions[0] for term in order_by
    ]
    assert [o.sql(dialect="spark") for o in order[:-1]] == [t.sql(dialect="spark") for t in expected_terms]
    tie = order[-1]
    assert tie.this.sql(dialect="spark").startswith(JSON_TIE) and not tie.args.get("desc")
    assert kept_rows_filter(tree) == f"__sw_ranked.__sw_rownum <= {n}"


def test_window_top_n_rownum_is_a_bigint_row_number_not_a_rank(renderer):
    sql = renderer.call("window_top_n", "w", ["k"], ["price desc"], 3)
    assert "cast(row_number() over (" in sql and ") as bigint) as __sw_rownum" in sql
    assert "rank()" not in sql
    assert "__sw_ranked.__sw_rownum as rownum" in sql


def test_window_top_n_numbers_the_whole_input_row_for_the_tie_break(renderer):
    sql = renderer.call("window_top_n", "`db`.`w`", None, ["price desc"], 3)
    assert "select __sw_source.*, struct(__sw_source.*) as __sw_row" in sql
    assert "from `db`.`w` as __sw_source" in sql
    assert "'timestampFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSS'" in sql


def test_window_top_n_over_a_table_valued_macro(renderer):
    windowed = renderer.call("hop", "bids", "bid_ts", "5 minutes", "10 minutes")
    tree = parse_relation(renderer.call("window_top_n", windowed, ["supplier_id"], ["price desc"], 3))
    assert output_names(tree) == ["*", "rownum"]
    assert "sequence(cast(0 as bigint), 1)" in tree.sql(dialect="spark").lower()


# --- window_deduplicate ---------------------------------------------------------------------

DEDUP_ORDERS = [["ts"], ["event_ts", "event_id"], ["cast(ts as timestamp)"], ["`event time`"], ("ts",)]
KEEPS = [("first", "asc"), ("last", "desc"), ("LAST", "desc"), (" First ", "asc")]


def dedup_calls():
    for relation, partition_by, order_by, keep in itertools.product(RELATIONS, PARTITIONS, DEDUP_ORDERS, KEEPS):
        yield (relation, partition_by, order_by, keep)


@pytest.mark.parametrize("call", list(dedup_calls()), ids=repr)
def test_window_deduplicate_renders_spark_sql_that_keeps_one_row(renderer, call):
    relation, partition_by, order_by, (keep, direction) = call
    tree = parse_relation(renderer.call("window_deduplicate", relation, partition_by, order_by, keep))
    assert output_names(tree) == ["*"], "every input column and nothing else"
    window = row_number_window(tree)
    assert [p.sql(dialect="spark") for p in window.args["partition_by"]] == [
        "window_start",
        "window_end",
        *(partition_by or []),
    ]
    order = window.args["order"].expressions
    assert len(order) == len(order_by) + 1
    for ordered, column in zip(order, order_by):
        assert ordered.this.sql(dialect="spark") == sqlglot.parse_one(column, read="spark").sql(dialect="spark")
        # NULL order values are never preferred, whichever row is kept
        assert bool(ordered.args.get("desc")) == (direction == "desc")
        assert ordered.args.get("nulls_first") is False
    tie = order[-1]
    assert tie.this.sql(dialect="spark").startswith(JSON_TIE)
    assert bool(tie.args.get("desc")) == (direction == "desc")
    assert kept_rows_filter(tree) == "__sw_ranked.__sw_rownum <= 1"


def test_window_deduplicate_keeps_the_first_row_by_default(renderer):
    assert renderer.call("window_deduplicate", "w", ["k"], ["ts"]) == renderer.call(
        "window_deduplicate", "w", ["k"], ["ts"], "first"
    )
    sql = renderer.call("window_deduplicate", "w", ["k"], ["ts"])
    assert "order by ts asc nulls last, to_json(" in sql and ")) asc\n" in sql


def test_window_deduplicate_and_top_n_share_one_numbering(renderer):
    """Deduplication is Top-1 with a chosen direction and without the rownum column."""
    dedup = renderer.call("window_deduplicate", "w", ["k"], ["ts"], "first")
    top_1 = renderer.call("window_top_n", "w", ["k"], ["ts asc nulls last"], 1)
    assert top_1.replace(",\n        __sw_ranked.__sw_rownum as rownum", "") == dedup


# --- shared order terms ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, terms",
    [
        (["price desc"], ["price desc"]),
        ([" price   desc "], ["price   desc"]),
        (
            ["a", "b asc", "c desc nulls first", "d nulls last", "e ASC NULLS FIRST"],
            ["a", "b asc", "c desc nulls first", "d nulls last", "e ASC NULLS FIRST"],
        ),
        (("coalesce(a, b) desc",), ["coalesce(a, b) desc"]),
        (["first"], ["first"]),  # a column may be called first
    ],
)
def test_order_terms_are_returned_trimmed(renderer, value, terms):
    assert renderer.call("_sw_order_terms", value, "m", "order_by") == terms


# --- bad arguments --------------------------------------------------------------------------

POSITIVE = "must be a positive integer number of rows, such as 100 (a number, not a string)"
ORDER_LIST = "must be a list of SQL order terms, such as ['price desc'] or ['price desc nulls last', 'item_id']"
ORDER_ITEM = (
    "must be an SQL expression followed by an optional asc or desc and an optional nulls first "
    "or nulls last, in that order, such as 'price desc' or 'price desc nulls last'"
)
DEDUP_LIST = "must be a list of column names or SQL expressions without a direction, such as ['event_ts'] or ['event_ts', 'event_id']"
DEDUP_ITEM = (
    "must be a column name or SQL expression without a direction; keep='first' keeps the row "
    "with the smallest values and keep='last' the one with the largest, so leave out asc, desc "
    "and nulls first/last"
)
KEEP = (
    "must be 'first' or 'last': 'first' keeps the row with the smallest order_by values of "
    "each window and key (Flink's ORDER BY ... ASC), 'last' the one with the largest (DESC)"
)
PARTITION = "must be a list of column names, such as ['user_id'] or ['tenant', 'user_id']"

BAD_CALLS = [
    # window_top_n: n
    (("window_top_n", "w", ["k"], ["p desc"], 0), f"window_top_n: n (0) {POSITIVE}"),
    (("window_top_n", "w", ["k"], ["p desc"], -3), f"window_top_n: n (-3) {POSITIVE}"),
    (("window_top_n", "w", ["k"], ["p desc"], "3"), f"window_top_n: n ('3') {POSITIVE}"),
    (("window_top_n", "w", ["k"], ["p desc"], 2.5), f"window_top_n: n (2.5) {POSITIVE}"),
    (("window_top_n", "w", ["k"], ["p desc"], 3.0), f"window_top_n: n (3.0) {POSITIVE}"),
    (("window_top_n", "w", ["k"], ["p desc"], True), f"window_top_n: n (True) {POSITIVE}"),
    (("window_top_n", "w", ["k"], ["p desc"], None), f"window_top_n: n (None) {POSITIVE}"),
    # window_top_n: order_by
    (("window_top_n", "w", ["k"], "p desc", 3), f"window_top_n: order_by ('p desc') {ORDER_LIST}"),
    (("window_top_n", "w", ["k"], None, 3), f"window_top_n: order_by (None) {ORDER_LIST}"),
    (("window_top_n", "w", ["k"], {"p": "desc"}, 3), f"window_top_n: order_by ({{'p': 'desc'}}) {ORDER_LIST}"),
    (("window_top_n", "w", ["k"], ["p", 3], 3), f"window_top_n: order_by (['p', 3]) {ORDER_LIST}"),
    (("window_top_n", "w", ["k"], ["p", "  "], 3), f"window_top_n: order_by (['p', '  ']) {ORDER_LIST}"),
    (("window_top_n", "w", ["k"], ["p", None], 3), f"window_top_n: order_by (['p', None]) {ORDER_LIST}"),
    (
        ("window_top_n", "w", ["k"], [], 3),
        "window_top_n: order_by ([]) must hold at least one term; rows are numbered in that order",
    ),
    (("window_top_n", "w", ["k"], ["desc"], 3), f"window_top_n: order_by item ('desc') {ORDER_ITEM}"),
    (("window_top_n", "w", ["k"], ["nulls last"], 3), f"window_top_n: order_by item ('nulls last') {ORDER_ITEM}"),
    (
        ("window_top_n", "w", ["k"], ["asc nulls first"], 3),
        f"window_top_n: order_by item ('asc nulls first') {ORDER_ITEM}",
    ),
    (("window_top_n", "w", ["k"], ["p nulls"], 3), f"window_top_n: order_by item ('p nulls') {ORDER_ITEM}"),
    (("window_top_n", "w", ["k"], ["p desc nulls"], 3), f"window_top_n: order_by item ('p desc nulls') {ORDER_ITEM}"),
    (("window_top_n", "w", ["k"], ["p asc desc"], 3), f"window_top_n: order_by item ('p asc desc') {ORDER_ITEM}"),
    (
        ("window_top_n", "w", ["k"], ["p nulls last desc"], 3),
        f"window_top_n: order_by item ('p nulls last desc') {ORDER_ITEM}",
    ),
    (
        ("window_top_n", "w", ["k"], ["id", "p DESC NULLS"], 3),
        f"window_top_n: order_by item ('p DESC NULLS') {ORDER_ITEM}",
    ),
    # window_top_n: partition_by and relation
    (("window_top_n", "w", "k", ["p desc"], 3), f"window_top_n: partition_by ('k') {PARTITION}"),
    (("window_top_n", "w", ["k", 1], ["p desc"], 3), f"window_top_n: partition_by (['k', 1]) {PARTITION}"),
    (("window_top_n", "w", ["k", ""], ["p desc"], 3), f"window_top_n: partition_by (['k', '']) {PARTITION}"),
    (("window_top_n", "w", {"k": 1}, ["p desc"], 3), f"window_top_n: partition_by ({{'k': 1}}) {PARTITION}"),
    (
        ("window_top_n", None, ["k"], ["p desc"], 3),
        "window_top_n: relation is empty; pass ref('...'), source('...', '...')",
    ),
    (("window_top_n", "  ", ["k"], ["p desc"], 3), "window_top_n: relation is empty"),
    # window_deduplicate: keep
    (("window_deduplicate", "w", ["k"], ["ts"], "latest"), f"window_deduplicate: keep ('latest') {KEEP}"),
    (("window_deduplicate", "w", ["k"], ["ts"], ""), f"window_deduplicate: keep ('') {KEEP}"),
    (("window_deduplicate", "w", ["k"], ["ts"], None), f"window_deduplicate: keep (None) {KEEP}"),
    (("window_deduplicate", "w", ["k"], ["ts"], 1), f"window_deduplicate: keep (1) {KEEP}"),
    (("window_deduplicate", "w", ["k"], ["ts"], ["first"]), f"window_deduplicate: keep (['first']) {KEEP}"),
    # window_deduplicate: order_by
    (("window_deduplicate", "w", ["k"], "ts"), f"window_deduplicate: order_by ('ts') {DEDUP_LIST}"),
    (("window_deduplicate", "w", ["k"], None), f"window_deduplicate: order_by (None) {DEDUP_LIST}"),
    (("window_deduplicate", "w", ["k"], ["ts", 2]), f"window_deduplicate: order_by (['ts', 2]) {DEDUP_LIST}"),
    (("window_deduplicate", "w", ["k"], []), "window_deduplicate: order_by ([]) must hold at least one term"),
    (("window_deduplicate", "w", ["k"], ["ts desc"]), f"window_deduplicate: order_by item ('ts desc') {DEDUP_ITEM}"),
    (("window_deduplicate", "w", ["k"], ["ts ASC"]), f"window_deduplicate: order_by item ('ts ASC') {DEDUP_ITEM}"),
    (
        ("window_deduplicate", "w", ["k"], ["id", "ts nulls first"]),
        f"window_deduplicate: order_by item ('ts nulls first') {DEDUP_ITEM}",
    ),
    (("window_deduplicate", "w", ["k"], ["desc"]), f"window_deduplicate: order_by item ('desc') {DEDUP_ITEM}"),
    (("window_deduplicate", "w", ["k"], ["ts nulls"]), f"window_deduplicate: order_by item ('ts nulls') {DEDUP_ITEM}"),
    # window_deduplicate: partition_by and relation
    (("window_deduplicate", "w", "device_id", ["ts"]), f"window_deduplicate: partition_by ('device_id') {PARTITION}"),
    (("window_deduplicate", "w", [None], ["ts"]), f"window_deduplicate: partition_by ([None]) {PARTITION}"),
    (("window_deduplicate", "", ["k"], ["ts"]), "window_deduplicate: relation is empty"),
    (("window_deduplicate", None, ["k"], ["ts"]), "window_deduplicate: relation is empty"),
]


@pytest.mark.parametrize("call, message", BAD_CALLS, ids=repr)
def test_bad_arguments_are_compile_errors_that_say_what_is_accepted(renderer, call, message):
    with pytest.raises(CompilerError) as error:
        renderer.call(*call)
    assert message in str(error.value)


def test_arguments_are_checked_in_signature_order(renderer):
    """With several bad arguments, the first in the signature is reported."""
    with pytest.raises(CompilerError, match="window_top_n: relation is empty"):
        renderer.call("window_top_n", None, "k", "p", 0)
    with pytest.raises(CompilerError, match=r"window_top_n: partition_by \('k'\)"):
        renderer.call("window_top_n", "w", "k", "p", 0)
    with pytest.raises(CompilerError, match=r"window_top_n: order_by \('p'\)"):
        renderer.call("window_top_n", "w", ["k"], "p", 0)
    with pytest.raises(CompilerError, match=r"window_deduplicate: order_by item \('ts desc'\)"):
        renderer.call("window_deduplicate", "w", ["k"], ["ts desc"], "latest")


@pytest.mark.parametrize(
    "call",
    [
        ("window_top_n", "w", ["k"], ["p desc"], 3),
        ("window_deduplicate", "w", ["k"], ["ts"]),
        ("window_deduplicate", "w", ["k"], ["ts"], "last"),
    ],
)
def test_other_adapters_get_a_clear_error_from_the_default_branch(call):
    with pytest.raises(CompilerError) as error:
        MacroRenderer(adapter_type="postgres").call(*call)
    message = str(error.value)
    assert f"spark_windows.{call[0]} has no implementation for the 'postgres' adapter" in message
    assert f"Add a postgres__{call[0]} macro to plug one in." in message


# --- the pattern example models -------------------------------------------------------------

EXAMPLES = PROJECT_DIR / "models" / "examples"
PATTERN_MODELS = [
    "top_items_per_window",
    "latest_device_status_per_window",
    "ad_clicks_window_join",
    "product_amount_last_hour",
    "ticket_sales_with_totals",
]


def render_model(renderer: MacroRenderer, model: str) -> exp.Expression:
    """The model's SQL with ref('x') as x, parsed as Spark SQL (what dbt compiles, minus names)."""
    source = (EXAMPLES / f"{model}.sql").read_text()
    return parse(renderer.render(source, ref=lambda name: name))


@pytest.mark.parametrize("model", PATTERN_MODELS)
def test_pattern_models_render_to_spark_sql_whose_columns_are_the_expected_seeds(renderer, model):
    tree = render_model(renderer, model)
    header = (PROJECT_DIR / "seeds" / "expected" / f"expected__{model}.csv").read_text().splitlines()[0]
    if model == "top_items_per_window":  # select * over the macro: the CTE's columns, then rownum
        ctes = {cte.alias: cte.this for cte in tree.find(exp.With).expressions}
        names = [p.alias_or_name for p in ctes["item_units"].expressions] + ["rownum"]
    else:
        final = tree.find(exp.With).expressions[-1].this
        names = [p.alias_or_name for p in final.expressions]
    assert names == header.split(","), "the expected seed's columns, in the model's order"


def test_window_join_pattern_matches_key_and_both_window_bounds(renderer):
    tree = render_model(renderer, "ad_clicks_window_join")
    (join,) = list(tree.find_all(exp.Join))
    assert join.args.get("side", "").upper() == "FULL"
    conditions = {c.sql(dialect="spark") for c in join.args["on"].flatten() if isinstance(c, exp.EQ)}
    assert conditions == {
        "impressions.ad_id = clicks.ad_id",
        "impressions.window_start = clicks.window_start",
        "impressions.window_end = clicks.window_end",
    }


def test_over_aggregation_uses_a_range_frame_of_one_hour_up_to_the_current_row(renderer):
    tree = render_model(renderer, "product_amount_last_hour")
    windows = list(tree.find_all(exp.Window))
    assert len(windows) == 2
    for window in windows:
        spec = window.args["spec"]
        assert spec.args["kind"].upper() == "RANGE"
        assert spec.args["start"].sql(dialect="spark") == "INTERVAL '1' HOUR"
        assert spec.args["start_side"].upper() == "PRECEDING"
        assert spec.args["end"].upper() == "CURRENT ROW"
        assert [o.this.sql() for o in window.args["order"].expressions] == ["ordered_at"]


def test_grouping_sets_give_per_key_and_overall_rows_per_window(renderer):
    tree = render_model(renderer, "ticket_sales_with_totals")
    group = tree.find(exp.Group)
    assert [e.sql(dialect="spark") for e in group.expressions] == [
        "window_start",
        "window_end",
        "GROUPING SETS ((venue), ())",
    ]
    (select,) = [s for s in tree.find_all(exp.Select) if s.args.get("group")]
    assert "GROUPING(venue) = 1 AS is_total" in [p.sql(dialect="spark") for p in select.expressions]
