"""Slow test for the `cluster` target: the Thrift server stops in the middle of a dbt run.

dbt must fail with an error that says the connection was lost; after `scripts/cluster.sh
start`, the next run succeeds and its results are right again.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from compare import assert_same_rows, read_csv

from dev.dbt_harness import run_dbt
from dev.project import PROJECT_DIR

pytestmark = pytest.mark.slow

RUN_DIR = PROJECT_DIR / ".spark_state" / "cluster" / "run"
DBT = str(Path(sys.executable).with_name("dbt"))


def wait_for_line(log: Path, text: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if log.exists() and text in log.read_text(errors="replace"):
            return True
        time.sleep(0.5)
    return False


def test_thrift_server_stopped_mid_run_fails_clearly_and_the_next_run_recovers(request, dbt_target, tmp_path):
    if dbt_target != "cluster" or not (RUN_DIR / "thrift.pid").exists():
        pytest.skip("runs on the cluster target of scripts/cluster.sh only (it stops that Thrift server)")
    warehouse = request.getfixturevalue("warehouse")
    port = os.environ.get("SPARK_WINDOWS_THRIFT_PORT", "10000")
    log = tmp_path / "dbt.log"
    with log.open("w") as output:
        run = subprocess.Popen(
            [DBT, "run", "--target", "cluster", "--select", "flink_reference", "--project-dir", str(PROJECT_DIR)],
            cwd=PROJECT_DIR,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=os.environ.copy(),
        )
        try:
            assert wait_for_line(log, "START sql table model", 120), log.read_text()
            thrift_pid = int((RUN_DIR / "thrift.pid").read_text())
            os.kill(thrift_pid, signal.SIGTERM)  # the Thrift server goes away mid-run
            returncode = run.wait(timeout=600)
        finally:
            if run.poll() is None:
                run.kill()
    text = log.read_text(errors="replace")
    assert returncode != 0, text
    # the models after the one that was running cannot connect, and dbt says to where
    assert f"Could not connect to any of [('127.0.0.1', {port})]" in text, text[-3000:]

    started = subprocess.run(
        ["bash", str(PROJECT_DIR / "scripts" / "cluster.sh"), "start"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert started.returncode == 0, started.stdout + started.stderr

    run_dbt(["run", "--target", "cluster", "--select", "flink_reference"])
    reference = PROJECT_DIR / "seeds" / "flink_reference" / "expected"
    cases = sorted(path.stem for path in reference.glob("*.csv"))
    assert len(cases) == 6
    for model in [f"{prefix}{case}" for prefix in ("flink__", "flink_wa__") for case in cases]:
        columns, rows = warehouse.table_as_text(model)
        expected_columns, expected_rows = read_csv(reference / f"{model.split('__', 1)[1]}.csv")
        assert_same_rows(columns, rows, expected_columns, expected_rows, f"{model} after restart")
