"""Fast tests: how many statements a steady windowed_incremental run sends to Spark, pinned.

The whole materialization body is rendered (MacroRenderer) with a fake dbt context for a steady
run: a committed batch exists, dbt listed the model's tables when it started (their SHOW TABLE
EXTENDED text, read by _sw_cached_table), no staging table is left, and the scan finds 1,000 new
rows that update windows (none late: late rows would add one write, the batch's partition of
`<model>__late`, inside the script on Spark 4.3 and one more round trip on 3.5). Every
`run_query` call, every `statement('main')` call and every `adapter.drop_relation` is one
statement sent to Spark, one round trip: all are recorded, in order, and pinned by number and by
their first words, so that a new round trip fails a test here. A tumbling run reads its state
row and scans its new rows in one query (_sw_incremental_read_scan_sql). On Spark 4.1 and newer
a run sends its writes as one SQL script (_sw_incremental_send), and the statements a query
needs first with it (_sw_incremental_ask); on Spark 3.5 one statement at a time.

dbt's own statements (show databases, show table extended of the schema: its relation cache,
which it fills before any model runs) are not sent by the materialization and are out of scope.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
from types import SimpleNamespace

import pytest
from fake_dbt import COMMITTER, SESSION_CONFIG, STATE_COLUMNS, TUMBLE_CONFIG, Config, listed_text
from stop_at import is_script

from dev.macro_renderer import CompilerError, MacroRenderer

pytestmark = pytest.mark.fast

SCHEMA = "spark_windows"
INVOCATION_ID = "5f0e6a1c-93b2-4c1e-8d0a-2b7c4e9f1a30"
MINUTE = 60_000_000
T0 = 1_714_550_400_000_000  # 2024-05-01 08:00 UTC
RUN_STARTED_AT = datetime.datetime(2024, 5, 1, 9, 0, tzinfo=datetime.timezone.utc)

TUMBLE, SESSION = TUMBLE_CONFIG, SESSION_CONFIG
MODELS = {
    "tumble": (
        "sensor_vehicles",
        TUMBLE,
        "select sensor_id, reading_ts, car_count, ingested_at from raw_sensor_readings",
    ),
    "session": ("click_sessions", SESSION, "select user_id, click_ts, amount, ingested_at from raw_clicks"),
}

# the last commit: batch 6, its rows ingested up to 08:20, events up to 08:18, watermark 08:13
STATE = {"batch_id": 6, "ingestion_us": T0 + 20 * MINUTE, "event_us": T0 + 18 * MINUTE}
# the scan of the new rows (_sw_incremental_summary_sql): one hour of 1,000 rows ingested up to
# 08:30 with events from 08:19 to 08:29, none late; the input holds the 6,000 processed rows and them
SCAN = [
    ["hour", T0, 1000, 0, T0 + 30 * MINUTE, T0 + 29 * MINUTE, 0, T0 + 19 * MINUTE, T0 + 29 * MINUTE],
    ["input_rows", None, 7000],
    ["processed_rows", None, 6000],
]
# the touch query of a session run (as test_incremental_render.py's session_renderer answers it):
# two stored sessions touched, from 08:05 to 08:25, no row late by touch
TOUCH = [["touched_sessions", 2, T0 + 5 * MINUTE, T0 + 25 * MINUTE], ["late_rows", 0, None, None]]


class Relation:
    """A dbt-spark relation as the materialization uses it: rendered as `schema.identifier`."""

    database = None

    def __init__(self, identifier: str, type: str = "table", schema: str = SCHEMA):  # noqa: A002 (dbt's name)
        self.schema = schema
        self.identifier = identifier
        self.type = type

    def incorporate(self, path: dict | None = None, type: str | None = None) -> Relation:  # noqa: A002
        path = path or {}
        return Relation(path.get("identifier", self.identifier), type or self.type, path.get("schema", self.schema))

    def __str__(self) -> str:
        return f"{self.schema}.{self.identifier}"


def last_statement(script: str) -> str:
    """The last statement of a script of _sw_sql_script (`BEGIN\\n<statement>;\\n...<statement>;\\nEND`)."""
    return script.removeprefix("BEGIN\n").removesuffix(";\nEND").rsplit(";\n", 1)[-1]


class SteadyRun:
    """The materialization run once, steady, with a fake dbt context. `trips`: each statement
    sent to Spark, as (`run_query` or `main`, its text)."""

    def __init__(
        self,
        kind: str,
        release: str,
        stored: dict | None = None,
        left: tuple[str, ...] = (),
        file_format: str = "parquet",
        listed_iceberg: bool | None = None,
        iceberg_input: bool = False,
        emit_policy: str = "every_run",
    ):
        """`stored`: the settings the last commit stored (by default this release's: staging
        tables named by batch); `left`: staging tables dbt listed (an attempt left them);
        `file_format`: the model's; `listed_iceberg`: whether dbt listed its tables as Iceberg
        tables (by default as its file_format made them); `iceberg_input`: the model reads the
        source `raw.readings` by its Iceberg snapshots (the last commit read up to snapshot 41,
        and two appends and a compaction followed it, the newest snapshot 44)."""
        identifier, values, self.model_sql = MODELS[kind]
        values = {**values, "file_format": file_format}
        if emit_policy != "every_run":
            values["emit_policy"] = emit_policy
        if emit_policy == "final":  # its table is its changelog
            values.pop("emit", None)
        if iceberg_input:
            values = {key: value for key, value in values.items() if key != "ingestion_time_col"}
            values.update({"iceberg_input": "raw.readings", "sequence_col": "landed_sequence"})
        iceberg = file_format == "iceberg" if listed_iceberg is None else listed_iceberg
        self.identifier, self.values = identifier, values
        self.release = release
        self.stored = stored if stored is not None else {"session_time_zone": "UTC", "staging_tables": "by_batch"}
        if iceberg_input and stored is None:
            self.stored = {**self.stored, "input_snapshot": 41}
        self.trips: list[tuple[str, str]] = []
        self.fingerprints: list[str] = []
        pending = f"{identifier}__pending_7"
        staged = "window_partition=2024-05-01 08%3A00%3A00"
        # by query start: what Spark answers (a script answers with its last statement's rows)
        self.answers = {
            "select batch_id, ": self.state_row,
            # the scan with the state row's columns after each of its rows
            "select __sw_scan.*, __sw_last.*": lambda: [
                row + [None] * (9 - len(row)) + self.state_row()[0] for row in SCAN
            ],
            "show tables in ": [[SCHEMA, name, False] for name in left],
            # asked by itself no more (the state read asks it): answered, so that a regression
            # fails on the count of round trips
            "select current_timezone()": [["UTC", f"{release} 0123abc"]],
            "select\n    'hour' as part": SCAN,
            "select 'start' as part": [
                ["start", 41, None, None],
                ["since", 41, "append", "2024-05-01 08:20:00"],
                ["since", 42, "append", "2024-05-01 08:24:00"],
                ["since", 43, "replace", "2024-05-01 08:25:00"],
                ["since", 44, "append", "2024-05-01 08:30:00"],
            ],
            "with __sw_new as": TOUCH,  # the session touch query
            # Spark 3.5 only: the metadata apply reads the staged partitions (a session's
            # changelog stages the touched sessions' old rows in the NULL partition) ...
            f"show partitions {SCHEMA}.{pending}": [[staged]]
            + ([["window_partition=__HIVE_DEFAULT_PARTITION__"]] if kind == "session" else []),
            # ... and, for sessions, the names of the partitions the run read (07:00 is emptied)
            "select cast(timestamp_micros(__sw_us) as string) as __sw_name": [
                ["2024-05-01 07:00:00"],
                ["2024-05-01 08:00:00"],
            ],
        }
        tables = {identifier: ["sensor_id", "window_start", "window_end", "revision", "window_partition"]}
        if emit_policy == "final":  # the final windows in the model's table
            tables[identifier] = ["sensor_id", "window_start", "window_end", "vehicles", "readings", "batch_id"]
        tables[f"{identifier}__late"] = ["reading_ts", "batch_id"]
        if values.get("emit") == "changelog":
            tables[f"{identifier}__changelog"] = ["op", "batch_id"]
        tables[f"{identifier}__state"] = STATE_COLUMNS
        tables.update({name: ["window_partition"] for name in left})
        self.renderer = MacroRenderer()
        self.renderer.env.globals["adapter"].listed.update(
            {
                # a SparkRelation of dbt's cache, with the text it listed
                name: SimpleNamespace(
                    database=None,
                    schema=SCHEMA,
                    identifier=name,
                    information=listed_text(
                        SCHEMA,
                        name,
                        columns,
                        ["partitionOverwriteMode=dynamic"] if name == identifier else [COMMITTER],
                        iceberg=iceberg,
                    ),
                    is_table=True,
                    is_view=False,
                )
                for name, columns in tables.items()
            }
        )
        # the macros see dbt's context through the globals (set before any macro is compiled)
        self.context = {
            "config": Config(values),
            "this": Relation(identifier),
            "sql": self.model_sql,
            "model": {"description": "", "depends_on": {"nodes": ["source.sensors.raw.readings"]}},
            "graph": {
                "nodes": {},
                "sources": {
                    "source.sensors.raw.readings": {
                        "source_name": "raw",
                        "name": "readings",
                        "database": None,
                        "schema": "landing",
                        "identifier": "sensor_readings",
                    }
                },
            },
            "pre_hooks": [],
            "post_hooks": [],
            "run_query": self.run_query,
            "statement": self.statement,
            "should_full_refresh": lambda: False,
            "run_hooks": lambda hooks, **kwargs: "",
            "apply_grants": lambda *args, **kwargs: "",
            "should_revoke": lambda *args, **kwargs: False,
            "persist_docs": lambda *args, **kwargs: "",
            "tblproperties_clause": lambda: "",
            "location_clause": lambda: "",
            "comment_clause": lambda: "",
            "local_md5": self.local_md5,
            "invocation_id": INVOCATION_ID,
            "run_started_at": RUN_STARTED_AT,
        }
        self.renderer.env.globals.update(self.context)
        adapter = self.renderer.env.globals["adapter"]
        drop = adapter.drop_relation
        adapter.drop_relation = lambda relation: (
            self.trips.append(("drop_relation", f"drop {relation}")),
            drop(relation),
        )
        self.result = self.renderer.materialization("windowed_incremental", **self.context)

    def local_md5(self, text: str) -> str:
        self.fingerprints.append(hashlib.md5(text.encode()).hexdigest())
        return self.fingerprints[-1]

    def state_row(self):
        """The last commit: its fingerprint is the one the run computes (its settings unchanged),
        with the session's time zone and release the state read asks too."""
        settings = json.dumps(self.stored)
        return [
            [
                STATE["batch_id"],
                STATE["ingestion_us"],
                STATE["event_us"],
                STATE["event_us"] - 5 * MINUTE,
                "",
                self.fingerprints[-1],
                settings,
                "UTC",
                f"{self.release} 0123abc",
                0,
            ]
        ]

    def run_query(self, sql: str):
        self.trips.append(("run_query", sql))
        asked = last_statement(sql) if is_script(sql) else sql
        rows = next((rows for start, rows in self.answers.items() if asked.startswith(start)), [])
        return SimpleNamespace(rows=rows() if callable(rows) else rows)

    def statement(self, name, fetch_result=False, auto_begin=True, caller=None):
        assert name == "main"
        self.trips.append(("main", caller()))
        return ""

    def outline(self) -> list[tuple[str, str]]:
        """Each round trip with its text on one line; a script as `BEGIN … <its last statement>`."""
        return [
            (channel, " ".join((f"BEGIN … {last_statement(sql)}" if is_script(sql) else sql).split()))
            for channel, sql in self.trips
        ]


@functools.cache
def steady(kind: str, release: str) -> SteadyRun:
    """Each run rendered once for the module's tests."""
    return SteadyRun(kind, release)


def assert_trips(run: SteadyRun, expected: list[tuple[str, str]]) -> None:
    """The run's round trips are `expected` ((channel, start of its outline)), in order."""
    outline = run.outline()
    shown = "\n".join(f"{channel}: {text[:90]}" for channel, text in outline)
    assert len(outline) == len(expected), f"{len(outline)} round trips, not {len(expected)}:\n{shown}"
    for (channel, text), (want_channel, start) in zip(outline, expected):
        assert (channel, text[: len(start)]) == (want_channel, start), shown


def apply_trips(target: str, pending: str) -> list[tuple[str, str]]:
    """Spark 3.5, after the main statement: the metadata apply (_sw_incremental_repoint) lists
    the staged partitions, drops them from the table and adds them at their folders in the
    run's (the staging table is dropped after it)."""
    return [
        ("run_query", f"show partitions {pending}"),
        ("run_query", f"alter table {target} drop if exists partition"),
        ("run_query", f"alter table {target} add partition"),
    ]


PURGE = (
    "drop table if exists {t}__trash",
    "create table {t}__trash",
    "alter table {t}__trash add",
    "drop table if exists {t}__trash",
)


def test_a_steady_tumbling_run_on_spark_4_3_sends_two_statements():
    """The state read with the scan of the new rows (and the session's zone and release), and
    one script: every write of the run (stage, commit, apply, drop). With dbt's own two, four: the
    goal, fewer than dbt's own incremental model sends (six)."""
    run = steady("tumble", "4.3.0")
    assert_trips(
        run,
        [
            ("run_query", "select __sw_scan.*, __sw_last.* from ( select 'hour' as part"),
            ("main", "BEGIN … drop table if exists spark_windows.sensor_vehicles__pending_7"),
        ],
    )
    assert [str(relation) for relation in run.result["relations"]] == [
        "spark_windows.sensor_vehicles",
        "spark_windows.sensor_vehicles__late",
        "spark_windows.sensor_vehicles__state",
    ]


def test_the_tumbling_read_takes_the_scans_bounds_from_the_state_row():
    """The scan in the state read: the new rows are those ingested after the last state row's
    newest ingestion time (a scalar subquery Spark 4 pushes into the Parquet reader), late under
    its watermark; no literal of the state."""
    read = steady("tumble", "4.3.0").trips[0][1]
    last = "from spark_windows.sensor_vehicles__state order by batch_id desc limit 1)"
    assert f"where ingested_at > (select max_ingestion_time {last} or ingested_at is null" in read
    assert f"<= (select unix_micros(watermark) {last}, false)" in read
    assert str(STATE["ingestion_us"]) not in read


def test_the_tumbling_script_writes_stage_commit_apply_and_drop_in_order():
    run = steady("tumble", "4.3.0")
    script = run.trips[-1][1]
    assert is_script(script) and script.endswith("\nEND")
    pending = "spark_windows.sensor_vehicles__pending_7"
    parts = [
        "\nEXECUTE IMMEDIATE 'set spark.sql.sources.partitionOverwriteMode = STATIC';\n",
        f"\ncreate table {pending} using parquet\npartitioned by (window_partition)\n"
        "location 'file:/w/spark_windows.db/sensor_vehicles/run-7'",
        "\ninsert into spark_windows.sensor_vehicles__state\nselect\n    cast(7 as bigint),",
        "\nBEGIN\n    DECLARE __sw_staged ARRAY<STRING>;",
        f"\ndrop table if exists {pending};\nEND",
    ]
    places = [script.find(part) for part in parts]
    assert -1 not in places, [part for part, place in zip(parts, places) if place == -1]
    assert places == sorted(places)
    # the nested block is the apply: it drops and adds the staged partitions of the table
    apply = script[places[3] : places[4]]
    assert "EXECUTE IMMEDIATE __sw_statement" in apply and f"from {pending} where" in apply


def test_a_steady_session_run_on_spark_4_3_sends_four_statements():
    """A session run reads its state row, then sends the caching of its batch with its scan, and
    the caching of the candidate and touched sessions with its touch query: one script each.
    With dbt's own two, six: the goal."""
    run = steady("session", "4.3.0")
    assert_trips(
        run,
        [
            ("run_query", "select batch_id, unix_micros(max_ingestion_time)"),
            ("run_query", "BEGIN … select 'hour' as part"),
            ("run_query", "BEGIN … with __sw_new as"),
            ("main", "BEGIN … drop table if exists spark_windows.click_sessions__pending_7"),
        ],
    )
    scan, touch, main = (run.trips[index][1] for index in (1, 2, 3))
    assert scan.startswith("BEGIN\ncreate or replace temporary view __sw_batch_click_sessions as\n")
    assert "\ncache lazy table __sw_batch_click_sessions;\nselect\n    'hour' as part" in scan
    assert touch.startswith("BEGIN\ncreate or replace temporary view __sw_candidates_click_sessions as\n")
    assert "\ncache lazy table __sw_touched_click_sessions;\nwith __sw_new as" in touch
    assert main.startswith("BEGIN\nEXECUTE IMMEDIATE 'set spark.sql.sources.partitionOverwriteMode = STATIC';\n")


def test_a_steady_tumbling_run_on_spark_3_5_sends_ten_statements():
    """No scripts: each write is its own statement, the commit the main one, then the apply by
    metadata reads the staged partitions back."""
    run = steady("tumble", "3.5.8")
    pending = "spark_windows.sensor_vehicles__pending_7"
    assert_trips(
        run,
        [
            ("run_query", "select __sw_scan.*, __sw_last.* from ( select 'hour' as part"),
            ("run_query", "set spark.sql.sources.partitionOverwriteMode = STATIC"),
            ("run_query", "set spark.sql.legacy.allowNonEmptyLocationInCTAS = true"),
            ("run_query", f"create table {pending} using parquet"),
            ("run_query", "reset spark.sql.legacy.allowNonEmptyLocationInCTAS"),
            ("main", "insert into spark_windows.sensor_vehicles__state"),
            *apply_trips("spark_windows.sensor_vehicles", pending),
            ("run_query", f"drop table if exists {pending}"),
        ],
    )


def test_a_steady_session_run_on_spark_3_5_sends_twenty_seven_statements():
    """No scripts: the caching statements, the writes and the apply each on their own; the apply
    also names the partitions the run read (to drop those it empties) and deletes the staged
    NULL partition (the changelog's old rows) through the trash table."""
    run = steady("session", "3.5.8")
    target = "spark_windows.click_sessions"
    pending = f"{target}__pending_7"
    assert_trips(
        run,
        [
            ("run_query", "select batch_id, unix_micros(max_ingestion_time)"),
            ("run_query", "create or replace temporary view __sw_batch_click_sessions as"),
            ("run_query", "cache lazy table __sw_batch_click_sessions"),
            ("run_query", "select 'hour' as part"),
            ("run_query", "create or replace temporary view __sw_candidates_click_sessions as"),
            ("run_query", "cache lazy table __sw_candidates_click_sessions"),
            ("run_query", "create or replace temporary view __sw_touched_click_sessions as"),
            ("run_query", "cache lazy table __sw_touched_click_sessions"),
            ("run_query", "with __sw_new as"),
            ("run_query", "set spark.sql.sources.partitionOverwriteMode = STATIC"),
            ("run_query", "set spark.sql.legacy.allowNonEmptyLocationInCTAS = true"),
            ("run_query", f"create table {pending} using parquet"),
            ("run_query", "reset spark.sql.legacy.allowNonEmptyLocationInCTAS"),
            ("run_query", f"insert overwrite table {target}__changelog partition (batch_id = 7)"),
            ("run_query", "drop view if exists __sw_batch_click_sessions"),
            ("run_query", "drop view if exists __sw_candidates_click_sessions"),
            ("run_query", "drop view if exists __sw_touched_click_sessions"),
            ("main", f"insert into {target}__state"),
            ("run_query", f"show partitions {pending}"),
            ("run_query", "select cast(timestamp_micros(__sw_us) as string) as __sw_name"),
            *apply_trips(target, pending)[1:],
            *(("run_query", text.format(t=target)) for text in PURGE),
            ("run_query", f"drop table if exists {pending}"),
        ],
    )


def test_a_staging_table_a_killed_attempt_left_is_found_by_name_and_dropped_before_the_run_stages():
    """Staging tables are named by batch: after commit 6 only `__pending_6` (named by the commit)
    and `__pending_7` (an attempt that did not commit) can be left, and dbt's listing says which
    are. `__pending_7` is dropped with its files (and out of dbt's cache), with the batch's late
    rows; then the run creates its own `__pending_7`, in its script. No listing statement."""
    run = SteadyRun("tumble", "4.3.0", left=("sensor_vehicles__pending_7",))
    assert_trips(
        run,
        [
            ("run_query", "select __sw_scan.*, __sw_last.* from ( select 'hour' as part"),
            ("run_query", "alter table spark_windows.sensor_vehicles__late drop if exists partition (batch_id = 7)"),
            ("run_query", "drop table if exists spark_windows.sensor_vehicles__pending_7 purge"),
            ("main", "BEGIN … drop table if exists spark_windows.sensor_vehicles__pending_7"),
        ],
    )
    assert "\ncreate table spark_windows.sensor_vehicles__pending_7 using parquet\n" in run.trips[-1][1]


def test_after_a_commit_of_0_2_0_the_models_staging_tables_are_listed_once():
    """A commit of 0.2.0 named its staging table by dbt's invocation id, and does not store
    staging_tables: the run lists the schema's staging tables of the model (one statement more)
    and drops the one an attempt left. Its own commit stores the naming: the next run lists
    nothing."""
    left = "sensor_vehicles__pending_5f0e6a1c_93b2_4c1e_8d0a_2b7c4e9f1a31"
    run = SteadyRun("tumble", "4.3.0", stored={"session_time_zone": "UTC"}, left=(left,))
    assert_trips(
        run,
        [
            ("run_query", "select __sw_scan.*, __sw_last.* from ( select 'hour' as part"),
            ("run_query", "show tables in spark_windows like 'sensor_vehicles__pending_*'"),
            ("run_query", "alter table spark_windows.sensor_vehicles__late drop if exists partition (batch_id = 7)"),
            ("run_query", f"drop table if exists spark_windows.{left} purge"),
            ("main", "BEGIN … drop table if exists spark_windows.sensor_vehicles__pending_7"),
        ],
    )
    assert '"staging_tables": "by_batch"' in run.trips[-1][1]


def assert_no_hive_partition_statement(run: SteadyRun) -> None:
    """On Iceberg tables a run sends none of the statements that fail there: no partition is
    listed, dropped, added or re-pointed, and no table option is set."""
    for _, sql in run.trips:
        lowered = " ".join(sql.lower().split())
        for words in ("show partitions", "drop if exists partition", " add partition", "set location", "options ("):
            assert words not in lowered, sql


@pytest.mark.parametrize("release", ["3.5.8", "4.3.0"])
def test_a_steady_tumbling_run_on_iceberg_replaces_the_partitions_it_rewrites_in_one_statement(release):
    """With file_format='iceberg' the staging table is an Iceberg table that names the partitions
    it replaces, the commit row comes next, and the table of windows takes the staged rows by a
    REPLACE WHERE of those partitions (one Iceberg commit), then the staging table is dropped. On
    Spark 3.5: six statements, dbt's two not counted."""
    run = SteadyRun("tumble", release, file_format="iceberg")
    target = "spark_windows.sensor_vehicles"
    pending = f"{target}__pending_7"
    if release == "3.5.8":
        assert_trips(
            run,
            [
                ("run_query", "select __sw_scan.*, __sw_last.* from ( select 'hour' as part"),
                ("run_query", "set spark.sql.sources.partitionOverwriteMode = STATIC"),
                (
                    "run_query",
                    f"create table {pending} using iceberg tblproperties ('spark_windows.replaced_partitions' = '[[",
                ),
                ("run_query", f"insert into {target}__state"),
                ("main", f"insert into {target} replace where window_partition between timestamp_micros("),
                ("run_query", f"drop table if exists {pending}"),
            ],
        )
    else:
        assert_trips(
            run,
            [
                ("run_query", "select __sw_scan.*, __sw_last.* from ( select 'hour' as part"),
                ("main", f"BEGIN … insert into {target} replace where window_partition between"),
                ("run_query", f"drop table if exists {pending}"),
            ],
        )
    assert_no_hive_partition_statement(run)
    # the partitions replaced are those the staging table names, with one-day partitions: the
    # windows of the new rows (events 08:19 to 08:29) start on 2024-05-01, and so do those the
    # watermark's move (08:13 to 08:24) makes final
    stage = next(sql for _, sql in run.trips if f"create table {pending}" in sql)
    named = json.loads(stage.split("'spark_windows.replaced_partitions' = '", 1)[1].split("'", 1)[0])
    day = T0 - T0 % 86_400_000_000
    assert named == [[day, day], [day, day]]
    replace = run.trips[-2][1] if release == "3.5.8" else last_statement(run.trips[-2][1])
    # a REPLACE WHERE inserts by position: the staged columns in the order dbt listed the table's
    # (here a shortened listing), whatever order the config gives the aggregates in
    assert replace.split("\n")[1].strip() == "select sensor_id, window_start, window_end, revision, window_partition"
    assert replace.split("\n", 1)[0] == (
        f"insert into {target} replace where window_partition between timestamp_micros({day}) and timestamp_micros({day})"
        f" or window_partition between timestamp_micros({day}) and timestamp_micros({day})"
    )


def test_a_steady_session_run_on_iceberg_replaces_the_partitions_it_read_emptied_ones_included():
    """Sessions: the REPLACE WHERE covers every partition the run read (plan.partition_ranges),
    so a partition whose sessions all merged into one that ends in another is left empty in the
    same commit; no listing of partitions, no trash table."""
    run = SteadyRun("session", "3.5.8", file_format="iceberg")
    target = "spark_windows.click_sessions"
    outline = run.outline()
    assert outline[-2][0] == "main" and outline[-2][1].startswith(
        f"insert into {target} replace where window_partition between"
    )
    # dropped with its files: Iceberg's DROP TABLE alone keeps them
    assert outline[-1] == ("run_query", f"drop table if exists {target}__pending_7 purge")
    assert_no_hive_partition_statement(run)
    assert not any("__trash" in sql or "__sw_name" in sql for _, sql in run.trips)


@pytest.mark.parametrize(
    ("file_format", "listed_iceberg", "message"),
    [
        (
            "iceberg",
            False,
            "the model's file_format is 'iceberg', but spark_windows.sensor_vehicles, "
            "spark_windows.sensor_vehicles__late, spark_windows.sensor_vehicles__state are not Iceberg tables",
        ),
        (
            "parquet",
            True,
            "the model's file_format is 'parquet', but spark_windows.sensor_vehicles, "
            "spark_windows.sensor_vehicles__late, spark_windows.sensor_vehicles__state are Iceberg tables",
        ),
    ],
)
def test_tables_of_another_file_format_are_refused_before_anything_changes(file_format, listed_iceberg, message):
    """A model whose file_format changed since its tables were made: refused after the state read,
    asking for --full-refresh; nothing written."""
    with pytest.raises(CompilerError) as error:
        SteadyRun("tumble", "3.5.8", file_format=file_format, listed_iceberg=listed_iceberg)
    assert message in str(error.value)
    assert "Run the model once with --full-refresh" in str(error.value)


def test_a_run_reading_an_iceberg_input_checks_its_snapshots_in_one_statement_more():
    """With iceberg_input a tumbling run on Spark 4.3 also asks for the input's snapshots since
    the one its last commit read up to (appends and a compaction: accepted), and its commit
    stores the newest. The scan reads the rows up to the input's newest sequence number."""
    run = SteadyRun("tumble", "4.3.0", iceberg_input=True)
    assert_trips(
        run,
        [
            ("run_query", "select __sw_scan.*, __sw_last.* from ( select 'hour' as part"),
            ("run_query", "select 'start' as part, snapshot_id"),
            ("main", "BEGIN … drop table if exists spark_windows.sensor_vehicles__pending_7"),
        ],
    )
    read, check, script = (sql for _, sql in run.trips)
    sequence = "timestamp_micros(landed_sequence)"
    assert (
        f"where ({sequence} > (select max_ingestion_time from spark_windows.sensor_vehicles__state order by batch_id desc "
        f"limit 1) or {sequence} is null) and ({sequence} <= (select timestamp_micros(max(latest_sequence_number)) "
        f"from landing.sensor_readings.metadata_log_entries) or {sequence} is null)"
    ) in " ".join(read.split())
    assert "from landing.sensor_readings.snapshots\nwhere snapshot_id = 41" in check
    commit = script[script.index("insert into spark_windows.sensor_vehicles__state") :]
    assert '"input_snapshot": 44' in commit and '"iceberg_input": "raw.readings"' in commit, commit[:2000]


def test_a_final_run_writes_its_folders_commits_then_shows_its_windows_in_one_script():
    """With emit_policy='final' the run keeps no table of windows: one script writes the windows
    that close into the batch's partition folder, commits, and only then adds that folder as the
    batch's partition, with the last batch's (a run killed before it did). A tumbling run reads
    the input again from the earliest run the last commit kept (after 08:10; its latest time
    08:17 is in a window that closes at 08:28, after the new watermark, 08:24), and the commit
    keeps that run and its own. No late rows (none of the scan's is late): no late folder."""
    kept = {"after_us": T0 + 10 * MINUTE, "max_update_us": T0 + 17 * MINUTE}
    run = SteadyRun(
        "tumble",
        "4.3.0",
        emit_policy="final",
        stored={"session_time_zone": "UTC", "staging_tables": "by_batch", "open_input": [kept]},
    )
    table = f"file:/w/{SCHEMA}.db/sensor_vehicles"
    assert_trips(
        run,
        [
            ("run_query", "select __sw_scan.*, __sw_last.* from ( select 'hour' as part"),
            (
                "main",
                "BEGIN … alter table spark_windows.sensor_vehicles add if not exists "
                "partition (batch_id = 6) partition (batch_id = 7)",
            ),
        ],
    )
    statements = run.trips[-1][1].removeprefix("BEGIN\n").removesuffix(";\nEND").split(";\n")
    flat = [" ".join(statement.split()) for statement in statements]
    assert flat[0].startswith(f"insert overwrite directory '{table}/batch_id=7' using parquet")
    assert f"ingested_at > timestamp_micros({T0 + 10 * MINUTE})" in flat[0]
    assert f"ingested_at <= timestamp_micros({T0 + 30 * MINUTE})" in flat[0]
    assert flat[1].startswith("insert into spark_windows.sensor_vehicles__state")
    assert flat[2].startswith("alter table spark_windows.sensor_vehicles add if not exists")
    assert len(statements) == 3 and "__late" not in run.trips[-1][1] and "_sw_open_" not in run.trips[-1][1]
    this_run = {"after_us": T0 + 20 * MINUTE, "max_update_us": T0 + 29 * MINUTE}
    assert f'"open_input": {json.dumps([kept, this_run], sort_keys=True)}' in flat[1]
    assert [str(relation) for relation in run.result["relations"]] == [
        "spark_windows.sensor_vehicles",
        "spark_windows.sensor_vehicles__late",
        "spark_windows.sensor_vehicles__state",
    ]


def test_a_final_session_run_writes_its_open_rows_first():
    """A session run with emit_policy='final' writes the rows of the sessions still open into the
    folder the last commit's are not in (batch 7: _sw_open_1; it reads _sw_open_0) before its
    windows; its commit keeps no runs to read again."""
    run = SteadyRun("session", "4.3.0", emit_policy="final")
    table = f"file:/w/{SCHEMA}.db/click_sessions"
    statements = run.trips[-1][1].removeprefix("BEGIN\n").removesuffix(";\nEND").split(";\n")
    flat = [" ".join(statement.split()) for statement in statements]
    assert flat[0].startswith(f"insert overwrite directory '{table}/_sw_open_1' using parquet")
    assert f"from parquet.`{table}/_sw_open_0`" in flat[0]
    assert flat[1].startswith(f"insert overwrite directory '{table}/batch_id=7' using parquet")
    assert flat[2].startswith("insert into spark_windows.click_sessions__state") and "open_input" not in flat[2]
    assert len(statements) == 4
