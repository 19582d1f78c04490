"""Slow test: a project that installs spark_windows as a package (integration_tests/consumer)
builds on the local target, and its models, which call spark_windows.tumble, hop and
window_aggregate, hold the hand-computed windows."""

from __future__ import annotations

import pytest
from compare import assert_same_rows
from dbt_harness import PROJECT_DIR, run_dbt

pytestmark = pytest.mark.slow

CONSUMER = PROJECT_DIR / "integration_tests" / "consumer"
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


@pytest.fixture(scope="module")
def consumer(warehouse, dbt_target):
    if dbt_target != "local":
        pytest.skip("the consumer project is built on the local target")
    run_dbt(["deps"], project_dir=CONSUMER)
    run_dbt(["build", "--target", dbt_target], project_dir=CONSUMER)
    return warehouse


@pytest.mark.parametrize(
    "model, expected",
    [("consumer_tumbling", TUMBLING), ("consumer_sliding", SLIDING)],
)
def test_package_macros_work_in_a_consumer_project(consumer, model, expected):
    columns, rows = consumer.table_as_text(model)
    assert_same_rows(columns, rows, COLUMNS, expected, model)


def test_window_aggregate_works_in_a_consumer_project(consumer):
    columns, rows = consumer.table_as_text("consumer_window_aggregate")
    assert columns == ["sensor_id", "window_start", "window_end", "window_time", "vehicles"]
    assert_same_rows(
        ["sensor_id", "window_start", "window_end", "vehicles"],
        [(key, start, end, vehicles) for key, start, end, _, vehicles in rows],
        COLUMNS,
        SLIDING,
        "consumer_window_aggregate",
    )
