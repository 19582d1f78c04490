"""Shared fixtures. Fast tests need nothing; slow tests share one dbt build on one Spark JVM."""

from __future__ import annotations

import os
import shutil

import pytest
from incremental_replay import Replay, crash_seed, replay, replay_with_kills

from dev.dbt_harness import EMBEDDED_TARGETS, Warehouse, configure_environment, open_warehouse, run_dbt
from dev.macro_renderer import MacroRenderer
from dev.project import PROJECT_DIR, TARGET_DIR


def pytest_addoption(parser):
    parser.addoption(
        "--target",
        default=os.environ.get("SPARK_WINDOWS_TARGET", "local"),
        help="dbt target of profiles/profiles.yml for the slow tests (default: local)",
    )


@pytest.fixture(scope="session")
def renderer() -> MacroRenderer:
    return MacroRenderer()


@pytest.fixture(scope="session")
def dbt_target(request) -> str:
    return request.config.getoption("--target")


# What a build on a target other than `local` leaves out: the examples' hand-computed expected
# seeds and the equals_expected tests that compare with them (20 of each, 15% of a cluster
# build's node time). test_examples compares the same tables with the same CSV files, and
# test_targets_agree proves them identical to the local target's, where those tests run.
BEYOND_LOCAL_EXCLUDE = ["--exclude", "path:seeds/expected+"]


@pytest.fixture(scope="session")
def warehouse(dbt_target) -> Warehouse:
    """Builds every seed, model and data test once (on a target other than `local`, all but
    BEYOND_LOCAL_EXCLUDE), then hands out the Spark session."""
    configure_environment(PROJECT_DIR / ".spark_state" / f"tests-{dbt_target}", dbt_target)
    # test_validate_sql reads target/compiled: only what this build compiles belongs there
    shutil.rmtree(TARGET_DIR / "compiled", ignore_errors=True)
    # --full-refresh: incremental models start again, whatever an earlier session left
    excluded = [] if dbt_target in EMBEDDED_TARGETS else BEYOND_LOCAL_EXCLUDE
    run_dbt(["build", "--target", dbt_target, "--full-refresh", *excluded])
    return open_warehouse(dbt_target, os.environ.get("SPARK_WINDOWS_SCHEMA", "spark_windows"))


@pytest.fixture(scope="session")
def spark(warehouse, dbt_target):
    """The in-process SparkSession, for tests that run rendered macro SQL directly."""
    if warehouse.spark is None:
        pytest.skip(f"needs the in-process Spark of the local target, not {dbt_target!r}")
    return warehouse.spark


@pytest.fixture(scope="session")
def incremental_replay(request, dbt_target, tmp_path_factory) -> Replay:
    """The arrivals replayed through the five incremental example models, one dbt run per
    cut-off for all five (support/incremental_replay.py): on the `local` target in driver
    processes of their own, four of them killed at random points of a run; on other targets in
    this process, on the warehouse. The sensor, session and crash tests each check it."""
    if dbt_target in EMBEDDED_TARGETS:
        return replay_with_kills(tmp_path_factory.mktemp("replay"), crash_seed(), dbt_target)
    warehouse = request.getfixturevalue("warehouse")
    return replay(warehouse.rows, os.environ.get("SPARK_WINDOWS_SCHEMA", "spark_windows"))
