"""Builds integration_tests/consumer in a process of its own, as an analyst would, and writes
what tests/functional/test_consumer_project.py checks as JSON.

    python tests/support/consumer_driver.py --work-dir DIR --out FILE

The caller sets SPARK_STATE_DIR (where the consumer's profile keeps its Spark state), HOME and
DBT_PROFILES_DIR (the folder of the consumer's profiles.yml). Steps, in one Spark JVM:
`dbt deps`; `dbt ls` of every node; `dbt build --empty` (every model built empty, and the unit
tests, which need the tables' columns); `dbt build` (the unit tests again, and the data); the
tables read back; then a copy of the project in DIR without its `dispatch:` block (no opt-in to
spark_windows' seed loader) seeds `arrivals` again, read back too. Each build is recorded under
"builds" (whether it passed, what failed, the status of each unit test it ran). Exits 1, naming
the step, when a dbt command other than `dbt build --empty` fails; that one is only recorded, so
the tests can say what failed in it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
from pathlib import Path

from dbt.cli.main import dbtRunner

# run as a script: dev/, the development package, is in the repository root
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from dev.dbt_harness import DbtFailed, SessionWarehouse, run_dbt  # noqa: E402
from dev.project import PROJECT_DIR  # noqa: E402

CONSUMER = PROJECT_DIR / "integration_tests" / "consumer"
SCHEMA = "analytics"  # the schema of the consumer's profile
TABLES = ["consumer_tumbling", "consumer_sliding", "consumer_sessions", "consumer_window_aggregate", "arrivals"]


def build(*flags: str) -> dict:
    """Runs `dbt build` with `flags` in the consumer project and says how it went, whether it
    passed or not (dbt_harness.run_dbt raises on a failure and keeps no result): `passed`, the
    message of each node that did not pass, and the status of each unit test that ran."""
    here = os.getcwd()
    os.chdir(CONSUMER)
    try:
        result = dbtRunner().invoke(["build", *flags, "--project-dir", str(CONSUMER)])
    finally:
        os.chdir(here)
    rows = getattr(result.result, "results", None) or []
    return {
        "passed": result.success,
        "error": None if result.exception is None else str(result.exception),
        "failures": {row.node.unique_id: row.message for row in rows if str(row.status) not in ("success", "pass")},
        "unit_tests": {row.node.unique_id: str(row.status) for row in rows if row.node.resource_type == "unit_test"},
    }


def without_dispatch(work_dir: Path) -> Path:
    """A copy of the consumer project with no `dispatch:` block, installing spark_windows from here."""
    copy = work_dir / "consumer_without_dispatch"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(CONSUMER, copy, ignore=shutil.ignore_patterns("target", "dbt_packages", "logs"))
    project = (copy / "dbt_project.yml").read_text()
    stripped = re.sub(r"\ndispatch:\n(?:[ -].*\n)+", "\n", project)
    if stripped == project:
        raise SystemExit("consumer_driver: no `dispatch:` block found in the consumer's dbt_project.yml")
    (copy / "dbt_project.yml").write_text(stripped)
    (copy / "packages.yml").write_text(f"packages:\n  - local: {PROJECT_DIR}\n")
    return copy


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--work-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    out: dict = {}
    try:
        run_dbt(["deps"], project_dir=CONSUMER)
        listed = run_dbt(["ls", "--output", "json"], project_dir=CONSUMER).result
        out["ls"] = [json.loads(line) for line in listed]
        out["builds"] = {"build --empty": build("--empty")}
        out["builds"]["build"] = built = build()
        if not built["passed"]:
            raise DbtFailed(f"dbt build failed: {built['error'] or built['failures']}")
        warehouse = SessionWarehouse(SCHEMA)
        out["tables"] = {table: warehouse.table_as_text(table) for table in TABLES}

        plain = without_dispatch(args.work_dir)
        run_dbt(["deps"], project_dir=plain)
        run_dbt(["seed", "--select", "arrivals"], project_dir=plain)
        out["arrivals_without_dispatch"] = warehouse.table_as_text("arrivals")
    except DbtFailed as failure:
        print(f"consumer_driver: {failure}", file=sys.stderr)
        return 1
    args.out.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
