"""`dbt build` of the examples, then `dbt show` of a few windows, in one process (one JVM)."""

from __future__ import annotations

import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR / "tests"))

from dbt_harness import run_dbt  # noqa: E402

SHOWN = ["sensor_vehicles_sliding", "user_sessions", "top_suppliers_per_window"]


def main() -> int:
    # the embedded Spark, whatever SPARK_WINDOWS_TARGET says
    local = ["--target", "local"]
    run_dbt(["build", *local, "--select", "path:seeds/examples", "path:seeds/expected", "path:models/examples"])
    for model in SHOWN:
        run_dbt(["show", *local, "--select", model, "--limit", "10"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
