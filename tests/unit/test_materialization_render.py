"""Fast tests: the windowed_incremental materialization's own body, rendered with plain Jinja and
a stubbed dbt context (tests/unit/test_incremental_render.py checks the building blocks it calls).

A model's config is checked first: a bad one is refused with every problem in one message
before any hook, query or statement runs.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from fake_dbt import Config

from dev.macro_renderer import CompilerError, MacroRenderer

pytestmark = pytest.mark.fast

GOOD = {
    "time_col": "reading_ts",
    "ingestion_time_col": "ingested_at",
    "window": {"type": "tumble", "size": "1 minute"},
    "group_by": ["sensor_id"],
    "aggregates": {"vehicles": "sum(car_count)"},
    "watermark_delay": "5 minutes",
}


def dbt_context(values: dict, calls: list[str]) -> dict:
    """What dbt gives a materialization; each function and `this` only records that it was used."""

    def recorder(name):
        def record(*args, **kwargs):
            calls.append(name)

        return record

    names = ["run_query", "statement", "run_hooks", "should_full_refresh", "apply_grants", "persist_docs"]
    context = {name: recorder(name) for name in names}
    this = type("Relation", (), {"incorporate": recorder("this.incorporate"), "identifier": "sensor_vehicles"})()
    return {**context, "config": Config(values), "this": this, "sql": "select 1", "pre_hooks": [], "post_hooks": []}


@pytest.mark.parametrize(
    "changes, problems",
    [
        (
            {"time_col": None, "watermark_delay": None},
            [
                "windowed_incremental: time_col (None) must be a column name",
                "windowed_incremental: watermark_delay is missing",
            ],
        ),
        ({"file_format": "delta"}, ["windowed_incremental: file_format ('delta') is not supported"]),
        (
            {"window": {"type": "hop", "slide": "7 minutes", "size": "1 hour"}, "emit": "upserts"},
            [
                "windowed_incremental (hop window): size ('1 hour') must be a whole multiple of slide ('7 minutes')",
                "windowed_incremental: emit ('upserts') must be 'changelog' or left out",
            ],
        ),
    ],
    ids=repr,
)
def test_a_bad_config_is_refused_with_every_problem_before_anything_runs(renderer, changes, problems):
    values = {key: value for key, value in {**GOOD, **changes}.items() if value is not None}
    calls = []
    with pytest.raises(CompilerError) as error:
        renderer.materialization("windowed_incremental", **dbt_context(values, calls))
    heading, *reported = str(error.value).split("\n- ")
    count = f"{len(problems)} problem{'s' if len(problems) > 1 else ''}"
    assert heading == f"windowed_incremental: {count} in the model's config; nothing was run:"
    assert len(reported) == len(problems)
    for problem, start in zip(reported, problems):
        assert problem.startswith(start), (problem, start)
    assert calls == [], "nothing may run before the config is checked"


def test_the_materialization_is_registered_for_spark_only(renderer):
    assert [name for name in renderer.materializations if "windowed_incremental" in name] == [
        "materialization_windowed_incremental_spark"
    ]


DAY_US = 24 * 3600 * 1_000_000
# what a run asks its Spark session first (_sw_incremental_check_session)
SESSION_QUERY = "select current_timezone() as time_zone, version() as release"


@pytest.mark.parametrize(
    "zone, partition_size, refused",
    [
        ("America/New_York", "1 hour", True),  # 01:00 to 02:00 occurs twice each November
        ("Europe/Berlin", "15 minutes", True),
        ("Australia/Sydney", "6 hours", True),  # its clocks go back in April
        ("America/New_York", "1 day", False),
        ("Asia/Kolkata", "1 hour", False),  # no daylight saving time
        ("Asia/Kathmandu", "1 minute", False),
        ("+02:00", "1 hour", False),  # a fixed offset, which pytz does not name
        ("UTC", "1 minute", False),
    ],
)
def test_partitions_shorter_than_a_day_are_refused_in_a_zone_whose_clocks_go_back(zone, partition_size, refused):
    """Partition folders are named by their start in the session zone: where an hour occurs twice,
    a partition starting in its second occurrence reads back as the first, and two can take one
    name."""
    renderer = MacroRenderer()
    renderer.env.globals["run_query"] = lambda sql: SimpleNamespace(
        rows=[(zone, "4.3.0 abc")] if sql == SESSION_QUERY else []
    )
    cfg = renderer.macros["_sw_incremental_config"](Config({**GOOD, "partition_size": partition_size}))
    check = renderer.macros["_sw_incremental_check_session"]
    if not refused:
        # the zone the commit stores (_sw_incremental_check_stored_zone)
        assert check(cfg, "select * from clicks") == {"time_zone": zone, "scripts": True}
        return
    with pytest.raises(CompilerError) as error:
        check(cfg, "select * from clicks")
    assert str(error.value).startswith(
        f"windowed_incremental: partition_size ({partition_size}) is shorter than a day and the Spark session time zone "
        f"is {zone}, whose clocks change for daylight saving time"
    )
    assert "Set spark.sql.session.timeZone to UTC" in str(error.value)


@pytest.mark.parametrize(
    "time_type, zone, refused",
    [
        ("timestamp", "Asia/Kathmandu", False),
        ("timestamp_ntz", "UTC", False),
        ("timestamp_ntz", "Etc/UTC", False),
        ("timestamp_ntz", "Asia/Kathmandu", True),
        ("timestamp_ntz", "America/New_York", True),
    ],
)
def test_a_timestamp_ntz_time_column_is_read_only_in_a_utc_session(time_type, zone, refused):
    """The session zone is asked first; the model's SQL is typed by Spark (DESCRIBE QUERY) only in
    a zone other than UTC, where a timestamp_ntz time column is refused."""
    asked = []

    def run_query(sql):
        asked.append(sql)
        if sql == "describe query select * from (select * from clicks) as __sw_source":
            return SimpleNamespace(rows=[("page", "string", None), ("Click_TS", time_type, None)])
        if sql == SESSION_QUERY:
            return SimpleNamespace(rows=[(zone, "3.5.8 abc")])
        raise AssertionError(sql)

    renderer = MacroRenderer()  # its own: the stubbed run_query must not reach other tests
    renderer.env.globals["run_query"] = run_query
    cfg = {**GOOD, "time_col": "e.`click_ts`", "partition_us": DAY_US, "sql_scripts": True}  # on Spark 3.5: no scripts
    check = renderer.macros["_sw_incremental_check_session"]
    if not refused:
        assert check(cfg, "select * from clicks") == {"time_zone": zone, "scripts": False}
        assert asked[0] == SESSION_QUERY
        assert len(asked) == (1 if zone in ("UTC", "Etc/UTC") else 2)
        return
    with pytest.raises(CompilerError) as error:
        check(cfg, "select * from clicks")
    assert str(error.value).startswith(
        f"windowed_incremental: time_col (e.`click_ts`) is of type timestamp_ntz and the Spark session time zone is {zone}: "
        "the runs window instants"
    )
    assert "Set spark.sql.session.timeZone to UTC" in str(error.value)
