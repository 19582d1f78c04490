"""A project that installs spark_windows as a package (integration_tests/consumer), built in a
process of its own with the profile the README gives consumers, as pasted:

- the package adds none of its models, seeds or data tests to the consumer (`dbt ls`);
- `dbt build --empty` (as analysts run it before unit tests: every model built with no rows)
  passes, and so does `dbt build` after it; each runs the consumer's dbt unit tests
  (`unit_tests:` in the YAML next to each model, one per model calling a macro), and each of
  them passes;
- the consumer's models, which call spark_windows.tumble, hop, session and window_aggregate,
  hold the hand-computed windows;
- the consumer's seed loads exactly (NULL for an empty field, microseconds kept) only with the
  documented opt-in to spark_windows' seed loader (`dispatch:` for the `dbt` namespace).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from compare import assert_same_rows

from dev.project import PROJECT_DIR

CONSUMER = PROJECT_DIR / "integration_tests" / "consumer"
PROFILE = CONSUMER / "profiles.yml"
DRIVER = PROJECT_DIR / "tests" / "support" / "consumer_driver.py"
COLUMNS = ["sensor_id", "window_start", "window_end", "vehicles"]
# s1: 08:00:05 (3), 08:00:35 (4), 08:01:10 (2); s2: 07:59:50 (2), 08:01:00 (6); one row has no time
TUMBLING = [
    ("s1", "2024-05-01 08:00:00", "2024-05-01 08:01:00", "7"),
    ("s1", "2024-05-01 08:01:00", "2024-05-01 08:02:00", "2"),
    ("s2", "2024-05-01 07:59:00", "2024-05-01 08:00:00", "2"),
    ("s2", "2024-05-01 08:01:00", "2024-05-01 08:02:00", "6"),
]
SLIDING = [
    ("s1", "2024-05-01 07:59:30", "2024-05-01 08:00:30", "3"),
    ("s1", "2024-05-01 08:00:00", "2024-05-01 08:01:00", "7"),
    ("s1", "2024-05-01 08:00:30", "2024-05-01 08:01:30", "6"),
    ("s1", "2024-05-01 08:01:00", "2024-05-01 08:02:00", "2"),
    ("s2", "2024-05-01 07:59:00", "2024-05-01 08:00:00", "2"),
    ("s2", "2024-05-01 07:59:30", "2024-05-01 08:00:30", "2"),
    ("s2", "2024-05-01 08:00:30", "2024-05-01 08:01:30", "6"),
    ("s2", "2024-05-01 08:01:00", "2024-05-01 08:02:00", "6"),
]

# 1-minute gap per sensor: s1's three readings are at most 35 seconds apart, one session from
# 08:00:05 to 08:01:10 + 1 minute; s2's two are 70 seconds apart, two sessions
SESSIONS_COLUMNS = ["sensor_id", "window_start", "window_end", "readings", "vehicles"]
SESSIONS = [
    ("s1", "2024-05-01 08:00:05", "2024-05-01 08:02:10", "3", "9"),
    ("s2", "2024-05-01 07:59:50", "2024-05-01 08:00:50", "1", "2"),
    ("s2", "2024-05-01 08:01:00", "2024-05-01 08:02:00", "1", "6"),
]
# the consumer's unit tests (integration_tests/consumer/models/<model>.yml), by model
UNIT_TESTS = {
    "consumer_tumbling": "consumer_tumbling_sums_each_minute",
    "consumer_sliding": "consumer_sliding_counts_each_row_in_two_windows",
    "consumer_sessions": "consumer_sessions_split_on_gaps_longer_than_a_minute",
    "consumer_window_aggregate": "consumer_window_aggregate_sums_hopping_windows",
}
BUILDS = ["build --empty", "build"]


# integration_tests/consumer/seeds/arrivals.csv, as it should load: dbt infers a timestamp column
# from its ISO 8601 times (read back here in UTC, to the microsecond) and a string column with NULL
ARRIVALS_COLUMNS = ["sensor_id", "arrived_at", "note"]
ARRIVALS = [
    ("s1", "2024-05-01 08:00:05.123456", None),
    ("s2", "2024-05-01 08:01:00.000001", "late"),
]
CONSUMER_NODES = {
    "model.spark_windows_consumer.consumer_events",
    "model.spark_windows_consumer.consumer_tumbling",
    "model.spark_windows_consumer.consumer_sliding",
    "model.spark_windows_consumer.consumer_sessions",
    "model.spark_windows_consumer.consumer_window_aggregate",
    "seed.spark_windows_consumer.arrivals",
    # `dbt ls` lists unit tests too
    *(f"unit_test.spark_windows_consumer.{model}.{name}" for model, name in UNIT_TESTS.items()),
}


@pytest.mark.fast
def test_readme_gives_the_consumer_profile_as_the_tests_use_it():
    readme = (PROJECT_DIR / "README.md").read_text()
    assert PROFILE.read_text() in readme, (
        "README.md must quote integration_tests/consumer/profiles.yml exactly (the profile the consumer tests use)"
    )


@pytest.fixture(scope="module")
def consumer(dbt_target, tmp_path_factory) -> dict:
    """What consumer_driver.py read, after `dbt deps`, `ls`, `build --empty` and `build` of the
    consumer project."""
    if dbt_target != "local":
        pytest.skip("the consumer project is built on Spark embedded in dbt")
    work = tmp_path_factory.mktemp("consumer")
    out = work / "consumer.json"
    env = {key: value for key, value in os.environ.items() if not key.startswith("SPARK_WINDOWS_")}
    env.update(
        HOME=str(work),
        DBT_PROFILES_DIR=str(CONSUMER),
        SPARK_LOCAL_IP="127.0.0.1",
        SPARK_STATE_DIR=str(work / "spark_state"),
    )
    env.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
    done = subprocess.run(
        [sys.executable, str(DRIVER), "--work-dir", str(work), "--out", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    if done.returncode != 0:
        pytest.fail(f"the consumer project did not build:\n{done.stderr[-4000:]}\n{done.stdout[-4000:]}")
    return json.loads(out.read_text())


@pytest.mark.slow
def test_the_package_adds_no_model_seed_or_test_to_a_consumer(consumer):
    listed = {node["unique_id"]: node["package_name"] for node in consumer["ls"]}
    ours = sorted(unique_id for unique_id, package in listed.items() if package == "spark_windows")
    assert ours == [], f"the consumer gets spark_windows' nodes: {ours}"
    assert set(listed) == CONSUMER_NODES


@pytest.mark.slow
@pytest.mark.parametrize(
    "model, expected",
    [("consumer_tumbling", TUMBLING), ("consumer_sliding", SLIDING)],
)
def test_package_macros_work_in_a_consumer_project(consumer, model, expected):
    columns, rows = consumer["tables"][model]
    assert_same_rows(columns, rows, COLUMNS, expected, model)


@pytest.mark.slow
@pytest.mark.parametrize("step", BUILDS)
def test_build_passes_in_a_consumer_project(consumer, step):
    built = consumer["builds"][step]
    assert built["passed"], f"dbt {step} failed: {built['error'] or built['failures']}"


@pytest.mark.slow
@pytest.mark.parametrize("step", BUILDS)
@pytest.mark.parametrize("model", sorted(UNIT_TESTS))
def test_unit_tests_of_a_model_calling_the_macros_pass(consumer, step, model):
    ran = consumer["builds"][step]["unit_tests"]
    unit_test = f"unit_test.spark_windows_consumer.{model}.{UNIT_TESTS[model]}"
    assert unit_test in ran, f"dbt {step} did not run {unit_test}; it ran {sorted(ran)}"
    assert ran[unit_test] == "pass", f"dbt {step}: {unit_test} {ran[unit_test]}: {consumer['builds'][step]['failures']}"


@pytest.mark.slow
def test_sessions_work_in_a_consumer_project(consumer):
    columns, rows = consumer["tables"]["consumer_sessions"]
    assert_same_rows(columns, rows, SESSIONS_COLUMNS, SESSIONS, "consumer_sessions")


@pytest.mark.slow
def test_window_aggregate_works_in_a_consumer_project(consumer):
    columns, rows = consumer["tables"]["consumer_window_aggregate"]
    assert columns == ["sensor_id", "window_start", "window_end", "window_time", "vehicles"]
    assert_same_rows(
        ["sensor_id", "window_start", "window_end", "vehicles"],
        [(key, start, end, vehicles) for key, start, end, _, vehicles in rows],
        COLUMNS,
        SLIDING,
        "consumer_window_aggregate",
    )


@pytest.mark.slow
def test_a_consumer_that_opts_in_loads_seeds_exactly(consumer):
    columns, rows = consumer["tables"]["arrivals"]
    assert columns == ARRIVALS_COLUMNS
    assert sorted(map(tuple, rows)) == ARRIVALS


@pytest.mark.slow
def test_without_the_opt_in_dbt_spark_loads_the_seed_inexactly(consumer):
    """Why the opt-in is documented: dbt-spark's own loader, in the same consumer minus `dispatch:`."""
    columns, rows = consumer["arrivals_without_dispatch"]
    assert columns == ARRIVALS_COLUMNS
    by_sensor = {row[0]: row for row in rows}
    assert by_sensor["s1"][2] == "None", (
        "an empty field no longer loads as the text 'None': is the opt-in still needed?"
    )
    assert by_sensor["s1"][1] == "2024-05-01 08:00:05.123000", "dbt-spark's loader kept microseconds"
