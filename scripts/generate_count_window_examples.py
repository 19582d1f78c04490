"""Writes the seeds of the count_window examples, and their expected results, in plain Python.

    python scripts/generate_count_window_examples.py

Run once by hand; the CSVs it writes are committed. The expected results are computed here from
the input rows directly (sort each sensor's readings by time, cut them into hundreds, or take
the last 100 every 10), never by running the project's SQL, so the example models are checked
against an independent computation.

seeds/examples/sensor_readings_counted.csv: two sensors, 250 readings each, in time order of
both sensors together. s1 reads every 15 seconds from 08:00:00 with car_count (i^2 + i div 25) mod 9;
s2 every 12 seconds from 08:00:05 with car_count 3i mod 8, missing (NULL) when i mod 50 = 49.
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
START = dt.datetime(2024, 5, 1, 8, 0, 0)


def readings():
    rows = []
    for i in range(250):
        rows.append(("s1", START + dt.timedelta(seconds=15 * i), (i * i + i // 25) % 9))
        rows.append(("s2", START + dt.timedelta(seconds=5 + 12 * i), None if i % 50 == 49 else (3 * i) % 8))
    return sorted(rows, key=lambda row: (row[1], row[0]))


def stamp(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S")


def window_row(sensor, index, first, last, members):
    counts = [count for _, _, count in members]
    present = [count for count in counts if count is not None]
    return [
        sensor,
        index,
        first,
        last,
        stamp(min(ts for _, ts, _ in members)),
        stamp(max(ts for _, ts, _ in members)),
        len(members),
        sum(present) if present else "",
    ]


def windows(rows, size, slide):
    """Window i ends at reading (i + 1) * slide of its sensor and holds the last `size` readings."""
    out = []
    for sensor in sorted({row[0] for row in rows}):
        ordered = sorted((row for row in rows if row[0] == sensor), key=lambda row: row[1])
        for index, last in enumerate(range(slide, len(ordered) + 1, slide)):
            first = max(1, last - size + 1)
            out.append(window_row(sensor, index, first, last, ordered[first - 1 : last]))
    return out


def write(path: Path, header, rows):
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    print(f"wrote {path.relative_to(PROJECT_DIR)} ({len(rows)} rows)")


def main():
    rows = readings()
    write(
        PROJECT_DIR / "seeds" / "examples" / "sensor_readings_counted.csv",
        ["sensor_id", "reading_ts", "car_count"],
        [(sensor, stamp(ts), "" if count is None else count) for sensor, ts, count in rows],
    )
    header = [
        "sensor_id",
        "window_index",
        "window_first_row",
        "window_last_row",
        "first_reading_ts",
        "last_reading_ts",
        "readings",
        "vehicles",
    ]
    expected = PROJECT_DIR / "seeds" / "expected"
    write(expected / "expected__sensor_vehicles_per_100_readings.csv", header, windows(rows, 100, 100))
    write(expected / "expected__sensor_vehicles_last_100_every_10.csv", header, windows(rows, 100, 10))


if __name__ == "__main__":
    main()
