"""Fast tests of count_window and calendar_window: rendered with plain Jinja, checked with sqlglot.

Also checks the plain-Python models of reference_more_windows.py against facts computed by
hand, so that the slow tests compare the SQL with a model that is itself right.
"""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
import reference_more_windows as ref
from calendar_cases import DST_DAYS, HOUR, utc
from sqlglot import exp

from dev.macro_renderer import CompilerError, MacroRenderer, output_names, parse_relation

pytestmark = pytest.mark.fast

RELATIONS = ["events", "`analytics`.`events`", "(select * from raw_events where k <> 'x')"]
COUNT_COLUMNS = ["window_index", "window_first_row", "window_last_row"]
TIME_COLUMNS = ["window_start", "window_end", "window_time"]


def count_calls():
    for relation, order_by, (size, slide), partition_by in itertools.product(
        RELATIONS,
        [["ts"], ["ts", "id"], ["`reading time`"], ["cast(seq as bigint)"]],
        [(1, None), (100, None), (3, 1), (100, 10), (5, 5), (2, 7), (1, 1)],
        [None, [], ["k"], ["tenant", "user_id"]],
    ):
        yield (relation, order_by, size, slide, partition_by)


@pytest.mark.parametrize("call", list(count_calls()), ids=repr)
def test_count_window_renders_spark_sql_with_the_count_columns(renderer, call):
    names = output_names(renderer.call("count_window", *call))
    assert names[0] == "*", "every input column comes first"
    assert names[1:] == COUNT_COLUMNS
    assert not [name for name in names if name.startswith("__sw")]


def calendar_calls():
    units = ["day", "week", "month", "quarter", "year", "Day", "WEEKS", " Month "]
    zones = [
        "UTC",
        "America/New_York",
        "Australia/Sydney",
        "Europe/Berlin",
        "+08:00",
        "Etc/GMT-14",
        "America/Argentina/Buenos_Aires",
    ]
    for relation, unit, zone in itertools.product(RELATIONS, units, zones):
        yield (relation, "ts", unit, zone)
    yield ("events", "ts", "day")  # time_zone defaults to UTC
    yield ("events", "event_date", "month", "Asia/Tokyo")  # a date column, cast to timestamp


@pytest.mark.parametrize("call", list(calendar_calls()), ids=repr)
def test_calendar_window_renders_spark_sql_with_the_window_columns(renderer, call):
    names = output_names(renderer.call("calendar_window", *call))
    assert names[0] == "*", "every input column comes first"
    assert names[1:] == [*TIME_COLUMNS, "window_date"]
    assert not [name for name in names if name.startswith("__sw")]


# --- what the SQL does ---------------------------------------------------------------------


def test_tumbling_count_windows_copy_no_row(renderer):
    for slide in (None, 100):  # slide == size is tumbling too
        sql = renderer.call("count_window", "ev", ["ts"], 100, slide)
        assert "explode" not in sql and "lateral view" not in sql
        assert "(__sw_row_number - 1) div 100 as __sw_first_window" in sql


def test_sliding_count_windows_copy_rows_into_each_window(renderer):
    sql = renderer.call("count_window", "ev", ["ts"], 100, 10)
    assert "lateral view explode(sequence(__sw_first_window, __sw_last_window))" in sql
    assert "(__sw_windows.__sw_window_index + 1) * 10 - 99" in sql
    # only windows whose last row exists: the partition's row count caps the last window
    assert "__sw_partition_rows div 10" in sql


def test_count_window_orders_ascending_with_nulls_first_then_by_the_row_json(renderer):
    sql = renderer.call("count_window", "ev", ["ts", "id"], 3, partition_by=["k"])
    tree = parse_relation(sql)
    (row_number,) = [w for w in tree.find_all(exp.Window) if isinstance(w.this, exp.RowNumber)]
    assert [p.sql(dialect="spark") for p in row_number.args["partition_by"]] == ["__sw_key_1"]
    order = row_number.args["order"].expressions
    assert [o.this.sql(dialect="spark") for o in order[:2]] == ["__sw_order_1", "__sw_order_2"]
    assert all(not o.args.get("desc") and o.args.get("nulls_first") for o in order[:2])
    tie = order[2].sql(dialect="spark")
    assert tie.startswith("TO_JSON(__sw_row")
    for option in (
        "'timeZone', 'UTC'",
        "'ignoreNullFields', 'false'",
        "'timestampFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSS'",
    ):
        assert option in tie


def test_count_window_without_partition_counts_the_whole_relation(renderer):
    sql = renderer.call("count_window", "ev", ["ts"], 3)
    assert "count(*) over () as __sw_partition_rows" in sql
    assert "partition by" not in sql


@pytest.mark.parametrize(
    "unit, trunc, next_start",
    [
        ("day", None, "date_add(__sw_period_start, 1)"),
        ("week", "'WEEK'", "date_add(__sw_period_start, 7)"),
        ("month", "'MM'", "add_months(__sw_period_start, 1)"),
        ("quarter", "'QUARTER'", "add_months(__sw_period_start, 3)"),
        ("year", "'YEAR'", "add_months(__sw_period_start, 12)"),
    ],
)
def test_calendar_window_truncates_local_dates_and_converts_back(renderer, unit, trunc, next_start):
    sql = renderer.call("calendar_window", "ev", "ts", unit, "America/New_York")
    assert f"from_utc_timestamp({renderer.call('_sw_ts', 'ts')}, 'America/New_York')" in sql
    # the guessed period's bounds, and the bounds of the periods before it and after the next
    assert sql.count("to_utc_timestamp(") == 4
    assert next_start in sql
    if trunc:
        assert f"{trunc}) as __sw_period_start" in sql
    else:
        assert "trunc(" not in sql
    # independent of the session time zone: no cast to or from date, no date_trunc
    assert "as date" not in sql and "date_trunc" not in sql
    assert "where ts is not null" in sql


@pytest.mark.parametrize(
    "unit, before, after_next",
    [
        ("day", "date_add(__sw_guess.__sw_period_start, -1)", "date_add(__sw_guess.__sw_period_start, 2)"),
        ("week", "date_add(__sw_guess.__sw_period_start, -7)", "date_add(__sw_guess.__sw_period_start, 14)"),
        ("month", "add_months(__sw_guess.__sw_period_start, -1)", "add_months(__sw_guess.__sw_period_start, 2)"),
        ("quarter", "add_months(__sw_guess.__sw_period_start, -3)", "add_months(__sw_guess.__sw_period_start, 6)"),
        ("year", "add_months(__sw_guess.__sw_period_start, -12)", "add_months(__sw_guess.__sw_period_start, 24)"),
    ],
)
def test_calendar_window_moves_a_row_outside_its_local_dates_period(renderer, unit, before, after_next):
    # where the local date goes back across midnight, a row can lie before or after the period of
    # its local date: it then takes the period before, or the next one
    sql = renderer.call("calendar_window", "ev", "ts", unit, "America/St_Johns")
    tree = parse_relation(sql)
    cases = {case.parent.alias: case for case in tree.find_all(exp.Case) if isinstance(case.parent, exp.Alias)}
    assert set(cases) == {"__sw_start_us", "__sw_end_us", "__sw_period"}
    conditions = [[branch.this.sql(dialect="spark") for branch in cases[name].args["ifs"]] for name in sorted(cases)]
    expected = [
        "__sw_guess.__sw_time_us < __sw_guess.__sw_start_us",
        "__sw_guess.__sw_time_us >= __sw_guess.__sw_end_us",
    ]
    assert conditions == [expected, expected, expected]
    assert before in sql and after_next in sql
    assert f"{renderer.call('_sw_ts_us', 'ts')} as __sw_time_us" in sql


def test_calendar_window_time_is_one_microsecond_before_the_end(renderer):
    sql = renderer.call("calendar_window", "ev", "ts", "day")
    assert "timestamp_micros(__sw_bounds.__sw_end_us - 1) as window_time" in sql
    assert "'UTC'" in sql


def test_row_counts_are_returned_as_given(renderer):
    assert renderer.call("_sw_row_count", 100, "m", "size") == 100


@pytest.mark.parametrize(
    "unit, expected", [("day", "day"), ("Days", "day"), (" WEEK ", "week"), ("quarters", "quarter")]
)
def test_calendar_units_are_read_in_any_case_singular_or_plural(renderer, unit, expected):
    assert renderer.call("_sw_calendar_unit", unit, "m") == expected


# --- bad arguments -------------------------------------------------------------------------

POSITIVE = "must be a positive integer number of rows, such as 100 (a number, not a string)"
UNITS = (
    "expected one of day, week, month, quarter, year (weeks are ISO weeks, from Monday 00:00 to the next Monday 00:00)"
)
ZONE = (
    "is not a time zone Spark can read; expected an IANA zone name such as 'America/New_York', "
    "'Europe/Berlin' or 'UTC' (case sensitive, as in the tz database), or a fixed offset such as "
    "'+08:00', '-05:30' or 'Z'"
)

BAD_CALLS = [
    (("count_window", "ev", ["ts"], "100"), f"count_window: size ('100') {POSITIVE}"),
    (("count_window", "ev", ["ts"], 0), f"count_window: size (0) {POSITIVE}"),
    (("count_window", "ev", ["ts"], -5), f"count_window: size (-5) {POSITIVE}"),
    (("count_window", "ev", ["ts"], True), f"count_window: size (True) {POSITIVE}"),
    (("count_window", "ev", ["ts"], False), f"count_window: size (False) {POSITIVE}"),
    (("count_window", "ev", ["ts"], 1.5), f"count_window: size (1.5) {POSITIVE}"),
    (("count_window", "ev", ["ts"], 100.0), f"count_window: size (100.0) {POSITIVE}"),
    (("count_window", "ev", ["ts"], None), f"count_window: size (None) {POSITIVE}"),
    (("count_window", "ev", ["ts"], "100 rows"), f"count_window: size ('100 rows') {POSITIVE}"),
    (("count_window", "ev", ["ts"], 100, 0), f"count_window: slide (0) {POSITIVE}"),
    (("count_window", "ev", ["ts"], 100, "10"), f"count_window: slide ('10') {POSITIVE}"),
    (("count_window", "ev", ["ts"], 100, -10), f"count_window: slide (-10) {POSITIVE}"),
    (("count_window", "ev", ["ts"], 100, True), f"count_window: slide (True) {POSITIVE}"),
    (
        ("count_window", "ev", None, 100),
        "count_window: order_by (None) must name at least one column, such as ['reading_ts']",
    ),
    (("count_window", "ev", [], 100), "count_window: order_by ([]) must name at least one column"),
    (("count_window", "ev", "ts", 100), "count_window: order_by ('ts') must be a list of column names"),
    (("count_window", "ev", ["ts", 3], 100), "count_window: order_by (['ts', 3]) must be a list of column names"),
    (("count_window", "ev", ["ts", " "], 100), "count_window: order_by (['ts', ' ']) must be a list of column names"),
    (
        ("count_window", "ev", ["ts desc"], 100),
        "count_window: order_by item ('ts desc') must be a column name without a direction",
    ),
    (
        ("count_window", "ev", ["id", "ts ASC"], 100),
        "count_window: order_by item ('ts ASC') must be a column name without a direction",
    ),
    (("count_window", "ev", ["ts nulls last"], 100), "leave out asc, desc and nulls first/last"),
    (("count_window", "ev", ["ts"], 100, None, "k"), "count_window: partition_by ('k') must be a list of column names"),
    (
        ("count_window", "ev", ["ts"], 100, None, {"k": 1}),
        "count_window: partition_by ({'k': 1}) must be a list of column names",
    ),
    (("count_window", None, ["ts"], 100), "count_window: relation is empty"),
    (("count_window", " ", ["ts"], 100), "count_window: relation is empty"),
    (
        ("calendar_window", "ev", "ts", "fortnight"),
        f"calendar_window: unit ('fortnight') is not a calendar unit; {UNITS}",
    ),
    (("calendar_window", "ev", "ts", "1 day"), f"calendar_window: unit ('1 day') is not a calendar unit; {UNITS}"),
    (("calendar_window", "ev", "ts", "hour"), "calendar_window: unit ('hour') is not a calendar unit"),
    (("calendar_window", "ev", "ts", None), f"calendar_window: unit (None) is not a calendar unit; {UNITS}"),
    (("calendar_window", "ev", "ts", 7), "calendar_window: unit (7) is not a calendar unit"),
    (("calendar_window", "ev", "ts", "day", ""), f"calendar_window: time_zone ('') {ZONE}"),
    (("calendar_window", "ev", "ts", "day", 8), f"calendar_window: time_zone (8) {ZONE}"),
    (
        ("calendar_window", "ev", "ts", "day", "America/New York"),
        f"calendar_window: time_zone ('America/New York') {ZONE}",
    ),
    (("calendar_window", "ev", "ts", "day", "UTC'); drop table t; --"), "time_zone ('UTC'); drop table t; --') is not"),
    # unknown to the tz database: before, only the query failed, with INVALID_TIMEZONE
    (
        ("calendar_window", "ev", "ts", "day", "Mars/Olympus_Mons"),
        f"calendar_window: time_zone ('Mars/Olympus_Mons') {ZONE}",
    ),
    (
        ("calendar_window", "ev", "ts", "day", "america/new_york"),
        f"calendar_window: time_zone ('america/new_york') {ZONE}",
    ),
    (("calendar_window", "ev", "ts", "day", "Europe/Berln"), f"calendar_window: time_zone ('Europe/Berln') {ZONE}"),
    # Java's ambiguous three-letter IDs (BST is Asia/Dhaka there) and offsets beyond 18 hours
    (("calendar_window", "ev", "ts", "day", "PST"), f"calendar_window: time_zone ('PST') {ZONE}"),
    # pytz lists it, the JDK's tz data does not
    (("calendar_window", "ev", "ts", "day", "ROC"), f"calendar_window: time_zone ('ROC') {ZONE}"),
    (("calendar_window", "ev", "ts", "day", "BST"), f"calendar_window: time_zone ('BST') {ZONE}"),
    (("calendar_window", "ev", "ts", "day", "+19:00"), f"calendar_window: time_zone ('+19:00') {ZONE}"),
    (("calendar_window", "ev", "ts", "day", "+18:30"), f"calendar_window: time_zone ('+18:30') {ZONE}"),
    (("calendar_window", "ev", "ts", "day", "+08:60"), f"calendar_window: time_zone ('+08:60') {ZONE}"),
    (("calendar_window", "ev", "ts", "day", "+0800:00"), f"calendar_window: time_zone ('+0800:00') {ZONE}"),
    (("calendar_window", "ev", "ts", "day", "z"), f"calendar_window: time_zone ('z') {ZONE}"),
    (("calendar_window", "ev", "ts", "day", "08:00"), f"calendar_window: time_zone ('08:00') {ZONE}"),
    (("calendar_window", "ev", "", "day"), "calendar_window: time_col ('') must be a column name"),
    (("calendar_window", "ev", None, "day"), "calendar_window: time_col (None) must be a column name"),
    (("calendar_window", "", "ts", "day"), "calendar_window: relation is empty"),
]


@pytest.mark.parametrize("call, message", BAD_CALLS, ids=repr)
def test_bad_arguments_are_compile_errors_that_say_what_is_accepted(renderer, call, message):
    with pytest.raises(CompilerError) as error:
        renderer.call(*call)
    assert message in str(error.value)


# every spelling Spark reads (ZoneId.of after Spark pads +h:mm); the slow tests run them all
ACCEPTED_ZONES = [
    "UTC",
    "America/New_York",
    "America/Argentina/Buenos_Aires",
    "Etc/GMT-14",
    "US/Eastern",
    "GMT",
    "Z",
    "+08:00",
    "-05:30",
    "+0530",
    "+8",
    "-08",
    "+8:00",
    "+05:30:15",
    "+053015",
    "+18:00",
    "-18",
    "UTC+8",
    "UTC-05:30",
    "GMT+01:00",
    "UT-3",
]


@pytest.mark.parametrize("zone", ACCEPTED_ZONES)
def test_calendar_window_accepts_tz_database_names_and_fixed_offsets(renderer, zone):
    assert renderer.call("_sw_time_zone", zone, "calendar_window") == zone
    assert f"'{zone}')" in renderer.call("calendar_window", "ev", "ts", "day", zone)


# the System V names of the tz database (its file `backward` since release 2024b)
LEGACY_ZONES = {
    "EST": "fixed offset all year, without daylight saving time (UTC-05:00); for US Eastern time write 'America/New_York'",
    "MST": "fixed offset all year, without daylight saving time (UTC-07:00); for US Mountain time write 'America/Denver'",
    "HST": "fixed offset all year, without daylight saving time (UTC-10:00); for Hawaii write 'Pacific/Honolulu'",
    "EST5EDT": "depend on the version of the tz database (since 2024b it is a link to America/New_York); write 'America/New_York'",
    "CST6CDT": "(since 2024b it is a link to America/Chicago); write 'America/Chicago'",
    "MST7MDT": "(since 2024b it is a link to America/Denver); write 'America/Denver'",
    "PST8PDT": "(since 2024b it is a link to America/Los_Angeles); write 'America/Los_Angeles'",
    "CET": "(since 2024b it is a link to Europe/Brussels); write the city, such as 'Europe/Berlin'",
    "MET": "(since 2024b it is a link to Europe/Brussels); write the city",
    "EET": "(since 2024b it is a link to Europe/Athens); write the city",
    "WET": "(since 2024b it is a link to Europe/Lisbon); write the city",
}


@pytest.mark.parametrize("zone, advice", LEGACY_ZONES.items(), ids=list(LEGACY_ZONES))
def test_legacy_zone_names_are_refused_with_the_iana_name_to_write(renderer, zone, advice):
    with pytest.raises(CompilerError) as error:
        renderer.call("calendar_window", "ev", "ts", "day", zone)
    message = str(error.value)
    assert message.startswith(f"calendar_window: time_zone ('{zone}') is a legacy zone name, not a place: ")
    assert advice in message
    assert message.endswith(
        "Use an IANA zone name for a place, such as 'America/New_York', or a fixed offset such as '-05:00'"
    )


def test_calendar_window_accepts_every_zone_pytz_lists_but_roc_and_the_legacy_names(renderer):
    import pytz

    assert len(pytz.all_timezones) > 500
    for zone in pytz.all_timezones:
        if zone != "ROC" and zone not in LEGACY_ZONES:
            assert renderer.call("_sw_time_zone", zone, "calendar_window") == zone


def test_calendar_window_date_is_the_period_start_of_the_rows_period(renderer):
    sql = renderer.call("calendar_window", "ev", "ts", "month", "Asia/Tokyo")
    assert "__sw_bounds.__sw_period as window_date" in sql
    assert "else __sw_guess.__sw_period_start end as __sw_period" in " ".join(sql.split())


@pytest.mark.parametrize(
    "call",
    [
        ("count_window", "ev", ["ts"], 100),
        ("count_window", "ev", ["ts"], 100, 10, ["k"]),
        ("calendar_window", "ev", "ts", "day", "Europe/Berlin"),
    ],
)
def test_other_adapters_get_a_clear_error_from_the_default_branch(call):
    with pytest.raises(CompilerError) as error:
        MacroRenderer(adapter_type="postgres").call(*call)
    assert f"spark_windows.{call[0]} has no implementation for the 'postgres' adapter" in str(error.value)
    assert f"Add a postgres__{call[0]} macro" in str(error.value)


# --- the Python models, against hand-computed facts ----------------------------------------


def windows_of(out):
    """{window index: (first row, last row, [row values])} from count_window's model output."""
    windows = {}
    for row, index, first, last in out:
        windows.setdefault(index, (first, last, []))[2].append(row)
    return windows


def test_count_model_tumbling_drops_the_incomplete_last_window():
    out = ref.count_window(list(range(1, 8)), 3, order_of=lambda row: (row,))
    assert windows_of(out) == {0: (1, 3, [1, 2, 3]), 1: (4, 6, [4, 5, 6])}


def test_count_model_sliding_follows_flinks_java_rule():
    # countWindow(3, 2) over 7 rows fires at rows 2, 4, 6 with the last 3 rows (or all so far)
    out = ref.count_window(list(range(1, 8)), 3, 2, order_of=lambda row: (row,))
    assert windows_of(out) == {0: (1, 2, [1, 2]), 1: (2, 4, [2, 3, 4]), 2: (4, 6, [4, 5, 6])}
    # a slide larger than the size skips rows: countWindow(2, 3) fires at 3 and 6
    out = ref.count_window(list(range(1, 8)), 2, 3, order_of=lambda row: (row,))
    assert windows_of(out) == {0: (2, 3, [2, 3]), 1: (5, 6, [5, 6])}


def test_count_model_sorts_nulls_first_and_breaks_ties_by_text():
    rows = [(2, "b"), (None, "z"), (2, "a"), (1, "c")]
    out = ref.count_window(rows, 4, order_of=lambda row: (row[0],), text_of=lambda row: row[1])
    assert [row for row, *_ in out] == [(None, "z"), (1, "c"), (2, "a"), (2, "b")]


def test_count_model_json_text_matches_spark_to_json():
    # the text Spark 4 printed for to_json(named_struct(...), <count_window's options>)
    text = ref.spark_json({"k": "a", "o": None, "ts": 1, "v": -5}, timestamps=("ts",))
    assert text == '{"k":"a","o":null,"ts":"1970-01-01 00:00:00.000001","v":-5}'
    assert ref.spark_json({"ts": -1}, timestamps=("ts",)) == '{"ts":"1969-12-31 23:59:59.999999"}'


@pytest.mark.parametrize("zone, day, start, hours", DST_DAYS, ids=lambda v: str(v))
def test_calendar_model_days_by_hand(zone, day, start, hours):
    noon = utc(start) + 12 * HOUR
    assert ref.local_date(noon, zone).isoformat() == day
    assert ref.calendar_window(noon, "day", zone) == (
        utc(start),
        utc(start) + hours * HOUR,
        utc(start) + hours * HOUR - 1,
    )


def test_calendar_model_month_week_quarter_year_by_hand():
    # February 2024 (leap year) in Tokyo, UTC+9 without DST
    feb = ref.calendar_window(utc("2024-02-15 00:00"), "month", "Asia/Tokyo")
    assert feb[:2] == (utc("2024-01-31 15:00"), utc("2024-02-29 15:00"))
    # ISO week from Monday 2024-10-28 to Monday 2024-11-04 in New York: crosses into November and
    # the end of DST on Sunday 2024-11-03, so it lasts 7 days and 1 hour
    week = ref.calendar_window(utc("2024-11-03 12:00"), "week", "America/New_York")
    assert week[:2] == (utc("2024-10-28 04:00"), utc("2024-11-04 05:00"))
    assert ref.calendar_window(utc("2024-11-04 04:59:59.999999"), "week", "America/New_York")[:2] == week[:2]
    assert ref.calendar_window(utc("2024-11-04 05:00"), "week", "America/New_York")[0] == week[1]
    quarter = ref.calendar_window(utc("2024-05-01 00:00"), "quarter", "Europe/Berlin")
    assert quarter[:2] == (utc("2024-03-31 22:00"), utc("2024-06-30 22:00"))
    year = ref.calendar_window(utc("2024-12-31 23:30"), "year", "Australia/Sydney")
    assert year[:2] == (utc("2024-12-31 13:00"), utc("2025-12-31 13:00"))
    assert ref.calendar_window(None, "day", "UTC") is None


def test_calendar_model_takes_the_window_by_instant_where_the_local_date_goes_back():
    # St_Johns 1995-10-29 02:45 UTC is 23:15 NST on Saturday 10-28, after the clocks went back at
    # 00:01 NDT (02:31 UTC); Saturday's window ended at 00:00 NDT (02:30 UTC), Sunday's has begun
    assert ref.local_date(utc("1995-10-29 02:45"), "America/St_Johns").isoformat() == "1995-10-28"
    sunday = (utc("1995-10-29 02:30"), utc("1995-10-30 03:30"))
    for instant in ("1995-10-29 02:30", "1995-10-29 02:45", "1995-10-29 03:29:59.999999", "1995-10-30 03:29"):
        assert ref.calendar_window(utc(instant), "day", "America/St_Johns")[:2] == sunday
    saturday = ref.calendar_window(utc("1995-10-29 02:29:59.999999"), "day", "America/St_Johns")
    assert saturday[:2] == (utc("1995-10-28 02:30"), sunday[0])


def test_calendar_model_begins_a_day_whose_midnight_is_skipped_with_the_offset_before_the_jump():
    # Toronto 1919-03-31: 23:30 EST (04:30 UTC) became 00:30 EDT; local 00:00 never happened. Read
    # with EST it is 05:00 UTC (01:00 EDT), where the day begins: 00:30-01:00 EDT, whose local date
    # is 03-31, are in the window of 03-30
    assert ref.local_date(utc("1919-03-31 04:30"), "America/Toronto").isoformat() == "1919-03-31"
    assert ref.local_date(utc("1919-03-31 04:29:59.999999"), "America/Toronto").isoformat() == "1919-03-30"
    assert ref.day_start(dt.date(1919, 3, 31), "America/Toronto") == utc("1919-03-31 05:00")
    march_30 = (utc("1919-03-30 05:00"), utc("1919-03-31 05:00"))
    assert ref.calendar_window(utc("1919-03-31 04:45"), "day", "America/Toronto")[:2] == march_30
    assert ref.calendar_window(utc("1919-03-31 05:00"), "day", "America/Toronto")[0] == march_30[1]
    # a jump that begins at 00:00 (Santiago 2024-09-08, 00:00 to 01:00) gives the first instant after it
    assert ref.day_start(dt.date(2024, 9, 8), "America/Santiago") == utc("2024-09-08 04:00")
