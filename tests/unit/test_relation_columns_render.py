"""Fast tests: what the macros do with the columns of a relation they can look up at compile time
(ref() and source() of a built model: adapter.get_columns_in_relation). A misspelled column is a
compile error that lists the relation's columns, and windows of windows replace the input's window
columns instead of colliding with them (Spark's AMBIGUOUS_REFERENCE)."""

from __future__ import annotations

import pytest
from sqlglot import exp

from dev.macro_renderer import CompilerError, MacroRenderer, Relation, parse_relation

pytestmark = pytest.mark.fast

WINDOWS = ["window_start", "window_end", "window_time"]
PER_MINUTE = Relation("`analytics`.`per_minute`", ["sensor_id", *WINDOWS, "vehicles"])
READINGS = Relation("`analytics`.`readings`", ["sensor_id", "reading_ts", "car_count"])
AGG = {"n": "count(*)"}


def projection(sql: str) -> list[str]:
    tree = parse_relation(sql)
    return [column.sql(dialect="spark") for column in tree.find(exp.Subquery).this.expressions]


TABLE_VALUED = [
    ("tumble", "window_time", "5 minutes"),
    ("hop", "window_time", "5 minutes", "10 minutes"),
    ("cumulate", "window_time", "5 minutes", "1 hour"),
]


@pytest.mark.parametrize("call", TABLE_VALUED, ids=lambda call: call[0])
def test_windows_of_windows_replace_the_inputs_window_columns(renderer, call):
    name, *args = call
    columns = projection(renderer.call(name, PER_MINUTE, *args))
    assert columns[:2] == ["__sw_source.`sensor_id`", "__sw_source.`vehicles`"]
    assert [column.split(" AS ")[-1] for column in columns[2:]] == WINDOWS


def test_session_and_calendar_windows_of_windows_replace_them_inside_the_row_struct(renderer):
    session = renderer.call("session", PER_MINUTE, "window_time", "10 minutes", ["sensor_id"])
    assert "struct(__sw_source.`sensor_id`, __sw_source.`vehicles`) as __sw_row" in session
    dynamic = renderer.call("session", PER_MINUTE, "window_time", "vehicles * interval 1 minute")
    assert "struct(__sw_source.`sensor_id`, __sw_source.`vehicles`) as __sw_row" in dynamic
    daily = Relation("daily", ["window_date", "window_start", "window_end", "window_time", "orders"])
    calendar = renderer.call("calendar_window", daily, "window_start", "month", "Europe/Berlin")
    assert "struct(__sw_source.`orders`) as __sw_row" in calendar
    for sql in (session, dynamic, calendar):
        parse_relation(sql)


def test_only_the_window_columns_the_input_has_are_replaced(renderer):
    partial = Relation("partial", ["k", "Window_Time", "v`x"])
    assert "__sw_source.`k`, __sw_source.`v``x`," in renderer.call("tumble", partial, "window_time", "1 hour")


def test_no_spark_4_only_syntax_replaces_window_columns(renderer):
    # `* except (...)` is Spark 4 syntax: the kept columns are listed for Spark 3.5
    for call in TABLE_VALUED:
        name, *args = call
        assert " except " not in renderer.call(name, PER_MINUTE, *args).lower()


def test_an_input_of_window_columns_only_is_a_compile_error(renderer):
    with pytest.raises(CompilerError, match=r"tumble: the input only_windows has only window columns"):
        renderer.call("tumble", Relation("only_windows", WINDOWS), "window_time", "1 hour")


def test_an_input_without_window_columns_renders_as_a_string_relation_does(renderer):
    assert renderer.call("tumble", READINGS, "reading_ts", "1 minute") == renderer.call(
        "tumble", str(READINGS), "reading_ts", "1 minute"
    )
    assert renderer.call("session", READINGS, "reading_ts", "1 minute", ["sensor_id"]) == renderer.call(
        "session", str(READINGS), "reading_ts", "1 minute", ["sensor_id"]
    )


def test_an_ephemeral_input_whose_time_col_is_a_window_column_is_a_compile_error(renderer):
    with pytest.raises(
        CompilerError, match=r"hop: time_col \('window_time'\) is a window column of the input __dbt__cte__m,"
    ):
        renderer.call("hop", Relation("__dbt__cte__m", WINDOWS, is_cte=True), "window_time", "1 hour", "2 hours")


@pytest.mark.parametrize("relation", [Relation("not_built_yet", []), Relation("__dbt__cte__eph", WINDOWS, True)])
def test_relations_whose_columns_are_unknown_are_not_checked(relation):
    renderer = MacroRenderer()
    sql = renderer.call("tumble", relation, "windw_time", "1 hour")
    assert "__sw_source.*,\n" in sql
    assert renderer.env.globals["adapter"].introspected == ([] if relation.is_cte else [str(relation)])


def test_a_string_input_whose_time_col_is_a_window_column_is_a_compile_error_that_says_what_to_do(renderer):
    with pytest.raises(CompilerError) as error:
        renderer.call("tumble", "per_minute", "window_time", "5 minutes")
    assert str(error.value) == (
        "tumble: time_col ('window_time') is a window column of the input per_minute, so the input holds windows "
        "already and its window_start, window_end, window_time would collide with the new ones. Pass the input as "
        "ref('...') or source('...', '...'): tumble then replaces the input's window columns. Or rename them first "
        "in a query that lists the columns it keeps, such as (select sensor_id, vehicles, window_time as minute_time "
        "from per_minute) with time_col 'minute_time'"
    )


MISSPELLED = [
    (("tumble", READINGS, "reading_tz", "1 minute"), "tumble: time_col ('reading_tz')"),
    (("hop", READINGS, "ts", "1 minute", "2 minutes"), "hop: time_col ('ts')"),
    (("cumulate", READINGS, "`reading ts`", "1 minute", "2 minutes"), "cumulate: time_col ('`reading ts`')"),
    (("session", READINGS, "reading_ts", "1 minute", ["sensor"]), "session: partition_by ('sensor')"),
    (("calendar_window", READINGS, "reading_time", "day"), "calendar_window: time_col ('reading_time')"),
    (("count_window", READINGS, ["reading_ts", "id"], 10), "count_window: order_by ('id')"),
    (("count_window", READINGS, ["reading_ts"], 10, None, ["sensorid"]), "count_window: partition_by ('sensorid')"),
    (("window_aggregate", READINGS, "readingts", {"type": "tumble", "size": "1 minute"}, [], AGG), "time_col"),
    (
        (
            "window_aggregate",
            READINGS,
            "reading_ts",
            {"type": "hop", "slide": "1 minute", "size": "1 hour"},
            ["s"],
            AGG,
        ),
        "window_aggregate: group_by ('s')",
    ),
    (("window_top_n", READINGS, ["sensor"], ["car_count desc"], 3), "window_top_n: partition_by ('sensor')"),
    (("window_deduplicate", READINGS, ["sensor_id"], ["reading_tz"]), "window_deduplicate: order_by ('reading_tz')"),
]


@pytest.mark.parametrize("call, named", MISSPELLED, ids=repr)
def test_a_misspelled_column_of_a_known_relation_is_a_compile_error_listing_its_columns(renderer, call, named):
    with pytest.raises(CompilerError) as error:
        renderer.call(*call)
    message = str(error.value)
    assert named in message
    assert message.endswith(
        "is not a column of `analytics`.`readings`; expected one of its columns: sensor_id, reading_ts, car_count"
    )


def test_known_columns_match_without_case_and_in_backticks_and_expressions_are_left_to_spark(renderer):
    renderer.call("tumble", READINGS, "Reading_TS", "1 minute")
    renderer.call("session", READINGS, "`reading_ts`", "1 minute", ["SENSOR_ID"])
    renderer.call("count_window", READINGS, ["cast(reading_ts as bigint)"], 10)
    renderer.call("tumble", READINGS, "r.reading_ts", "1 minute")  # qualified: left to Spark


def test_argument_errors_come_before_the_column_lookup():
    renderer = MacroRenderer()
    with pytest.raises(CompilerError, match="is not a duration"):
        renderer.call("tumble", READINGS, "reading_tz", "5 minuts")
    assert renderer.env.globals["adapter"].introspected == []
