"""Fast tests: session windows whose gap is a SQL expression evaluated per row (Flink's dynamic
gap). The macros are rendered with plain Jinja and the SQL is parsed with sqlglot; which strings
are expressions and which are (possibly malformed) durations; the compile errors."""

from __future__ import annotations

import itertools
import re

import pytest

from dev.macro_renderer import CompilerError, MacroRenderer, Relation, output_names

pytestmark = pytest.mark.fast

MOBILE_WEB = "case when channel = 'mobile' then interval 30 minutes else interval 10 minutes end"
EXPRESSIONS = [
    MOBILE_WEB,
    "case channel when 'mobile' then interval 30 minutes else interval 10 minutes end",
    "gap",  # a column of interval type
    "c.session_gap",
    "`session gap`",
    "interval 1 hour 30 minutes",
    "gap_minutes * interval 1 minute",
    "make_dt_interval(0, 0, gap_minutes)",
    "cast(gap_text as interval)",
    "coalesce(gap, interval 0 seconds)",
    # several lines, with a trailing comment
    "case\n    when channel = 'mobile' then interval 30 minutes  -- phones idle longer\n"
    "    else interval 10 minutes\nend",
]
FIXED = ["10 minutes", "interval 1 hour", "INTERVAL '15' MINUTE", "250 milliseconds", "2 Days", "  7   hours "]
RELATIONS = ["events", "`analytics`.`events`", "(select * from raw_events where k <> 'x')"]
KEYS = [None, [], ["user_id"], ["tenant", "user_id"]]


def evaluated_gaps(sql: str) -> list[str]:
    """The expressions the SQL evaluates as each row's gap: `(\n <expr>\n) as __sw_gap`,
    right after the time column."""
    return [
        "\n".join(line.strip() for line in block.splitlines())
        for block in re.findall(r"as __sw_ts,\n\s*\(\n(.*?)\n\s*\) as __sw_gap\n", sql, re.DOTALL)
    ]


@pytest.mark.parametrize("relation, gap, keys", list(itertools.product(RELATIONS, EXPRESSIONS, KEYS)), ids=repr)
def test_gap_expressions_render_to_spark_sql_with_the_window_columns(renderer, relation, gap, keys):
    sql = renderer.call("session", relation, "ts", gap, keys)
    names = output_names(sql)
    assert names[0] == "*", "every input column comes first"
    assert names[-3:] == ["window_start", "window_end", "window_time"]
    assert not [name for name in names if name.startswith("__sw")], "no helper column escapes"
    # the expression is evaluated once per row, on lines of its own (a trailing -- comment is safe)
    assert evaluated_gaps(sql) == ["\n".join(line.strip() for line in gap.splitlines())]


def test_a_gap_expression_is_a_running_max_of_time_plus_gap(renderer):
    sql = renderer.call("session", "events", "ts", MOBILE_WEB, ["user_id"])
    assert "max(__sw_ts + __sw_gap_us) over (" in sql
    assert "partition by __sw_key_1 order by __sw_ts rows between unbounded preceding and 1 preceding" in sql
    # window_end is the largest time + gap of the session, not the last row's
    assert "max(__sw_ts + __sw_gap_us) over (partition by __sw_key_1, __sw_session_index) as __sw_session_end" in sql
    assert "timestamp_micros(__sw_sessions.__sw_session_end - 1) as window_time" in sql
    # NULL gaps: no window; negative gaps: zero; months: the query fails
    assert "where __sw_gap is not null" in sql
    assert "greatest(" in sql
    assert "rlike 'year|month' then raise_error(" in sql
    # no session time zone: the gap is measured from the epoch as a TIMESTAMP_NTZ
    assert "cast('1970-01-01 00:00:00' as timestamp_ntz)" in sql
    assert "lag(" not in sql


@pytest.mark.parametrize("gap", FIXED)
def test_fixed_gaps_keep_the_fixed_gap_sql(renderer, gap):
    gap_us = renderer.call("_sw_duration_us", gap, "m", "gap")
    sql = renderer.call("session", "events", "ts", gap, ["k"])
    assert f"when __sw_ts - lag(__sw_ts) over (partition by __sw_key_1 order by __sw_ts) <= {gap_us} then 0" in sql
    assert f"__sw_sessions.__sw_session_last + {gap_us}" in sql
    assert "__sw_gap" not in sql


@pytest.mark.parametrize(
    "value",
    [
        *EXPRESSIONS,
        "session_gap",
        "GAP",
        "t.gap_a.b",
        "dayx",
        "interval 1 day 2 hours",
        "INTERVAL '1' HOUR + INTERVAL '30' MINUTE",
        "interval '1:30' hour to minute",
        "case channel when 'mobile' then interval 30 minutes end",
        "-(gap)",
    ],
)
def test_these_strings_are_expressions(renderer, value):
    assert renderer.call("_sw_gap_is_expression", value) is True


@pytest.mark.parametrize(
    "value",
    [
        *FIXED,
        "10 minuets",
        "0 minutes",
        "-5 minutes",
        "+5 minutes",
        "5",
        "'5'",
        "-5",
        "1.5.0 minutes",
        "0.0000001 seconds",
        "five minutes",
        "5 weeks",
        "1 hour 30 minutes",
        "interval 5 minuets",
        "interval",
        "minutes",
        "Hour",
        "days",
        "month",
        "gap desc",
        "interval gap",
        "",
        "   ",
        5,
        None,
        {"expression": MOBILE_WEB},
        ["gap"],
    ],
)
def test_these_are_read_as_durations(renderer, value):
    assert renderer.call("_sw_gap_is_expression", value) is False


def test_every_duration_the_reader_accepts_is_a_fixed_gap(renderer):
    units = ["millisecond", "second", "minute", "hour", "day"]
    for count, unit, plural, prefix, quoted in itertools.product(
        [1, 10, 90], units, ["", "s"], ["", "interval ", "INTERVAL "], [False, True]
    ):
        number = f"'{count}'" if quoted else str(count)
        value = f"{prefix}{number} {unit}{plural}"
        assert renderer.call("_sw_duration_us", value, "m", "gap") > 0
        assert renderer.call("_sw_gap_is_expression", value) is False, value
        assert renderer.call("_sw_session_gap_us", value, "session") > 0


BAD_GAPS = [
    ("10 minuets", "session: gap ('10 minuets') is not a duration"),
    ("interval 5 minuets", "session: gap ('interval 5 minuets') is not a duration"),
    ("0 minutes", "session: gap ('0 minutes') must be greater than zero"),
    ("interval '0' second", "session: gap ('interval '0' second') must be greater than zero"),
    ("-5 minutes", "session: gap ('-5 minutes') must not be negative"),
    ("5", "session: gap ('5') is not a duration"),
    ("-5", "session: gap ('-5') is not a duration"),
    ("1.5.0 minutes", "session: gap ('1.5.0 minutes') is not a duration"),
    ("0.0000001 seconds", "session: gap ('0.0000001 seconds') is not a whole number of microseconds"),
    ("five minutes", "session: gap ('five minutes') is not a duration"),
    ("5 weeks", "session: gap ('5 weeks') is not a duration"),
    ("1 hour 30 minutes", "session: gap ('1 hour 30 minutes') is not a duration"),
    ("minutes", "session: gap ('minutes') is not a duration"),
    ("interval 1 month", "session: gap ('interval 1 month') is not a duration"),
    ("2 years", "session: gap ('2 years') is not a duration"),
    ("interval", "session: gap ('interval') is not a duration"),
    ("", "session: gap ('') is not a duration"),
    (5, "session: gap (5) is not a duration"),
    (None, "session: gap (None) is not a duration"),
    ({"expression": MOBILE_WEB}, "session: gap ({'expression': "),
]


@pytest.mark.parametrize("gap, message", BAD_GAPS, ids=repr)
def test_malformed_durations_are_still_compile_errors(renderer, gap, message):
    with pytest.raises(CompilerError) as error:
        renderer.call("session", "ev", "ts", gap, ["k"])
    text = str(error.value)
    assert message in text
    # the message teaches both forms
    assert "unit one of millisecond, second, minute, hour, day" in text
    assert "or a SQL expression giving each row's gap as an interval" in text


@pytest.mark.parametrize("gap, message", BAD_GAPS[:6], ids=repr)
def test_window_aggregate_session_gaps_follow_the_same_rule(renderer, gap, message):
    with pytest.raises(CompilerError) as error:
        renderer.call("window_aggregate", "ev", "ts", {"type": "session", "gap": gap}, ["k"], {"n": "count(*)"})
    assert message.replace("session:", "window_aggregate (session window):") in str(error.value)


def test_the_other_arguments_are_still_checked_with_a_gap_expression(renderer):
    with pytest.raises(CompilerError, match=r"session: partition_by \('user_id'\) must be a list"):
        renderer.call("session", "ev", "ts", MOBILE_WEB, "user_id")
    with pytest.raises(CompilerError, match="session: time_col"):
        renderer.call("session", "ev", "", MOBILE_WEB)
    with pytest.raises(CompilerError, match="session: relation is empty"):
        renderer.call("session", " ", "ts", MOBILE_WEB)


def test_other_adapters_get_the_default_branch_error_with_a_gap_expression():
    with pytest.raises(CompilerError, match="spark_windows.session has no implementation for the 'postgres'"):
        MacroRenderer(adapter_type="postgres").call("session", "ev", "ts", MOBILE_WEB)


@pytest.mark.parametrize("gap", [MOBILE_WEB, "gap", "gap_minutes * interval 1 minute"])
@pytest.mark.parametrize("keys", [[], ["user_id"]])
def test_window_aggregate_passes_a_gap_expression_to_session(renderer, gap, keys):
    aggregates = {"clicks": "count(*)", "pages": "count(distinct page)"}
    spec = {"type": "session", "gap": gap}
    assert renderer.call("_sw_window_spec", spec, "window_aggregate")["gap_us"] is None
    sql = renderer.call("window_aggregate", "events", "ts", spec, keys, aggregates)
    names = output_names(sql)
    assert names == [*keys, "window_start", "window_end", "window_time", "clicks", "pages"]
    assert evaluated_gaps(sql) == [gap]
    assert "max(__sw_ts + __sw_gap_us)" in sql


# --- a gap column of another type than an interval ---------------------------------------------


@pytest.mark.parametrize(
    "gap, data_type, cast",
    [
        ("gap_minutes", "int", "gap_minutes * interval 1 minute, if it holds minutes (interval 1 second for seconds)"),
        ("gap_minutes", "decimal(5,1)", "gap_minutes * interval 1 minute"),
        (
            "gap_minutes",
            "string",
            "cast(gap_minutes as interval), if it holds text such as '10 minutes', "
            "or cast(gap_minutes as int) * interval 1 minute for a number of minutes",
        ),
        # an expression's type comes from DESCRIBE QUERY over the table (the stub answers data_type)
        ("gap_minutes * 60", "int", "(gap_minutes * 60) * interval 1 minute, if it holds minutes"),
        ("gap_minutes * 60", "double", "(gap_minutes * 60) * interval 1 minute"),
        ("gap_minutes * 60", "string", "cast(gap_minutes * 60 as interval), if it holds text such as '10 minutes'"),
        # a day-time or year-month interval renders (a month part fails per row in Spark)
        ("gap_minutes * 60", "interval year to month", None),
        ("gap_minutes * 60", "interval hour to minute", None),
    ],
)
def test_a_gap_of_a_known_type_that_is_no_interval_is_a_compile_error_naming_the_cast(gap, data_type, cast):
    is_column = gap == "gap_minutes"
    column_type = data_type if is_column else "int"
    events = Relation("analytics.events", [("k", "string"), ("ts", "timestamp"), ("gap_minutes", column_type)])
    renderer = MacroRenderer(expression_types={} if is_column else {gap: data_type})
    if cast is None:
        assert gap in renderer.call("session", events, "ts", gap, ["k"])
        return
    with pytest.raises(CompilerError) as error:
        renderer.call("session", events, "ts", gap, ["k"])
    message = str(error.value)
    assert message.startswith(
        f"session: gap ('{gap}') is {'a column' if is_column else 'an expression'} of type {data_type} in "
        "analytics.events; a per-row gap must be an interval of days, hours, minutes or seconds. Write the "
        "conversion as the gap, such as "
    )
    assert cast in message


def test_a_gap_column_of_an_interval_type_or_an_expression_renders():
    events = Relation(
        "analytics.events",
        [("k", "string"), ("ts", "timestamp"), ("gap", "interval day to second"), ("gap_minutes", "int")],
    )
    renderer = MacroRenderer(expression_types={"gap_minutes * interval 1 minute": "interval day to second"})
    assert re.search(r"\(\s+gap\s+\) as __sw_gap\n", renderer.call("session", events, "ts", "gap", ["k"]))
    converted = renderer.call("session", events, "ts", "gap_minutes * interval 1 minute", ["k"])
    assert "gap_minutes * interval 1 minute" in converted


def test_a_gap_expression_over_a_cte_is_not_typed_before_spark_runs_it():
    """A CTE's columns are not known while compiling: no query is asked (the stub fails on one)."""
    sql = MacroRenderer(expression_types={}).call("session", "events_cte", "ts", "gap_minutes * 60", ["k"])
    assert "gap_minutes * 60" in sql
