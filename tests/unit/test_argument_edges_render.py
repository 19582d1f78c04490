"""Fast tests: what the macros render cannot reach beyond its own place in the SQL.

Column arguments (time_col, partition_by, group_by) must be column names in every macro; the
arguments that are SQL by design (a string relation, order terms, aggregate calls, a session's
gap expression) must be self-contained expressions. Each refusal names the macro, the argument,
the value and what is accepted."""

from __future__ import annotations

import pytest

from dev.macro_renderer import CompilerError, MacroRenderer, parse_relation

pytestmark = pytest.mark.fast

NAME_RULE = (
    "letters, digits and underscores, not starting with a digit, or any name in backticks (`event time`), "
    "optionally after a table name and a dot (e.event_ts)"
)
AGG = {"n": "count(*)"}
TUMBLE = {"type": "tumble", "size": "1 minute"}


def calls_with_time_col(time_col):
    return [
        ("tumble", "ev", time_col, "1 minute"),
        ("hop", "ev", time_col, "1 minute", "2 minutes"),
        ("cumulate", "ev", time_col, "1 minute", "2 minutes"),
        ("session", "ev", time_col, "10 minutes"),
        ("calendar_window", "ev", time_col, "day"),
        ("window_aggregate", "ev", time_col, TUMBLE, [], AGG),
    ]


def calls_with_keys(keys):
    return [
        ("session", "ev", "ts", "10 minutes", keys),
        ("session", "ev", "ts", "gap_column", keys),
        ("count_window", "ev", ["ts"], 10, None, keys),
        ("window_top_n", "w", keys, ["price desc"], 3),
        ("window_deduplicate", "w", keys, ["ts"]),
        ("window_aggregate", "ev", "ts", TUMBLE, keys, AGG),
        ("window_aggregate", "ev", "ts", {"type": "session", "gap": "10 minutes"}, keys, AGG),
    ]


BAD_NAMES = ["user_id; drop table t", "ts)", "ts --", "lower(user_id)", "1st", "a b", "`a", "t.", "a.`b"]


@pytest.mark.parametrize("name", BAD_NAMES)
@pytest.mark.parametrize("index", range(6))
def test_time_col_must_be_a_column_name_in_every_macro(renderer, name, index):
    call = calls_with_time_col(name)[index]
    with pytest.raises(CompilerError) as error:
        renderer.call(*call)
    assert f"{call[0]}: time_col ('{name}') is not a column name; expected a column name such as 'event_ts': " in str(
        error.value
    )
    assert NAME_RULE in str(error.value)


@pytest.mark.parametrize("name", BAD_NAMES)
@pytest.mark.parametrize("index", range(7))
def test_partition_and_group_keys_must_be_column_names_in_every_macro(renderer, name, index):
    call = calls_with_keys(["tenant", name])[index]
    argument = "group_by" if call[0] == "window_aggregate" else "partition_by"
    with pytest.raises(CompilerError) as error:
        renderer.call(*call)
    message = str(error.value)
    assert f"{call[0]}: {argument} item ('{name}') is not a column name; expected a list of column names" in message
    assert NAME_RULE in message


GOOD_NAMES = ["user_id", "_k", "e.user_id", "`user id`", "`db`.`t`.`k`", "`a``b`", " k "]


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_column_names_plain_qualified_or_quoted_are_accepted_everywhere(renderer, name):
    for call in calls_with_time_col(name) + calls_with_keys([name]):
        parse_relation(renderer.call(*call))


def test_valid_names_render_as_given(renderer):
    sql = renderer.call("session", "ev", "ts", "10 minutes", ["`user id`"])
    assert "`user id` as __sw_key_1" in sql


BAD_EXPRESSIONS = [
    ("x; drop table t", "holds a ';'"),
    ("x) as y from t union all select (1", "closes a parenthesis it did not open"),
    ("(x", "leaves a parenthesis open"),
    ("'x", "leaves a quote (') open"),
    ("`x", "leaves a quote (`) open"),
    ('"x', 'leaves a quote (") open'),
    ("x -- the rest of the line", "ends inside a -- comment (end it with a line break)"),
    ("x /* the rest", "leaves a /* comment open"),
    ("x */", "closes a comment (*/) it did not open"),
    ("'it\\'s' || x)", "closes a parenthesis it did not open"),
]
ACCEPTED = "it must be one self-contained SQL expression (balanced parentheses, closed quotes and comments, no ';'): "


@pytest.mark.parametrize("text, problem", BAD_EXPRESSIONS, ids=repr)
def test_sql_arguments_must_be_self_contained_expressions(renderer, text, problem):
    gap = f"case when k = 1 then {text} end"
    cases = [
        (("tumble", f"(select * from ev where {text})", "ts", "1 minute"), "tumble: relation"),
        (("window_top_n", "w", ["k"], [f"{text} desc"], 3), "window_top_n: order_by item"),
        (("window_deduplicate", "w", ["k"], [text]), "window_deduplicate: order_by item"),
        (("count_window", "ev", [f"{text}"], 10), "count_window: order_by item"),
        (("session", "ev", "ts", gap), "session: gap"),
        (
            ("window_aggregate", "ev", "ts", {"type": "session", "gap": gap}, [], AGG),
            "window_aggregate (session window): gap",
        ),
        (("window_aggregate", "ev", "ts", TUMBLE, [], {"n": f"sum({text})"}), "window_aggregate: aggregate 'n'"),
    ]
    for call, where in cases:
        with pytest.raises(CompilerError) as error:
            renderer.call(*call)
        message = str(error.value)
        if "not a single aggregate call" in message:  # window_aggregate's own reading refuses it first
            assert message.startswith(f"{where} ("), message
            continue
        assert f"{where} (" in message and f") {problem}; {ACCEPTED}" in message, message


@pytest.mark.parametrize(
    "relation",
    ["ev as a union all select * from other", "ev where true", "(select 1) union (select 2)", "(select 1) x"],
)
def test_a_string_relation_is_a_table_name_or_one_query_in_parentheses(renderer, relation):
    with pytest.raises(CompilerError) as error:
        renderer.call("tumble", relation, "ts", "1 minute")
    message = str(error.value)
    assert message.startswith(f"tumble: relation ('{relation}') ")
    assert "the name of a table or CTE (events, `db`.`events`), or one query in parentheses" in message


def test_quotes_comments_and_parentheses_inside_literals_or_closed_comments_are_fine(renderer):
    gap = (
        "case -- a comment that ends with the line\n"
        "  when note = 'a ; b -- c /* d ) (' then interval 30 minutes /* a block ) comment */\n"
        '  when `odd ) name` = "x\\" (" then interval 1 minute\n'
        "  else interval 10 minutes end"
    )
    sql = renderer.call("session", "ev", "ts", gap, ["k"])
    for line in gap.splitlines():  # rendered line by line, indented
        assert line.strip() in sql
    sql = renderer.call("window_top_n", "(select * from w where k <> ';')", ["k"], ["coalesce(p, 0) desc"], 2)
    parse_relation(sql)


# --- while dbt parses the project --------------------------------------------------------

BAD_WHILE_PARSING = [
    ("tumble", "ev", "ts", "5 parsecs"),
    ("hop", "ev", "ts", "1 hour", "10 minutes"),
    ("cumulate", "ev", "ts; drop", "1 hour", "1 day"),
    ("session", "ev", "ts", "10 minutes", ["k)"]),
    ("count_window", "ev", [], 0),
    ("calendar_window", "ev", "ts", "day", "EST"),
    ("window_aggregate", "ev", "ts", {"type": "slide"}, [], {}),
    ("window_top_n", "w", ["k"], [], 0),
    ("window_deduplicate", "w", ["k"], ["ts"], "middle"),
]


@pytest.mark.parametrize("call", BAD_WHILE_PARSING, ids=repr)
def test_arguments_are_checked_when_the_model_compiles_not_while_dbt_parses(renderer, call):
    parsing = MacroRenderer(execute=False)
    assert parsing.call(*call) == "(select 1 as __sw_parsing)"
    with pytest.raises(CompilerError) as error:
        renderer.call(*call)
    assert str(error.value).startswith(f"{call[0]}: ")
