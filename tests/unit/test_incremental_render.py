"""Fast tests: windowed_incremental's config checks, and its SQL parses as Spark SQL (sqlglot)."""

from __future__ import annotations

import datetime
import decimal
import json
import re
import types

import pytest
import sqlglot
from fake_dbt import COMMITTER, SESSION_CONFIG, STATE_COLUMNS, TUMBLE_CONFIG, Config, listed_text
from sqlglot import exp

from dev.macro_renderer import CompilerError, MacroRenderer, Relation
from dev.project import PROJECT_DIR

pytestmark = pytest.mark.fast

MINUTE = 60_000_000
T0_RENDER = 1_714_550_400_000_000  # 2024-05-01 08:00 UTC
GOOD = TUMBLE_CONFIG
WINDOWS = {
    "tumble": {"type": "tumble", "size": "1 minute"},
    "hop": {"type": "hop", "slide": "1 minute", "size": "5 minutes", "offset": "30 seconds"},
    "cumulate": {"type": "cumulate", "step": "1 minute", "size": "1 hour"},
}
MODEL_SQL = "select sensor_id, reading_ts, car_count, ingested_at from spark_windows.raw_sensor_readings"


class Target:
    """What the SQL builders need of a dbt relation: its rendering and its name."""

    identifier = "sensor_vehicles"

    def __str__(self) -> str:
        return "spark_windows.sensor_vehicles"

    def incorporate(self, path: dict, type: str) -> Relation:  # noqa: A002 (dbt's name)
        return Relation(f"spark_windows.{path['identifier']}")


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
        ({"input_file_col": ""}, "input_file_col ('') must be a column name"),
        (
            {"input_file_col": "_metadata.file_path"},
            "input_file_col ('_metadata.file_path') must name a column of the model's SQL, not a field",
        ),
        ({"window": {"type": "sliding", "size": "1 minute"}}, "tumble, hop, cumulate or session"),
        (
            {"window": {"type": "session", "gap": "(case when channel = 'web' then interval 5 minutes end)"}},
            "needs one fixed gap",
        ),
        ({"window": {"type": "session", "gap": "10 minuets"}}, "is not a duration"),
        ({"window": {"type": "session", "gap": "10 minutes", "offset": "1 minute"}}, "unknown key 'offset'"),
        ({"window": {"type": "hop", "size": "1 hour"}}, "missing 'slide'"),
        ({"watermark_delay": None}, "watermark_delay is missing"),
        ({"watermark_delay": "-5 minutes"}, "must not be negative"),
        ({"allowed_lateness": "-1 minute"}, "must not be negative"),
        ({"allowed_lateness": "soon"}, "is not a duration"),
        ({"partition_size": "0 days"}, "greater than zero"),
        ({"emit": "upserts"}, "must be 'changelog'"),
        ({"aggregates": {"is_final": "count(*)"}}, "is taken by a column"),
        ({"aggregates": {"Revision": "count(*)"}}, "aggregate name 'Revision' is taken by a column"),
        (
            {"aggregates": {"timing": "max(reading_ts)"}},
            "(is_final, revision, timing, watermark_passed, window_partition)",
        ),
        ({"emit_policy": "on_change"}, "emit_policy ('on_change') must be 'every_run'"),
        ({"emit_policy": ["on_watermark"]}, "emit_policy (['on_watermark']) must be 'every_run'"),
        (
            {"emit_policy": "final", "emit": "changelog"},
            "emit='changelog' does not go with emit_policy='final': the model's table is its changelog already",
        ),
        (
            {"emit_policy": "final", "file_format": "iceberg"},
            "emit_policy='final' keeps Parquet tables only (file_format 'parquet', the default)",
        ),
        ({"compact_state_every": 0}, "compact_state_every (0) must be a whole number of runs, 1 or more"),
        ({"compact_state_every": "50"}, "compact_state_every ('50') must be a whole number of runs"),
        ({"compact_state_every": 2.5}, "compact_state_every (2.5) must be a whole number of runs"),
        ({"sql_scripts": "false"}, "sql_scripts ('false') must be true"),
        ({"sql_scripts": 0}, "sql_scripts (0) must be true"),
        ({"compact_state_every": True}, "compact_state_every (True) must be a whole number of runs"),
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


@pytest.mark.parametrize(
    "changes, message",
    [
        (
            {"file_format": "delta"},
            "file_format ('delta') is not supported; the accepted file_formats are 'parquet' (the default) and 'iceberg'",
        ),
        ({"file_format": "delta"}, "Delta tables would need their own commit (replaceWhere)"),
        ({"file_format": "hudi"}, "Other formats have no such commit here"),
        (
            {"partition_by": ["sensor_id"]},
            "partition_by (['sensor_id']) is not taken; the table is partitioned by window_partition",
        ),
        ({"clustered_by": ["sensor_id"]}, "clustered_by (['sensor_id']) is not taken"),
        ({"options": {"compression": "zstd"}}, "spark.sql.parquet.compression.codec"),
        ({"location_root": ""}, "location_root ('') must be a folder path"),
        ({"tblproperties": "owner=traffic"}, "tblproperties (owner=traffic) must be a dict"),
        ({"persist_docs": True}, "persist_docs (True) must be a dict"),
    ],
)
def test_table_configs_it_cannot_honour_are_refused(incremental_renderer, changes, message):
    with pytest.raises(CompilerError) as error:
        config(incremental_renderer, **changes)
    assert str(error.value).startswith("windowed_incremental: 1 problem in the model's config; nothing was run:\n- ")
    assert message in str(error.value)


def test_table_configs_it_honours_are_accepted(incremental_renderer):
    config(
        incremental_renderer,
        file_format="parquet",
        location_root="/data/windows",
        tblproperties={"owner_team": "traffic"},
        persist_docs={"relation": True},
        grants={"select": ["analysts"]},
    )


def test_every_config_problem_is_reported_in_one_message(incremental_renderer):
    with pytest.raises(CompilerError) as error:
        config(
            incremental_renderer,
            time_col=None,
            window={"type": "hop", "slide": "7 minutes", "size": "1 hour"},
            group_by="sensor_id",
            aggregates={"is_final": "count(*)"},
            watermark_delay="-5 minutes",
            allowed_lateness="soon",
            partition_size="0 days",
            emit="upserts",
            file_format="delta",
            partition_by="sensor_id",
        )
    problems = str(error.value).split("\n- ")
    assert problems[0] == "windowed_incremental: 10 problems in the model's config; nothing was run:"
    expected = [
        "windowed_incremental: time_col (None) must be a column name",
        "windowed_incremental (hop window): size ('1 hour') must be a whole multiple of slide ('7 minutes')",
        "windowed_incremental: group_by ('sensor_id') must be a list of column names",
        "windowed_incremental: aggregate name 'is_final' is taken by a column the materialization adds",
        "windowed_incremental: watermark_delay ('-5 minutes') must not be negative",
        "windowed_incremental: allowed_lateness ('soon') is not a duration",
        "windowed_incremental: partition_size ('0 days') must be greater than zero",
        "windowed_incremental: emit ('upserts') must be 'changelog' or left out",
        "windowed_incremental: file_format ('delta') is not supported",
        "windowed_incremental: partition_by (sensor_id) is not taken",
    ]
    assert len(problems) == len(expected) + 1
    for problem, start in zip(problems[1:], expected):
        assert problem.startswith(start), (problem, start)


def test_a_missing_and_a_bad_setting_are_reported_together(incremental_renderer):
    with pytest.raises(CompilerError) as error:
        config(incremental_renderer, ingestion_time_col=None, watermark_delay=None,
               window={"type": "session", "gap": "coalesce(gap, interval 5 minutes)"})  # fmt: skip
    text = str(error.value)
    assert text.startswith("windowed_incremental: 3 problems")
    assert "ingestion_time_col (None) must be a column name" in text
    assert "needs one fixed gap" in text
    assert "watermark_delay is missing" in text


# the settings a state row stores for GOOD (with its defaults)
STORED = {**GOOD, "partition_size": "1 day", "emit": None}


def changed_message(renderer, stored, **changes):
    return renderer.call("_sw_incremental_changed_message", Target(), stored, {**STORED, **changes})


def test_a_changed_setting_is_named_with_its_old_and_new_value(incremental_renderer):
    message = changed_message(incremental_renderer, STORED, watermark_delay="10 minutes")
    assert message == (
        "windowed_incremental: watermark_delay (was '5 minutes', now '10 minutes') of spark_windows.sensor_vehicles "
        "changed since its last run; its stored windows were computed with the old value. "
        "Run it once with --full-refresh to recompute every window."
    )


def test_only_the_changed_settings_are_named(incremental_renderer):
    message = changed_message(
        incremental_renderer,
        STORED,
        window={"type": "tumble", "size": "5 minutes"},
        emit="changelog",
        allowed_lateness="600 seconds",  # the same length as '10 minutes'
    )
    assert message.startswith(
        "windowed_incremental: emit (was None, now 'changelog'), "
        "window (was {'type': 'tumble', 'size': '1 minute'}, now {'type': 'tumble', 'size': '5 minutes'}) of "
    )
    for unchanged in ("allowed_lateness", "watermark_delay", "aggregates", "group_by", "time_col"):
        assert unchanged not in message
    assert "with the old values." in message


def test_a_changed_emit_policy_is_named_either_way(incremental_renderer):
    on_watermark = {**STORED, "emit_policy": "on_watermark"}
    message = changed_message(incremental_renderer, on_watermark)
    assert message.startswith("windowed_incremental: emit_policy (was 'on_watermark', now None) of ")
    message = incremental_renderer.call("_sw_incremental_changed_message", Target(), STORED, on_watermark)
    assert message.startswith("windowed_incremental: emit_policy (was None, now 'on_watermark') of ")


def test_the_settings_name_emit_policy_only_when_it_is_not_the_default(incremental_renderer):
    assert "emit_policy" not in config(incremental_renderer)["settings"]
    assert "emit_policy" not in config(incremental_renderer, emit_policy="every_run")["settings"]
    assert config(incremental_renderer, emit_policy="on_watermark")["settings"]["emit_policy"] == "on_watermark"


def test_the_settings_name_input_file_col_only_when_it_is_given(incremental_renderer):
    assert "input_file_col" not in config(incremental_renderer)["settings"]
    assert config(incremental_renderer)["file_col"] is None
    cfg = config(incremental_renderer, input_file_col="source_file")
    assert cfg["settings"]["input_file_col"] == "source_file" and cfg["file_col"] == "source_file"


FILES = ["file:/lake/clicks/part-0.parquet", "file:/lake/clicks/it's-1.parquet"]


def test_the_full_file_listing_counts_the_rows_of_every_file(incremental_renderer):
    cfg = config(incremental_renderer, input_file_col="source_file")
    parsed = parse(incremental_renderer.call("_sw_incremental_list_files_sql", cfg, MODEL_SQL))
    assert [select.sql("spark").lower() for select in parsed.selects] == [
        "source_file as file",
        "count(*) as input_rows",
    ]
    assert parsed.args["group"].sql("spark").lower() == "group by source_file"
    assert parsed.args.get("where") is None and "__state" not in parsed.sql()


@pytest.mark.parametrize("processed", [[], FILES])
def test_the_listing_after_a_commit_names_the_processed_files_and_counts_the_whole_input(
    incremental_renderer, processed
):
    cfg = config(incremental_renderer, input_file_col="source_file")
    parsed = parse(incremental_renderer.call("_sw_incremental_unlisted_files_sql", cfg, MODEL_SQL, processed))
    assert isinstance(parsed, exp.Union) and not parsed.args.get("distinct")
    files, count = parsed.left, parsed.right
    assert files.selects[0].sql() == "'file' AS part" and files.args["group"].sql() == "GROUP BY source_file"
    where = files.args.get("where")
    if processed:
        assert where.sql("spark") == (
            "WHERE NOT source_file IN ('file:/lake/clicks/part-0.parquet', 'file:/lake/clicks/it\\'s-1.parquet')"
        )
    else:
        assert where is None
    # every row of the input, whatever its file
    assert count.selects[0].sql() == "'input'" and count.args.get("where") is None
    assert count.find(exp.Count) is not None and count.args.get("group") is None


def test_the_listing_of_new_files_can_be_the_runs_scan(incremental_renderer):
    cfg = config(incremental_renderer, input_file_col="source_file")
    state = STATES["later run"]
    parsed = parse(incremental_renderer.call("_sw_incremental_unlisted_files_sql", cfg, MODEL_SQL, FILES, state))
    files, count = parsed.left, parsed.right
    # the scan's columns, in its order, and as many in the input's part
    scan = parse(incremental_renderer.call("_sw_incremental_summary_sql", cfg, MODEL_SQL, {**state, **BY_FILE_STATE}))
    assert [column.sql() for column in files.selects[2:]] == [column.sql() for column in scan.selects[2:]]
    assert len(files.selects) == len(count.selects) == 9
    # late by the last commit's watermark
    assert f"<= {state['watermark_us']}" in files.sql()


BY_FILE_STATE = {"run_files": FILES, "processed_files": [], "state_table": None}


def test_the_processed_counts_are_the_state_entries(incremental_renderer):
    parsed = parse(incremental_renderer.call("_sw_incremental_processed_counts_sql", "spark_windows.v__state"))
    assert [select.alias for select in parsed.selects] == ["file", "processed_rows"]
    assert "arrival_counts" in parsed.sql() and parsed.args.get("group") is None


PROCESSED_COUNTS = "select __sw_entry.key as file"
UNLISTED = "select 'file' as part"
LISTED = "select source_file as file"


def list_files(renderer, processed, unlisted, listed, state_table="spark_windows.v__state", state=None):
    """_sw_incremental_list_files with the state's entries, the unlisted files' query and the full
    listing answering `processed`, `unlisted` and `listed`; the queries it ran, and what it returned."""
    renderer.env.globals["this"] = "spark_windows.v"
    renderer.answers.update({PROCESSED_COUNTS: processed, UNLISTED: unlisted, LISTED: listed})
    cfg = renderer.call("_sw_incremental_config", Config({**GOOD, "input_file_col": "source_file"}))
    found = renderer.call("_sw_incremental_list_files", cfg, MODEL_SQL, state_table, state)
    return asked(renderer), found


def asked(renderer) -> list[str]:
    """Which of the listing's queries the renderer was asked, in order."""
    return [
        next(start for start in [PROCESSED_COUNTS, UNLISTED, LISTED] if sql.startswith(start))
        for sql in renderer.queries
    ]


def test_a_listing_whose_counts_add_up_reads_no_processed_file(catalog_renderer):
    # a and b processed (b in two commits), c new: 9 rows in all
    queries, found = list_files(
        catalog_renderer, [["a", 3], ["b", 1], ["b", 1]], [["file", "c", 4], ["input", None, 9]], []
    )
    assert queries == [PROCESSED_COUNTS, UNLISTED]
    assert "('a', 'b')" in catalog_renderer.queries[1]
    assert found == {"files": ["c"], "counts": '{"c": 4}', "processed": ["a", "b"], "scanned": None}


def test_a_listing_of_new_files_with_the_scan_is_added_up_as_the_scan(catalog_renderer):
    # per new file: new rows, without ingestion time, newest ingestion and event times, late rows,
    # the range of the rows that update windows
    unlisted = [
        ["file", "c", 4, 0, 1714550700000000, 1714550640000000, 1, 1714549000000000, 1714550600000000],
        ["file", "d", 6, 0, 1714550500000000, 1714550660000000, 2, 1714549500000000, 1714550660000000],
        ["input", None, 13, None, None, None, None, None, None],
    ]
    state = dict(STATES["later run"])
    queries, found = list_files(catalog_renderer, [["a", 3]], unlisted, [], state=state)
    assert queries == [PROCESSED_COUNTS, UNLISTED]
    assert found["files"] == ["c", "d"] and found["counts"] == '{"c": 4, "d": 6}'
    cfg = catalog_renderer.call("_sw_incremental_config", Config({**GOOD, "input_file_col": "source_file"}))
    summary = catalog_renderer.call(
        "_sw_incremental_summary", cfg, MODEL_SQL, state, "t__state", None, found["scanned"]
    )
    assert len(catalog_renderer.queries) == 2  # no scan of its own
    assert {name: summary[name] for name in summary if name != "arrival_counts"} == {
        "new_rows": 10,
        "rows_without_ingestion_time": 0,
        "max_ingestion_us": 1714550700000000,
        "max_event_us": 1714550660000000,
        "late_rows": 3,
        "min_update_us": 1714549000000000,
        "max_update_us": 1714550660000000,
        "input_rows": None,
        "processed_rows": None,
    }
    # counts that do not add up: the full listing, and no scan from it
    catalog_renderer.queries.clear()
    unlisted[-1][2] = 10  # a was removed
    queries, found = list_files(catalog_renderer, [["a", 3]], unlisted, [["c", 4], ["d", 6]], state=state)
    assert found["scanned"] is None and queries == [PROCESSED_COUNTS, UNLISTED, LISTED]


def test_a_session_listing_counts_rows_only(catalog_renderer):
    """A session run scans the batch it caches: its listing is no scan."""
    catalog_renderer.env.globals["this"] = "spark_windows.v"
    catalog_renderer.answers.update({PROCESSED_COUNTS: [["a", 3]], "select 'file' as part": [["input", None, 3]]})
    cfg = catalog_renderer.call("_sw_incremental_config", Config({**SESSION, "input_file_col": "source_file"}))
    state = dict(STATES["later run"])
    found = catalog_renderer.call("_sw_incremental_list_files", cfg, MODEL_SQL, "spark_windows.v__state", state)
    assert found["scanned"] is None and found["files"] == []
    assert len(parse(catalog_renderer.queries[1]).left.selects) == 3


def test_a_removed_file_is_counted_back_by_the_full_listing(catalog_renderer):
    # b is gone: the input holds 3 + 4 rows, not 3 + 2 + 4
    queries, found = list_files(
        catalog_renderer, [["a", 3], ["b", 2]], [["file", "c", 4], ["input", None, 7]], [["a", 3], ["c", 4]]
    )
    assert queries == [PROCESSED_COUNTS, UNLISTED, LISTED]
    assert found == {"files": ["c"], "counts": '{"b": -2, "c": 4}', "processed": ["a"], "scanned": None}


def test_a_file_counted_back_is_no_longer_named_and_is_new_if_it_lands_again(catalog_renderer):
    queries, found = list_files(
        catalog_renderer, [["a", 3], ["b", 2], ["b", -2]], [["file", "b", 5], ["input", None, 8]], []
    )
    assert queries == [PROCESSED_COUNTS, UNLISTED]
    assert "not in ('a')" in catalog_renderer.queries[1]
    assert found == {"files": ["b"], "counts": '{"b": 5}', "processed": ["a"], "scanned": None}


@pytest.mark.parametrize(
    "listed, message",
    [
        (
            [["a", 4], ["c", 4]],
            "the input file a of spark_windows.v held 3 rows of the model's input when a committed run",
        ),
        ([["a", 3], ["c", 4], [None, 2]], "2 rows of spark_windows.v's input have a NULL source_file (input_file_col)"),
    ],
)
def test_a_changed_file_or_rows_without_one_fail_the_run_after_the_full_listing(catalog_renderer, listed, message):
    total = sum(rows for _, rows in listed)
    with pytest.raises(CompilerError) as error:
        list_files(catalog_renderer, [["a", 3]], [["file", "c", 4], ["input", None, total]], listed)
    assert message in str(error.value)
    assert asked(catalog_renderer) == [PROCESSED_COUNTS, UNLISTED, LISTED]


def test_a_first_run_counts_every_file(catalog_renderer):
    queries, found = list_files(catalog_renderer, [], [], [["a", 3], ["c", 4]], state_table=None)
    assert queries == [LISTED]
    assert found == {"files": ["a", "c"], "counts": '{"a": 3, "c": 4}', "processed": [], "scanned": None}


PROCESSED = ["file:/lake/clicks/old-0.parquet", "file:/lake/clicks/old-1.parquet"]


@pytest.mark.parametrize("which", ["run", "processed", "committed"])
@pytest.mark.parametrize("processed", [[], PROCESSED])
def test_input_rows_by_file_name_the_run_files_and_the_processed_ones(incremental_renderer, which, processed):
    cfg = config(incremental_renderer, input_file_col="source_file")
    bounds = {"run_files": FILES, "processed_files": processed, "state_table": None, "after_us": 1, "until_us": 2}
    text = incremental_renderer.call("_sw_incremental_input_sql", cfg, MODEL_SQL, bounds, which)
    where = parse(text).args["where"].sql("spark")
    assert "ingested_at" not in where and "__state" not in where
    named = "source_file IN ('file:/lake/clicks/part-0.parquet', 'file:/lake/clicks/it\\'s-1.parquet')" in where
    assert named == (which != "committed"), where
    # literals, which Spark checks while it lists the input's files: it opens no other file
    named_processed = "source_file IN ('file:/lake/clicks/old-0.parquet', 'file:/lake/clicks/old-1.parquet')" in where
    assert named_processed == (bool(processed) and which != "run"), where
    if which == "committed" and not processed:
        assert where == "WHERE (FALSE)"


@pytest.mark.parametrize(
    "which, kept",
    [("run", ["> timestamp_micros(100)", "<= timestamp_micros(200)"]), ("processed", ["<= timestamp_micros(200)"]),
     ("committed", ["<= timestamp_micros(100)"])],
)  # fmt: skip
def test_input_rows_by_ingestion_time_keep_their_bounds(incremental_renderer, which, kept):
    cfg = config(incremental_renderer)
    bounds = {"after_us": 100, "until_us": 200}
    text = incremental_renderer.call("_sw_incremental_input_sql", cfg, MODEL_SQL, bounds, which)
    found = re.findall(r"ingested_at (\S+ timestamp_micros\(\d+\))", text)
    assert found == kept, text
    parse(text)


def test_a_stored_session_time_zone_is_not_named_as_a_changed_setting(incremental_renderer):
    message = changed_message(
        incremental_renderer, {**STORED, "session_time_zone": "UTC"}, watermark_delay="10 minutes"
    )
    assert message.startswith("windowed_incremental: watermark_delay (was '5 minutes', now '10 minutes') of ")


def stored_state(zone):
    settings = {**STORED, **({"session_time_zone": zone} if zone else {})}
    return {"batch_id": 3, "config": json.dumps(settings)}


@pytest.mark.parametrize(
    "stored, zone, refused",
    [
        ("UTC", "Asia/Kolkata", True),
        ("America/New_York", "UTC", True),
        ("Asia/Kolkata", "+05:30", True),  # the same offset under another name: compared by name
        ("UTC", "UTC", False),
        ("Etc/UTC", "UTC", False),  # two names of UTC
        ("Asia/Kolkata", "Asia/Kolkata", False),
        (None, "Asia/Kolkata", False),  # a commit of an earlier version stored no zone
    ],
)
def test_a_run_in_another_session_time_zone_than_the_last_commit_is_refused(
    incremental_renderer, stored, zone, refused
):
    cfg = config(incremental_renderer)
    check = incremental_renderer.macros["_sw_incremental_check_stored_zone"]
    if not refused:
        check(cfg, Target(), stored_state(stored), zone)
        return
    with pytest.raises(CompilerError) as error:
        check(cfg, Target(), stored_state(stored), zone)
    assert str(error.value) == (
        f"windowed_incremental: the Spark session time zone is {zone}, and the last run of "
        f"spark_windows.sensor_vehicles ran in {stored}: its partitions (window_partition) are named by their start "
        "in the session time zone, so a run in another zone would not find the partitions it must rewrite, and would "
        f"keep windows twice. Set spark.sql.session.timeZone back to {stored}, or run the model once with "
        f"--full-refresh to write every partition under its name in {zone}"
    )


def test_no_stored_state_has_no_zone_to_compare(incremental_renderer):
    cfg = config(incremental_renderer)
    incremental_renderer.call(
        "_sw_incremental_check_stored_zone", cfg, Target(), {"batch_id": 0, "config": None}, "Asia/Kolkata"
    )


@pytest.mark.parametrize("zone", ["Asia/Kolkata", None])
def test_the_commit_stores_the_session_time_zone_with_the_settings(incremental_renderer, zone):
    cfg = config(incremental_renderer)
    plan = incremental_renderer.call("_sw_incremental_plan", cfg, dict(STATES["later run"]), SUMMARY)
    commit = parse(
        incremental_renderer.call(
            "_sw_incremental_commit_sql", cfg, "t__state", 4, plan, 40, Target(), "f1", "{}", zone
        )
    )
    stored = json.loads(commit.expression.selects[10].this)
    # with how the run's staging tables are named (by batch: a later run looks them up by name)
    assert stored == {**cfg["settings"], "staging_tables": "by_batch", **({"session_time_zone": zone} if zone else {})}
    assert "session_time_zone" not in cfg["settings"]


def test_a_state_table_without_stored_settings_gets_the_general_message(incremental_renderer):
    message = changed_message(incremental_renderer, None, watermark_delay="10 minutes")
    assert message.startswith(
        "windowed_incremental: the window, group_by, aggregates, time columns, delays, partition_size or emit of "
        "spark_windows.sensor_vehicles changed since its last run"
    )


def test_state_table_and_created_tables_parse(incremental_renderer):
    state = parse(incremental_renderer.call("_sw_incremental_state_ddl", "spark_windows.sensor_vehicles__state",
                                            "location '/data/windows/sensor_vehicles__state'"))  # fmt: skip
    columns = [column.alias_or_name for column in state.expression.selects]
    assert columns[-4:] == ["pending_table", "config_fingerprint", "config", "arrival_counts"]
    created = incremental_renderer.call(
        "_sw_incremental_create_sql",
        "spark_windows.sensor_vehicles__late",
        "select 1 as x",
        "batch_id",
        "location '/data/windows/sensor_vehicles__late'\n tblproperties ('owner_team' = 'traffic')",
    )
    assert "location '/data/windows/sensor_vehicles__late'" in created
    parse(created)


@pytest.mark.parametrize("after_us", [None, 1714550400000000])
def test_the_arrival_check_parses_and_reads_the_state_only_with_a_processed_time(incremental_renderer, after_us):
    cfg = config(incremental_renderer)
    check = incremental_renderer.call(
        "_sw_incremental_arrival_check_sql", cfg, "select * from events", "spark_windows.sensor_vehicles__state",
        after_us, 1714554000000000,
    )  # fmt: skip
    parsed = parse(check)
    assert [column.alias_or_name for column in parsed.selects] == [
        "unprocessed_rows", "processed_until", "first_hour", "last_hour", "arrival_counts",
    ]  # fmt: skip
    assert ("sensor_vehicles__state" in check) == (after_us is not None)
    assert "ingested_at <= timestamp_micros(1714554000000000)" in check


def union_parts(query: exp.Expression) -> dict[str, exp.Select]:
    """The parts of a query of parts under `union all`, by the literal tag each selects first."""
    selects = [query] if isinstance(query, exp.Select) else list(query.find_all(exp.Select))
    return {
        select.selects[0].unalias().this: select
        for select in selects
        if select.selects and isinstance(select.selects[0].unalias(), exp.Literal)
    }


def checks_of(sql: str, column: str) -> int:
    """How many times `sql` checks the type of the time column `column` (_sw_ts)."""
    return sql.count(f"'spark_windows: the time column {column} is of type '")


@pytest.mark.parametrize("batch_view", [None, "__sw_batch_sensor_vehicles"])
def test_the_scan_checks_each_time_column_once_and_aggregates_the_checked_times(incremental_renderer, batch_view):
    """Spark analyses each copy of the check: the scan computes the checked times once per row,
    in a projection its aggregates read."""
    cfg = config(incremental_renderer)
    state = dict(STATES["later run"])
    scan = incremental_renderer.call("_sw_incremental_summary_sql", cfg, "select * from events", state, batch_view)
    assert checks_of(scan, "reading_ts") == 1 and checks_of(scan, "ingested_at") == 1
    hours = union_parts(parse(scan))["hour"]
    aggregates = {column.alias_or_name: column.unalias().sql("spark") for column in hours.selects}
    assert aggregates["max_ingestion_us"] == "MAX(__sw_ingestion_us)"
    assert aggregates["max_event_us"] == "MAX(__sw_ts_us)"
    assert "__sw_ts_us" in aggregates["late_rows"] and "__sw_ts_us" in aggregates["min_update_us"]
    assert aggregates["hour_us"] == "(__sw_ingestion_us - PMOD(__sw_ingestion_us, 3600000000))"
    # the times are the checked columns of the rows the scan reads
    source = hours.find(exp.From).this.this
    checked = {column.alias_or_name: column for column in source.selects}
    assert checked["__sw_ts_us"].unalias().sql("spark").startswith("UNIX_MICROS(CASE WHEN NOT TYPEOF(reading_ts)")
    assert (
        checked["__sw_ingestion_us"].unalias().sql("spark").startswith("UNIX_MICROS(CASE WHEN NOT TYPEOF(ingested_at)")
    )


def test_the_listing_that_is_the_scan_checks_each_time_column_once(incremental_renderer):
    cfg = config(incremental_renderer, input_file_col="source_file")
    listing = incremental_renderer.call(
        "_sw_incremental_unlisted_files_sql", cfg, "select * from clicks", ["file:/lake/a.parquet"], STATES["later run"]
    )
    assert checks_of(listing, "reading_ts") == 1 and checks_of(listing, "ingested_at") == 1
    files = union_parts(parse(listing))["file"]
    assert files.args["where"].sql("spark") == "WHERE NOT source_file IN ('file:/lake/a.parquet')"


@pytest.mark.parametrize("state_table", [None, "spark_windows.sensor_vehicles__state"])
def test_the_scan_of_the_new_rows_counts_them_by_hour_and_the_input_only_with_a_state(
    incremental_renderer, state_table
):
    cfg = config(incremental_renderer)
    state = dict(STATES["later run"])
    scan = incremental_renderer.call(
        "_sw_incremental_summary_sql", cfg, "select * from events", state, None, state_table
    )
    # one query: the hours' part, and with a state the input's and the processed rows' parts
    parts = union_parts(parse(scan))
    assert sorted(parts) == (["hour"] if state_table is None else ["hour", "input_rows", "processed_rows"])
    assert [column.alias_or_name for column in parts["hour"].selects] == [
        "part", "hour_us", "new_rows", "rows_without_ingestion_time", "max_ingestion_us", "max_event_us", "late_rows",
        "min_update_us", "max_update_us",
    ]  # fmt: skip
    # every part has the hour's columns; its count is where the macro reads it (the third)
    assert all(len(part.selects) == len(parts["hour"].selects) for part in parts.values())
    assert {name: part.selects[2].unalias().sql("spark").lower() for name, part in parts.items()} == {
        "hour": "count(*)",
        **(
            {}
            if state_table is None
            else {"input_rows": "count(*)", "processed_rows": "coalesce(sum(__sw_entry.value), 0)"}
        ),
    }
    # the new rows grouped by hour of ingestion time (the second column): only those after the
    # processed time
    hours = parts["hour"].sql("spark").lower()
    assert f"ingested_at > timestamp_micros({state['ingestion_us']})" in hours
    assert [group.sql("spark") for group in parts["hour"].args["group"].expressions] == ["2"]
    assert "3600000000" in parts["hour"].selects[1].sql("spark")
    # the input's count reads every row, with no filter; the processed rows are the state's
    if state_table is None:
        assert "sensor_vehicles__state" not in scan and "union" not in scan
    else:
        input_rows, processed_rows = (parts[name].sql("spark").lower() for name in ["input_rows", "processed_rows"])
        assert "from events" in input_rows and " where " not in input_rows and "count(*)" in input_rows
        assert "sensor_vehicles__state" in processed_rows and "arrival_counts" in processed_rows
    # by input file the listing counts the rows: no hours, no input count
    by_file = incremental_renderer.call(
        "_sw_incremental_summary_sql", config(incremental_renderer, input_file_col="source_file"),
        "select * from events", {**state, "run_files": ["a.parquet"], "state_table": None}, None, state_table,
    )  # fmt: skip
    assert isinstance(parse(by_file), exp.Select) and "3600000000" not in by_file


# one scan's rows (_sw_incremental_summary_sql): part, hour_us, new_rows, rows_without_ingestion_time,
# max_ingestion_us, max_event_us, late_rows, min_update_us, max_update_us
SCAN_ROWS = [
    ("hour", 1714546800000000, 30, 0, 1714550000000000, 1714550640000000, 2, 1714549000000000, 1714550600000000),
    ("hour", 1714550400000000, 10, 0, 1714550700000000, 1714550500000000, 0, 1714550100000000, 1714550500000000),
    ("hour", None, 3, 3, None, 1714549500000000, 1, None, None),
    ("input_rows", None, 143, None, None, None, None, None, None),
    ("processed_rows", None, 100, None, None, None, None, None, None),
]


@pytest.mark.parametrize("file_col", [None, "source_file"])
def test_the_summary_adds_the_hours_of_the_scan_up(file_col):
    """Sums of the counts, the extremes of the times over the hours that have them, the counts per
    hour (JSON, the rows without an ingestion time left out), and the input's and the processed
    rows by name; computed here by hand from SCAN_ROWS."""
    renderer = MacroRenderer()
    # by input file the scan has no input's nor processed rows' part; numbers as Decimal, as a
    # driver may return them
    answer = {"rows": [tuple(decimal.Decimal(v) if isinstance(v, int) else v for v in row) for row in SCAN_ROWS]}
    if file_col:
        answer["rows"] = answer["rows"][:3]
    asked = []

    def run_query(sql):
        asked.append(sql)
        return Answer(answer["rows"])

    renderer.env.globals["run_query"] = run_query
    cfg = config(renderer, **({"input_file_col": file_col} if file_col else {}))
    state = {**STATES["later run"], "run_files": ["a.parquet"], "state_table": "t__state"}
    summary = renderer.call("_sw_incremental_summary", cfg, "select * from events", state, "t__state")
    assert {name: summary[name] for name in summary if name != "arrival_counts"} == {
        "new_rows": 43,
        "rows_without_ingestion_time": 3,
        "max_ingestion_us": 1714550700000000,
        "max_event_us": 1714550640000000,
        "late_rows": 3,
        "min_update_us": 1714549000000000,
        "max_update_us": 1714550600000000,
        "input_rows": None if file_col else 143,
        "processed_rows": None if file_col else 100,
    }
    if file_col:
        assert summary["arrival_counts"] is None
    else:
        assert json.loads(summary["arrival_counts"]) == {"1714546800000000": 30, "1714550400000000": 10}
    # the state's rows are counted by a run by ingestion time once a commit exists
    assert ("t__state" in asked[-1]) == (file_col is None)
    renderer.call("_sw_incremental_summary", cfg, "select * from events", {**state, **STATES["first run"]}, "t__state")
    assert "t__state" not in asked[-1]
    # no new rows: no hour, nothing counted; the input's and the processed rows are still read
    answer["rows"] = [] if file_col else SCAN_ROWS[3:]
    empty = renderer.call("_sw_incremental_summary", cfg, "select * from events", state, "t__state")
    assert (empty["new_rows"], empty["max_event_us"], empty["min_update_us"]) == (0, None, None)
    assert empty["arrival_counts"] == (None if file_col else "{}")
    assert (empty["input_rows"], empty["processed_rows"]) == ((None, None) if file_col else (143, 100))


def test_good_config_is_read_in_microseconds(incremental_renderer):
    cfg = config(incremental_renderer, window=WINDOWS["hop"], emit="changelog")
    assert (cfg["delay_us"], cfg["lateness_us"], cfg["spec"]["pane_us"]) == (5 * MINUTE, 10 * MINUTE, MINUTE)
    assert cfg["partition_us"] == 1440 * MINUTE and cfg["changelog"] is True
    assert cfg["group_cols"] == ["sensor_id"]
    assert config(incremental_renderer)["lateness_us"] == 10 * MINUTE
    assert config(incremental_renderer, allowed_lateness=None)["lateness_us"] == 0


STATES = {
    "first run": {"batch_id": 0, "ingestion_us": None, "event_us": None, "watermark_us": None},
    "later run": {"batch_id": 3, "ingestion_us": 1714550000000000, "event_us": 1714550400000000,
                  "watermark_us": 1714550100000000},
}  # fmt: skip
# the scan of the new rows (_sw_incremental_summary)
SUMMARY = {
    "new_rows": 40,
    "rows_without_ingestion_time": 0,
    "max_ingestion_us": 1714550700000000,
    "max_event_us": 1714550640000000,
    "late_rows": 2,
    "min_update_us": 1714549000000000,
    "max_update_us": 1714550640000000,
}


def parse(sql: str) -> exp.Expression:
    tree = sqlglot.parse_one(sql, read="spark")
    assert tree is not None
    return tree


def firing_columns(policy: str) -> list[str]:
    """The columns a staging table keeps after is_final: the firing metadata, then the flags."""
    shown = ["watermark_passed"] if policy == "on_watermark" else []
    return ["revision", "timing", *shown, "__sw_shown", "__sw_old_shown", "__sw_emit"]


def changelog_ops(changelog: exp.Expression) -> set[str]:
    """The op literals of every branch of a changelog query."""
    return {
        literal.this
        for select in changelog.find_all(exp.Select)
        if select.selects[0].alias == "op"
        for literal in select.selects[0].find_all(exp.Literal)
        if literal.is_string
    }


@pytest.mark.parametrize("policy", ["every_run", "on_watermark"])
@pytest.mark.parametrize("kind", WINDOWS)
@pytest.mark.parametrize("moment", STATES)
def test_each_step_renders_spark_sql(incremental_renderer, kind, moment, policy):
    renderer = incremental_renderer
    cfg = config(renderer, window=WINDOWS[kind], emit_policy=policy)
    state = dict(STATES[moment])
    plan = renderer.call("_sw_incremental_plan", cfg, state, SUMMARY)
    parse(renderer.call("_sw_incremental_summary_sql", cfg, MODEL_SQL, state))
    pending = parse(renderer.call("_sw_incremental_pending_sql", cfg, MODEL_SQL, Target(), plan))
    assert [column.alias_or_name for column in pending.selects][-(3 + len(firing_columns(policy))) :] == [
        "is_final",
        *firing_columns(policy),
        "__sw_fresh_window",
        "window_partition",
    ]
    late = parse(renderer.call("_sw_incremental_late_sql", cfg, MODEL_SQL, plan))
    assert "missed_windows" in [column.alias_or_name for column in late.selects]
    changelog = parse(renderer.call("_sw_incremental_changelog_sql", cfg, Target(), "spark_windows.pending", plan))
    assert changelog_ops(changelog) == ({"+I", "+U", "-U"} if moment == "later run" else {"+I", "+U"})
    stored = parse(renderer.call("_sw_incremental_stored_sql", cfg, "spark_windows.pending"))
    assert ("watermark_passed" in [column.alias_or_name for column in stored.selects]) == (policy == "on_watermark")
    if moment == "later run":
        # only the partitions of updated windows and of windows that may become final (and,
        # with on_watermark, of windows the watermark passes) are read
        assert plan["target_exists"] and len(plan["partition_ranges"]) == (3 if policy == "on_watermark" else 2)
        text = renderer.call("_sw_incremental_pending_sql", cfg, MODEL_SQL, Target(), plan)
        assert "from spark_windows.sensor_vehicles\n    where window_partition between" in text
    else:
        assert not plan["target_exists"] and plan["watermark_prev_us"] is None


@pytest.mark.parametrize("by_file", [False, True])
@pytest.mark.parametrize("taken", [False, True])
@pytest.mark.parametrize("moment", STATES)
def test_the_staging_query_reads_the_input_once_and_keeps_the_windows_of_the_runs_rows(
    incremental_renderer, by_file, taken, moment
):
    """The windows new rows fall in are those of the scope whose count of this run's rows is not
    zero: the model's SQL is read once, and the count's name is no aggregate's."""
    aggregates = {**GOOD["aggregates"], **({"sw_rows_of_this_run": "max(car_count)"} if taken else {})}
    cfg = config(incremental_renderer, aggregates=aggregates, **({"input_file_col": "source_file"} if by_file else {}))
    state = dict(STATES[moment])
    if by_file:
        state.update(
            run_files=FILES,
            processed_files=[] if moment == "first run" else PROCESSED,
            state_table=None if moment == "first run" else "spark_windows.sensor_vehicles__state",
        )
    plan = incremental_renderer.call("_sw_incremental_plan", cfg, state, SUMMARY)
    text = incremental_renderer.call("_sw_incremental_pending_sql", cfg, MODEL_SQL, Target(), plan)
    assert text.count("from spark_windows.raw_sensor_readings") == 1, text
    fresh = next(cte for cte in parse(text).find_all(exp.CTE) if cte.alias == "__sw_fresh").this
    assert [column.alias_or_name for column in fresh.selects] == [
        "sensor_id",
        "window_start",
        "window_end",
        *aggregates,
    ]
    where = fresh.args.get("where")
    if moment == "first run":
        # every row is the run's own and no window has expired: nothing to count or leave out
        assert where is None and "then 1 end" not in text
        return
    helper = "sw_rows_of_this_run" + ("_" if taken else "")
    assert where.sql("spark") == (
        f"WHERE __sw_a.{helper} > 0 AND UNIX_MICROS(__sw_a.window_end) + 600000000 > {state['watermark_us']}"
    )
    run_rows = (
        "source_file in ('file:/lake/clicks/part-0.parquet', 'file:/lake/clicks/it\\'s-1.parquet')"
        if by_file
        else f"ingested_at > timestamp_micros({state['ingestion_us']})"
    )
    assert f"count(case when {run_rows} then 1 end) as" in text, text
    if by_file:
        # the scope holds the committed runs' rows too, named by their files
        scope = next(cte for cte in parse(text).find_all(exp.CTE) if cte.alias == "__sw_scope").this
        assert "'file:/lake/clicks/old-0.parquet', 'file:/lake/clicks/old-1.parquet'" in scope.sql("spark")


def test_on_watermark_also_rewrites_the_partitions_of_windows_the_watermark_passes(incremental_renderer):
    """The windows whose end passes from (W_prev, W] are written now: their partitions (which
    hold window starts, so one window size earlier) are rewritten too."""
    state = dict(STATES["later run"])
    plans = {
        policy: incremental_renderer.call(
            "_sw_incremental_plan",
            config(incremental_renderer, emit_policy=policy),
            state,
            SUMMARY,
        )
        for policy in ("every_run", "on_watermark")
    }
    day = 24 * 60 * MINUTE
    floor = lambda us: us - us % day  # noqa: E731
    watermark = SUMMARY["max_event_us"] - 5 * MINUTE
    assert plans["on_watermark"]["partition_ranges"] == [
        *plans["every_run"]["partition_ranges"],
        [floor(state["watermark_us"] - MINUTE), floor(watermark)],
    ]


def test_plan_times_follow_the_semantics(incremental_renderer):
    cfg = config(incremental_renderer)
    state = dict(STATES["later run"])
    plan = incremental_renderer.call("_sw_incremental_plan", cfg, state, SUMMARY)
    # watermark: the largest event time of all runs minus the delay; judged by the previous one
    assert plan["watermark_us"] == SUMMARY["max_event_us"] - 5 * MINUTE
    assert plan["watermark_prev_us"] == state["watermark_us"]
    assert (plan["after_us"], plan["until_us"]) == (state["ingestion_us"], SUMMARY["max_ingestion_us"])
    # every row of a window holding an updating row lies within one window size of it
    assert (plan["scope_from_us"], plan["scope_until_us"]) == (
        SUMMARY["min_update_us"] - MINUTE,
        SUMMARY["max_update_us"] + MINUTE,
    )
    # a new event older than the stored maximum does not move the watermark back
    older = {**SUMMARY, "max_event_us": state["event_us"] - 1}
    assert incremental_renderer.call("_sw_incremental_plan", cfg, state, older)["watermark_us"] == (
        state["event_us"] - 5 * MINUTE
    )


SESSION = SESSION_CONFIG
SESSION_SQL = "select user_id, click_ts, amount, ingested_at from spark_windows.raw_clicks"
HOUR = 60 * MINUTE


class Answer:
    def __init__(self, rows):
        self.rows = rows


@pytest.fixture(scope="module")
def session_renderer() -> MacroRenderer:
    """Renders the session steps; `run_query` answers the touch query with `touch_answer` (rows
    late by touch, touched sessions, their earliest start and latest end) as its two parts, and
    any other query with `touch_answer` as its one row."""
    renderer = MacroRenderer()
    renderer.env.globals["run_started_at"] = datetime.datetime(2024, 5, 1, 9, 0, tzinfo=datetime.timezone.utc)
    # a model that reads the source raw.clicks (for iceberg_input)
    renderer.env.globals["model"] = {"depends_on": {"nodes": ["source.p.raw.clicks"]}}
    renderer.env.globals["graph"] = {
        "sources": {
            "source.p.raw.clicks": {"source_name": "raw", "name": "clicks", "schema": "raw", "identifier": "clicks"}
        },
        "nodes": {},
    }
    renderer.env.globals["this"] = Target()
    renderer.queries = []

    def run_query(sql):
        renderer.queries.append(sql)
        if "'touched_sessions' as part" in sql:
            late, touched, first, last = renderer.touch_answer
            return Answer([("touched_sessions", touched, first, last), ("late_rows", late, None, None)])
        return Answer([renderer.touch_answer])

    renderer.env.globals["run_query"] = run_query
    return renderer


def session_plan(renderer, moment, touch, **changes):
    """The plan of a session model; `touch`: late-by-touch rows, touched sessions, their span."""
    cfg = renderer.call("_sw_incremental_config", Config({**SESSION, **changes}))
    renderer.touch_answer = touch
    renderer.queries.clear()
    state = dict(STATES[moment])
    # as the materialization does: the batch is cached before the summary scan reads it
    batch_view = cache_batch(renderer, cfg, SESSION_SQL, state)
    return cfg, planned(renderer, cfg, state, batch_view)


def cache_batch(renderer, cfg, model_sql, state):
    """As a run sent one statement at a time does: caches a session run's batch (the statements
    go before its scan) and returns the view's name."""
    for text in renderer.call("_sw_incremental_cache_batch", cfg, model_sql, Target(), state):
        renderer.env.globals["run_query"](text)
    return renderer.call("_sw_incremental_batch_view", cfg, Target())


def planned(renderer, cfg, state, batch_view=None):
    """As the materialization plans: the plan, the touch step it needs, the plan with its answer."""
    before = renderer.call("_sw_incremental_plan", cfg, state, SUMMARY, batch_view)
    touch = renderer.call("_sw_incremental_touch", cfg, SESSION_SQL, Target(), before)
    return renderer.call("_sw_incremental_touched", cfg, before, touch)


def test_session_config_reads_the_gap(session_renderer):
    cfg = session_renderer.call("_sw_incremental_config", Config(SESSION))
    assert cfg["session"] and cfg["spec"]["gap_us"] == 10 * MINUTE and cfg["lateness_us"] == 20 * MINUTE


def test_the_touch_query_has_a_part_for_the_touched_sessions_and_one_for_the_rows_late_by_touch(session_renderer):
    """Its parts are read by name (_sw_incremental_touch): the touched sessions, their number,
    earliest start and latest end; the rows that touch an expired session, their number."""
    renderer = session_renderer
    session_plan(renderer, "later run", [1, 2, SUMMARY["min_update_us"] - HOUR, SUMMARY["max_update_us"]])
    (touch,) = [parse(sql) for sql in renderer.queries if "'touched_sessions' as part" in sql]
    parts = union_parts(touch)
    assert sorted(parts) == ["late_rows", "touched_sessions"]
    assert [column.sql("spark").lower() for column in parts["touched_sessions"].selects][1:] == [
        "count(*) as sessions",
        "min(unix_micros(window_start)) as touched_min_start_us",
        "max(unix_micros(window_end)) as touched_max_end_us",
    ]
    assert parts["touched_sessions"].find(exp.From).sql("spark") == "FROM __sw_touched"
    late = parts["late_rows"]
    assert len(late.selects) == 4 and late.selects[1].sql("spark").lower() == "count(*)"
    assert late.find(exp.From).sql("spark") == "FROM __sw_rows AS __sw_a"
    (join,) = late.args["joins"]
    assert join.side == "LEFT" and join.kind == "SEMI" and join.this.sql("spark") == "__sw_expired AS __sw_b"


# aggregates a run merges from the stored sessions and the new rows, and ones that need the rows
MERGED = {
    "clicks": "count(*)",
    "revenue": "sum(amount)",
    "paying": "count(amount)",
    "low": "min(amount)",
    "top": "max(amount)",
}
NEEDS_ROWS = {"clicks": "count(*)", "average": "avg(amount)"}


# how a run tells new rows: by ingestion time, or by the Iceberg snapshots that appended them
ARRIVALS = {
    "ingestion_time": {},
    "iceberg_input": {"ingestion_time_col": None, "iceberg_input": "raw.clicks", "sequence_col": "landed_sequence"},
}


@pytest.mark.parametrize("arrivals", ARRIVALS)
@pytest.mark.parametrize("aggregates", [MERGED, NEEDS_ROWS], ids=["merged", "needs_rows"])
@pytest.mark.parametrize("policy", ["every_run", "on_watermark"])
@pytest.mark.parametrize("moment", STATES)
@pytest.mark.parametrize("touched", [0, 2])
def test_each_session_step_renders_spark_sql(session_renderer, moment, touched, policy, aggregates, arrivals):
    renderer = session_renderer
    span = [SUMMARY["min_update_us"] - 30 * MINUTE, SUMMARY["max_update_us"] + 10 * MINUTE] if touched else [None, None]
    cfg, plan = session_plan(
        renderer, moment, [1, touched, *span], emit_policy=policy, aggregates=aggregates, **ARRIVALS[arrivals]
    )
    later = moment == "later run"
    # the batch's rows (and, once the table exists, the sessions they can touch and those they
    # touch) are cached once; the touch query runs only once the table exists
    views = ["__sw_batch_sensor_vehicles"] + (
        ["__sw_candidates_sensor_vehicles", "__sw_touched_sensor_vehicles"] if later else []
    )
    assert [sql for sql in renderer.queries if sql.startswith("cache lazy table")] == [
        f"cache lazy table {v}" for v in views
    ]
    touch = [sql for sql in renderer.queries if sql.startswith("with")]
    assert len(touch) == (1 if later else 0)
    views_sql = [sql.split(" as\n", 1)[1] for sql in renderer.queries if sql.startswith("create or replace")]
    for sql in touch + views_sql:
        parse(sql)
    # Spark does not find a cached view defined with a WITH clause from a query with one
    assert not [sql for sql in views_sql if re.search(r"(?im)^\s*with\b|^__sw_\w+ as \(", sql)]
    assert plan["batch_view"] == views[0] and plan.get("candidates_view") == (views[1] if later else None)
    assert plan.get("touched_view") == (views[2] if later else None)
    summary = renderer.call("_sw_incremental_summary_sql", cfg, SESSION_SQL, STATES[moment], plan["batch_view"])
    # the scan reads the cached batch, and nothing else
    assert [table.name for table in parse(summary).find_all(exp.Table)] == ["__sw_batch_sensor_vehicles"]
    assert plan["late_rows"] == SUMMARY["late_rows"] + (1 if later else 0)
    # the staging query recomputes the sessions it reads once, inline: nothing more is cached
    pending_text = renderer.call("_sw_incremental_session_pending_sql", cfg, SESSION_SQL, Target(), "late_t", plan)
    pending = parse(pending_text)
    # the late rows re-read are told from the late table's by their group, time and arrival, as
    # the late table keeps them (with iceberg_input, the column of the sequence number)
    if later and touched and aggregates is NEEDS_ROWS:
        arrival = "landed_sequence" if arrivals == "iceberg_input" else "ingested_at"
        assert f"select user_id, click_ts, {arrival}\n        from late_t" in pending_text
        assert f"__sw_a.{arrival} <=> __sw_b.{arrival}" in pending_text
    read = [table.name for table in pending.find_all(exp.Table) if table.name.startswith(("__sw_fresh", "__sw_next"))]
    assert sorted(read) == ["__sw_fresh", "__sw_next"], (
        f"the staging query should read the recomputed sessions once: {read}"
    )
    assert [column.alias_or_name for column in pending.selects][-(4 + len(firing_columns(policy))) :] == [
        "is_final",
        *firing_columns(policy),
        "__sw_role",
        "__sw_fresh_window",
        "window_partition",
    ]
    # the stored image of each touched session, for the changelog (emit='changelog'); the
    # partitions the run read are the apply's to find, from plan.partition_ranges
    roles = re.findall(r"'(\w+)' as __sw_role", pending_text)
    assert roles == ["fresh", "kept", "old"][: (1 if not later else 3 if touched else 2)], roles
    # rows of touched sessions are read again, within literal bounds, without the late ones,
    # unless every aggregate merges: then the touched sessions' spans and aggregates are joined
    # with the new rows'; the touched sessions themselves come from their cache
    merged = later and touched > 0 and aggregates is MERGED
    assert ("from late_t" in pending_text) == (later and touched > 0 and not merged)
    assert ("__sw_elements as (" in pending_text) == merged
    if merged:
        assert "sum(clicks) as clicks" in pending_text and "min(low) as low" in pending_text
        assert "sum(paying) as paying" in pending_text and "max(top) as top" in pending_text
    assert ("select * from __sw_touched_sensor_vehicles" in pending_text) == later
    late = parse(renderer.call("_sw_incremental_session_late_sql", cfg, SESSION_SQL, Target(), plan))
    assert "missed_windows" in [column.alias_or_name for column in late.selects]
    changelog = parse(renderer.call("_sw_incremental_session_changelog_sql", cfg, "spark_windows.pending", plan))
    assert changelog_ops(changelog) == {"+I", "-D", "-U", "+U"}
    stored = renderer.call("_sw_incremental_stored_sql", cfg, "spark_windows.pending")
    assert "__sw_role in ('fresh', 'kept')" in stored
    parse(stored)


@pytest.mark.parametrize("policy", ["every_run", "on_watermark"])
def test_session_plan_reads_the_partitions_of_session_ends(session_renderer, policy):
    touched_end = SUMMARY["max_update_us"] + 3 * HOUR
    cfg, plan = session_plan(
        session_renderer, "later run", [0, 1, SUMMARY["min_update_us"] - HOUR, touched_end], emit_policy=policy
    )
    floor = lambda us: us - us % HOUR  # noqa: E731
    state = STATES["later run"]
    watermark = SUMMARY["max_event_us"] - 5 * MINUTE
    assert plan["partition_ranges"] == [
        # new rows' sessions end between the earliest new time and the touched sessions' end
        [floor(SUMMARY["min_update_us"]), floor(touched_end)],
        # sessions that may become final: end + lateness in (previous watermark, watermark]
        [floor(state["watermark_us"] - 20 * MINUTE), floor(watermark - 20 * MINUTE)],
        # on_watermark: sessions whose end the watermark passes, written now
        *([[floor(state["watermark_us"]), floor(watermark)]] if policy == "on_watermark" else []),
    ]
    assert (plan["touched_min_start_us"], plan["touched_max_end_us"]) == (SUMMARY["min_update_us"] - HOUR, touched_end)


def test_session_late_rows_use_their_own_window(session_renderer):
    cfg, plan = session_plan(session_renderer, "later run", [0, 0, None, None])
    late = session_renderer.call("_sw_incremental_is_late", cfg, plan["watermark_prev_us"])
    # t + gap + allowed_lateness <= previous watermark
    assert late == (
        f"(click_ts is not null and ({session_renderer.call('_sw_ts_us', 'click_ts')} + {10 * MINUTE}) + {20 * MINUTE}"
        f" <= {STATES['later run']['watermark_us']})"
    )


def test_session_steps_without_group_by_render_spark_sql(session_renderer):
    renderer = session_renderer
    cfg = renderer.call("_sw_incremental_config", Config({**SESSION, "group_by": None}))
    renderer.touch_answer = [0, 1, SUMMARY["min_update_us"] - HOUR, SUMMARY["max_update_us"]]
    plan = planned(renderer, cfg, dict(STATES["later run"]))
    pending = renderer.call("_sw_incremental_session_pending_sql", cfg, SESSION_SQL, Target(), "late_t", plan)
    # one stream: a row touches a session by time alone
    assert "on true\n" in pending and "<=>" not in pending.split("__sw_next as (")[0]
    for sql in (
        pending,
        renderer.queries[-1],
        renderer.call("_sw_incremental_session_late_sql", cfg, SESSION_SQL, Target(), plan),
        renderer.call("_sw_incremental_session_changelog_sql", cfg, "spark_windows.pending", plan),
    ):
        parse(sql)


def test_a_session_model_whose_gap_changed_is_refused_naming_the_window(incremental_renderer):
    stored = {**STORED, "window": {"type": "session", "gap": "10 minutes"}}
    message = incremental_renderer.call(
        "_sw_incremental_changed_message",
        Target(),
        stored,
        {**stored, "window": {"type": "session", "gap": "30 minutes"}},
    )
    assert message.startswith("windowed_incremental: window (was ") and "'30 minutes'" in message
    assert "--full-refresh" in message


def test_inline_ctes_writes_each_reference_as_a_subquery():
    """The views a session run caches are written without WITH (_sw_incremental_inline_ctes)."""
    sql = (
        "with __sw_a as (\n    select x from t\n),\n\n"
        "__sw_ab as (\n    select x from __sw_a where x > 1\n),\n\n"
        "__sw_b as (\n    select l.x from __sw_ab as l\n    left semi join __sw_a on l.x = __sw_a.x\n)\n\n"
        "select * from __sw_b"
    )
    inlined = MacroRenderer().call("_sw_incremental_inline_ctes", sql)
    a = "(\n    select x from t\n)"
    ab = f"(\n    select x from {a} as __sw_a where x > 1\n)"
    assert inlined == (
        f"select * from (\n    select l.x from {ab} as l\n    left semi join {a} as __sw_a on l.x = __sw_a.x\n) as __sw_b"
    )
    parse(inlined)


def test_the_plan_reads_and_writes_nothing(session_renderer, incremental_renderer):
    """Planning is arithmetic on the state and the summary; the touch step is where a session run
    caches and reads, and a fixed-window run has none."""
    renderer = session_renderer
    cfg = renderer.call("_sw_incremental_config", Config(SESSION))
    state = dict(STATES["later run"])
    renderer.touch_answer = [1, 2, SUMMARY["min_update_us"] - HOUR, SUMMARY["max_update_us"]]
    renderer.queries.clear()
    before = renderer.call("_sw_incremental_plan", cfg, state, SUMMARY)
    assert renderer.queries == []
    touch = renderer.call("_sw_incremental_touch", cfg, SESSION_SQL, Target(), before)
    asked = list(renderer.queries)
    assert [sql for sql in asked if sql.startswith("cache lazy table")] == [
        "cache lazy table __sw_candidates_sensor_vehicles",
        "cache lazy table __sw_touched_sensor_vehicles",
    ]
    plan = renderer.call("_sw_incremental_touched", cfg, before, touch)
    assert renderer.queries == asked
    assert plan["late_rows"] == SUMMARY["late_rows"] + 1 and plan["touched_sessions"] == 2
    # a new plan: the one the touch step read is as it was
    assert before["late_rows"] == SUMMARY["late_rows"] and before["touched_sessions"] == 0
    fixed = config(incremental_renderer)
    assert incremental_renderer.call("_sw_incremental_touch", fixed, MODEL_SQL, Target(), before) is None


@pytest.mark.parametrize("family", ["fixed", "session"])
@pytest.mark.parametrize("changelog", [True, False])
def test_both_window_families_answer_through_one_interface(session_renderer, family, changelog):
    renderer = session_renderer
    values = {**(SESSION if family == "session" else GOOD), "emit": "changelog" if changelog else None}
    cfg = renderer.call("_sw_incremental_config", Config({k: v for k, v in values.items() if v is not None}))
    state = dict(STATES["later run"])
    renderer.touch_answer = [0, 1, SUMMARY["min_update_us"] - HOUR, SUMMARY["max_update_us"]]
    plan = (
        planned(renderer, cfg, state)
        if family == "session"
        else renderer.call("_sw_incremental_plan", cfg, state, SUMMARY)
    )
    steps = renderer.call(
        "_sw_incremental_window_sql", cfg, MODEL_SQL, Target(), {"late": "late_t"}, plan, "spark_windows.pending"
    )
    assert sorted(steps) == ["changelog", "changelog_shape", "late", "stage"]
    for name in ("stage", "late", *(["changelog_shape", "changelog"] if changelog else [])):
        parse(steps[name])
    if not changelog:
        assert steps["changelog_shape"] is None and steps["changelog"] is None
    else:
        assert "from spark_windows.pending" in steps["changelog"]


def test_the_materialization_names_its_statements_and_shows_its_main_one():
    """No SQL written in the materialization's body, no fork on the window family, and the main
    statement of each of its three paths (nothing new; a final run's writes; the other runs'
    writes, whose last statement or script is the main one) in the body itself (dbt reports the
    main statement's result)."""
    body = (PROJECT_DIR / "macros" / "materializations" / "windowed_incremental.sql").read_text()
    assert not re.search(r"run_query\(\s*['\"]", body), "a statement written in the body"
    assert "cfg.session" not in body
    assert body.count("{%- call statement('main') -%}") == 3


# a model whose SQL holds a string literal over two lines: every statement must keep it as written
MULTILINE_SQL = "select *, 'line one\n  line two' as note from spark_windows.raw_readings"


@pytest.mark.parametrize("moment", STATES)
def test_every_statement_keeps_the_models_sql_as_written(incremental_renderer, session_renderer, moment):
    """Indenting the model's SQL inside a statement would change its string literals."""
    renderer = incremental_renderer
    cfg = config(renderer, emit="changelog")
    state = dict(STATES[moment])
    plan = renderer.call("_sw_incremental_plan", cfg, state, SUMMARY)
    fixed = [
        renderer.call("_sw_incremental_summary_sql", cfg, MULTILINE_SQL, state),
        renderer.call("_sw_incremental_pending_sql", cfg, MULTILINE_SQL, Target(), plan),
        renderer.call("_sw_incremental_late_sql", cfg, MULTILINE_SQL, plan),
        renderer.call("_sw_incremental_arrival_check_sql", cfg, MULTILINE_SQL, "t__state", state["ingestion_us"], 1),
    ]
    renderer = session_renderer
    renderer.touch_answer = [1, 2, SUMMARY["min_update_us"] - 30 * MINUTE, SUMMARY["max_update_us"]]
    renderer.queries.clear()
    cfg = renderer.call("_sw_incremental_config", Config({**SESSION, "aggregates": NEEDS_ROWS}))
    batch_view = cache_batch(renderer, cfg, MULTILINE_SQL, state)
    before = renderer.call("_sw_incremental_plan", cfg, state, SUMMARY, batch_view)
    touch = renderer.call("_sw_incremental_touch", cfg, MULTILINE_SQL, Target(), before)
    plan = renderer.call("_sw_incremental_touched", cfg, before, touch)
    sessions = [
        *renderer.queries,
        renderer.call("_sw_incremental_session_pending_sql", cfg, MULTILINE_SQL, Target(), "late_t", plan),
        renderer.call("_sw_incremental_session_late_sql", cfg, MULTILINE_SQL, Target(), plan),
    ]
    for text in fixed + sessions:
        assert text.count("raw_readings") == text.count(MULTILINE_SQL), text
    assert all("raw_readings" in text for text in fixed)
    assert any("raw_readings" in text for text in sessions)


@pytest.mark.parametrize("rewrite", [True, False])
def test_the_commit_counts_the_updated_windows_of_the_staging_table(incremental_renderer, rewrite):
    cfg = config(incremental_renderer)
    plan = {
        **incremental_renderer.call("_sw_incremental_plan", cfg, dict(STATES["later run"]), SUMMARY),
        "rewrite": rewrite,
    }
    commit = parse(
        incremental_renderer.call(
            "_sw_incremental_commit_sql", cfg, "t__state", 4, plan, 40, Target(), "f1", '{"1714550400000000":40}'
        )
    )
    values = commit.expression.selects
    assert len(values) == 12
    # with a staging table, its fresh windows counted by an aggregate of it (no subquery)
    assert commit.find(exp.Subquery) is None
    source = commit.expression.find(exp.From)
    assert values[6].sql(dialect="spark") == ("COUNT_IF(__sw_fresh_window)" if rewrite else "CAST(0 AS BIGINT)")
    assert (source.sql(dialect="spark") if source else None) == (
        "FROM spark_windows.sensor_vehicles" if rewrite else None
    )
    assert not any(isinstance(value, exp.AggFunc) for value in values[:6] + values[7:])


# --- the write-once commit: the table takes a run's staged partitions by metadata -------------

FOLDER = "file:/w/spark_windows.db/sensor_vehicles/run-7"
EIGHT, NINE = "window_partition=2024-05-01 08%3A00%3A00", "window_partition=2024-05-01 09%3A00%3A00.5"


def describe_rows(table_type, location, column="type"):
    """`describe formatted` rows: a column (named like a detail row), then the details."""
    return [[column, "string", None], ["", "", ""], ["# Detailed Table Information", "", ""]] + [
        ["Type", table_type, ""],
        ["Location", location, ""],
        ["# Storage Information", "", ""],
        ["Location", "file:/elsewhere", ""],
    ]


@pytest.fixture()
def catalog_renderer() -> MacroRenderer:
    """`run_query` answers from `renderer.answers`: the rows of the first key the query starts with."""
    renderer = MacroRenderer()
    renderer.queries, renderer.answers = [], {}

    def run_query(sql):
        renderer.queries.append(sql)
        return Answer(next((rows for start, rows in renderer.answers.items() if sql.startswith(start)), []))

    renderer.env.globals["run_query"] = run_query
    return renderer


@pytest.mark.parametrize("column", ["type", "location"])
def test_describing_a_table_reads_its_details_not_a_column_of_the_same_name(catalog_renderer, column):
    catalog_renderer.answers["describe formatted t"] = describe_rows("EXTERNAL", "file:/w/t", column)
    assert catalog_renderer.call("_sw_describe_table", "t") == {"type": "EXTERNAL", "location": "file:/w/t"}


@pytest.mark.parametrize(
    ("table_type", "folder"),
    [
        ("MANAGED", "file:/w/spark_windows.db/sensor_vehicles/run-7"),
        ("EXTERNAL", None),  # location_root: a dropped partition would keep its folder
    ],
)
def test_a_run_writes_once_only_into_a_managed_table(catalog_renderer, table_type, folder):
    catalog_renderer.answers["describe formatted spark_windows.sensor_vehicles"] = describe_rows(
        table_type, "file:/w/spark_windows.db/sensor_vehicles"
    )
    assert catalog_renderer.call("_sw_incremental_run_folder", {"iceberg": False}, Target(), 7) == folder
    stage = catalog_renderer.call("_sw_incremental_stage_sql", "spark_windows.pending", "select 1 as x", folder)
    tree = parse(stage)
    assert (tree.find(exp.PartitionedByProperty) is not None) == (folder is not None)
    assert (f"location '{folder}'" in stage) == (folder is not None)


def listed(renderer, identifier, information):
    """dbt's relation cache holds `identifier` with `information`, the text SHOW TABLE EXTENDED
    gave it when dbt started."""
    renderer.env.globals["adapter"].listed[identifier] = types.SimpleNamespace(
        database=None, schema="spark_windows", identifier=identifier, information=information
    )


# a table's text in SHOW TABLE EXTENDED, as Spark 4.3 prints it (Spark 3.5 the same lines)
LISTED_TEXT = """Catalog: spark_catalog
Database: spark_windows
Table: sensor_vehicles
Owner: root
Created Time: Tue Dec 01 00:14:02 UTC 2026
Last Access: UNKNOWN
Created By: Spark 4.3.0
Type: MANAGED
Provider: parquet
Location: file:/w/spark_windows.db/sensor_vehicles
Serde Library: org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe
Storage Properties: [partitionOverwriteMode=dynamic, mapreduce.fileoutputcommitter.algorithm.version=2]
Partition Provider: Catalog
Partition Columns: [`window_partition`]
Schema: root
 |-- vehicle_id: string (nullable = true)
 |-- stop: struct (nullable = true)
 |    |-- lat: double (nullable = true)
 |-- Revision: integer (nullable = true)
 |-- window_partition: timestamp (nullable = true)
"""


def test_what_dbt_listed_of_a_table_is_read_without_a_describe(catalog_renderer):
    listed(catalog_renderer, "sensor_vehicles", LISTED_TEXT)
    assert catalog_renderer.call("_sw_cached_table", Target()) == {
        "type": "MANAGED",
        "location": "file:/w/spark_windows.db/sensor_vehicles",
        "provider": "parquet",
        "columns": ["vehicle_id", "stop", "revision", "window_partition"],  # top-level, lowercase
        "storage_properties": ["partitionOverwriteMode=dynamic", "mapreduce.fileoutputcommitter.algorithm.version=2"],
        "properties": [],
    }
    assert catalog_renderer.call("_sw_incremental_run_folder", {"iceberg": False}, Target(), 7) == FOLDER
    assert catalog_renderer.call("_sw_column_names", Target())[-2:] == ["revision", "window_partition"]
    assert catalog_renderer.queries == []


def test_a_table_dbt_listed_without_its_text_is_described(catalog_renderer):
    listed(catalog_renderer, "sensor_vehicles", "")
    catalog_renderer.answers["describe formatted spark_windows.sensor_vehicles"] = describe_rows(
        "MANAGED", "file:/w/spark_windows.db/sensor_vehicles"
    )
    assert catalog_renderer.call("_sw_cached_table", Target()) is None
    assert catalog_renderer.call("_sw_incremental_run_folder", {"iceberg": False}, Target(), 7) == FOLDER
    assert catalog_renderer.queries == ["describe formatted spark_windows.sensor_vehicles"]


@pytest.mark.parametrize(
    ("information", "iceberg"),
    [
        # Spark's session catalog with Iceberg's SparkSessionCatalog: provider hive, the format in
        # the table properties
        (listed_text("spark_windows", "sensor_vehicles", ["k"], [], iceberg=True), True),
        # an Iceberg catalog (REST, Glue) lists the provider
        (LISTED_TEXT.replace("Provider: parquet", "Provider: iceberg"), True),
        (LISTED_TEXT, False),
        # a Parquet table whose properties merely mention Iceberg
        (
            LISTED_TEXT.replace("Partition Provider:", "Table Properties: [note=from iceberg]\nPartition Provider:"),
            False,
        ),
    ],
)
def test_an_iceberg_table_is_told_by_its_properties_or_provider(catalog_renderer, information, iceberg):
    listed(catalog_renderer, "sensor_vehicles", information)
    cached = catalog_renderer.call("_sw_cached_table", Target())
    assert catalog_renderer.call("_sw_is_iceberg", cached) is iceberg
    assert catalog_renderer.call("_sw_incremental_run_folder", {"iceberg": iceberg}, Target(), 7) == (
        None if iceberg else FOLDER
    )


OLDER = "it was written by a spark_windows release older than 0.2.0. Run the model once with --full-refresh"


def state_table_text(columns: list[str], storage: str = COMMITTER) -> str:
    """sensor_vehicles' text in SHOW TABLE EXTENDED with other columns and storage properties."""
    return listed_text("spark_windows", "sensor_vehicles", columns, [storage])


def state_tables() -> dict:
    return {name: Relation(f"spark_windows.sensor_vehicles__{name}") for name in ["late", "changelog", "state"]}


@pytest.mark.parametrize(
    ("missing", "named"),
    [
        (["config", "arrival_counts"], "has no config and arrival_counts columns"),  # 0.1.0's state table
        (["arrival_counts"], "has no arrival_counts column"),
    ],
)
def test_a_state_table_of_a_release_before_0_2_0_is_refused_before_it_is_read(catalog_renderer, missing, named):
    """Layouts are upgraded only from the last release (0.2.0, the current one): a state table
    without the config or arrival_counts column is refused, naming it, before any statement."""
    columns = [column for column in STATE_COLUMNS if column not in missing]
    listed(catalog_renderer, "sensor_vehicles__state", state_table_text(columns))
    with pytest.raises(CompilerError) as error:
        catalog_renderer.call(
            "_sw_incremental_read_state", tumble_config(catalog_renderer), MODEL_SQL, Target(), state_tables(), False
        )
    assert str(error.value) == (
        f"windowed_incremental: spark_windows.sensor_vehicles__state {named}: {OLDER} to recompute every window."
    )
    assert catalog_renderer.queries == []
    # --full-refresh reads no state: the run starts again
    assert (
        catalog_renderer.call(
            "_sw_incremental_read_state", tumble_config(catalog_renderer), MODEL_SQL, Target(), state_tables(), True
        )["batch_id"]
        == 0
    )
    assert catalog_renderer.queries == []


def tumble_config(renderer) -> dict:
    return renderer.call("_sw_incremental_config", Config(GOOD))


STATE_ROW = [3, 1, 2, 3, "", "f1", json.dumps({"session_time_zone": "UTC"}), "UTC", "4.3.0 abc", 4]
READ_STATE = {"batch_id": 3, "ingestion_us": 1, "event_us": 2, "watermark_us": 3, "pending": "",
              "fingerprint": "f1", "config": STATE_ROW[6], "session": ["UTC", "4.3.0 abc"], "late_rows": 4}  # fmt: skip


def test_a_session_run_reads_the_state_row_of_0_2_0_with_its_settings(catalog_renderer):
    """A session run scans the batch it caches: the state row is read alone."""
    listed(catalog_renderer, "sensor_vehicles__state", state_table_text(STATE_COLUMNS))
    catalog_renderer.answers["select batch_id, "] = [STATE_ROW]
    cfg = catalog_renderer.call("_sw_incremental_config", Config(SESSION_CONFIG))
    state = catalog_renderer.call("_sw_incremental_read_state", cfg, MODEL_SQL, Target(), state_tables(), False)
    (query,) = catalog_renderer.queries
    assert [column.sql("spark") for column in parse(query).selects][6:] == [
        "config",
        "CURRENT_TIMEZONE()",
        "VERSION()",
        "late_rows",
    ]
    assert state == {**READ_STATE, "scanned": None}


def test_a_tumbling_run_reads_the_state_row_with_its_scan_in_one_query(catalog_renderer):
    """Each row of the answer is a row of the scan, then the state row's columns: the state is
    read from the first, the scan's rows are kept whole for the summary."""
    listed(catalog_renderer, "sensor_vehicles__state", state_table_text(STATE_COLUMNS))
    scan = [["hour", 0, 5, 0, 9, 8, 0, 7, 8], ["input_rows", None, 5] + [None] * 6]
    catalog_renderer.answers["select __sw_scan.*, __sw_last.*"] = [row + STATE_ROW for row in scan]
    state = catalog_renderer.call(
        "_sw_incremental_read_state", tumble_config(catalog_renderer), MODEL_SQL, Target(), state_tables(), False
    )
    (query,) = catalog_renderer.queries
    assert [column.sql("spark") for column in parse(query).selects] == ["__sw_scan.*", "__sw_last.*"]
    assert state == {**READ_STATE, "scanned": [row + STATE_ROW for row in scan]}


def test_a_tumbling_run_whose_state_table_holds_no_row_scans_again(catalog_renderer):
    """No state row (a first run killed after it created the state table): the scan's bounds were
    NULL, so its rows are not used (batch 0: the summary scans again, as on a first run)."""
    listed(catalog_renderer, "sensor_vehicles__state", state_table_text(STATE_COLUMNS))
    catalog_renderer.answers["select __sw_scan.*, __sw_last.*"] = [["input_rows", None, 5] + [None] * 16]
    state = catalog_renderer.call(
        "_sw_incremental_read_state", tumble_config(catalog_renderer), MODEL_SQL, Target(), state_tables(), False
    )
    assert state["batch_id"] == 0 and state["scanned"] is None


def test_tables_without_the_committer_option_are_refused_before_recovery_changes_anything(catalog_renderer):
    """A run changes no session setting: the late, changelog and state tables hold Hadoop's
    commit algorithm 2 as a table option. One a release before 0.2.0 created without it (here
    algorithm 1) is refused; one dbt listed without its text cannot be told and is let through,
    as is one it did not list (the run creates it, with the option). The changelog is checked
    only where the run writes it (emit='changelog'). No statement is sent."""
    option = "mapreduce.fileoutputcommitter.algorithm.version"
    listed(catalog_renderer, "sensor_vehicles__late", "")
    listed(catalog_renderer, "sensor_vehicles__changelog", state_table_text(["op"], f"{option}=1"))
    listed(catalog_renderer, "sensor_vehicles__state", state_table_text(STATE_COLUMNS))
    tables = state_tables()
    changelog = catalog_renderer.call("_sw_incremental_config", Config({**GOOD, "emit": "changelog"}))
    check = catalog_renderer.macros["_sw_incremental_check_committer_option"]
    with pytest.raises(CompilerError) as error:
        check(changelog, tables)
    assert str(error.value) == (
        "windowed_incremental: spark_windows.sensor_vehicles__changelog has no table option "
        f"'{option}' = '2': {OLDER} to recompute every window in tables created with it."
    )
    check(catalog_renderer.call("_sw_incremental_config", Config(GOOD)), tables)  # no changelog written
    # several tables: each is named
    listed(
        catalog_renderer, "sensor_vehicles__state", state_table_text(STATE_COLUMNS, "partitionOverwriteMode=dynamic")
    )
    with pytest.raises(CompilerError) as error:
        check(changelog, tables)
    assert str(error.value).startswith(
        "windowed_incremental: spark_windows.sensor_vehicles__changelog and spark_windows.sensor_vehicles__state "
        f"have no table option '{option}' = '2': they were written by a spark_windows release older than 0.2.0."
    )
    listed(catalog_renderer, "sensor_vehicles__late", state_table_text(["reading_ts", "batch_id"], ""))
    with pytest.raises(CompilerError) as error:
        check(changelog, tables)
    assert str(error.value).startswith(
        "windowed_incremental: spark_windows.sensor_vehicles__late, spark_windows.sensor_vehicles__changelog and "
        f"spark_windows.sensor_vehicles__state have no table option '{option}' = '2'"
    )
    # recovery refuses them before it looks for a staging table to apply
    with pytest.raises(CompilerError, match="have no table option"):
        catalog_renderer.call(
            "_sw_incremental_recover", changelog, Target(), tables, {"batch_id": 3, "config": None}, "UTC"
        )
    assert catalog_renderer.queries == []
    # tables of 0.2.0
    for name in ["late", "changelog", "state"]:
        listed(catalog_renderer, f"sensor_vehicles__{name}", state_table_text(["batch_id"]))
    check(changelog, tables)


@pytest.mark.parametrize("scripts", [True, False])
def test_a_runs_writes_are_one_script_where_spark_runs_scripts_else_one_by_one(catalog_renderer, scripts):
    """The writes go to Spark in the order given, as one SQL script (a session setting through
    EXECUTE IMMEDIATE, where `set x = ...` would assign a variable) or one statement at a time;
    the last text sent is returned for the materialization's main statement."""
    writes = [
        "set spark.sql.sources.partitionOverwriteMode = STATIC",
        "create table spark_windows.pending as select 1 as a",
        "reset spark.sql.legacy.allowNonEmptyLocationInCTAS",
        "insert into spark_windows.sensor_vehicles__state select 'it''s'",
    ]
    main = catalog_renderer.call("_sw_incremental_send", {"scripts": scripts}, writes)
    if not scripts:
        assert catalog_renderer.queries == writes[:-1]
        assert main == writes[-1]
        return
    assert catalog_renderer.queries == []
    assert main.split("\n") == [
        "BEGIN",
        "EXECUTE IMMEDIATE 'set spark.sql.sources.partitionOverwriteMode = STATIC';",
        "create table spark_windows.pending as select 1 as a;",
        "EXECUTE IMMEDIATE 'reset spark.sql.legacy.allowNonEmptyLocationInCTAS';",
        "insert into spark_windows.sensor_vehicles__state select 'it''s';",
        "END",
    ]
    assert catalog_renderer.call("_sw_incremental_send", {"scripts": scripts}, []) is None


@pytest.mark.parametrize("session", [False, True])
def test_a_scripted_write_once_apply_names_the_staged_partitions_in_spark(catalog_renderer, session):
    """Within a run's script the apply reads nothing back: Spark lists the staging table's
    partitions (and, for sessions, names those the run read that it left unstaged), and the
    drop and the add are built as text and run by EXECUTE IMMEDIATE; with a changelog, the staged
    rows of role old are deleted through the trash table."""
    cfg = catalog_renderer.call(
        "_sw_incremental_config", Config({**(SESSION if session else GOOD), "emit": "changelog"})
    )
    read = {"partition_us": 3_600_000_000, "ranges": [[1714546800000000, 1714550400000000]]} if session else None
    script, *purge = catalog_renderer.call(
        "_sw_incremental_repoint_script", cfg, Target(), "spark_windows.pending", FOLDER, read=read
    )
    assert catalog_renderer.queries == []
    assert script.startswith("BEGIN") and script.endswith("END")
    assert "from spark_windows.pending where window_partition is not null" in script
    assert "'alter table spark_windows.sensor_vehicles drop if exists ' ||" in script
    assert "'alter table spark_windows.sensor_vehicles add ' ||" in script
    assert f"'\\'{FOLDER}/window_partition='" in script  # the run's folder, quoted in the text built
    assert "replace(__sw_value, ':', '%3A')" in script  # as Spark names the partitions' folders
    assert ("values (1714546800000000L), (1714550400000000L)" in script) is session
    trash = "spark_windows.sensor_vehicles__trash"
    assert purge == (
        [
            f"drop table if exists {trash}",
            f"create table {trash} (purged int) using parquet partitioned by (folder string)",
            f"alter table {trash} add partition (folder = 'f1') location '{FOLDER}/window_partition=__HIVE_DEFAULT_PARTITION__'",
            f"drop table if exists {trash}",
        ]
        if session
        else []
    )


def test_a_write_once_apply_drops_the_staged_partitions_then_adds_them_at_the_run_folder(catalog_renderer):
    catalog_renderer.answers["show partitions spark_windows.pending"] = [[EIGHT], [NINE]]
    cfg = catalog_renderer.call("_sw_incremental_config", Config(GOOD))
    catalog_renderer.call("_sw_incremental_repoint", cfg, Target(), "spark_windows.pending", FOLDER)
    listed, drop, add = catalog_renderer.queries
    assert listed == "show partitions spark_windows.pending"  # the table's own need no listing
    assert drop == (
        "alter table spark_windows.sensor_vehicles drop if exists"
        " partition (window_partition = '2024-05-01 08:00:00'), partition (window_partition = '2024-05-01 09:00:00.5')"
    )
    assert add == (
        "alter table spark_windows.sensor_vehicles add"
        f" partition (window_partition = '2024-05-01 08:00:00') location '{FOLDER}/{EIGHT}'"
        f" partition (window_partition = '2024-05-01 09:00:00.5') location '{FOLDER}/{NINE}'"
    )
    parse(drop)


@pytest.mark.parametrize(("table_type", "location"), [("EXTERNAL", FOLDER), ("MANAGED", "file:/w/p")])
def test_a_session_staging_table_of_a_release_before_0_2_0_is_refused_before_recovery_applies_it(
    catalog_renderer, table_type, location
):
    """A session's staging table keeps the partitions its run read as a table property. One
    written before 0.2.0 has none (its rows of role drop named them): recovery refuses it, naming
    it, before it changes anything. A fixed window's staging table needs no property."""
    catalog_renderer.answers["describe formatted spark_windows.pending"] = describe_rows(table_type, location)
    catalog_renderer.answers["show tblproperties spark_windows.pending"] = [["transient_lastDdlTime", "1714550400"]]
    catalog_renderer.answers["show partitions spark_windows.pending"] = [[EIGHT]]
    cfg = catalog_renderer.call("_sw_incremental_config", Config(SESSION))
    with pytest.raises(CompilerError) as error:
        catalog_renderer.call("_sw_incremental_apply", cfg, Target(), Relation("spark_windows.pending"))
    assert str(error.value) == (
        "windowed_incremental: spark_windows.pending, the staging table the last committed run of "
        "spark_windows.sensor_vehicles left to apply, has no table property spark_windows.read_partitions: it was "
        "written by a spark_windows release older than 0.2.0. Run the model once with --full-refresh to recompute "
        "every window (the staging table is dropped)."
    )
    assert catalog_renderer.queries == [
        "describe formatted spark_windows.pending",
        "show tblproperties spark_windows.pending",
    ]
    catalog_renderer.queries.clear()
    fixed = catalog_renderer.call("_sw_incremental_config", Config(GOOD))
    catalog_renderer.call("_sw_incremental_apply", fixed, Target(), Relation("spark_windows.pending"))
    assert "show tblproperties spark_windows.pending" not in catalog_renderer.queries
    assert catalog_renderer.queries[-1].startswith(
        "alter table spark_windows.sensor_vehicles add" if table_type == "EXTERNAL" else "insert overwrite table"
    )


def hour_us(text: str) -> int:
    """`2024-05-01 HH:MM:SS` (UTC) in microseconds since the epoch."""
    moment = datetime.datetime.fromisoformat(f"2024-05-01 {text}").replace(tzinfo=datetime.timezone.utc)
    return round(moment.timestamp() * 1_000_000)


def partition_names(rows: list) -> list[list[str]]:
    """The partitions' values as Spark names them, as a query of them answers."""
    return [[f"2024-05-01 {text}"] for text in rows]


GRID = "select cast(timestamp_micros(__sw_us) as string)"


def grid_values(query: str) -> list[int]:
    """The microseconds a query of the partitions read names, from its literals."""
    return sorted(int(value.this) for value in parse(query).find_all(exp.Literal) if value.is_int)


@pytest.mark.parametrize("changelog", [True, False])
def test_a_write_once_session_apply_drops_the_partitions_it_read_that_no_session_is_staged_in(
    catalog_renderer, changelog
):
    """The run read the partitions of 07:00 to 10:00 (two ranges, one partition in both); its
    sessions are staged in 08:00 and 10:00. Spark names the partitions read from literals (no
    job), and 07:00 and 09:00, staged in nothing, are dropped with the replaced ones. Only with
    emit='changelog' do staged rows lie in the NULL partition, deleted after the ADD."""
    unplaced = "window_partition=__HIVE_DEFAULT_PARTITION__"  # rows of role old
    ten = "window_partition=2024-05-01 10%3A00%3A00"
    catalog_renderer.answers["show partitions spark_windows.pending"] = [[EIGHT], [ten]] + (
        [[unplaced]] if changelog else []
    )
    catalog_renderer.answers[GRID] = partition_names(["07:00:00", "08:00:00", "09:00:00", "10:00:00"])
    cfg = catalog_renderer.call("_sw_incremental_config", Config(SESSION))
    read = {
        "partition_us": HOUR,
        "ranges": [[hour_us("07:00:00"), hour_us("09:00:00")], [hour_us("09:00:00"), hour_us("10:00:00")]],
    }
    catalog_renderer.call("_sw_incremental_repoint", cfg, Target(), "spark_windows.pending", FOLDER, read=read)
    listed, grid, drop, add, *purge = catalog_renderer.queries
    assert listed == "show partitions spark_windows.pending"
    assert grid.startswith(GRID) and "explode" not in grid
    # only the names that read back as their own start (every one, outside a repeated hour)
    assert parse(grid).args["where"].sql("spark") == (
        "WHERE CAST(CAST(TIMESTAMP_MICROS(__sw_us) AS STRING) AS TIMESTAMP) = TIMESTAMP_MICROS(__sw_us)"
    )
    assert grid_values(grid) == [hour_us(f"{hour:02}:00:00") for hour in (7, 8, 9, 10)]
    assert drop == (
        "alter table spark_windows.sensor_vehicles drop if exists"
        " partition (window_partition = '2024-05-01 08:00:00'), partition (window_partition = '2024-05-01 10:00:00'),"
        " partition (window_partition = '2024-05-01 07:00:00'), partition (window_partition = '2024-05-01 09:00:00')"
    )
    assert add == (
        "alter table spark_windows.sensor_vehicles add"
        f" partition (window_partition = '2024-05-01 08:00:00') location '{FOLDER}/{EIGHT}'"
        f" partition (window_partition = '2024-05-01 10:00:00') location '{FOLDER}/{ten}'"
    )
    parse(drop)
    trash = "spark_windows.sensor_vehicles__trash"
    assert purge == (
        [
            f"drop table if exists {trash}",
            f"create table {trash} (purged int) using parquet partitioned by (folder string)",
            f"alter table {trash} add partition (folder = 'f1') location '{FOLDER}/{unplaced}'",
            f"drop table if exists {trash}",
        ]
        if changelog
        else []
    )


def test_many_partitions_read_and_not_staged_are_dropped_only_where_the_table_holds_them(catalog_renderer):
    """A run that read a long span (here 30 hours) with few sessions staged: rather than a DROP
    IF EXISTS of every hour, the table's partitions are listed and only those it holds dropped."""
    catalog_renderer.answers["show partitions spark_windows.pending"] = [[EIGHT]]
    start = hour_us("00:00:00")
    hours = [start + hour * HOUR for hour in range(30)]
    grid = [
        [datetime.datetime.fromtimestamp(us / 1e6, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")] for us in hours
    ]
    catalog_renderer.answers[GRID] = grid
    catalog_renderer.answers["show partitions spark_windows.sensor_vehicles"] = [
        [EIGHT],
        ["window_partition=2024-05-01 03%3A00%3A00"],
        ["window_partition=2024-05-02 01%3A00%3A00"],
        ["window_partition=2024-05-03 00%3A00%3A00"],  # after the span read
    ]
    cfg = catalog_renderer.call("_sw_incremental_config", Config(SESSION))
    read = {"partition_us": HOUR, "ranges": [[hours[0], hours[-1]]]}
    catalog_renderer.call("_sw_incremental_repoint", cfg, Target(), "spark_windows.pending", FOLDER, read=read)
    queries = catalog_renderer.queries
    assert grid_values(queries[1]) == hours
    assert queries[2] == "show partitions spark_windows.sensor_vehicles"
    (drop,) = [query for query in queries if " drop if exists " in query]
    assert drop == (
        "alter table spark_windows.sensor_vehicles drop if exists partition (window_partition = '2024-05-01 08:00:00'),"
        " partition (window_partition = '2024-05-01 03:00:00'), partition (window_partition = '2024-05-02 01:00:00')"
    )


def test_a_grid_of_partitions_read_too_long_for_literals_is_made_by_spark(catalog_renderer):
    """Past 10,000 partitions (Jinja's ranges stop at 100,000) a range's grid is Spark's
    `sequence`; the other ranges stay literals."""
    start = hour_us("00:00:00")
    read = {"partition_us": MINUTE, "ranges": [[start, start + 20_000 * MINUTE], [start, start + 2 * MINUTE]]}
    assert catalog_renderer.call("_sw_incremental_emptied", Target(), read, [], []) == []
    (grid,) = catalog_renderer.queries
    parse(grid)
    assert f"select explode(sequence({start}L, {start + 20_000 * MINUTE}L, {MINUTE}L)) as __sw_us" in grid
    assert f"values ({start}L), ({start + MINUTE}L), ({start + 2 * MINUTE}L) as __sw_grid(__sw_us)" in grid


def test_a_session_recovery_drops_the_partitions_read_that_the_table_still_holds_and_no_session_is_staged_in(
    catalog_renderer,
):
    """Recovery reads the partitions the run read from the staging table's property. The apply it
    finishes was killed after its DROP: 07:00, emptied, is gone already, 08:00 is to be added;
    09:00 (read, holding no staged session) is still held and dropped now."""
    catalog_renderer.answers["describe formatted spark_windows.pending"] = describe_rows("EXTERNAL", FOLDER)
    read = {"partition_us": HOUR, "ranges": [[hour_us("07:00:00"), hour_us("09:00:00")]]}
    catalog_renderer.answers["show tblproperties spark_windows.pending"] = [
        ["transient_lastDdlTime", "1714550400"],
        ["spark_windows.read_partitions", json.dumps(read)],
    ]
    catalog_renderer.answers["show partitions spark_windows.pending"] = [[EIGHT]]
    catalog_renderer.answers["show partitions spark_windows.sensor_vehicles"] = [
        ["window_partition=2024-05-01 09%3A00%3A00"],
        ["window_partition=2024-05-01 11%3A00%3A00"],
    ]
    catalog_renderer.answers[GRID] = partition_names(["07:00:00", "08:00:00", "09:00:00"])
    cfg = catalog_renderer.call("_sw_incremental_config", Config(SESSION))
    catalog_renderer.call("_sw_incremental_apply", cfg, Target(), "spark_windows.pending")
    queries = catalog_renderer.queries
    assert grid_values(next(query for query in queries if query.startswith(GRID))) == [
        hour_us(f"{hour:02}:00:00") for hour in (7, 8, 9)
    ]
    drop, add = [query for query in queries if query.startswith("alter table")]
    assert drop == (
        "alter table spark_windows.sensor_vehicles drop if exists partition (window_partition = '2024-05-01 09:00:00')"
    )
    assert add == (
        f"alter table spark_windows.sensor_vehicles add partition (window_partition = '2024-05-01 08:00:00') location '{FOLDER}/{EIGHT}'"
    )


def test_a_managed_session_staging_table_empties_the_partitions_read_that_no_staged_session_is_in(catalog_renderer):
    """Under a location_root the staging table is rewritten into the table; the partitions it
    has rows for are read from it, the partitions the run read from its property."""
    catalog_renderer.answers["describe formatted spark_windows.pending"] = describe_rows("MANAGED", "file:/w/p")
    read = {"partition_us": HOUR, "ranges": [[hour_us("07:00:00"), hour_us("08:00:00")]]}
    catalog_renderer.answers["show tblproperties spark_windows.pending"] = [
        ["spark_windows.read_partitions", json.dumps(read)]
    ]
    catalog_renderer.answers["select distinct cast(window_partition as string)"] = partition_names(
        ["08:00:00", "12:00:00"]
    )
    catalog_renderer.answers[GRID] = partition_names(["07:00:00", "08:00:00"])
    cfg = catalog_renderer.call("_sw_incremental_config", Config(SESSION))
    catalog_renderer.call("_sw_incremental_apply", cfg, Target(), "spark_windows.pending")
    described, properties, overwrite, staged, grid, drop = catalog_renderer.queries
    assert overwrite.startswith("insert overwrite table spark_windows.sensor_vehicles partition (window_partition)")
    assert staged.endswith("from spark_windows.pending where __sw_role in ('fresh', 'kept')")
    parse(staged)
    assert grid_values(grid) == [hour_us("07:00:00"), hour_us("08:00:00")]
    assert drop == (
        "alter table spark_windows.sensor_vehicles drop if exists partition (window_partition = '2024-05-01 07:00:00')"
    )


def test_the_staging_table_of_a_session_run_keeps_the_partitions_it_read_as_a_property(catalog_renderer):
    read = {"partition_us": HOUR, "ranges": [[hour_us("07:00:00"), hour_us("08:00:00")]]}
    stage = catalog_renderer.call("_sw_incremental_stage_sql", "spark_windows.pending", "select 1 as x", FOLDER, read)
    properties = parse(stage).find(exp.Properties).find_all(exp.Property)
    found = {prop.name: prop.text("value") for prop in properties if prop.name.startswith("spark_windows")}
    assert {key: json.loads(value) for key, value in found.items()} == {"spark_windows.read_partitions": read}
    cfg = catalog_renderer.call("_sw_incremental_config", Config(SESSION))
    plan = {"target_exists": True, "partition_ranges": read["ranges"]}
    assert catalog_renderer.call("_sw_incremental_read_partitions", cfg, plan) == read
    assert (
        catalog_renderer.call("_sw_incremental_read_partitions", cfg, {**plan, "target_exists": False})["ranges"] == []
    )
    fixed = catalog_renderer.call("_sw_incremental_config", Config(GOOD))
    assert catalog_renderer.call("_sw_incremental_read_partitions", fixed, plan) is None


def test_recovery_leaves_a_partition_already_re_pointed_at_the_run_as_it_is(catalog_renderer):
    catalog_renderer.answers["show partitions spark_windows.pending"] = [[EIGHT], [NINE]]
    catalog_renderer.answers["show partitions spark_windows.sensor_vehicles"] = [[EIGHT], [NINE]]
    detail = "describe formatted spark_windows.sensor_vehicles partition (window_partition = "
    catalog_renderer.answers[detail + "'2024-05-01 08:00:00')"] = describe_rows(None, f"{FOLDER}/{EIGHT}")
    catalog_renderer.answers[detail + "'2024-05-01 09:00:00.5')"] = describe_rows(None, f"file:/w/old/{NINE}")
    cfg = catalog_renderer.call("_sw_incremental_config", Config(GOOD))
    catalog_renderer.call("_sw_incremental_repoint", cfg, Target(), "spark_windows.pending", FOLDER, True)
    drop, add = [query for query in catalog_renderer.queries if query.startswith("alter table")]
    assert (
        drop
        == "alter table spark_windows.sensor_vehicles drop if exists partition (window_partition = '2024-05-01 09:00:00.5')"
    )
    assert add == (
        f"alter table spark_windows.sensor_vehicles add partition (window_partition = '2024-05-01 09:00:00.5') location '{FOLDER}/{NINE}'"
    )


def test_recovery_re_points_from_an_external_staging_table_and_rewrites_from_a_managed_one(catalog_renderer):
    catalog_renderer.answers["describe formatted spark_windows.pending"] = describe_rows("EXTERNAL", FOLDER)
    catalog_renderer.answers["show partitions spark_windows.pending"] = [[NINE]]
    cfg = catalog_renderer.call("_sw_incremental_config", Config(GOOD))
    catalog_renderer.call("_sw_incremental_apply", cfg, Target(), "spark_windows.pending")
    assert not any(query.startswith("insert overwrite") for query in catalog_renderer.queries)
    assert catalog_renderer.queries[-1].endswith(f"location '{FOLDER}/{NINE}'")
    catalog_renderer.queries.clear()
    catalog_renderer.answers["describe formatted spark_windows.pending"] = describe_rows("MANAGED", "file:/w/p")
    catalog_renderer.call("_sw_incremental_apply", cfg, Target(), "spark_windows.pending")
    assert catalog_renderer.queries[-1].startswith(
        "insert overwrite table spark_windows.sensor_vehicles partition (window_partition)"
    )


def test_a_partition_folder_that_is_not_a_timestamp_is_refused(catalog_renderer):
    with pytest.raises(CompilerError, match="unexpected partition folder window_partition=a%2Fb"):
        catalog_renderer.call("_sw_partition_spec", "window_partition=a%2Fb")


def final_plan(**changes) -> dict:
    """The plan of a later final run (batch 4): rows ingested after 08:13:20 up to 08:25, the
    watermark moved from 08:08:20 to 08:19, none of its rows late, the earliest at 08:16:40,
    and (tumble, hop, cumulate) one earlier run still read again: the one after 08:05."""
    plan = {"after_us": 1714550000000000, "until_us": 1714550700000000, "watermark_prev_us": 1714550100000000,
            "watermark_us": 1714550340000000, "late_rows": 0, "min_update_us": 1714551000000000,
            "run_us": 1714551000000000, "max_event_us": 1714550640000000,
            "reread": [{"after_us": 1714549500000000, "max_update_us": 1714549990000000}]}  # fmt: skip
    return {**plan, **changes}


@pytest.mark.parametrize("family", ["fixed", "session"])
@pytest.mark.parametrize("moment", ["first run", "later run", "later run, rows that may touch closed sessions"])
def test_the_statements_of_a_final_run_read_the_open_rows_and_parse(incremental_renderer, family, moment):
    """emit_policy='final': the windows a run closes and its late rows (and a session run's open
    rows after it) are queries of the rows still open and the new rows. Tumble, hop, cumulate
    read the input again from the earliest run the last commit kept, after a first commit only
    rows a window still open can hold (time after W_prev - allowed_lateness - size); a session
    run reads the last commit's open rows (none on a first run), and the marks of closed
    sessions only where a new row may touch one. Each parses as Spark SQL."""
    values = {**(GOOD if family == "fixed" else {**SESSION, "emit": None}), "emit_policy": "final"}
    cfg = incremental_renderer.call("_sw_incremental_config", Config(values))
    model_sql = MODEL_SQL if family == "fixed" else SESSION_SQL
    first = moment == "first run"
    touching = moment.endswith("closed sessions")
    plan = final_plan(watermark_prev_us=None, after_us=None, reread=[]) if first else final_plan()
    if touching:  # a new row at 07:30, before W_prev - allowed_lateness
        plan["min_update_us"] = 1714548600000000
    open_last = None if first or family == "fixed" else "file:/w/m/_sw_open_1"
    names = [("windows", "_sw_incremental_final_windows_sql"), ("late", "_sw_incremental_final_late_sql")]
    if family == "session":
        names.append(("open", "_sw_incremental_open_rows_sql"))
    statements = {name: incremental_renderer.call(macro, cfg, model_sql, plan, open_last) for name, macro in names}
    for name, sql in statements.items():
        tree = parse(sql)
        read = {table.sql("spark") for table in tree.find_all(exp.Table)}
        assert ("parquet.`file:/w/m/_sw_open_1`" in sql) == (family == "session" and not first), name
        assert "spark_windows.raw_sensor_readings" in read or "spark_windows.raw_clicks" in read, name
        assert ("__sw_marks" in sql) == (family == "session" and touching), name
    if family == "fixed":
        windows = " ".join(statements["windows"].split())
        if first:
            assert "ingested_at >" not in windows and "reading_ts > timestamp_micros" not in windows
        else:
            # from the run kept (after 08:05), and times after 08:08:20 - 10 minutes - 1 minute
            assert "and ingested_at > timestamp_micros(1714549500000000)" in windows
            assert "and ingested_at <= timestamp_micros(1714550700000000)" in windows
            assert f"and reading_ts > timestamp_micros({1714550100000000 - 11 * MINUTE})" in windows
    else:
        assert [column.alias_or_name for column in parse(statements["open"]).selects] == [
            "__sw_row",
            "__sw_closed_end",
        ]
    keys = "sensor_id" if family == "fixed" else "user_id"
    assert [column.alias_or_name for column in parse(statements["windows"]).selects] == [
        keys,
        "window_start",
        "window_end",
        *cfg["agg_names"],
    ]
    # the windows whose end + allowed_lateness the watermark passed now; fixed windows: not before
    assert f"+ {cfg['lateness_us']} <= 1714550340000000" in statements["windows"]
    assert (f"+ {cfg['lateness_us']} > 1714550100000000" in statements["windows"]) == (family == "fixed" and not first)
    # rows late by their own windows: the scan counted none; by touch: sessions only
    may_be_late = incremental_renderer.call("_sw_incremental_final_may_be_late", cfg, plan, open_last)
    assert may_be_late is (family == "session" and touching)


@pytest.mark.parametrize("by_file", [False, True])
def test_a_final_run_keeps_the_runs_whose_rows_a_window_still_open_holds(incremental_renderer, by_file):
    """Tumble, hop, cumulate with emit_policy='final': of the runs the last commit kept and this
    one, the commit keeps those whose latest time that is not late has a window whose end plus
    allowed_lateness the new watermark has not passed. Tumbling 1 minute, 10 minutes of
    lateness, W = 08:30: a latest time of 08:19:30 (window 08:19-08:20, + 10 = 08:30) is done,
    one of 08:20:00 (08:20-08:21) is not; a run without rows that are not late is dropped."""
    values = {**GOOD, "emit_policy": "final", **({"input_file_col": "source_file"} if by_file else {})}
    cfg = incremental_renderer.call("_sw_incremental_config", Config(values))
    w = T0_RENDER + 30 * MINUTE

    def run(name, latest):
        return {("files" if by_file else "after_us"): [name] if by_file else name, "max_update_us": latest}

    kept_before = [run(1, T0_RENDER + 19 * MINUTE + 30_000_000), run(2, T0_RENDER + 20 * MINUTE), run(3, None)]
    plan = {"reread": kept_before, "watermark_us": w, "max_update_us": T0_RENDER + 34 * MINUTE,
            "run_files": [4], "after_us": 4}  # fmt: skip
    kept = incremental_renderer.call("_sw_incremental_final_reread", cfg, plan)
    assert kept == [run(2, T0_RENDER + 20 * MINUTE), run(4, T0_RENDER + 34 * MINUTE)]
    # hop 5 minutes every minute: the last window of 08:16:00 is 08:16-08:21 (+ 10 > 08:30), that of
    # 08:15:59.999999 08:15-08:20
    early = {**plan, "reread": [run(1, T0_RENDER + 16 * MINUTE), run(2, T0_RENDER + 16 * MINUTE - 1)]}
    hop = incremental_renderer.call(
        "_sw_incremental_config",
        Config({**values, "window": {"type": "hop", "slide": "1 minute", "size": "5 minutes"}}),
    )
    assert incremental_renderer.call("_sw_incremental_final_reread", hop, early) == [
        run(1, T0_RENDER + 16 * MINUTE),
        run(4, T0_RENDER + 34 * MINUTE),
    ]


def test_a_final_run_whose_open_input_file_was_removed_is_refused(incremental_renderer):
    """With input_file_col, a file of a run the last commit kept must still be in the input: its
    rows are in a window still open."""
    values = {**GOOD, "emit_policy": "final", "input_file_col": "source_file"}
    cfg = incremental_renderer.call("_sw_incremental_config", Config(values))
    plan = {"reread": [{"files": ["s3://in/a.parquet", "s3://in/b.parquet"], "max_update_us": 1}],
            "processed_files": ["s3://in/b.parquet"]}  # fmt: skip
    with pytest.raises(CompilerError, match=r"and s3://in/a.parquet was removed from the input\. Keep a file"):
        incremental_renderer.call("_sw_incremental_final_check_reread", cfg, plan)
    plan["processed_files"].append("s3://in/a.parquet")
    assert incremental_renderer.call("_sw_incremental_final_check_reread", cfg, plan) in (None, "")
