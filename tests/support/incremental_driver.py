"""Replays the sensor and click arrivals through the incremental example models in one process.

    python tests/support/incremental_driver.py --state-dir DIR [--seed] [--full-refresh]
        [--until T ...] [--dumps FOLDER [--first-run N]] [--finish T]

Runs `dbt seed` (with --seed), then for each T `dbt run --select raw_sensor_readings+ raw_clicks+`
with the readings and the clicks that arrived by T (the first run with --full-refresh when
asked). With --dumps, writes the tables of every model as JSON after each run
(FOLDER/run-<N>.json, N counting from --first-run). With --finish T, then runs the session
model's data tests and a --full-refresh of every model at T, and writes the tables to
FOLDER/refreshed.json (with no --until too: the process that follows a kill of the last run
only finishes). Prints `START <T>` before each run and `DONE <T> <seconds>` once the run
and its tables are written, so a test can kill the process in the middle of a run. Exits 1 when
a dbt command fails. dbt's target and log folders are in the state folder: a killed run leaves
nothing half written in the project's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

# run as a script: dev/, the development package, is in the repository root
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from dev.dbt_harness import EMBEDDED_TARGETS, configure_environment, run_dbt  # noqa: E402

# model -> its aggregate columns, in the order the queries below read them
MODELS = {
    "sensor_vehicles_incremental_tumbling": ["vehicles", "readings"],
    "sensor_vehicles_incremental_hopping": ["vehicles", "readings", "busiest"],
    "sensor_vehicles_incremental_on_watermark": ["vehicles", "readings"],
    "sensor_vehicles_incremental_final": ["vehicles", "readings"],
}
# the models with emit_policy='final': the model's table holds the final windows (no table holds
# the open ones, and there is no changelog), and the model downstream of it (an incremental model;
# none for the sessions) the busy ones
FINAL_MODELS = {
    "sensor_vehicles_incremental_final": "sensor_vehicles_busy_windows",
    "user_sessions_incremental_final": None,
}
# the session windows of user clicks (models/incremental/user_sessions_incremental*.sql), likewise
SESSION_MODELS = {
    "user_sessions_incremental": ["clicks", "revenue"],
    "user_sessions_incremental_on_watermark": ["clicks", "revenue", "average_amount"],
    "user_sessions_incremental_final": ["clicks", "revenue"],
}
# the session model whose data tests the replay runs (emit_policy every_run)
SESSION_MODEL = "user_sessions_incremental"
# one run: every model reading the readings and the clicks that arrived by a cut-off
RUN = ["run", "--select", "raw_sensor_readings+", "raw_clicks+"]


def table_queries(schema: str, model: str) -> dict[str, str]:
    """SQL reading a model's tables with every time as integer microseconds (no zone involved).
    Windows and changelog rows end with is_final, revision and timing; final windows (and those
    the model downstream keeps) start with their batch_id."""
    if model in SESSION_MODELS:
        return session_table_queries(schema, model)
    aggregates = ", ".join(MODELS[model])
    if model in FINAL_MODELS:
        windows = {
            "final": f"select batch_id, sensor_id, unix_micros(window_start), unix_micros(window_end), {aggregates}"
            f" from {schema}.{model}",
            "downstream": f"select batch_id, sensor_id, unix_micros(window_start), unix_micros(window_end), {aggregates}"
            f" from {schema}.{FINAL_MODELS[model]}",
        }
    else:
        windows = {
            "windows": f"select sensor_id, unix_micros(window_start), unix_micros(window_end), {aggregates}, is_final,"
            f" revision, timing from {schema}.{model}",
            "changelog": f"select batch_id, op, sensor_id, unix_micros(window_start), unix_micros(window_end),"
            f" {aggregates}, is_final, revision, timing from {schema}.{model}__changelog",
        }
    return {
        **windows,
        "late": "select sensor_id, unix_micros(reading_ts), car_count, unix_micros(ingested_at),"
        " transform(missed_windows, w -> array(unix_micros(w.window_start), unix_micros(w.window_end))),"
        f" unix_micros(watermark_at_arrival), batch_id from {schema}.{model}__late",
        "state": "select batch_id, unix_micros(max_ingestion_time), unix_micros(max_event_time), unix_micros(watermark),"
        f" new_rows, late_rows from {schema}.{model}__state",
    }


def session_table_queries(schema: str, model: str) -> dict[str, str]:
    """As table_queries, for the session models: their own input columns and the whole state row
    (windows_updated too)."""
    aggregates = ", ".join(SESSION_MODELS[model])
    if model in FINAL_MODELS:
        windows = {
            "final": f"select batch_id, user_id, unix_micros(window_start), unix_micros(window_end), {aggregates}"
            f" from {schema}.{model}"
        }
    else:
        windows = {
            "windows": f"select user_id, unix_micros(window_start), unix_micros(window_end), {aggregates}, is_final,"
            f" revision, timing from {schema}.{model}",
            "changelog": f"select batch_id, op, user_id, unix_micros(window_start), unix_micros(window_end),"
            f" {aggregates}, is_final, revision, timing from {schema}.{model}__changelog",
        }
    # a final run commits no count of updated sessions: it keeps none
    updated = "" if model in FINAL_MODELS else ", windows_updated"
    return {
        **windows,
        "late": "select user_id, unix_micros(click_ts), amount, unix_micros(ingested_at),"
        " transform(missed_windows, w -> array(unix_micros(w.window_start), unix_micros(w.window_end))),"
        f" unix_micros(watermark_at_arrival), batch_id from {schema}.{model}__late",
        "state": "select batch_id, unix_micros(max_ingestion_time), unix_micros(max_event_time), unix_micros(watermark),"
        f" new_rows, late_rows{updated} from {schema}.{model}__state",
    }


def read_tables(rows_of, schema: str, models=None) -> dict:
    """Every table of `models` (default: every model) as lists of plain tuples, and the staging
    tables left (`pending`); `rows_of(sql)` runs a query."""
    existing = {row[1] for row in rows_of(f"show tables in {schema}")}
    tables = {"pending": sorted(name for name in existing if "__pending_" in name)}
    for model in models or [*MODELS, *SESSION_MODELS]:
        for name, sql in table_queries(schema, model).items():
            table = sql.rsplit(" from ", 1)[1].split(".", 1)[1]
            if table in existing:
                tables[f"{model}:{name}"] = sorted((_plain(list(row)) for row in rows_of(sql)), key=json.dumps)
    return tables


def _plain(value):
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def run_times(rows_of, schema: str, name: str) -> dict:
    """The run_started_at of session model `name`'s state rows, and of its late and changelog rows
    per batch (integer microseconds)."""
    columns = "batch_id, unix_micros(run_started_at)"
    times = {"state": sorted(rows_of(f"select {columns} from {schema}.{name}__state"))}
    for table in ("late",) + (() if name in FINAL_MODELS else ("changelog",)):
        times[table] = sorted(rows_of(f"select distinct {columns} from {schema}.{name}__{table}"))
    return times


def replay_tables(rows_of, schema: str) -> dict:
    """Every table of the five models (read_tables), and each session model's run times
    (`<model>:run_times`), as lists (JSON's shape)."""
    found = read_tables(rows_of, schema)
    for name in SESSION_MODELS:
        found[f"{name}:run_times"] = run_times(rows_of, schema, name)
    return json.loads(json.dumps(found))


def arrived(until: str) -> dict[str, str]:
    """The environment of a run that sees the readings and the clicks that arrived by `until`."""
    return {"SPARK_WINDOWS_ARRIVED_UNTIL": until, "SPARK_WINDOWS_CLICKS_ARRIVED_UNTIL": until}


def finish_replay(until: str) -> None:
    """The end of a replay: the session model's data tests hold on the table the runs built (no
    overlapping sessions; every click with a time counted once, in a session or in the late
    table), then a --full-refresh of every model with the rows that arrived by `until`."""
    run_dbt(["test", "--select", SESSION_MODEL], env=arrived(until))
    run_dbt(RUN + ["--full-refresh"], env=arrived(until))


def dump(schema: str, path: Path) -> None:
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()
    tables = replay_tables(lambda sql: [tuple(row) for row in spark.sql(sql).collect()], schema)
    written = path.with_suffix(".part")
    written.write_text(json.dumps(tables))
    written.replace(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--state-dir", type=Path, required=True)
    parser.add_argument("--seed", action="store_true")
    parser.add_argument("--full-refresh", action="store_true")
    parser.add_argument("--until", nargs="*", default=[])
    parser.add_argument("--dumps", type=Path)
    parser.add_argument("--first-run", type=int, default=1)
    parser.add_argument("--finish", metavar="T")
    parser.add_argument("--schema", default="spark_windows")
    parser.add_argument("--target", default="local", choices=EMBEDDED_TARGETS)
    args = parser.parse_args()
    configure_environment(args.state_dir, args.target)
    os.environ["DBT_TARGET_PATH"] = str(args.state_dir / "target")
    os.environ["DBT_LOG_PATH"] = str(args.state_dir / "logs")
    try:
        if args.seed:
            run_dbt(["seed", "--select", "sensor_readings_arrivals", "click_arrivals"])
        for index, until in enumerate(args.until):
            print(f"START {until}", flush=True)
            began = time.monotonic()
            run_dbt(RUN + (["--full-refresh"] if args.full_refresh and index == 0 else []), env=arrived(until))
            took = time.monotonic() - began
            if args.dumps:
                dump(args.schema, args.dumps / f"run-{args.first_run + index}.json")
            print(f"DONE {until} {took:.2f}", flush=True)
        if args.finish:
            finish_replay(args.finish)
            dump(args.schema, args.dumps / "refreshed.json")
    except AssertionError as error:
        print(f"FAILED {error}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
