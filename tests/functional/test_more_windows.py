"""Slow tests of count_window and calendar_window on the test session's Spark.

count_window is compared, row for row, with the simulation of Flink's countWindow in
reference_more_windows.py on random rows (ties, NULL order values, NULL partition keys).
calendar_window is compared with zoneinfo on the DST days of three zones, a month, an ISO week
crossing a month and a DST change, zones whose midnight is missing or whose local date goes back
across midnight, and random instants from 1900 to 2100.
"""

from __future__ import annotations

import datetime as dt

import pytest
import reference_more_windows as ref
from calendar_cases import DST_DAYS, HOUR, utc
from hypothesis import given, settings
from hypothesis import strategies as st
from property_settings import property_settings
from spark_views import temp_view

pytestmark = pytest.mark.slow

PROPERTY_SETTINGS = property_settings(100)
VIEW = "__sw_more_windows_rows"


@pytest.fixture(scope="module")
def spark(warehouse):
    """The in-process SparkSession dbt opened (the `local` target); these tests run SQL on it."""
    if getattr(warehouse, "spark", None) is None:
        pytest.skip("needs the in-process Spark of the local target")
    return warehouse.spark


def load_rows(spark, columns: dict[str, str], rows) -> str:
    return temp_view(spark, VIEW, columns, rows)


# --- count_window --------------------------------------------------------------------------

COUNT_COLUMNS = {"k": "string", "o": "int", "ts": "timestamp", "v": "int"}


@st.composite
def count_case(draw):
    """Up to 40 rows (k, o, ts, v) with many ties in o and ts, a size, a slide and the order."""
    rows = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["a", "b", None]),
                st.one_of(st.none(), st.integers(0, 4)),
                st.one_of(st.none(), st.integers(-3, 3), st.integers(-(10**12), 10**12)),
                st.one_of(st.none(), st.integers(-3, 3)),
            ),
            max_size=40,
        )
    )
    size = draw(st.integers(1, 7))
    slide = draw(st.one_of(st.none(), st.integers(1, 9)))
    order_by = draw(st.sampled_from([["o"], ["ts"], ["o", "ts"], ["v", "o"]]))
    keyed = draw(st.booleans())
    return rows, size, slide, order_by, keyed


def count_model(rows, size, slide, order_by, keyed):
    position = {name: index for index, name in enumerate(COUNT_COLUMNS)}
    out = ref.count_window(
        rows,
        size,
        slide,
        partition_of=(lambda row: row[0]) if keyed else (lambda row: None),
        order_of=lambda row: tuple(row[position[name]] for name in order_by),
        text_of=lambda row: ref.spark_json(dict(zip(COUNT_COLUMNS, row)), timestamps=("ts",)),
    )
    return sorted(((*row, index, first, last) for row, index, first, last in out), key=repr)


def count_query(spark, sql: str) -> list[tuple]:
    query = f"select k, o, unix_micros(ts), v, window_index, window_first_row, window_last_row from {sql}"
    return sorted((tuple(row) for row in spark.sql(query).collect()), key=repr)


@PROPERTY_SETTINGS
@given(case=count_case())
def test_count_window_matches_the_python_model(spark, renderer, case):
    rows, size, slide, order_by, keyed = case
    view = load_rows(spark, COUNT_COLUMNS, rows)
    sql = renderer.call("count_window", view, order_by, size, slide, ["k"] if keyed else None)
    assert count_query(spark, sql) == count_model(rows, size, slide, order_by, keyed)


@settings(PROPERTY_SETTINGS, max_examples=25)
@given(case=count_case())
def test_count_window_does_not_depend_on_the_input_order(spark, renderer, case):
    rows, size, slide, order_by, keyed = case
    keys = ["k"] if keyed else None
    view = load_rows(spark, COUNT_COLUMNS, rows)
    first = count_query(spark, renderer.call("count_window", view, order_by, size, slide, keys))
    view = load_rows(spark, COUNT_COLUMNS, list(reversed(rows)))
    shuffled = f"(select /*+ REPARTITION(3) */ * from {view})"
    assert count_query(spark, renderer.call("count_window", shuffled, order_by, size, slide, keys)) == first


def test_count_window_output_columns_and_types(spark, renderer):
    view = load_rows(spark, COUNT_COLUMNS, [("a", 1, 10, 1), ("a", 2, 20, 2), ("a", 3, 30, 3)])
    frame = spark.sql(f"select * from {renderer.call('count_window', view, ['o'], 2, 1, ['k'])}")
    assert [(f.name, f.dataType.simpleString()) for f in frame.schema.fields] == [
        ("k", "string"),
        ("o", "int"),
        ("ts", "timestamp"),
        ("v", "int"),
        ("window_index", "bigint"),
        ("window_first_row", "bigint"),
        ("window_last_row", "bigint"),
    ]
    # countWindow(2, 1) over three rows: windows end at rows 1, 2 and 3 and hold up to 2 rows
    selected = frame.select("o", "window_index", "window_first_row", "window_last_row").collect()
    assert sorted(tuple(row) for row in selected) == [
        (1, 0, 1, 1),
        (1, 1, 1, 2),
        (2, 1, 1, 2),
        (2, 2, 2, 3),
        (3, 2, 2, 3),
    ]


# --- calendar_window -----------------------------------------------------------------------

CALENDAR_COLUMNS = {"id": "int", "ts": "timestamp"}


def calendar_rows(spark, renderer, instants, unit, zone, dates=None, offset=None) -> dict[int, tuple]:
    """{id: (time, window_start, window_end, window_time)} in microseconds, from Spark; with a
    dict `dates`, each row's window_date (a datetime.date) is put in it by id."""
    view = load_rows(spark, CALENDAR_COLUMNS, list(enumerate(instants)))
    sql = renderer.call("calendar_window", view, "ts", unit, zone, offset)
    query = (
        f"select id, unix_micros(ts), unix_micros(window_start), unix_micros(window_end), "
        f"unix_micros(window_time), window_date from {sql}"
    )
    rows = spark.sql(query).collect()
    if dates is not None:
        dates.update({row[0]: row[5] for row in rows})
    return {row[0]: tuple(row[1:5]) for row in rows}


def assert_calendar_matches_model(spark, renderer, instants, unit, zone, offset_minutes=0):
    dates = {}
    offset = f"{offset_minutes} minutes" if offset_minutes else None
    actual = calendar_rows(spark, renderer, instants, unit, zone, dates, offset)
    offset_us = offset_minutes * 60_000_000
    expected = {
        index: (time, *ref.calendar_window(time, unit, zone, offset_us))
        for index, time in enumerate(instants)
        if time is not None
    }
    assert actual == expected
    # window_date: the local date the period begins on, from the model's walk over periods
    expected_dates = {
        index: ref.calendar_period(time, unit, zone, offset_us)
        for index, time in enumerate(instants)
        if time is not None
    }
    assert dates == expected_dates
    return actual


def around(day_start: int, day_end: int) -> list:
    """Instants that probe a day: its bounds +/- 1 microsecond, every hour, and a NULL."""
    probes = [day_start - 1, day_start, day_start + 1, day_end - 1, day_end, day_end + 1]
    probes += list(range(day_start - 2 * HOUR, day_end + 2 * HOUR, HOUR // 2))
    return probes + [None]


@pytest.mark.parametrize("zone, day, start, hours", DST_DAYS, ids=lambda v: str(v))
def test_calendar_days_around_dst_changes_match_zoneinfo(spark, renderer, zone, day, start, hours):
    day_start, day_end = utc(start), utc(start) + hours * HOUR
    actual = assert_calendar_matches_model(spark, renderer, around(day_start, day_end), "day", zone)
    # the day itself is 23, 24 or 25 hours long, and the days before and after touch it
    windows = sorted({row[1:3] for row in actual.values()})
    assert (day_start, day_end) in windows
    for (_, end), (next_start, _) in zip(windows, windows[1:]):
        assert end == next_start


def test_calendar_month_february_2024_in_tokyo(spark, renderer):
    start, end = utc("2024-01-31 15:00"), utc("2024-02-29 15:00")
    instants = [start - 1, start, start + 1, utc("2024-02-29 12:00"), end - 1, end, None]
    actual = assert_calendar_matches_model(spark, renderer, instants, "month", "Asia/Tokyo")
    assert actual[1][1:] == (start, end, end - 1)
    assert actual[0][1:3] == (utc("2023-12-31 15:00"), start)
    assert actual[5][1] == end
    assert 6 not in actual, "a NULL time belongs to no window"


def test_calendar_iso_week_crossing_a_month_and_the_end_of_dst(spark, renderer):
    # Monday 2024-10-28 00:00 EDT to Monday 2024-11-04 00:00 EST: 7 days and 1 hour
    start, end = utc("2024-10-28 04:00"), utc("2024-11-04 05:00")
    instants = [
        start - 1,
        start,
        utc("2024-10-31 23:00"),
        utc("2024-11-03 05:30"),
        utc("2024-11-03 06:30"),
        end - 1,
        end,
    ]
    actual = assert_calendar_matches_model(spark, renderer, instants, "week", "America/New_York")
    assert [actual[i][1:3] for i in range(1, 6)] == [(start, end)] * 5
    assert end - start == (7 * 24 + 1) * HOUR
    assert actual[0][2] == start and actual[6][1] == end


def long_autumn_days(zone: str, years) -> list[dt.date]:
    """The days of October and November that last more than 24 hours in the model, one a year
    (26 hours in St_Johns and Goose_Bay in 1988, when the clocks went back two hours)."""
    days = []
    for year in years:
        for offset in range(61):
            day = dt.date(year, 10, 1) + dt.timedelta(days=offset)
            if ref.day_start(day + dt.timedelta(days=1), zone) - ref.day_start(day, zone) > 24 * HOUR:
                days.append(day)
    return days


@pytest.mark.parametrize(
    "zone, years",
    [
        ("America/St_Johns", range(1987, 2011)),
        ("America/Goose_Bay", range(1988, 2011)),
        ("America/Moncton", range(1993, 2007)),
    ],
)
def test_calendar_days_where_the_clocks_go_back_across_midnight_every_autumn(spark, renderer, zone, years):
    days = long_autumn_days(zone, years)
    assert len(days) == len(years)
    instants = []
    for day in days:
        start = ref.day_start(day, zone)
        instants += around(start, ref.day_start(day + dt.timedelta(days=1), zone))[:-1]
        # the hour whose local date is the day before: 00:01 back to 23:01
        assert ref.local_date(start + HOUR // 2, zone) < day
    for unit in ("day", "week"):
        assert_calendar_matches_model(spark, renderer, instants, unit, zone)


ZONES = [
    "UTC",
    "America/New_York",
    "Australia/Sydney",
    "Europe/Berlin",
    "Asia/Tokyo",
    "America/Santiago",
    "Asia/Beirut",
    "Asia/Kolkata",
    "Australia/Lord_Howe",
    "Pacific/Chatham",
    "America/St_Johns",
    "America/Goose_Bay",
    "America/Toronto",
    "Antarctica/Casey",
]
# The JDK's tz data (2026f here) and the system's, which zoneinfo reads (2025b here), give the
# same local midnight for every day from 1900 to 2100 in these zones, so no zone needs a
# narrower range; where the two disagree (other zones, or other versions), restrict that zone.
RANGE = (utc("1900-01-01 00:00"), utc("2100-12-31 00:00"))


@st.composite
def calendar_case(draw):
    """A zone, a unit and up to 15 instants: random ones, and local midnights +/- 1 microsecond
    or an hour (where the clocks go back across midnight, the hour after it)."""
    zone = draw(st.sampled_from(ZONES))
    unit = draw(st.sampled_from(ref.UNITS))
    anchor = draw(st.integers(*RANGE))
    near = st.builds(
        lambda days, delta: ref.day_start(ref.local_date(anchor, zone) + dt.timedelta(days=days), zone) + delta,
        st.integers(-40, 40),
        st.sampled_from([-1, 0, 1, HOUR - 1, HOUR, -HOUR]),
    )
    instants = draw(st.lists(st.one_of(st.none(), st.integers(*RANGE), near), min_size=1, max_size=15))
    return zone, unit, instants


@PROPERTY_SETTINGS
@given(case=calendar_case())
def test_calendar_window_matches_zoneinfo_on_random_instants(spark, renderer, case):
    zone, unit, instants = case
    assert_calendar_matches_model(spark, renderer, instants, unit, zone)


@settings(PROPERTY_SETTINGS, max_examples=40)
@given(case=calendar_case(), offset_minutes=st.sampled_from([-150, -60, 30, 120, 360, 1439, -1439]))
def test_calendar_window_with_an_offset_matches_zoneinfo(spark, renderer, case, offset_minutes):
    """Periods that begin at a wall-clock time other than midnight, read by the same rule."""
    zone, unit, instants = case
    assert_calendar_matches_model(spark, renderer, instants, unit, zone, offset_minutes)


def test_calendar_days_from_two_in_the_morning_across_the_spring_change_in_new_york(spark, renderer):
    """By hand: with offset '2 hours', 2024-03-10 begins at 02:00 EST = 07:00 UTC, and, 02:00 not
    existing that day, 2024-03-10's day runs to 2024-03-11 02:00 EDT = 06:00 UTC: 23 hours."""
    rows = calendar_rows(
        spark,
        renderer,
        [utc("2024-03-10 06:59:59"), utc("2024-03-10 07:00:00")],
        "day",
        "America/New_York",
        None,
        "2 hours",
    )
    assert rows[0][1:3] == (utc("2024-03-09 07:00"), utc("2024-03-10 07:00"))
    assert rows[1][1:3] == (utc("2024-03-10 07:00"), utc("2024-03-11 06:00"))


FIXED_OFFSETS = [
    ("Z", 0),
    ("+08:00", 8 * 60),
    ("-05:30", -(5 * 60 + 30)),
    ("+0530", 5 * 60 + 30),
    ("+8", 8 * 60),
    ("-08", -8 * 60),
    ("+8:00", 8 * 60),
    ("+18:00", 18 * 60),
    ("UTC+8", 8 * 60),
    ("UTC-05:30", -(5 * 60 + 30)),
    ("GMT+01:00", 60),
    ("UT-3", -3 * 60),
    ("Etc/GMT-14", 14 * 60),
]


@pytest.mark.parametrize("zone, minutes", FIXED_OFFSETS, ids=[zone for zone, _ in FIXED_OFFSETS])
def test_calendar_window_reads_fixed_offsets_as_the_compile_time_check_accepts_them(spark, renderer, zone, minutes):
    # 2024-06-15 12:00 UTC: the local day begins at its UTC midnight minus the offset
    noon = utc("2024-06-15 12:00")
    local_day = (dt.datetime(2024, 6, 15, 12) + dt.timedelta(minutes=minutes)).date()
    start = utc(local_day.isoformat() + " 00:00") - minutes * 60_000_000
    assert calendar_rows(spark, renderer, [noon], "day", zone) == {
        0: (noon, start, start + 24 * HOUR, start + 24 * HOUR - 1)
    }


def test_spark_reads_every_zone_the_compile_time_check_takes_from_pytz(spark):
    # calendar_window accepts the names pytz lists but ROC; Spark's JDK tz data must know each
    import pytz

    zones = sorted(zone for zone in pytz.all_timezones if zone != "ROC")
    names = ", ".join(f"('{zone}')" for zone in zones)
    rows = spark.sql(f"select count(from_utc_timestamp(timestamp_micros(0), z)) from values {names} as t(z)").collect()
    assert rows[0][0] == len(zones)
    with pytest.raises(Exception, match="INVALID_TIMEZONE"):
        spark.sql("select from_utc_timestamp(timestamp_micros(0), 'ROC')").collect()
