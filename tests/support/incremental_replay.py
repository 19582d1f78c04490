"""One replay of the sensor readings and the clicks through the five incremental example models,
which the sensor replay test (test_incremental.py) and the session replay test
(test_incremental_sessions.py) each check for their own models.

Each run is one `dbt run --select raw_sensor_readings+ raw_clicks+` with the rows that arrived by
a cut-off (CUTS), as a scheduled build runs every model of a project; the tables are read after
each. Then the session model's data tests run on the tables the runs built, and one
`--full-refresh` of all five models at the last cut-off is read too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from incremental_cases import CUTS, SESSION_MODEL
from incremental_driver import SESSION_MODELS, read_tables
from spark_windows_dev.dbt_harness import run_dbt


@dataclass
class Replay:
    runs: list[tuple[str, dict]] = field(default_factory=list)  # (cut-off, every table after its run)
    refreshed: dict = field(default_factory=dict)  # every table after --full-refresh at CUTS[-1]


def arrived(until: str) -> dict[str, str]:
    """The environment of a run that sees the readings and the clicks that arrived by `until`."""
    return {"SPARK_WINDOWS_ARRIVED_UNTIL": until, "SPARK_WINDOWS_CLICKS_ARRIVED_UNTIL": until}


def run_times(rows_of, schema: str, name: str) -> dict:
    """The run_started_at of session model `name`'s state rows, and of its late and changelog rows
    per batch (integer microseconds)."""
    columns = "batch_id, unix_micros(run_started_at)"
    times = {"state": sorted(rows_of(f"select {columns} from {schema}.{name}__state"))}
    for table in ("late", "changelog"):
        times[table] = sorted(rows_of(f"select distinct {columns} from {schema}.{name}__{table}"))
    return times


def tables(rows_of, schema: str) -> dict:
    """Every table of the five models (incremental_driver.read_tables), and each session model's
    run times (`<model>:run_times`)."""
    found = read_tables(rows_of, schema)
    for name in SESSION_MODELS:
        found[f"{name}:run_times"] = run_times(rows_of, schema, name)
    return found


def replay(rows_of, schema: str) -> Replay:
    done = Replay()
    for index, cut in enumerate(CUTS):
        command = ["run", "--select", "raw_sensor_readings+", "raw_clicks+"]
        run_dbt(command + (["--full-refresh"] if index == 0 else []), env=arrived(cut))
        done.runs.append((cut, tables(rows_of, schema)))
    # the session model's data tests hold on the table the runs built: no overlapping sessions,
    # and every click with a time is counted once, in a session or in the late table
    run_dbt(["test", "--select", SESSION_MODEL], env=arrived(CUTS[-1]))
    run_dbt(["run", "--select", "raw_sensor_readings+", "raw_clicks+", "--full-refresh"], env=arrived(CUTS[-1]))
    done.refreshed = tables(rows_of, schema)
    return done
