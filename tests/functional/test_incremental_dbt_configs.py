"""Slow tests: windowed_incremental honours dbt-spark's table configs (location_root,
persist_docs, tblproperties, grants), returns every table it keeps to dbt's cache, and names
the setting that changed since the last run.

A throwaway project in a temporary folder installs spark_windows as a package and holds one
small model; its input is four rows written in the model, arriving at 08:01, 08:02, 08:03 and
08:04 (and, in one test, one more that lands after the run of 08:02 with the ingestion time
08:01:30).
Two tests add a session model for their own runs: a merge that empties a partition, and a
staging table of a release before 0.2.0 left for recovery.
"""

from __future__ import annotations

import datetime
import json
import os
import types

import pytest
from scratch_project import scratch_project
from stop_at import StopAt

from dev.dbt_harness import run_dbt

pytestmark = pytest.mark.slow

SCHEMA = os.environ.get("SPARK_WINDOWS_SCHEMA", "spark_windows") + "_incremental_configs"
DESCRIPTION = "Clicks per page and minute, updated by each scheduled run"
MODEL = """
{{ config(
    materialized='windowed_incremental',
    time_col='click_ts',
    ingestion_time_col='ingested_at',
    window={'type': 'tumble', 'size': '1 minute'},
    group_by=['page'],
    aggregates={'clicks': 'count(*)', 'home_clicks': "count_if(page = 'home')"},
    watermark_delay=env_var('CLICKS_DELAY', '0 seconds'),
    emit='changelog',
    emit_policy=env_var('CLICKS_EMIT_POLICY', 'every_run'),
    location_root=env_var('CLICKS_LOCATION_ROOT'),
    persist_docs={'relation': true},
    tblproperties={'owner_team': 'traffic'},
    grants=({'select': ['analysts']} if env_var('CLICKS_WITH_GRANTS', '') else {}),
    compact_state_every=env_var('CLICKS_COMPACT_STATE_EVERY', '50') | int,
) }}

select page, click_ts, ingested_at
from values
    ('home', timestamp '2024-05-01 08:00:10', timestamp '2024-05-01 08:01:00'),
    ('home', timestamp '2024-05-01 08:00:40', timestamp '2024-05-01 08:02:00'),
    ('cart', timestamp '2024-05-01 08:02:30', timestamp '2024-05-01 08:03:00'),
    ('cart', timestamp '2024-05-01 08:01:20', timestamp '2024-05-01 08:01:30'),
    ('home', timestamp '2024-05-01 08:03:40', timestamp '2024-05-01 08:04:00')
    as arrivals(page, click_ts, ingested_at)
where ingested_at <= timestamp '{{ env_var("CLICKS_UNTIL") }}'
    {%- if not env_var('CLICKS_LANDED_LATE', '') %}
    and ingested_at <> timestamp '2024-05-01 08:01:30'
    {%- endif %}
    {%- if env_var('CLICKS_RETENTION', '') %}
    and ingested_at > timestamp '2024-05-01 08:01:00'
    {%- endif %}
"""
KEPT = ["page_clicks", "page_clicks__late", "page_clicks__changelog", "page_clicks__state"]


@pytest.fixture(scope="module")
def project(tmp_path_factory, dbt_target) -> dict:
    if dbt_target != "local":
        pytest.skip("reads table folders and the Spark session of the local target")
    root = tmp_path_factory.mktemp("incremental_configs")
    scratch_project(
        root,
        "incremental_configs",
        dbt_target,
        {
            "page_clicks.sql": MODEL,
            "page_clicks.yml": f"version: 2\nmodels:\n  - name: page_clicks\n    description: {DESCRIPTION}\n",
        },
    )
    from pyspark.sql import SparkSession

    lake = root / "lake"
    return {
        "root": root,
        "lake": lake,
        "spark": lambda: SparkSession.getActiveSession() or SparkSession.builder.getOrCreate(),
    }


def inputs(project: dict, until: str, **variables) -> dict[str, str]:
    """The models' inputs, as the environment variables CLICKS_<NAME> they read (a flag is set
    when true, left out when false). Not dbt vars: a change of vars makes dbt parse the whole
    project again, a changed environment variable only the files that read it."""
    variables = {"until": until, "location_root": str(project["lake"]), **variables}
    return {
        f"CLICKS_{name.upper()}": "true" if value is True else str(value)
        for name, value in variables.items()
        if value is not False
    }


def run(project: dict, until: str, expect_pass: bool = True, full_refresh: bool = False, environment=None, **variables):
    """Runs the model; returns what dbt showed (messages of its events) and its cache actions.
    `environment`: more environment variables, such as the profile's."""
    shown, cache = [], []

    def listen(event):
        shown.append(str(event.info.msg))
        if event.info.name == "CacheAction":
            cache.append(event.data)

    args = ["run", "--log-cache-events"] + (["--full-refresh"] if full_refresh else [])
    result = run_dbt(
        args, expect_pass, project["root"], [listen], {**inputs(project, until, **variables), **(environment or {})}
    )
    return "\n".join([str(result.exception), *shown]), cache


def sql(project: dict, query: str) -> list[tuple]:
    return [tuple(row) for row in project["spark"]().sql(query).collect()]


def table_info(project: dict, table: str) -> dict:
    rows = sql(project, f"describe table extended {SCHEMA}.{table}")
    return {name: value for name, value, *_ in rows}


def test_first_run_keeps_its_tables_under_location_root_with_docs_and_properties(project):
    _, cache = run(project, "2024-05-01 08:01:00", full_refresh=True)
    lake = project["lake"]
    for table in KEPT:
        info = table_info(project, table)
        assert info["Location"] == f"file:{lake / table}", table
        assert (lake / table).is_dir(), table
        properties = dict(sql(project, f"show tblproperties {SCHEMA}.{table}"))
        assert properties.get("owner_team") == "traffic", (table, properties)
    # persist_docs={'relation': true}: the model's description is the table's comment
    assert table_info(project, "page_clicks")["Comment"] == DESCRIPTION
    assert sql(project, f"select page, clicks from {SCHEMA}.page_clicks") == [("home", 1)]
    for table in ["page_clicks", "page_clicks__changelog", "page_clicks__state"]:
        assert any((lake / table).rglob("*.parquet")), f"{table} has no data files under location_root"
    # the staging table is dropped and lives in the default location, not under location_root
    assert sorted(path.name for path in lake.iterdir()) == sorted(KEPT)
    # every table it keeps is handed to dbt's cache (the old version handed over the first only)
    added = {action.ref_key.identifier for action in cache if action.action == "add_relation"}
    assert set(KEPT) <= added, added


def test_a_changed_setting_is_named_in_the_refusal(project):
    shown, _ = run(project, "2024-05-01 08:02:00", expect_pass=False, delay="5 minutes")
    assert (
        "windowed_incremental: watermark_delay (was '0 seconds', now '5 minutes') of "
        f"{SCHEMA}.page_clicks changed since its last run" in shown
    ), shown[-3000:]
    # the refused run changed nothing
    assert [row[0] for row in sql(project, f"select batch_id from {SCHEMA}.page_clicks__state")] == [1]
    # the same length written otherwise is no change
    run(project, "2024-05-01 08:02:00", delay="0 minutes")
    assert sql(project, f"select page, clicks from {SCHEMA}.page_clicks") == [("home", 2)]


def test_a_run_in_another_session_time_zone_than_the_last_commit_is_refused_and_changes_nothing(project):
    """The table's partitions are named by their start in the session time zone, which each commit
    stores: a run in another zone (the profile's, SPARK_WINDOWS_SESSION_TIME_ZONE) is refused
    before it touches a table; in the stored zone again the model runs on."""
    state = f"{SCHEMA}.page_clicks__state"
    batches = sql(project, f"select batch_id from {state} order by batch_id")
    windows = sorted(sql(project, f"select page, window_start, clicks, window_partition from {SCHEMA}.page_clicks"))
    last_config = sql(project, f"select config from {state} order by batch_id desc limit 1")[0][0]
    assert json.loads(last_config)["session_time_zone"] == "UTC"
    try:
        with_zone = {"SPARK_WINDOWS_SESSION_TIME_ZONE": "Asia/Kolkata"}
        shown, _ = run(project, "2024-05-01 08:03:00", expect_pass=False, environment=with_zone)
    finally:
        project["spark"]().sql("set spark.sql.session.timeZone = UTC")
    assert (
        "windowed_incremental: the Spark session time zone is Asia/Kolkata, and the last run of "
        f"{SCHEMA}.page_clicks ran in UTC: its partitions (window_partition) are named by their start" in shown
    ), shown[-3000:]
    assert sql(project, f"select batch_id from {state} order by batch_id") == batches
    after = sorted(sql(project, f"select page, window_start, clicks, window_partition from {SCHEMA}.page_clicks"))
    assert after == windows
    # another name of the stored zone is the same zone
    try:
        run(project, "2024-05-01 08:02:00", environment={"SPARK_WINDOWS_SESSION_TIME_ZONE": "Etc/UTC"})
    finally:
        project["spark"]().sql("set spark.sql.session.timeZone = UTC")


def test_grants_are_applied_to_each_kept_table(project):
    """Spark's own session catalog has no GRANT statement: with grants configured the run
    reaches apply_grants and Spark refuses the statement dbt-spark renders."""
    shown, _ = run(project, "2024-05-01 08:02:00", expect_pass=False, with_grants=True)
    assert "GRANT is not valid" in shown or "SHOW GRANTS" in shown.upper(), shown[-3000:]


OLDER = "it was written by a spark_windows release older than 0.2.0. Run the model once with --full-refresh"


def test_a_state_table_of_a_release_before_0_2_0_is_refused_until_a_full_refresh(project):
    """A state table as 0.1.0 wrote it, without the config and arrival_counts columns: layouts
    are upgraded only from the last release (0.2.0), so the run is refused, naming the table,
    before it changes anything; a --full-refresh starts the state again with every column."""
    spark = project["spark"]()
    state = f"{SCHEMA}.page_clicks__state"
    columns = "batch_id, max_ingestion_time, max_event_time, watermark, new_rows, late_rows, windows_updated, "
    columns += "run_started_at, pending_table, config_fingerprint"
    rows = sql(project, f"select {columns} from {state}")
    spark.sql(f"drop table {state}")
    spark.sql(
        f"""create table {state} (batch_id bigint, max_ingestion_time timestamp, max_event_time timestamp,
        watermark timestamp, new_rows bigint, late_rows bigint, windows_updated bigint, run_started_at timestamp,
        pending_table string, config_fingerprint string) using parquet"""
    )
    spark.createDataFrame(rows, spark.table(state).schema).write.insertInto(state)
    windows = f"select page, cast(window_start as string), clicks from {SCHEMA}.page_clicks order by 1, 2"
    before = sql(project, windows)

    shown, _ = run(project, "2024-05-01 08:03:00", expect_pass=False)
    assert (
        f"windowed_incremental: {state} has no config and arrival_counts columns: {OLDER} to recompute every window."
        in shown
    ), shown[-3000:]
    # the refused run changed nothing: no column added, no commit, no window, no staging table
    assert [field.name for field in spark.table(state).schema] == columns.split(", ")
    assert sorted(sql(project, f"select * from {state}")) == sorted(rows)
    assert sql(project, windows) == before
    assert not sql(project, f"show tables in {SCHEMA} like 'page_clicks__pending_*'")

    run(project, "2024-05-01 08:03:00", full_refresh=True)
    stored = sql(project, f"select batch_id, config, arrival_counts from {state} order by batch_id")
    assert [row[0] for row in stored] == [1]
    settings = json.loads(stored[0][1])
    assert settings["watermark_delay"] == "0 seconds" and settings["group_by"] == ["page"]
    # the rows of 08:01, 08:02 and 08:03, all in the hour of 08:00
    assert json.loads(stored[0][2]) == {str(hour_us("2024-05-01 08:00")): 3}
    assert settings["window"] == {"type": "tumble", "size": "1 minute"}
    # quotes in the settings survive the SQL literal
    assert settings["aggregates"] == {"clicks": "count(*)", "home_clicks": "count_if(page = 'home')"}
    assert sql(project, windows) == [("cart", "2024-05-01 08:02:00", 1), ("home", "2024-05-01 08:00:00", 2)]


def hour_us(text: str) -> int:
    """Microseconds since the epoch of a UTC time written 'YYYY-MM-DD HH:MM'."""
    moment = datetime.datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=datetime.timezone.utc)
    return int(moment.timestamp()) * 1_000_000


def test_a_row_landed_at_or_below_the_processed_ingestion_time_fails_the_run_with_its_number(project):
    """ingestion_time_col must grow in the order rows become visible. A row that lands after the
    run of 08:02 with the ingestion time 08:01:30 is one no run reads: the next run fails and
    changes nothing. Rows removed from the input (retention) are no such row. A run compares
    the input's rows hour by hour only when their count does not add up, and a run that finds
    removed rows commits counts that add up again."""
    state = f"{SCHEMA}.page_clicks__state"
    run(project, "2024-05-01 08:02:00", full_refresh=True)
    # arrival counts per hour of ingestion time: both rows so far in the hour of 08:00
    assert [json.loads(row[0]) for row in sql(project, f"select arrival_counts from {state}")] == [
        {str(hour_us("2024-05-01 08:00")): 2}
    ]

    shown, _ = run(project, "2024-05-01 08:03:00", expect_pass=False, landed_late=True)
    # the counts (input_rows) did not add up, so the run compared every hour (unprocessed_rows)
    assert "input_rows" in shown and "unprocessed_rows" in shown
    assert (
        f"windowed_incremental: 1 rows of {SCHEMA}.page_clicks's input have an ingested_at (ingestion_time_col) "
        "at or before 2024-05-01 08:02:00.000000, the newest ingestion time its committed runs processed, but were "
        "not in the input when those runs read it (ingestion times in the hours from 2024-05-01 08:00 to "
        "2024-05-01 08:00)" in shown
    ), shown[-3000:]
    assert "Run the model with --full-refresh" in shown
    assert [row[0] for row in sql(project, f"select batch_id from {state}")] == [1]
    assert sql(project, f"select page, clicks from {SCHEMA}.page_clicks") == [("home", 2)]

    # the row of 08:01 removed from the input: fewer rows than processed is no violation. The
    # run compares hour by hour and commits its own row less the removed one, so the state's
    # counts are the input's again
    shown, _ = run(project, "2024-05-01 08:03:00", retention=True)
    assert "unprocessed_rows" in shown
    stored = sql(project, f"select batch_id, new_rows, arrival_counts from {state} order by batch_id")
    assert [row[:2] for row in stored] == [(1, 2), (2, 1)]
    assert json.loads(stored[-1][2]) == {}
    # so the next run's counts add up (3 rows in the input, 2 processed, 1 new): no comparison
    shown, _ = run(project, "2024-05-01 08:04:00", retention=True)
    assert "input_rows" in shown and "unprocessed_rows" not in shown
    stored = sql(project, f"select batch_id, new_rows, arrival_counts from {state} order by batch_id")
    assert [row[:2] for row in stored] == [(1, 2), (2, 1), (3, 1)]
    assert json.loads(stored[-1][2]) == {str(hour_us("2024-05-01 08:00")): 1}
    windows = f"select page, cast(window_start as string), clicks from {SCHEMA}.page_clicks order by 2"
    assert sql(project, windows) == [
        ("home", "2024-05-01 08:00:00", 2),
        ("cart", "2024-05-01 08:02:00", 1),
        ("home", "2024-05-01 08:03:00", 1),
    ]
    # and a row landed below the processed time after the removal is still found
    shown, _ = run(project, "2024-05-01 08:04:00", expect_pass=False, retention=True, landed_late=True)
    assert (
        f"windowed_incremental: 1 rows of {SCHEMA}.page_clicks's input have an ingested_at (ingestion_time_col) "
        "at or before 2024-05-01 08:04:00.000000" in shown
    ), shown[-3000:]
    assert [row[0] for row in sql(project, f"select batch_id from {state} order by batch_id")] == [1, 2, 3]

    # a full refresh reads every row, the late landing too
    run(project, "2024-05-01 08:03:00", full_refresh=True, landed_late=True)
    rows = sql(project, f"select page, cast(window_start as string), clicks from {SCHEMA}.page_clicks order by 2")
    assert rows == [
        ("home", "2024-05-01 08:00:00", 2),
        ("cart", "2024-05-01 08:01:00", 1),
        ("cart", "2024-05-01 08:02:00", 1),
    ]

    # the next run's counts add up (4 rows in the input, 4 processed): no hour-by-hour comparison
    shown, _ = run(project, "2024-05-01 08:03:00", landed_late=True)
    assert "input_rows" in shown and "unprocessed_rows" not in shown


def test_full_refresh_under_location_root_starts_from_empty_tables(project):
    """Dropping a table with a LOCATION leaves its files; the rebuilt tables must not show them.
    Also after a model that left the session's overwrite mode DYNAMIC, as dbt-spark's
    insert_overwrite and microbatch models do in the same dbt invocation."""
    project["spark"]().sql("set spark.sql.sources.partitionOverwriteMode = DYNAMIC")
    run(project, "2024-05-01 08:01:00", full_refresh=True)
    assert sql(project, f"select page, clicks from {SCHEMA}.page_clicks") == [("home", 1)]
    assert [row[0] for row in sql(project, f"select batch_id from {SCHEMA}.page_clicks__state")] == [1]
    changelog = sql(project, f"select op, page, clicks from {SCHEMA}.page_clicks__changelog")
    assert changelog == [("+I", "home", 1)]


def test_refused_configs_are_reported_together_by_dbt(project):
    root = project["root"]
    bad = root / "models" / "bad_clicks.sql"
    bad.write_text(
        MODEL.replace(
            "materialized='windowed_incremental',", "materialized='windowed_incremental', file_format='delta',"
        ).replace("emit='changelog'", "emit='upserts'")
    )
    shown = []
    env = inputs(project, "2024-05-01 08:01:00")
    try:
        # dbt compile renders the model's SQL but never runs its materialization: it passes
        run_dbt(["compile", "--select", "bad_clicks"], True, root, env=env)
        result = run_dbt(
            ["run", "--select", "bad_clicks"], False, root, [lambda event: shown.append(str(event.info.msg))], env
        )
    finally:
        bad.unlink()
    text = "\n".join([str(result.exception), *shown])
    assert "windowed_incremental: 2 problems in the model's config; nothing was run:" in text, text[-3000:]
    assert (
        "file_format ('delta') is not supported; the accepted file_formats are 'parquet' (the default) and 'iceberg'"
        in text
    )
    assert "emit ('upserts') must be 'changelog' or left out" in text
    assert not sql(project, f"show tables in {SCHEMA} like 'bad_clicks*'")


def test_a_table_written_before_revision_existed_is_refused_until_a_full_refresh(project):
    run(project, "2024-05-01 08:01:00", full_refresh=True)
    spark = project["spark"]()
    table = f"{SCHEMA}.page_clicks"
    spark.sql(f"""create table {table}_old using parquet partitioned by (window_partition) as
        select page, window_start, window_end, clicks, home_clicks, is_final, window_partition from {table}""")
    spark.sql(f"drop table {table}")
    spark.sql(f"alter table {table}_old rename to {table}")

    shown, _ = run(project, "2024-05-01 08:02:00", expect_pass=False)
    assert (
        f"windowed_incremental: {table} has no revision and timing columns: it was written by an earlier version"
        in shown
    ), shown[-3000:]
    assert [row[0] for row in sql(project, f"select batch_id from {table}__state")] == [1]
    run(project, "2024-05-01 08:02:00", full_refresh=True)
    assert sql(project, f"select page, clicks, revision, timing from {table}") == [("home", 2, 1, "early")]


def test_on_watermark_shows_a_view_over_the_windows_table_and_switching_back_drops_it(project):
    table = f"{SCHEMA}.page_clicks"
    shown, _ = run(project, "2024-05-01 08:03:00", expect_pass=False, emit_policy="on_watermark")
    assert "emit_policy (was None, now 'on_watermark')" in shown, shown[-3000:]

    # delay 0: the watermark after the run is 08:02:30, past the end of [08:00, 08:01) only
    _, cache = run(project, "2024-05-01 08:03:00", full_refresh=True, emit_policy="on_watermark")
    info = table_info(project, "page_clicks")
    assert info["Type"] == "VIEW" and info["Comment"] == DESCRIPTION, info
    assert sql(project, f"select page, clicks, revision, timing from {table}") == [("home", 2, 1, "on_time")]
    windows = sql(project, f"select page, revision, timing, watermark_passed from {table}__windows order by page")
    assert windows == [("cart", 0, None, False), ("home", 1, "on_time", True)]
    lake = project["lake"]
    assert table_info(project, "page_clicks__windows")["Location"] == f"file:{lake / 'page_clicks__windows'}"
    properties = dict(sql(project, f"show tblproperties {table}__windows"))
    assert properties.get("owner_team") == "traffic", properties
    changelog = sql(project, f"select op, page, clicks, revision, timing from {table}__changelog")
    assert changelog == [("+I", "home", 2, 1, "on_time")]
    added = {action.ref_key.identifier for action in cache if action.action == "add_relation"}
    assert {*KEPT, "page_clicks__windows"} <= added, added

    run(project, "2024-05-01 08:03:00", full_refresh=True)
    assert table_info(project, "page_clicks")["Type"] != "VIEW"
    assert not sql(project, f"show tables in {SCHEMA} like 'page_clicks__windows'")
    rows = sql(project, f"select page, clicks, revision, timing from {table} order by page")
    assert rows == [("cart", 1, 1, "early"), ("home", 2, 1, "on_time")]


SESSION_MODEL = """
{{ config(
    materialized='windowed_incremental',
    time_col='click_ts',
    ingestion_time_col='ingested_at',
    window={'type': 'session', 'gap': '2 minutes'},
    group_by=['page'],
    aggregates={'clicks': 'count(*)'},
    watermark_delay='5 minutes',
    allowed_lateness='10 minutes',
    partition_size='1 hour',
    location_root=(env_var('CLICKS_SESSIONS_ROOT', '') or none),
) }}

select page, click_ts, ingested_at
from values
    ('home', timestamp '2024-05-01 07:57:00', timestamp '2024-05-01 08:01:00'),
    ('home', timestamp '2024-05-01 07:58:00', timestamp '2024-05-01 08:02:00'),
    ('home', timestamp '2024-05-01 07:59:30', timestamp '2024-05-01 08:02:00')
    as arrivals(page, click_ts, ingested_at)
where ingested_at <= timestamp '{{ env_var("CLICKS_UNTIL") }}'
"""


@pytest.mark.parametrize("location_root", [False, True], ids=["write_once", "location_root"])
def test_a_merge_that_moves_a_session_into_a_later_partition_empties_its_old_one(project, location_root, monkeypatch):
    """The table is partitioned by the hour of window_end. The first run leaves [07:57, 07:59)
    alone in the partition of 07:00; the second run's rows (not late: the watermark is 07:52)
    extend it to [07:57, 08:01:30), which ends in the partition of 08:00. The table takes the
    staged partitions by metadata, or (under a location_root) is rewritten from the staging
    table; either way the run finds the emptied partition among those it read, which Spark names
    from literals. Without a changelog it stages nothing the table does not take: no NULL
    partition is deleted through a `__trash` table."""
    from dbt.adapters.spark.connections import SparkConnectionManager

    model = project["root"] / "models" / "page_sessions.sql"
    model.write_text(SESSION_MODEL)
    table = f"{SCHEMA}.page_sessions"
    sessions = f"select page, cast(window_start as string), cast(window_end as string), clicks from {table}"
    root = {"sessions_root": str(project["lake"])} if location_root else {}

    def run_sessions(until: str, *extra: str) -> None:
        env = inputs(project, until, **root)
        run_dbt(["run", "--select", "page_sessions", *extra], project_dir=project["root"], env=env)

    statements = []
    original = SparkConnectionManager.add_query

    def add_query(manager, sql, *args, **kwargs):
        statements.append(sql)
        return original(manager, sql, *args, **kwargs)

    try:
        run_sessions("2024-05-01 08:01:00", "--full-refresh")
        assert sql(project, sessions) == [("home", "2024-05-01 07:57:00", "2024-05-01 07:59:00", 1)]
        # the partitions the metastore holds, as Hive names them (':' escaped)
        assert sql(project, f"show partitions {table}") == [("window_partition=2024-05-01 07%3A00%3A00",)]
        location = dict((row[0], row[1]) for row in sql(project, f"describe formatted {table}")).get("Location", "")
        assert location.rstrip("/").endswith(f"{project['lake'].name}/page_sessions") == location_root, location
        monkeypatch.setattr(SparkConnectionManager, "add_query", add_query)
        run_sessions("2024-05-01 08:02:00")
        monkeypatch.undo()
    finally:
        model.unlink()
    assert sql(project, sessions) == [("home", "2024-05-01 07:57:00", "2024-05-01 08:01:30", 3)]
    assert sql(project, f"show partitions {table}") == [("window_partition=2024-05-01 08%3A00%3A00",)]
    assert [text for text in statements if "select cast(timestamp_micros(__sw_us) as string)" in text]
    assert not [text for text in statements if "page_sessions__trash" in text]


def test_a_session_staging_table_of_a_release_before_0_2_0_is_refused_until_a_full_refresh(project):
    """A session run's staging table keeps the partitions the run read as a table property
    (spark_windows.read_partitions); one a release before 0.2.0 wrote has none. A run stopped
    after its commit, before its apply, leaves its staging table for the next run to apply: with
    the property removed, as such a release left it, the next run is refused, naming it, before it
    changes anything; a --full-refresh drops it and computes the sessions again."""
    model = project["root"] / "models" / "page_sessions.sql"
    model.write_text(SESSION_MODEL)
    table = f"{SCHEMA}.page_sessions"
    sessions = f"select page, cast(window_start as string), cast(window_end as string), clicks from {table}"
    warehouse = types.SimpleNamespace(rows=lambda query: sql(project, query))

    def run_sessions(until: str, *extra: str, expect_pass: bool = True) -> str:
        shown = []
        result = run_dbt(
            ["run", "--select", "page_sessions", *extra],
            expect_pass,
            project["root"],
            [lambda event: shown.append(str(event.info.msg))],
            inputs(project, until),
        )
        return "\n".join([str(result.exception), *shown])

    def batches() -> list[int]:
        return [row[0] for row in sql(project, f"select batch_id from {table}__state order by batch_id")]

    def staging_tables() -> list[str]:
        return [row[1] for row in sql(project, f"show tables in {SCHEMA} like 'page_sessions__pending_*'")]

    try:
        run_sessions("2024-05-01 08:01:00", "--full-refresh")
        # stopped after its commit, before the table drops the partitions it replaces
        with StopAt(warehouse, "page_sessions", r"alter table [`\w.]*page_sessions`? drop if exists"):
            run_sessions("2024-05-01 08:02:00", expect_pass=False)
        assert batches() == [1, 2]
        (pending,) = staging_tables()
        sql(project, f"alter table {SCHEMA}.{pending} unset tblproperties ('spark_windows.read_partitions')")
        before = (sql(project, sessions), sql(project, f"show partitions {table}"))

        shown = run_sessions("2024-05-01 08:02:00", expect_pass=False)
        assert (
            f"windowed_incremental: {SCHEMA}.{pending}, the staging table the last committed run of {table} left to "
            f"apply, has no table property spark_windows.read_partitions: {OLDER}" in shown
        ), shown[-3000:]
        assert (sql(project, sessions), sql(project, f"show partitions {table}")) == before
        assert batches() == [1, 2] and staging_tables() == [pending]

        run_sessions("2024-05-01 08:02:00", "--full-refresh")
    finally:
        model.unlink()
    assert batches() == [1] and staging_tables() == []
    assert sql(project, sessions) == [("home", "2024-05-01 07:57:00", "2024-05-01 08:01:30", 3)]
    assert sql(project, f"show partitions {table}") == [("window_partition=2024-05-01 08%3A00%3A00",)]


def plant_committed_task(table_dir, source_file, partition: str = "") -> None:
    """What a write killed between its task commit and its job commit leaves with Hadoop's
    FileOutputCommitter (algorithm 1): a task's files under `<table>/_temporary/0/task_.../`,
    which that algorithm's next job commit in the same folder would move into the table. Here a
    copy of `source_file` under a new name, in `partition` (e.g. 'batch_id=3') when given."""
    task = table_dir / "_temporary" / "0" / "task_202405010803_0007_m_000000" / partition
    task.mkdir(parents=True)
    (task / "part-00000-0badc0de-0000-4000-8000-000000000000.c000.snappy.parquet").write_bytes(source_file.read_bytes())


COMMITTER_OPTION = "mapreduce.fileoutputcommitter.algorithm.version"


def plant_killed_writes(project: dict) -> None:
    """After runs of 08:01 and 08:02: what writes killed between their task and job commits left
    in the changelog folder (batch 2's changelog file, as batch 3's) and the state folder (a
    copy of its file)."""
    lake = project["lake"]
    # batch 2 changelog: -U and +U of home's window; its file, planted as batch 3's
    changelog_file = next((lake / "page_clicks__changelog" / "batch_id=2").glob("part-*.parquet"))
    plant_committed_task(lake / "page_clicks__changelog", changelog_file, "batch_id=3")
    state_file = next((lake / "page_clicks__state").glob("part-*.parquet"))
    plant_committed_task(lake / "page_clicks__state", state_file)


def test_files_a_killed_write_left_in_a_table_folder_never_join_the_next_run(project):
    """A kill between a write's task commit and its job commit leaves committed task files in the
    table's `_temporary` folder. The next run's writes to the changelog, late and state tables
    must not take them in: they would be a second copy of a batch's changelog rows, or a second
    commit row of a batch naming a staging table that no longer exists."""
    lake = project["lake"]
    state = f"{SCHEMA}.page_clicks__state"
    run(project, "2024-05-01 08:01:00", full_refresh=True)
    run(project, "2024-05-01 08:02:00")
    plant_killed_writes(project)
    algorithm = f"set {COMMITTER_OPTION}"
    before = sql(project, algorithm)

    run(project, "2024-05-01 08:03:00")
    assert [row[0] for row in sql(project, f"select batch_id from {state} order by batch_id")] == [1, 2, 3]
    # batch 3: cart's first window, hand-computed; nothing of the planted copy
    changelog = sql(project, f"select op, page, clicks from {SCHEMA}.page_clicks__changelog where batch_id = 3")
    assert changelog == [("+I", "cart", 1)]
    for table in ["page_clicks__changelog", "page_clicks__state"]:
        assert not (lake / table / "_temporary").exists(), table
    # the tables hold the option; the session's own setting is as it was
    for table in ["page_clicks__changelog", "page_clicks__state", "page_clicks__late"]:
        assert f"{COMMITTER_OPTION}=2" in table_info(project, table)["Storage Properties"], table
    assert sql(project, algorithm) == before


def test_tables_of_a_release_before_0_2_0_without_the_committer_option_are_refused_until_a_full_refresh(project):
    """Late, changelog and state tables as a release before 0.2.0 created them, without the
    committer option (set here to Spark's default algorithm, 1), with a killed write's files in
    their folders: the run is refused, naming them, before it changes anything (it writes no
    table, so the killed writes' files stay where they are); a --full-refresh creates them again
    with the option, and none of those files joins them."""
    lake = project["lake"]
    state = f"{SCHEMA}.page_clicks__state"
    changelog = f"select batch_id, op, page, clicks from {SCHEMA}.page_clicks__changelog order by 1, 2, 3"
    run(project, "2024-05-01 08:01:00", full_refresh=True)
    run(project, "2024-05-01 08:02:00")
    tables = ["page_clicks__late", "page_clicks__changelog", "page_clicks__state"]
    for table in tables:
        sql(project, f"alter table {SCHEMA}.{table} set serdeproperties ('{COMMITTER_OPTION}' = '1')")
    plant_killed_writes(project)
    changes = sql(project, changelog)

    shown, _ = run(project, "2024-05-01 08:03:00", expect_pass=False)
    assert (
        f"windowed_incremental: {SCHEMA}.page_clicks__late, {SCHEMA}.page_clicks__changelog and {SCHEMA}.page_clicks__state "
        f"have no table option '{COMMITTER_OPTION}' = '2': they were written by a spark_windows release older than "
        "0.2.0. Run the model once with --full-refresh" in shown
    ), shown[-3000:]
    assert [row[0] for row in sql(project, f"select batch_id from {state} order by batch_id")] == [1, 2]
    assert sql(project, changelog) == changes
    for table in tables:
        assert f"{COMMITTER_OPTION}=1" in table_info(project, table)["Storage Properties"], table
    for table in ["page_clicks__changelog", "page_clicks__state"]:
        assert (lake / table / "_temporary").exists(), table

    run(project, "2024-05-01 08:03:00", full_refresh=True)
    assert [row[0] for row in sql(project, f"select batch_id from {state} order by batch_id")] == [1]
    # home 08:00 (08:00:10, 08:00:40) and cart 08:02 (08:02:30), hand-computed
    assert sql(project, changelog) == [(1, "+I", "cart", 1), (1, "+I", "home", 2)]
    for table in tables:
        assert f"{COMMITTER_OPTION}=2" in table_info(project, table)["Storage Properties"], table
    for table in ["page_clicks__changelog", "page_clicks__state"]:
        assert not (lake / table / "_temporary").exists(), table


def test_the_state_table_is_compacted_and_a_compaction_stopped_anywhere_is_finished_by_the_next(project):
    """compact_state_every=1: every run rewrites the state table into one file in a folder beside
    it and re-points the table there (under location_root here). One run stops before its
    re-pointing, the next before deleting the folders the table left; the run after finishes
    both: every commit row is there once, the table's folder holds one data file, and no other
    folder of the state table, nor its trash table, is left. The windows are hand-computed."""
    lake = project["lake"]
    state = f"{SCHEMA}.page_clicks__state"
    warehouse = types.SimpleNamespace(rows=lambda query: sql(project, query))

    def batches() -> list[int]:
        return [row[0] for row in sql(project, f"select batch_id from {state} order by batch_id")]

    def state_folders() -> list[str]:
        return sorted(path.name for path in lake.iterdir() if path.name.startswith("page_clicks__state"))

    def data_files(folder: str) -> list:
        return [path for path in (lake / folder).iterdir() if path.suffix == ".parquet"]

    run(project, "2024-05-01 08:01:00", full_refresh=True, compact_state_every=1)
    assert batches() == [1]
    assert state_folders() == ["page_clicks__state-a"]
    assert len(data_files("page_clicks__state-a")) == 1

    # stopped before the re-pointing: the run committed (its row is in the folder the table is
    # at); the folder it half wrote is overwritten by the next compaction
    with StopAt(warehouse, "page_clicks__state", r"alter table \S+ set location"):
        run(project, "2024-05-01 08:02:00", expect_pass=False, compact_state_every=1)
    assert batches() == [1, 2]
    assert table_info(project, "page_clicks__state")["Location"].endswith("page_clicks__state-a")

    # stopped after the re-pointing, before the folder the table left is deleted
    with StopAt(warehouse, "page_clicks__state", r"alter table \S+__trash add"):
        run(project, "2024-05-01 08:03:00", expect_pass=False, compact_state_every=1)
    assert batches() == [1, 2, 3]
    assert table_info(project, "page_clicks__state")["Location"].endswith("page_clicks__state-b")
    assert "page_clicks__state-a" in state_folders()

    run(project, "2024-05-01 08:04:00", compact_state_every=1)
    assert batches() == [1, 2, 3, 4]
    assert state_folders() == ["page_clicks__state-a"]
    assert len(data_files("page_clicks__state-a")) == 1
    assert not sql(project, f"show tables in {SCHEMA} like 'page_clicks__state__trash'")
    # home 08:00 (08:00:10, 08:00:40), cart 08:02 (08:02:30), home 08:03 (08:03:40)
    windows = sql(project, f"select page, date_format(window_start, 'HH:mm'), clicks from {SCHEMA}.page_clicks")
    assert sorted(windows) == [("cart", "08:02", 1), ("home", "08:00", 2), ("home", "08:03", 1)]

    # a full refresh starts the state again in its own folder; the next compaction moves it
    run(project, "2024-05-01 08:01:00", full_refresh=True, compact_state_every=2)
    assert batches() == [1]
    assert table_info(project, "page_clicks__state")["Location"].endswith("page_clicks__state")
    run(project, "2024-05-01 08:02:00", compact_state_every=2)
    assert batches() == [1, 2]
    assert state_folders() == ["page_clicks__state-a"]
