"""Slow tests of windows on wall-clock time: `time_zone` against Apache Flink 2.3's windows on a
TIMESTAMP_LTZ time attribute (tests/fixtures/flink_time_zones, written by
scripts/flink_time_zone_fixtures.py: days that cross both daylight-saving changes of New York and
Berlin), and timestamp_ntz time columns against Spark's own window() and the Python model. Each
runs under two session time zones, UTC and Asia/Kathmandu (+05:45): neither may change a window.
"""

from __future__ import annotations

import csv
import datetime
from collections import defaultdict
from pathlib import Path

import pytest
import reference_firings
import reference_more_windows as more
import reference_windows as ref
from pyspark.sql.types import TimestampNTZType, TimestampType
from spark_views import temp_view

from dev.macro_renderer import Relation

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "flink_time_zones"
SESSION_ZONES = ["UTC", "Asia/Kathmandu"]
EVENTS = "__sw_zone_events"

# each Flink case as the macros' arguments: (macro, arguments after time_col)
CALLS = {
    "tumble_1d": ("tumble", ("1 day",)),
    "tumble_6h_offset_1h": ("tumble", ("6 hours", "1 hour")),
    "hop_12h_1d": ("hop", ("12 hours", "1 day")),
    "cumulate_1h_1d": ("cumulate", ("1 hour", "1 day")),
    "hop_7m_10m": ("hop", ("7 minutes", "10 minutes")),
    "hop_2h_5h": ("hop", ("2 hours", "5 hours")),
    "hop_2h_1h_gaps": ("hop", ("2 hours", "1 hour")),
}
WINDOW_DICTS = {
    "tumble": lambda a: {"type": "tumble", "size": a[0], **({"offset": a[1]} if len(a) > 1 else {})},
    "hop": lambda a: {"type": "hop", "slide": a[0], "size": a[1], "allow_gaps": a == ("2 hours", "1 hour")},
    "cumulate": lambda a: {"type": "cumulate", "step": a[0], "size": a[1]},
}


def wall_us(text: str) -> int:
    """Microseconds since 1970-01-01 00:00 of a wall-clock time written as text (no zone)."""
    return (datetime.datetime.fromisoformat(text) - datetime.datetime(1970, 1, 1)) // datetime.timedelta(microseconds=1)


def flink_rows() -> dict[tuple[str, str], list[tuple]]:
    """(case, zone) -> sorted (k, window_start, window_end (wall-clock microseconds), the window's
    end instant in seconds, n, total)."""
    rows = defaultdict(list)
    with (FIXTURES / "flink_results.csv").open() as f:
        for row in csv.DictReader(f):
            rows[(row["case"], row["time_zone"])].append(
                (
                    row["k"],
                    wall_us(row["window_start"]),
                    wall_us(row["window_end"]),
                    int(row["window_end_s"]),
                    int(row["n"]),
                    int(row["total"]),
                )
            )
    return {key: sorted(value) for key, value in rows.items()}


FLINK = flink_rows()


@pytest.fixture(params=SESSION_ZONES)
def session_zone(request, spark):
    before = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", request.param)
    try:
        yield request.param
    finally:
        spark.conf.set("spark.sql.session.timeZone", before)


@pytest.fixture
def events(spark):
    schema = "k string, ts_ms bigint, v int"
    rows = spark.read.csv(str(FIXTURES / "events.csv"), header=True, schema=schema)
    rows.selectExpr("k", "timestamp_millis(ts_ms) as ts", "v").createOrReplaceTempView(EVENTS)
    return EVENTS


def wall_clock_us(column: str) -> str:
    """A timestamp_ntz as wall-clock microseconds since 1970-01-01 00:00, read field by field.
    Not timestampdiff from a timestamp_ntz epoch: Spark 4.3 reads that in the session time zone,
    and a wall-clock time the zone skips comes out shifted (in Asia/Kathmandu, 1986-01-01 00:00
    to 00:15, when the offset went from +05:30 to +05:45, is 15 minutes later)."""
    return (
        f"(cast(unix_date(cast({column} as date)) as bigint) * 86400000000 + cast(hour({column}) as bigint) * 3600000000"
        f" + cast(minute({column}) as bigint) * 60000000 + cast(extract(second from {column}) * 1000000 as bigint))"
    )


def bound_us(column: str, wall_clock: bool) -> str:
    """A window bound as microseconds: wall-clock ones for timestamp_ntz, else the instant's."""
    return wall_clock_us(column) if wall_clock else f"unix_micros({column})"


def windows(spark, sql: str, wall_clock: bool) -> list[tuple]:
    """The windows of a table-valued macro's rows as Flink's rows are read."""
    result = spark.sql(
        f"select k, {bound_us('window_start', wall_clock)}, {bound_us('window_end', wall_clock)}, "
        f"(unix_micros(window_time) + 1) div 1000000, count(*), sum(v) "
        f"from {sql} group by k, window_start, window_end, window_time"
    ).collect()
    return sorted(tuple(row) for row in result)


def aggregated(spark, sql: str, wall_clock: bool) -> list[tuple]:
    result = spark.sql(
        f"select k, {bound_us('window_start', wall_clock)}, {bound_us('window_end', wall_clock)}, "
        f"(unix_micros(window_time) + 1) div 1000000, n, total from {sql}"
    )
    return sorted(tuple(row) for row in result.collect())


@pytest.mark.parametrize("case, zone", sorted(FLINK), ids=lambda v: str(v))
def test_zoned_windows_equal_flinks_timestamp_ltz_windows(spark, renderer, events, session_zone, case, zone):
    """In UTC, the hops run without time_zone: instants, shown in UTC, are Flink's wall-clock
    values there."""
    macro, args = CALLS[case]
    time_zone = None if zone == "UTC" and case.startswith("hop_") else zone
    kwargs = {"time_zone": time_zone} if time_zone else {}
    gaps = {"allow_gaps": True} if case.endswith("_gaps") else {}
    sql = renderer.call(macro, events, "ts", *args, **gaps, **kwargs)
    assert windows(spark, sql, wall_clock=time_zone is not None) == FLINK[(case, zone)]
    if time_zone:
        types = {f.name: f.dataType for f in spark.sql(f"select * from {sql}").schema.fields}
        assert types["window_start"] == types["window_end"] == TimestampNTZType()
        assert types["window_time"] == TimestampType()

    aggregates = {"n": "count(*)", "total": "sum(v)"}
    grouped = renderer.call("window_aggregate", events, "ts", WINDOW_DICTS[macro](args), ["k"], aggregates, **kwargs)
    assert aggregated(spark, grouped, wall_clock=time_zone is not None) == FLINK[(case, zone)]


def test_the_fixture_crosses_both_changes_in_both_zones():
    """A day of 23 hours and one of 25 in each zone: the fixture tests what it says it does."""
    for zone in ["America/New_York", "Europe/Berlin"]:
        ends = sorted({(start, end_s) for _, start, _, end_s, _, _ in FLINK[("tumble_1d", zone)]})
        day = 24 * 3600 * 1_000_000
        lengths = {
            (end_s - previous_end_s) // 3600
            for (previous, previous_end_s), (start, end_s) in zip(ends, ends[1:])
            if start - previous == day
        }
        assert {23, 24, 25} <= lengths, (zone, lengths)


# --- timestamp_ntz time columns -----------------------------------------------------------------

MINUTE = 60_000_000


def ntz_us(text: str) -> int:
    return wall_us(text)


NTZ_ROWS = [  # (k, wall-clock microseconds since 1970-01-01 00:00, v)
    ("a", ntz_us("1970-01-01 00:00:00"), 1),
    ("a", ntz_us("1970-01-01 20:59:00"), 2),
    ("b", ntz_us("1970-01-01 23:59:59.999999"), 3),
    ("b", ntz_us("1970-01-02 00:00:00"), 4),
    ("a", ntz_us("1969-12-31 23:55:00"), 5),
    ("b", ntz_us("2024-03-10 02:30:00"), 6),  # no such instant in New York
    ("a", ntz_us("2024-03-31 02:15:00"), 7),  # nor in Berlin
    ("a", ntz_us("2023-11-05 01:30:00"), 8),  # twice in New York
    ("a", None, 9),
]


@pytest.fixture
def ntz_events(spark):
    name = "__sw_ntz_events"
    temp_view(spark, name + "_raw", {"k": "string", "us": "bigint", "v": "int"}, NTZ_ROWS)
    spark.sql(
        f"create or replace temp view {name} as select k, "
        f"timestampadd(MICROSECOND, us, cast('1970-01-01 00:00:00' as timestamp_ntz)) as ts, v from {name}_raw"
    )
    return Relation(name, [("k", "string"), ("ts", "timestamp_ntz"), ("v", "int")])


def ntz_windows(spark, sql: str) -> list[tuple]:
    result = spark.sql(
        f"select k, {wall_clock_us('window_start')}, {wall_clock_us('window_end')}, "
        f"count(*), count(v), sum(v), min(v), max(v) from {sql} group by k, window_start, window_end"
    )
    return sorted((tuple(row) for row in result.collect()), key=repr)


NTZ_CALLS = [
    ("tumble", ("1 day",), lambda rows: ref.tumble(rows, 24 * 60 * MINUTE)),
    ("tumble", ("1 hour", "15 minutes"), lambda rows: ref.tumble(rows, 60 * MINUTE, 15 * MINUTE)),
    ("hop", ("6 hours", "1 day"), lambda rows: ref.hop(rows, 6 * 60 * MINUTE, 24 * 60 * MINUTE)),
    ("cumulate", ("1 hour", "1 day"), lambda rows: ref.cumulate(rows, 60 * MINUTE, 24 * 60 * MINUTE)),
]


@pytest.mark.parametrize("macro, args, model", NTZ_CALLS, ids=lambda v: str(v))
def test_timestamp_ntz_windows_are_wall_clock_whatever_the_session_zone(
    spark, renderer, ntz_events, session_zone, macro, args, model
):
    expected = sorted(ref.aggregate(model(NTZ_ROWS)), key=repr)
    sql = renderer.call(macro, ntz_events, "ts", *args)
    assert ntz_windows(spark, sql) == expected
    types = {f.name: f.dataType for f in spark.sql(f"select * from {sql}").schema.fields}
    assert types["window_start"] == types["window_end"] == types["window_time"] == TimestampNTZType()
    assert (
        spark.sql(f"select count_if(window_time != window_end - interval 0.000001 second) from {sql}").first()[0] == 0
    )

    aggregates = {"cnt": "count(*)", "cnt_v": "count(v)", "total": "sum(v)", "mn": "min(v)", "mx": "max(v)"}
    grouped = renderer.call("window_aggregate", ntz_events, "ts", WINDOW_DICTS[macro](args), ["k"], aggregates)
    actual = spark.sql(
        f"select k, {wall_clock_us('window_start')}, {wall_clock_us('window_end')}, "
        f"{', '.join(aggregates)} from {grouped}"
    ).collect()
    assert sorted((tuple(row) for row in actual), key=repr) == expected

    if macro != "cumulate":  # Spark's window() on the same timestamp_ntz column
        size, slide = (args[0], args[0]) if macro == "tumble" else (args[1], args[0])
        start = args[1] if macro == "tumble" and len(args) > 1 else "0 seconds"
        spark_window = (
            f"(select *, w.start as window_start, w.end as window_end from (select *, "
            f"window(ts, '{size}', '{slide}', '{start}') as w from {ntz_events} where ts is not null))"
        )
        assert ntz_windows(spark, spark_window) == expected


def test_timestamp_ntz_sessions_of_window_aggregate_are_wall_clock(spark, renderer, ntz_events, session_zone):
    aggregates = {"cnt": "count(*)", "cnt_v": "count(v)", "total": "sum(v)", "mn": "min(v)", "mx": "max(v)"}
    grouped = renderer.call(
        "window_aggregate", ntz_events, "ts", {"type": "session", "gap": "3 hours"}, ["k"], aggregates
    )
    actual = spark.sql(
        f"select k, {wall_clock_us('window_start')}, {wall_clock_us('window_end')}, "
        f"{', '.join(aggregates)} from {grouped}"
    ).collect()
    assert sorted((tuple(row) for row in actual), key=repr) == sorted(
        ref.aggregate(ref.session(NTZ_ROWS, 3 * 60 * MINUTE)), key=repr
    )


@pytest.mark.parametrize("gap", ["3 hours", "coalesce(interval 3 hours, interval 1 hour)"])
def test_timestamp_ntz_sessions_are_wall_clock_and_equal_sparks_session_window(
    spark, renderer, ntz_events, session_zone, gap
):
    """The session macro, with a fixed gap and a per-row one (an expression), against the Python
    model and Spark's own session_window() on the same timestamp_ntz column."""
    expected = sorted(ref.aggregate(ref.session(NTZ_ROWS, 3 * 60 * MINUTE)), key=repr)
    sql = renderer.call("session", ntz_events, "ts", gap, ["k"])
    assert ntz_windows(spark, sql) == expected
    types = {f.name: f.dataType for f in spark.sql(f"select * from {sql}").schema.fields}
    assert types["window_start"] == types["window_end"] == types["window_time"] == TimestampNTZType()
    # session_window() merges rows into sessions only as a GROUP BY key
    by_spark = spark.sql(
        f"select k, {wall_clock_us('session_window.start')}, "
        f"{wall_clock_us('session_window.end')}, count(*), count(v), sum(v), min(v), max(v) "
        f"from {ntz_events} where ts is not null group by k, session_window(ts, '3 hours')"
    ).collect()
    assert sorted((tuple(row) for row in by_spark), key=repr) == expected


@pytest.mark.parametrize(
    "unit, offset",
    [("day", None), ("day", "6 hours"), ("day", "-2 hours"), ("week", None), ("month", None), ("year", "1 hour")],
)
def test_timestamp_ntz_calendar_periods_are_those_of_the_wall_clock(
    spark, renderer, ntz_events, session_zone, unit, offset
):
    """A timestamp_ntz column's periods are those of its own wall clock: the zoneinfo model in
    UTC (no clock change) over the wall-clock microseconds, whatever the session zone; the
    wall-clock times New York and Berlin skip or repeat are ordinary times here."""
    offset_us = {None: 0, "6 hours": 6 * 60 * MINUTE, "-2 hours": -2 * 60 * MINUTE, "1 hour": 60 * MINUTE}[offset]
    expected = []
    for k, us, v in NTZ_ROWS:
        if us is not None:
            start, end, time = more.calendar_window(us, unit, "UTC", offset_us)
            expected.append((k, v, start, end, time, more.calendar_period(us, unit, "UTC", offset_us)))
    sql = renderer.call("calendar_window", ntz_events, "ts", unit, offset=offset)
    actual = spark.sql(
        f"select k, v, {bound_us('window_start', True)}, {bound_us('window_end', True)}, "
        f"{bound_us('window_time', True)}, window_date from {sql}"
    ).collect()
    assert sorted((tuple(row) for row in actual), key=repr) == sorted(expected, key=repr)
    types = {f.name: f.dataType for f in spark.sql(f"select * from {sql}").schema.fields}
    assert types["window_start"] == types["window_end"] == types["window_time"] == TimestampNTZType()


HOUR = 60 * MINUTE
DAY = 24 * HOUR
# (window, trigger) as the macro takes them, then as the Flink simulation takes them
NTZ_FIRINGS = [
    ({"type": "tumble", "size": "1 day"}, {"every": "6 hours"}, {"type": "tumble", "size": DAY}, ("every", 6 * HOUR)),
    (
        {"type": "hop", "slide": "12 hours", "size": "1 day"},
        {"every_rows": 2},
        {"type": "hop", "slide": 12 * HOUR, "size": DAY},
        ("every_rows", 2),
    ),
    ({"type": "session", "gap": "3 hours"}, None, {"type": "session", "gap": 3 * HOUR}, None),
    ({"type": "global"}, {"every": "1 day"}, {"type": "global"}, ("every", DAY)),
]


@pytest.mark.parametrize("window, trigger, model_window, model_trigger", NTZ_FIRINGS, ids=lambda v: str(v))
def test_timestamp_ntz_firings_are_wall_clock_whatever_the_session_zone(
    spark, renderer, ntz_events, session_zone, window, trigger, model_window, model_trigger
):
    """window_firings over a timestamp_ntz column: windows, timers and fired_at of its wall-clock
    time (timestamp_ntz), as the Flink simulation computes them on the wall-clock microseconds."""
    rows = [{"k": k, "ts": us, "v": v} for k, us, v in NTZ_ROWS]
    firings = reference_firings.simulate(
        rows,
        model_window,
        model_trigger,
        False,
        None,
        lambda members: {"n": len(members), "total": sum(r["v"] for r in members)},
        key_of=lambda r: r["k"],
        time_of=lambda r: r["ts"],
        text_of=repr,  # no two rows of a key share a time
    )
    expected = sorted(
        (
            (
                f["key"],
                f["window_start"],
                f["window_end"],
                f["firing"],
                f["fired_at"],
                f["is_final"],
                f["n"],
                f["total"],
            )
            for f in firings
        ),
        key=repr,
    )
    sql = renderer.call(
        "window_firings", ntz_events, "ts", window, ["k"], {"n": "count(*)", "total": "sum(v)"}, trigger
    )
    is_global = window["type"] == "global"
    bounds = "null, null" if is_global else f"{bound_us('window_start', True)}, {bound_us('window_end', True)}"
    actual = spark.sql(
        f"select k, {bounds}, firing, {bound_us('fired_at', True)}, is_final, n, total from {sql}"
    ).collect()
    assert sorted((tuple(row) for row in actual), key=repr) == expected
    types = {f.name: f.dataType for f in spark.sql(f"select * from {sql}").schema.fields}
    assert types["fired_at"] == TimestampNTZType()
    if not is_global:
        assert types["window_start"] == types["window_end"] == TimestampNTZType()
