"""`dbt build` of the examples (also the windowed_incremental ones, one first run each), then a
few of their windows, in one process (one JVM).

Each model is printed whole and sorted by window, then key, with timestamps to the
microsecond, as Spark holds them (in UTC).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # dev/, the development package

from dev.dbt_harness import SessionWarehouse, run_dbt  # noqa: E402

SCHEMA = os.environ.get("SPARK_WINDOWS_SCHEMA", "spark_windows")  # as profiles/profiles.yml
# model -> what it shows and the columns it is sorted by
SHOWN = {
    "sensor_vehicles_sliding": (
        "vehicles per sensor, 1-minute windows sliding every 30 seconds",
        ["window_start", "window_end", "sensor_id"],
    ),
    "user_sessions": (
        "sessions per user, closed after 10 minutes without a click",
        ["user_id", "window_start"],
    ),
    "sensor_vehicles_microbatch": (
        "vehicles per sensor, 15-minute windows every 5 minutes, built by dbt's microbatch (daily batches)",
        ["window_start", "sensor_id"],
    ),
    "top_suppliers_per_window": (
        "the 3 suppliers with the highest price sum per 5-second window",
        ["window_start", "window_end", "supplier_rank"],
    ),
}


def show(warehouse: SessionWarehouse, model: str, title: str, order_by: list[str]) -> None:
    types = warehouse.column_types(model)
    columns = [name for name, _ in types]
    selected = [
        f"date_format(`{name}`, 'yyyy-MM-dd HH:mm:ss.SSSSSS')"
        if data_type == "timestamp"
        else f"cast(`{name}` as string)"
        for name, data_type in types
    ]
    order = ", ".join(f"`{name}`" for name in order_by)
    rows = warehouse.rows(f"select {', '.join(selected)} from {SCHEMA}.{model} order by {order}")
    cells = [columns] + [["NULL" if value is None else value for value in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    print(f"\n{model}: {title} ({len(rows)} rows)")
    for index, row in enumerate(cells):
        print("  " + "  ".join(value.ljust(width) for value, width in zip(row, widths)).rstrip())
        if index == 0:
            print("  " + "  ".join("-" * width for width in widths))


def main() -> int:
    # the embedded Spark, whatever SPARK_WINDOWS_TARGET says
    run_dbt(
        [
            "build",
            "--target",
            "local",
            "--select",
            "path:seeds/examples",
            "path:seeds/expected",
            "path:models/examples",
            "path:models/incremental",
            "path:models/microbatch",
        ]
    )
    warehouse = SessionWarehouse(SCHEMA)
    for model, (title, order_by) in SHOWN.items():
        show(warehouse, model, title, order_by)
    return 0


if __name__ == "__main__":
    sys.exit(main())
