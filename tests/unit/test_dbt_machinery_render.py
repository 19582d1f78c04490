"""Fast tests: the macros inside dbt's own machinery, rendered without Spark.

- A ref() that dbt filters (microbatch's event_time range, --sample) or limits (--empty) renders
  as a subquery: the macros look its columns up through the table behind it and read it as dbt
  rendered it.
- Time columns: a known column that is not a timestamp (or timestamp_ntz, or date) is a compile
  error naming it, its type and the cast to write; every time value is checked when the query
  runs (_sw_ts), so a value that does not convert fails the run instead of giving a NULL window.
- In a microbatch model's batch, the window macros read their input from the batch's start to
  its end plus the longest window, and keep the windows that start in the batch; what cannot be
  computed batch by batch is refused.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from dev.macro_renderer import CompilerError, MacroRenderer, Relation, parse_relation

pytestmark = pytest.mark.fast

CLICKS_COLUMNS = [
    ("user_id", "string"),
    ("event_ts", "timestamp"),
    ("event_type", "string"),
    ("amount", "decimal(10,2)"),
    ("event_day", "date"),
    ("local_ts", "timestamp_ntz"),
]
CLICKS = Relation("analytics.clicks", CLICKS_COLUMNS)
# what dbt renders for a ref() of it under microbatch or --sample, and under --empty
FILTERED = CLICKS.incorporate(
    event_time_filter={
        "field_name": "event_ts",
        "start": "2024-11-02 00:00:00+00:00",
        "end": "2024-11-03 00:00:00+00:00",
    }
)
EMPTY = CLICKS.incorporate(limit=0)
HOUR_US = 3_600_000_000
DAY_US = 24 * HOUR_US
BATCH_START_US = 1_730_505_600_000_000  # 2024-11-02 00:00:00 UTC
BATCH_END_US = BATCH_START_US + DAY_US

# every public macro that takes a time column, called with time column `ts`
TIME_CALLS = {
    "tumble": lambda relation, ts: ("tumble", relation, ts, "1 hour"),
    "hop": lambda relation, ts: ("hop", relation, ts, "5 minutes", "1 hour"),
    "cumulate": lambda relation, ts: ("cumulate", relation, ts, "15 minutes", "1 hour"),
    "session": lambda relation, ts: ("session", relation, ts, "30 minutes", ["user_id"]),
    "calendar_window": lambda relation, ts: ("calendar_window", relation, ts, "day"),
    "window_aggregate": lambda relation, ts: (
        "window_aggregate",
        relation,
        ts,
        {"type": "hop", "slide": "5 minutes", "size": "1 hour"},
        ["user_id"],
        {"n": "count(*)"},
    ),
}


def call(renderer: MacroRenderer, name: str, relation, ts: str = "event_ts") -> str:
    macro, *args = TIME_CALLS[name](relation, ts)
    return renderer.call(macro, *args)


def batch_renderer(start_us: int = BATCH_START_US, end_us: int = BATCH_END_US) -> MacroRenderer:
    """A renderer whose `model` is in a microbatch batch, as dbt sets `model.batch`."""
    renderer = MacroRenderer()

    def at(us: int) -> datetime:
        return datetime.fromtimestamp(us / 1_000_000, tz=timezone.utc)

    renderer.env.globals["model"] = {"batch": {"event_time_start": at(start_us), "event_time_end": at(end_us)}}
    return renderer


@pytest.mark.parametrize("name", TIME_CALLS)
@pytest.mark.parametrize("relation", [FILTERED, EMPTY], ids=["filtered", "empty"])
def test_a_filtered_ref_is_described_through_its_table_and_read_as_dbt_rendered_it(name, relation):
    renderer = MacroRenderer()
    sql = call(renderer, name, relation)
    introspected = renderer.env.globals["adapter"].introspected
    assert introspected and set(introspected) == {"analytics.clicks"}, introspected
    assert f"from {relation}" in sql
    parse_relation(sql)


@pytest.mark.parametrize("name", TIME_CALLS)
def test_a_misspelled_column_of_a_filtered_ref_is_still_named(renderer, name):
    with pytest.raises(CompilerError, match=r"time_col \('event_tz'\) is not a column of .*user_id, event_ts"):
        call(renderer, name, FILTERED, "event_tz")


@pytest.mark.parametrize("name", TIME_CALLS)
@pytest.mark.parametrize(
    "column, data_type, cast",
    [
        ("event_type", "string", r"to_timestamp\(event_type, 'yyyy-MM-dd HH:mm:ss'\)"),
        ("amount", "decimal\\(10,2\\)", r"timestamp_seconds\(amount\)"),
    ],
)
def test_a_known_time_column_of_another_type_is_a_compile_error_with_the_cast_to_write(
    renderer, name, column, data_type, cast
):
    expected = (
        rf"{name}: time_col \('{column}'\) is a column of type {data_type} in analytics.clicks; .* such as {cast}"
    )
    with pytest.raises(CompilerError, match=expected):
        call(renderer, name, CLICKS, column)


@pytest.mark.parametrize("name", TIME_CALLS)
@pytest.mark.parametrize("column", ["event_ts", "event_day", "local_ts", "`EVENT_TS`"])
def test_timestamp_timestamp_ntz_and_date_columns_are_accepted(renderer, name, column):
    parse_relation(call(renderer, name, CLICKS, column))


def test_a_time_value_is_checked_when_the_query_runs(renderer):
    checked = renderer.call("_sw_ts", "event_ts")
    # the type, folded when Spark plans the query; then a value that does not convert
    assert "typeof(event_ts) not in ('timestamp', 'timestamp_ntz', 'date')" in checked
    assert "raise_error(concat('spark_windows: the time column event_ts is of type ', typeof(event_ts)" in checked
    assert "coalesce(cast(event_ts as timestamp), if(event_ts is null, null," in checked
    assert "the time column event_ts holds \\'', cast(event_ts as string)" in checked
    parse_relation(f"(select {checked} from clicks)")
    # every window macro computes its times through it, for a string relation too
    for name in TIME_CALLS:
        assert checked.split("\n")[0] in call(renderer, name, "clicks")


def test_a_quote_in_a_time_column_name_cannot_end_the_message_literal(renderer):
    checked = renderer.call("_sw_ts", "`it's`")
    assert "the time column `it\\'s` is of type" in checked
    parse_relation(f"(select {checked} from clicks)")


# --- microbatch ---------------------------------------------------------------------------------

WINDOWED = ["tumble", "hop", "cumulate", "calendar_window", "window_aggregate"]
# how far past the batch's end each reads: its longest window (a local day: two days, for any clock change)
REACH_US = {
    "tumble": HOUR_US,
    "hop": HOUR_US,
    "cumulate": HOUR_US,
    "calendar_window": 2 * DAY_US,
    "window_aggregate": HOUR_US,
}


def iso(us: int) -> str:
    return str(datetime.fromtimestamp(us / 1_000_000, tz=timezone.utc))


@pytest.mark.parametrize("name", WINDOWED)
def test_in_a_batch_a_macro_reads_past_the_batch_end_and_keeps_the_windows_that_start_in_it(name):
    sql = call(batch_renderer(), name, FILTERED)
    # dbt's filter [batch start, batch end) is replaced by [batch start, batch end + reach)
    read = (
        f"(select * from analytics.clicks where event_ts >= '{iso(BATCH_START_US)}'"
        f" and event_ts < '{iso(BATCH_END_US + REACH_US[name])}')"
    )
    assert read in sql
    assert f"'{iso(BATCH_END_US)}')" not in sql
    assert sql.rstrip().endswith(
        f"window_start >= timestamp_micros({BATCH_START_US})\n        and window_start < timestamp_micros({BATCH_END_US})\n)"
    )
    parse_relation(sql)


@pytest.mark.parametrize("name", WINDOWED)
def test_outside_a_batch_nothing_is_added(renderer, name):
    sql = call(renderer, name, CLICKS)
    assert "__sw_batch" not in sql and "window_start >= timestamp_micros" not in sql


def test_in_a_batch_the_empty_limit_is_kept_and_an_unfiltered_input_gets_the_range():
    renderer = batch_renderer()
    assert "(select * from (select * from analytics.clicks where false limit 0) where event_ts >= " in call(
        renderer, "tumble", EMPTY
    )
    assert f"(select * from analytics.clicks where event_ts >= '{iso(BATCH_START_US)}'" in call(
        renderer, "tumble", CLICKS
    )


def test_in_a_batch_a_time_column_that_is_not_a_timestamp_is_compared_as_the_windows_see_it():
    renderer = batch_renderer()
    sql = call(renderer, "tumble", CLICKS, "event_day")
    assert f"(select * from analytics.clicks where {renderer.call('_sw_ts', 'event_day')} >= '" in sql


def test_in_a_batch_the_range_has_no_end_where_it_would_pass_year_9999():
    sql = batch_renderer().call("tumble", CLICKS, "event_ts", "3652059 days")
    assert f"(select * from analytics.clicks where event_ts >= '{iso(BATCH_START_US)}')" in sql


@pytest.mark.parametrize("name", WINDOWED)
@pytest.mark.parametrize("relation", ["clicks", "(select * from clicks)", Relation("__dbt__cte__clicks", is_cte=True)])
def test_in_a_batch_a_cte_query_or_ephemeral_input_is_refused(name, relation):
    with pytest.raises(CompilerError, match=rf"{name}: in a microbatch model, relation \(.*\) must be ref\('...'\)"):
        call(batch_renderer(), name, relation)


@pytest.mark.parametrize(
    "macro, args, why",
    [
        (
            "session",
            (FILTERED, "event_ts", "30 minutes", ["user_id"]),
            "a session lasts as long as its rows keep coming",
        ),
        (
            "window_aggregate",
            (FILTERED, "event_ts", {"type": "session", "gap": "30 minutes"}, ["user_id"], {"n": "count(*)"}),
            "a session lasts as long as its rows keep coming",
        ),
        ("count_window", (FILTERED, ["event_ts"], 10), "a row's number counts every row before it"),
        (
            "window_firings",
            (FILTERED, "event_ts", {"type": "tumble", "size": "1 hour"}, ["user_id"], {"n": "count(*)"}),
            "its firings are numbered over all of a window's rows",
        ),
    ],
    ids=["session", "window_aggregate session", "count_window", "window_firings"],
)
def test_in_a_batch_what_cannot_be_computed_batch_by_batch_is_refused(macro, args, why):
    expected = (
        rf"{macro}: cannot run in a microbatch model \(incremental_strategy='microbatch'\): {why}.*windowed_incremental"
    )
    with pytest.raises(CompilerError, match=expected):
        batch_renderer().call(macro, *args)
    MacroRenderer().call(macro, *args)  # and each renders outside a batch


# --- time_zone and timestamp_ntz time columns -----------------------------------------------------

ZONED_CALLS = {
    "tumble": ("tumble", "1 day"),
    "hop": ("hop", "12 hours", "1 day"),
    "cumulate": ("cumulate", "1 hour", "1 day"),
    "window_aggregate": ("window_aggregate", {"type": "tumble", "size": "1 day"}, ["user_id"], {"n": "count(*)"}),
}


@pytest.mark.parametrize("name", ZONED_CALLS)
def test_time_zone_windows_the_wall_clock_of_the_zone(renderer, name):
    macro, *args = ZONED_CALLS[name]
    sql = renderer.call(macro, CLICKS, "event_ts", *args, time_zone="America/New_York")
    parse_relation(sql)
    assert "from_utc_timestamp(" in sql and "'America/New_York')" in sql
    assert "as timestamp_ntz)) as window_start" in sql
    assert "'America/New_York') as window_time" in sql
    plain = renderer.call(macro, CLICKS, "event_ts", *args)
    assert "from_utc_timestamp(" not in plain and "timestamp_ntz)) as window_start" not in plain


@pytest.mark.parametrize("name", ZONED_CALLS)
def test_a_timestamp_ntz_column_is_windowed_on_its_wall_clock_time(renderer, name):
    macro, *args = ZONED_CALLS[name]
    sql = renderer.call(macro, CLICKS, "local_ts", *args)
    parse_relation(sql)
    assert "cast(unix_date(cast(local_ts as date)) as bigint) * 86400000000" in sql
    assert "unix_micros(case" not in sql.split("window_start")[0] or macro == "window_aggregate"
    assert "as timestamp_ntz)) as window_time" in sql
    # through a string relation the type is unknown: read as an instant, as before
    assert "timestamp_ntz)) as window_start" not in renderer.call(macro, "clicks", "local_ts", *args)


@pytest.mark.parametrize("name", ZONED_CALLS)
def test_time_zone_is_refused_with_a_timestamp_ntz_column(renderer, name):
    macro, *args = ZONED_CALLS[name]
    with pytest.raises(CompilerError) as error:
        renderer.call(macro, CLICKS, "local_ts", *args, time_zone="Europe/Berlin")
    assert str(error.value).startswith(
        f"{macro}: time_zone ('Europe/Berlin') is given, but the time column local_ts is of type timestamp_ntz"
    )


@pytest.mark.parametrize("name", ZONED_CALLS)
def test_time_zone_is_refused_in_a_microbatch_batch(name):
    macro, *args = ZONED_CALLS[name]
    with pytest.raises(
        CompilerError, match=rf"{macro}: time_zone \('Asia/Tokyo'\) cannot be used in a microbatch model"
    ):
        batch_renderer().call(macro, CLICKS, "event_ts", *args, time_zone="Asia/Tokyo")


def test_time_zone_must_be_a_zone_spark_reads(renderer):
    with pytest.raises(
        CompilerError, match=r"tumble: time_zone \('America/Gotham'\) is not a time zone Spark can read"
    ):
        renderer.call("tumble", CLICKS, "event_ts", "1 day", time_zone="America/Gotham")


def test_window_aggregate_refuses_time_zone_for_sessions(renderer):
    with pytest.raises(CompilerError, match=r"window_aggregate: time_zone \('UTC'\) is for tumble, hop and cumulate"):
        renderer.call(
            "window_aggregate", CLICKS, "event_ts", {"type": "session", "gap": "1 hour"}, [], {"n": "count(*)"}, "UTC"
        )


@pytest.mark.parametrize("gap", ["30 minutes", "coalesce(gap, interval 30 minutes)"])
def test_sessions_of_a_timestamp_ntz_column_are_wall_clock(renderer, gap):
    sql = renderer.call("session", CLICKS, "local_ts", gap, ["user_id"])
    parse_relation(sql)
    assert "cast(unix_date(cast(local_ts as date)) as bigint) * 86400000000" in sql
    assert "as timestamp_ntz)) as window_start" in sql and "as timestamp_ntz)) as window_time" in sql
    assert "as timestamp_ntz)) as window_start" not in renderer.call("session", CLICKS, "event_ts", gap, ["user_id"])


@pytest.mark.parametrize(
    "window",
    [{"type": "hop", "slide": "7 minutes", "size": "1 hour"}, {"type": "tumble", "size": "1 hour"}],
)
def test_window_aggregate_of_a_timestamp_ntz_column_runs_in_a_microbatch_batch(window):
    # the row-copy plan (a hop of no whole multiple, count(distinct a, b)) calls hop or tumble
    # over the rows window_aggregate read for the batch: they are not read again
    aggregates = {"n": "count(*)", "pairs": "count(distinct user_id, event_type)"}
    sql = batch_renderer().call("window_aggregate", CLICKS, "local_ts", window, ["user_id"], aggregates)
    parse_relation(sql)
    assert sql.count("window_start >= timestamp_micros(1730505600000000)") >= 1


def test_calendar_periods_of_a_timestamp_ntz_column_are_its_wall_clocks_and_time_zone_is_refused(renderer):
    sql = renderer.call("calendar_window", CLICKS, "local_ts", "week", offset="6 hours")
    parse_relation(sql)
    # the wall-clock date 6 hours earlier, its ISO week, bounds of type timestamp_ntz; no zone read
    assert "trunc(cast(timestampadd(MICROSECOND, -21600000000, local_ts) as date), 'WEEK') as __sw_period" in sql
    assert "as timestamp_ntz)) as window_start" in sql
    assert "to_utc_timestamp" not in sql and "from_utc_timestamp" not in sql
    # an instant column, or the same column through a string relation, is read in a zone as before
    for relation, column in [(CLICKS, "event_ts"), ("clicks", "local_ts")]:
        assert "to_utc_timestamp" in renderer.call("calendar_window", relation, column, "week", offset="6 hours")
    with pytest.raises(CompilerError) as error:
        renderer.call("calendar_window", CLICKS, "local_ts", "day", "America/New_York")
    assert str(error.value).startswith(
        "calendar_window: time_zone ('America/New_York') is given, but the time column local_ts is of type "
        "timestamp_ntz: wall-clock times without a zone, whose periods are those of their own wall clock."
    )
    assert "to_utc_timestamp(local_ts, 'America/New_York')" in str(error.value)


def test_window_firings_of_a_timestamp_ntz_column_are_wall_clock(renderer):
    window, aggregates = {"type": "tumble", "size": "1 hour"}, {"n": "count(*)"}
    sql = renderer.call("window_firings", CLICKS, "local_ts", window, ["user_id"], aggregates, {"every": "10 minutes"})
    parse_relation(sql)
    # the plan runs on the wall-clock microseconds; bounds and fired_at come back as timestamp_ntz
    assert "timestamp_micros((cast(unix_date(cast(local_ts as date)) as bigint) * 86400000000" in sql
    for column in ["window_start", "window_end", "fired_at"]:
        assert f"as timestamp_ntz)) as {column}" in sql
    plain = renderer.call(
        "window_firings", CLICKS, "event_ts", window, ["user_id"], aggregates, {"every": "10 minutes"}
    )
    assert "__sw_wall_ts" not in plain and "timestamp_ntz)) as fired_at" not in plain
