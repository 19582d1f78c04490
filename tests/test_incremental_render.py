"""Fast tests: windowed_incremental's config checks, and its SQL parses as Spark SQL (sqlglot)."""

from __future__ import annotations

import datetime

import pytest
import sqlglot
from macro_renderer import CompilerError, MacroRenderer
from sqlglot import exp

pytestmark = pytest.mark.fast

MINUTE = 60_000_000
GOOD = {
    "time_col": "reading_ts",
    "ingestion_time_col": "ingested_at",
    "window": {"type": "tumble", "size": "1 minute"},
    "group_by": ["sensor_id"],
    "aggregates": {"vehicles": "sum(car_count)", "readings": "count(*)"},
    "watermark_delay": "5 minutes",
    "allowed_lateness": "10 minutes",
}
WINDOWS = {
    "tumble": {"type": "tumble", "size": "1 minute"},
    "hop": {"type": "hop", "slide": "1 minute", "size": "5 minutes", "offset": "30 seconds"},
    "cumulate": {"type": "cumulate", "step": "1 minute", "size": "1 hour"},
}
MODEL_SQL = "select sensor_id, reading_ts, car_count, ingested_at from spark_windows.raw_sensor_readings"


class Config:
    def __init__(self, values: dict):
        self.values = values

    def get(self, key, default=None):
        return self.values.get(key, default)


class Target:
    """What the SQL builders need of a dbt relation: its rendering."""

    def __str__(self) -> str:
        return "spark_windows.sensor_vehicles"


@pytest.fixture(scope="module")
def incremental_renderer() -> MacroRenderer:
    renderer = MacroRenderer()
    renderer.env.globals["run_started_at"] = datetime.datetime(2024, 5, 1, 9, 0, tzinfo=datetime.timezone.utc)
    return renderer


def config(renderer, **changes):
    values = {key: value for key, value in {**GOOD, **changes}.items() if value is not None}
    return renderer.call("_sw_incremental_config", Config(values))


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"time_col": None}, "time_col"),
        ({"ingestion_time_col": ""}, "ingestion_time_col"),
        ({"window": {"type": "sliding", "size": "1 minute"}}, "tumble, hop, cumulate or session"),
        ({"window": {"type": "session", "gap": "10 minutes"}}, "supports tumble, hop and cumulate"),
        ({"window": {"type": "hop", "size": "1 hour"}}, "missing 'slide'"),
        ({"watermark_delay": None}, "watermark_delay is missing"),
        ({"watermark_delay": "-5 minutes"}, "must not be negative"),
        ({"allowed_lateness": "-1 minute"}, "must not be negative"),
        ({"allowed_lateness": "soon"}, "is not a duration"),
        ({"partition_size": "0 days"}, "greater than zero"),
        ({"emit": "upserts"}, "must be 'changelog'"),
        ({"aggregates": {"is_final": "count(*)"}}, "is taken by a column"),
        ({"aggregates": {"sensor_id": "count(*)"}}, "which is a group_by column"),
        ({"aggregates": {}}, "aggregates"),
        ({"group_by": "sensor_id"}, "list of column names"),
        (
            {"group_by": ["sensor_id); drop table t; --"]},
            "group_by item ('sensor_id); drop table t; --') is not a column name",
        ),
        ({"time_col": "reading_ts, 1"}, "time_col ('reading_ts, 1') is not a column name"),
        (
            {"watermark_delay": "3652060 days"},
            "watermark_delay ('3652060 days') is longer than the whole range of Spark timestamps",
        ),
        (
            {"allowed_lateness": "99999999999999 hours"},
            "expected at most 3652059 days (315537897600000000 microseconds)",
        ),
    ],
)
def test_bad_config_is_a_clear_compile_error(incremental_renderer, changes, message):
    with pytest.raises(CompilerError) as error:
        config(incremental_renderer, **changes)
    assert "windowed_incremental" in str(error.value)
    assert message in str(error.value)


def test_good_config_is_read_in_microseconds(incremental_renderer):
    cfg = config(incremental_renderer, window=WINDOWS["hop"], emit="changelog")
    assert (cfg["delay_us"], cfg["lateness_us"], cfg["grid_us"]) == (5 * MINUTE, 10 * MINUTE, MINUTE)
    assert cfg["partition_us"] == 1440 * MINUTE and cfg["changelog"] is True
    assert cfg["group_cols"] == ["sensor_id"]
    assert config(incremental_renderer)["lateness_us"] == 10 * MINUTE
    assert config(incremental_renderer, allowed_lateness=None)["lateness_us"] == 0


STATES = {
    "first run": {"batch_id": 0, "ingestion_us": None, "event_us": None, "watermark_us": None},
    "later run": {"batch_id": 3, "ingestion_us": 1714550000000000, "event_us": 1714550400000000,
                  "watermark_us": 1714550100000000},
}  # fmt: skip
# new_rows, null ingestion, max ingestion, max event, late rows, min / max event of updating rows
SUMMARY = [40, 0, 1714550700000000, 1714550640000000, 2, 1714549000000000, 1714550640000000]


def parse(sql: str) -> exp.Expression:
    tree = sqlglot.parse_one(sql, read="spark")
    assert tree is not None
    return tree


@pytest.mark.parametrize("kind", WINDOWS)
@pytest.mark.parametrize("moment", STATES)
def test_each_step_renders_spark_sql(incremental_renderer, kind, moment):
    renderer = incremental_renderer
    cfg = config(renderer, window=WINDOWS[kind])
    state = dict(STATES[moment])
    plan = renderer.call("_sw_incremental_plan", cfg, state, SUMMARY, Target())
    parse(renderer.call("_sw_incremental_summary_sql", cfg, MODEL_SQL, state))
    pending = parse(renderer.call("_sw_incremental_pending_sql", cfg, MODEL_SQL, Target(), plan))
    assert [column.alias_or_name for column in pending.selects][-3:] == [
        "is_final",
        "__sw_fresh_window",
        "window_partition",
    ]
    late = parse(renderer.call("_sw_incremental_late_sql", cfg, MODEL_SQL, plan))
    assert "missed_windows" in [column.alias_or_name for column in late.selects]
    parse(renderer.call("_sw_incremental_changelog_sql", cfg, Target(), "spark_windows.pending", plan))
    parse(renderer.call("_sw_incremental_stored_sql", cfg, "spark_windows.pending"))
    if moment == "later run":
        # only the partitions of updated windows and of windows that may become final are read
        assert plan["target_exists"] and len(plan["partition_ranges"]) == 2
        text = renderer.call("_sw_incremental_pending_sql", cfg, MODEL_SQL, Target(), plan)
        assert "from spark_windows.sensor_vehicles\n    where window_partition between" in text
    else:
        assert not plan["target_exists"] and plan["watermark_prev_us"] is None


def test_plan_times_follow_the_semantics(incremental_renderer):
    cfg = config(incremental_renderer)
    state = dict(STATES["later run"])
    plan = incremental_renderer.call("_sw_incremental_plan", cfg, state, SUMMARY, Target())
    # watermark: the largest event time of all runs minus the delay; judged by the previous one
    assert plan["watermark_us"] == SUMMARY[3] - 5 * MINUTE
    assert plan["watermark_prev_us"] == state["watermark_us"]
    assert (plan["after_us"], plan["until_us"]) == (state["ingestion_us"], SUMMARY[2])
    # every row of a window holding an updating row lies within one window size of it
    assert (plan["scope_from_us"], plan["scope_until_us"]) == (SUMMARY[5] - MINUTE, SUMMARY[6] + MINUTE)
    # a new event older than the stored maximum does not move the watermark back
    older = [*SUMMARY[:3], state["event_us"] - 1, *SUMMARY[4:]]
    assert incremental_renderer.call("_sw_incremental_plan", cfg, state, older, Target())["watermark_us"] == (
        state["event_us"] - 5 * MINUTE
    )
