"""Slow test: through dbt itself (not the plain-Jinja renderer of the fast tests), a bad
argument stops compilation with the macro's message, and nothing runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dev.dbt_harness import run_dbt
from dev.project import PROJECT_DIR

pytestmark = pytest.mark.slow

BAD_CALLS = [
    (
        "select * from {{ spark_windows.cumulate(ref('orders'), 'order_ts', '7 minutes', '10 minutes') }}",
        "cumulate: size ('10 minutes') must be a whole multiple of step ('7 minutes')",
    ),
    (
        "select * from {{ spark_windows.tumble(ref('orders'), 'order_ts', '5 parsecs') }}",
        "tumble: size ('5 parsecs') is not a duration; expected a string '<integer> <unit>'",
    ),
    (
        "select * from {{ spark_windows.window_aggregate(ref('orders'), 'order_ts',"
        " {'type': 'slide', 'size': '1 minute'}, [], {'n': 'count(*)'}) }}",
        "window_aggregate: window ({'type': 'slide', 'size': '1 minute'}) must be a dict whose 'type' is tumble",
    ),
    (
        "select * from {{ spark_windows.hop(ref('orders'), 'order_ts', '1 hour', '10 minutes') }}",
        "The macro takes slide first, then size; for example slide '10 minutes' with size '1 hour' gives windows of '1 hour' every '10 minutes'",
    ),
    (
        "select * from {{ spark_windows.tumble(ref('orders'), 'order_ts', '99999999999999 days') }}",
        "tumble: size ('99999999999999 days') is longer than the whole range of Spark timestamps",
    ),
    (
        "select * from {{ spark_windows.session(ref('orders'), 'order_ts', '10 minutes', partition_by=['user_id; drop']) }}",
        "session: partition_by item ('user_id; drop') is not a column name",
    ),
    (
        "select * from {{ spark_windows.tumble(ref('orders'), 'order_tz', '1 minute') }}",
        "; expected one of its columns: order_id, customer_id, order_ts, amount",
    ),
    (
        "with per_minute as (select * from {{ spark_windows.tumble(ref('orders'), 'order_ts', '1 minute') }})"
        " select * from {{ spark_windows.tumble('per_minute', 'window_time', '5 minutes') }}",
        "tumble: time_col ('window_time') is a window column of the input per_minute",
    ),
    (
        # a per-row gap written as an expression: Spark gives its type while dbt compiles
        "select * from {{ spark_windows.session(ref('orders'), 'order_ts', 'cast(amount as int) * 60', ['customer_id']) }}",
        "session: gap ('cast(amount as int) * 60') is an expression of type int in ",
    ),
]


@pytest.mark.parametrize("sql, message", BAD_CALLS)
def test_dbt_compile_stops_with_the_macros_message(warehouse, dbt_target, sql, message):
    logged = []  # what dbt shows the user: the messages of its events
    callbacks = [lambda event: logged.append(event.info.msg)]
    result = run_dbt(["compile", "--target", dbt_target, "--inline", sql], expect_pass=False, callbacks=callbacks)
    shown = "\n".join([str(result.exception), *map(str, logged)])
    assert message in shown, shown[-3000:]


# --- a bad argument fails only the models that hold it ---------------------------------------

TYPO_PROJECT = """
name: spark_windows
version: "0.1.0"
config-version: 2
profile: spark_windows
model-paths: ["models"]
macro-paths: ["macros"]
models:
  spark_windows:
    +materialized: view
"""


def dbt_in(project_dir: Path, *args: str) -> subprocess.CompletedProcess:
    """dbt in its own process, on a private state folder: nothing of the test session's dbt or
    Spark is touched, and `project_dir` (a pytest temporary folder) holds all it writes."""
    env = {
        **os.environ,
        "DBT_PROFILES_DIR": str(PROJECT_DIR / "profiles"),
        "SPARK_WINDOWS_STATE_DIR": str(project_dir / "state"),
        "SPARK_WINDOWS_TARGET": "local",
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    dbt = Path(sys.executable).parent / "dbt"
    return subprocess.run(
        [str(dbt), *args, "--project-dir", str(project_dir)],
        cwd=project_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_bad_argument_fails_its_own_model_and_not_the_parsing_of_the_project(tmp_path):
    # a throwaway project named spark_windows over this project's macros, with one good model
    # and one whose call has a typo in a duration
    (tmp_path / "dbt_project.yml").write_text(TYPO_PROJECT)
    (tmp_path / "macros").symlink_to(PROJECT_DIR / "macros", target_is_directory=True)
    models = tmp_path / "models"
    models.mkdir()
    (models / "good_model.sql").write_text("select timestamp'2024-05-01 08:00:00' as ts")
    (models / "typo_model.sql").write_text(
        "select * from {{ spark_windows.tumble(ref('good_model'), 'ts', '5 minuts') }}"
    )

    parsed = dbt_in(tmp_path, "parse")
    assert parsed.returncode == 0, parsed.stdout[-3000:]
    listed = dbt_in(tmp_path, "ls", "--select", "good_model")
    assert listed.returncode == 0 and "spark_windows.good_model" in listed.stdout, listed.stdout[-3000:]

    # compiling the model with the typo fails with the macro's message, before any query runs
    compiled = dbt_in(tmp_path, "compile", "--select", "typo_model", "--no-populate-cache")
    assert compiled.returncode != 0
    assert "tumble: size ('5 minuts') is not a duration; expected a string '<integer> <unit>'" in compiled.stdout
    assert not (tmp_path / "state").exists(), "compiling the typo must not have started Spark"
