"""Draws a built windowed model and its source as a PNG timeline, like Flink's window figures.

    python scripts/plot_windows.py --model sensor_vehicles_sliding --source sensor_readings \
        --time-col reading_ts --key sensor_id --out docs/img/sensor_vehicles_sliding.png

One lane per key: the source's events are dots, the model's windows are bars from window_start
to window_end. Overlapping windows (sliding) are stacked in rows inside the lane; sessions and
tumbling windows sit in one row. It reads the tables dbt built on the local target (the
metastore in --state-dir, by default the one scripts/demo.sh uses) and computes nothing itself.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from collections import defaultdict
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
WIDTH_PX, HEIGHT_PX, DPI = 1200, 600, 100


def stack(windows: list[tuple[dt.datetime, dt.datetime]]) -> list[int]:
    """The row of each window inside its lane: the first row whose last window has ended."""
    row_ends: list[dt.datetime] = []
    rows = []
    for start, end in windows:
        for index, row_end in enumerate(row_ends):
            if row_end <= start:
                row_ends[index] = end
                rows.append(index)
                break
        else:
            row_ends.append(end)
            rows.append(len(row_ends) - 1)
    return rows


def draw(events, windows, out: Path, title: str) -> Path:
    """events: [(key, time)]; windows: [(key, start, end)]. Writes a WIDTH_PX x HEIGHT_PX PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.dates as mdates
    import matplotlib.pyplot as plt

    keys = sorted({key for key, _ in events} | {key for key, _, _ in windows}, key=str)
    by_key = defaultdict(list)
    for key, start, end in sorted(windows, key=lambda w: (str(w[0]), w[1], w[2])):
        by_key[key].append((start, end))
    figure, axes = plt.subplots(figsize=(WIDTH_PX / DPI, HEIGHT_PX / DPI), dpi=DPI)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for lane, key in enumerate(keys):
        lane_windows = by_key[key]
        rows = stack(lane_windows)
        depth = max(rows, default=0) + 1
        for (start, end), row in zip(lane_windows, rows):
            height = 0.6 / depth
            bottom = lane - 0.35 + row * height
            axes.broken_barh(
                [(mdates.date2num(start), mdates.date2num(end) - mdates.date2num(start))],
                (bottom, height * 0.85),
                facecolors=colors[lane % len(colors)],
                alpha=0.35,
                edgecolor=colors[lane % len(colors)],
            )
        times = [time for event_key, time in events if event_key == key]
        axes.plot(times, [lane + 0.35] * len(times), "o", color="black", markersize=4)
    axes.set_yticks(range(len(keys)), [str(key) for key in keys])
    axes.set_ylim(-0.6, len(keys) - 0.4)
    axes.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M:%S"))
    axes.set_xlabel("event time (UTC)")
    axes.set_title(title)
    axes.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=DPI)
    plt.close(figure)
    return out


def read_tables(args):
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.warehouse.dir", str(args.state_dir / "warehouse"))
        .config(
            "spark.hadoop.javax.jdo.option.ConnectionURL",
            f"jdbc:derby:;databaseName={args.state_dir / 'metastore_db'};create=true",
        )
        .enableHiveSupport()
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    key = f"`{args.key}`" if args.key else "'all'"
    micros = "unix_micros({})"
    events = spark.sql(
        f"select {key}, {micros.format(f'`{args.time_col}`')} from {args.schema}.{args.source} "
        f"where `{args.time_col}` is not null"
    ).collect()
    windows = spark.sql(
        f"select distinct {key}, {micros.format('window_start')}, {micros.format('window_end')} "
        f"from {args.schema}.{args.model}"
    ).collect()

    def stamp(value):
        return dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=value)

    return (
        [(k, stamp(t)) for k, t in events],
        [(k, stamp(s), stamp(e)) for k, s, e in windows],
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a built model with window_start and window_end")
    parser.add_argument("--source", required=True, help="the table of its events")
    parser.add_argument("--time-col", required=True)
    parser.add_argument("--key", help="the column that makes the lanes (default: one lane)")
    parser.add_argument("--schema", default=os.environ.get("SPARK_WINDOWS_SCHEMA", "spark_windows"))
    parser.add_argument("--state-dir", type=Path, default=PROJECT_DIR / ".spark_state" / "demo")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    events, windows = read_tables(args)
    if not windows:
        parser.error(f"{args.schema}.{args.model} has no windows")
    print(draw(events, windows, args.out, f"{args.model} (windows) over {args.source} (events)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
