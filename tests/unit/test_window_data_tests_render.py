"""Fast tests: render the window data tests with plain Jinja and check the SQL with sqlglot.

A generic data test is a ``{% test name(...) %}`` block, which dbt registers as the macro
``test_name``; the renderer loads it the same way. Each is a dispatch shim over
``default__test_<name>``: the last tests check that a project can override any of them.
"""

from __future__ import annotations

import pytest
from sqlglot import exp

from dev.macro_renderer import CompilerError, MacroRenderer, Relation, parse

pytestmark = pytest.mark.fast

DATA_TESTS = [
    "window_size_is",
    "windows_aligned",
    "sessions_do_not_overlap",
    "windows_cover_source",
    "window_is_closed",
]


def render(renderer: MacroRenderer, name: str, *args, **kwargs) -> exp.Expression:
    return parse(renderer.call(f"test_{name}", *args, **kwargs))


def test_every_data_test_block_is_loaded(renderer):
    loaded = {name.removeprefix("test_") for name in renderer.macros if name.startswith("test_")}
    assert set(DATA_TESTS) | {"equals_expected"} <= loaded


def integer_literals(tree: exp.Expression) -> set[int]:
    return {int(literal.this) for literal in tree.find_all(exp.Literal) if literal.is_int}


@pytest.mark.parametrize(
    "size, micros",
    [
        ("1 minute", 60_000_000),
        ("interval 1 hour", 3_600_000_000),
        ("INTERVAL '15' MINUTE", 900_000_000),
        ("250 milliseconds", 250_000),
    ],
)
def test_window_size_is_compares_the_length_in_microseconds(renderer, size, micros):
    tree = render(renderer, "window_size_is", "`analytics`.`windows`", size)
    assert micros in integer_literals(tree)
    assert "UNIX_MICROS(window_end) - UNIX_MICROS(window_start)" in tree.sql("spark")
    assert tree.find(exp.NEQ) is not None


@pytest.mark.parametrize(
    "slide, offset, slide_us, offset_us",
    [
        ("1 minute", None, 60_000_000, 0),
        ("30 seconds", None, 30_000_000, 0),
        ("1 day", "-8 hours", 86_400_000_000, 57_600_000_000),  # reduced modulo the slide
        ("1 hour", "interval '90' minute", 3_600_000_000, 1_800_000_000),
        ("1 day", "0 seconds", 86_400_000_000, 0),
    ],
)
def test_windows_aligned_uses_pmod_with_the_reduced_offset(renderer, slide, offset, slide_us, offset_us):
    tree = render(renderer, "windows_aligned", "windows", slide, offset)
    sql = tree.sql("spark").upper()
    assert "PMOD(" in sql
    assert f"- {offset_us}, {slide_us})" in sql


@pytest.mark.parametrize("keys", [None, [], ["user_id"], ["tenant", "user_id"]])
def test_sessions_do_not_overlap_partitions_by_the_keys(renderer, keys):
    tree = render(renderer, "sessions_do_not_overlap", "sessions", keys)
    windows = list(tree.find_all(exp.Window))
    assert len(windows) == 2, "lag of window_start and of window_end"
    for window in windows:
        assert [column.name for column in window.args.get("partition_by") or []] == list(keys or [])
        assert [key.this.name for key in window.args["order"].expressions] == ["window_start", "window_end"]
    assert tree.find(exp.LTE) is not None, "a session starting at the previous end (touching) fails"


@pytest.mark.parametrize("keys", [None, [], ["sensor_id"], ["tenant", "sensor_id"]])
def test_windows_cover_source_joins_the_groups_null_safely(renderer, keys):
    tree = render(renderer, "windows_cover_source", "windows", "`raw`.`readings`", "reading_ts", keys, "readings")
    join = tree.find(exp.Join)
    assert join.args.get("side", "").upper() == "FULL"
    safe = list(join.find_all(exp.NullSafeEQ))
    assert [eq.this.name for eq in safe] == list(keys or [])
    if not keys:
        assert join.args["on"].sql("spark") == "1 = 1", "the totals: one row on each side"
    sql = tree.sql("spark")
    assert "SUM(readings)" in sql and "NOT reading_ts IS NULL" in sql


def test_windows_cover_source_counts_cnt_by_default(renderer):
    tree = render(renderer, "windows_cover_source", "windows", "events", "ts")
    assert "SUM(cnt)" in tree.sql("spark")


@pytest.mark.parametrize("delay, micros", [("0 seconds", 0), ("5 minutes", 300_000_000), ("1 day", 86_400_000_000)])
def test_window_is_closed_holds_window_end_to_the_latest_time_minus_the_delay(renderer, delay, micros):
    tree = render(renderer, "window_is_closed", "windows", "events", "event_ts", delay)
    sql = tree.sql("spark")
    assert f"UNIX_MICROS(MAX(event_ts)) - {micros}" in sql
    assert tree.find(exp.GT) is not None, "a window ending exactly at the watermark passes"


BAD_CALLS = [
    (("window_size_is", "w", "1 fortnight"), "window_size_is: size ('1 fortnight') is not a duration"),
    (("window_size_is", "w", None), "window_size_is: size (None) is not a duration"),
    (("window_size_is", "w", "0 minutes"), "window_size_is: size ('0 minutes') must be greater than zero"),
    (("window_size_is", "w", "-1 minute"), "window_size_is: size ('-1 minute') must not be negative"),
    (("windows_aligned", "w", "1 week"), "windows_aligned: slide ('1 week') is not a duration"),
    (("windows_aligned", "w", "0 seconds"), "windows_aligned: slide ('0 seconds') must be greater than zero"),
    (("windows_aligned", "w", "1 day", "minus 8 hours"), "windows_aligned: offset ('minus 8 hours') is not a duration"),
    (
        ("sessions_do_not_overlap", "w", "user_id"),
        "sessions_do_not_overlap: partition_by ('user_id') must be a list of column names",
    ),
    (
        ("sessions_do_not_overlap", "w", ["user_id", 3]),
        "sessions_do_not_overlap: partition_by (['user_id', 3]) must be a list",
    ),
    (("windows_cover_source", "w", None, "ts"), "windows_cover_source: source is empty"),
    (("windows_cover_source", "w", " ", "ts"), "windows_cover_source: source is empty"),
    (("windows_cover_source", "w", "src", None), "windows_cover_source: time_col (None) must be a column name"),
    (
        ("windows_cover_source", "w", "src", "ts", "sensor_id"),
        "windows_cover_source: group_by ('sensor_id') must be a list of column names",
    ),
    (
        ("windows_cover_source", "w", "src", "ts", ["sensor_id"], ""),
        "windows_cover_source: count_column ('') must be a column name",
    ),
    (("window_is_closed", "w", "", "ts", "5 minutes"), "window_is_closed: source is empty"),
    (("window_is_closed", "w", "src", "", "5 minutes"), "window_is_closed: time_col ('') must be a column name"),
    (
        ("window_is_closed", "w", "src", "ts", "-5 minutes"),
        "window_is_closed: delay ('-5 minutes') must not be negative",
    ),
    (("window_is_closed", "w", "src", "ts", "soon"), "window_is_closed: delay ('soon') is not a duration"),
    (("window_is_closed", "w", "src", "ts", 5), "window_is_closed: delay (5) is not a duration"),
]


@pytest.mark.parametrize("call, message", BAD_CALLS, ids=lambda v: repr(v))
def test_bad_arguments_are_compile_errors_that_say_what_is_accepted(renderer, call, message):
    name, *args = call
    with pytest.raises(CompilerError) as error:
        renderer.call(f"test_{name}", *args)
    assert message in str(error.value)


@pytest.mark.parametrize("name", DATA_TESTS)
def test_no_failing_row_column_can_collide_with_the_model(renderer, name):
    args = {
        "window_size_is": ("w", "1 minute"),
        "windows_aligned": ("w", "1 minute"),
        "sessions_do_not_overlap": ("w", ["k"]),
        "windows_cover_source": ("w", "src", "ts", ["k"], "n"),
        "window_is_closed": ("w", "src", "ts", "1 minute"),
    }[name]
    tree = render(renderer, name, *args)
    added = {
        projection.alias
        for select in tree.find_all(exp.Select)
        for projection in select.expressions
        if projection.alias and projection.alias not in ("k",)
    }
    assert all(alias.startswith("__sw_") for alias in added), added


# --- equals_expected: column lists that cannot be compared ---------------------------------------

ORDERS = Relation("`analytics`.`orders_hopping_count`", ["window_start", "window_end", "orders", "customers"])
EXPECTED = Relation("`analytics`.`expected__orders_hopping_count`", ["window_start", "window_end", "orders"])


def test_equals_expected_with_a_different_number_of_columns_names_both_lists():
    renderer = MacroRenderer()
    with pytest.raises(CompilerError) as error:
        renderer.call("test_equals_expected", ORDERS, EXPECTED)
    assert str(error.value).startswith(
        "equals_expected: the model `analytics`.`orders_hopping_count` has 4 columns "
        "(window_start, window_end, orders, customers) but expected `analytics`.`expected__orders_hopping_count` "
        "has 3 (window_start, window_end, orders); "
    )
    assert renderer.env.globals["adapter"].introspected == [ORDERS.name, EXPECTED.name]


def test_equals_expected_compares_by_position_whatever_the_names():
    renamed = Relation("expected__renamed", ["start", "end", "n", "customers"])
    tree = parse(MacroRenderer().call("test_equals_expected", ORDERS, renamed))
    assert len([node for node in tree.find_all(exp.Except) if not node.args.get("distinct")]) == 2


@pytest.mark.parametrize(
    "model, expected, introspected",
    [
        (str(ORDERS), str(EXPECTED), []),  # CTE names or queries
        (ORDERS, Relation("not_built_yet", []), [ORDERS.name, "not_built_yet"]),
        (Relation("__dbt__cte__orders", ORDERS.columns, is_cte=True), EXPECTED, [EXPECTED.name]),
    ],
    ids=["strings", "not built", "ephemeral"],
)
def test_equals_expected_leaves_unknown_column_lists_to_spark(model, expected, introspected):
    renderer = MacroRenderer()
    sql = renderer.call("test_equals_expected", model, expected)
    assert sql == renderer.call("test_equals_expected", str(model), str(expected))
    assert renderer.env.globals["adapter"].introspected == introspected


def test_equals_expected_reads_the_columns_of_a_filtered_relation_from_the_table_behind_it():
    # `dbt build --empty` (a limit) or `--sample` (an event-time filter): ref() renders as a subquery
    for model in (
        ORDERS.incorporate(limit=0),
        ORDERS.incorporate(event_time_filter={"field_name": "window_start", "start": "2024-05-01"}),
    ):
        renderer = MacroRenderer()
        with pytest.raises(CompilerError, match=r"has 4 columns \(window_start, window_end, orders, customers\) but"):
            renderer.call("test_equals_expected", model, EXPECTED)
        assert renderer.env.globals["adapter"].introspected == [ORDERS.name, EXPECTED.name]


def test_equals_expected_looks_up_no_columns_while_dbt_parses_the_project():
    renderer = MacroRenderer(execute=False)
    renderer.call("test_equals_expected", ORDERS, EXPECTED)
    assert renderer.env.globals["adapter"].introspected == []


# --- dispatch: each generic test is a shim over default__test_<name>, as in dbt-utils -----------

# every argument of each generic test, in its declared order (model first)
FULL_CALLS = {
    "equals_expected": ("w", "expected__w"),
    "malformed_values_at_most": ("w", "value_error", 0),
    "window_size_is": ("w", "1 minute"),
    "windows_aligned": ("w", "1 minute", "10 seconds"),
    "sessions_do_not_overlap": ("w", ["k"]),
    "windows_cover_source": ("w", "src", "ts", ["k"], "n", None),
    "window_is_closed": ("w", "src", "ts", "1 minute"),
}
ECHO_EVERY_TEST = "\n".join(
    f"{{% macro default__test_{name}() %}}overridden {name}: {{{{ varargs | join(' | ') }}}}{{% endmacro %}}"
    for name in FULL_CALLS
)


def test_every_data_test_has_a_full_call_here(renderer):
    loaded = {name.removeprefix("test_") for name in renderer.macros if name.startswith("test_")}
    assert loaded == set(FULL_CALLS)


@pytest.mark.parametrize("name", FULL_CALLS)
def test_each_data_test_renders_its_default_implementation(renderer, name):
    args = FULL_CALLS[name]
    assert renderer.call(f"test_{name}", *args) == renderer.call(f"default__test_{name}", *args)


@pytest.mark.parametrize("name", FULL_CALLS)
def test_a_project_first_in_the_search_order_overrides_each_data_test_with_every_argument(name):
    overridden = MacroRenderer(
        packages={"my_project": ECHO_EVERY_TEST}, dispatch={"spark_windows": ["my_project", "spark_windows"]}
    )
    args = FULL_CALLS[name]
    assert overridden.call(f"test_{name}", *args) == f"overridden {name}: " + " | ".join(map(str, args))


WITH_TOLERANCE = """
{% macro default__test_window_size_is(model, size) %}
select * from ({{ spark_windows.default__test_window_size_is(model, size) }}) as __sw_wrong_size
where abs(__sw_actual_size_us - __sw_expected_size_us) > 1000
{% endmacro %}
"""


def test_a_project_overrides_one_data_test_and_reuses_the_package_implementation(renderer):
    overridden = MacroRenderer(
        packages={"my_project": WITH_TOLERANCE}, dispatch={"spark_windows": ["my_project", "spark_windows"]}
    )
    tree = render(overridden, "window_size_is", "w", "1 minute")
    assert tree.find(exp.Subquery).this.sql("spark") == render(renderer, "window_size_is", "w", "1 minute").sql("spark")
    assert "ABS(__sw_actual_size_us - __sw_expected_size_us) > 1000" in tree.sql("spark")
    for name, args in FULL_CALLS.items():  # the others are the package's own
        if name == "window_size_is":
            continue
        assert overridden.call(f"test_{name}", *args) == renderer.call(f"test_{name}", *args)


def test_a_project_macro_outside_the_search_order_changes_nothing(renderer):
    ignored = MacroRenderer(packages={"my_project": WITH_TOLERANCE})
    assert ignored.call("test_window_size_is", "w", "1 minute") == renderer.call("test_window_size_is", "w", "1 minute")
