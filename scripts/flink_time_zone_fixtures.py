"""Writes tests/fixtures/flink_time_zones/: events whose days cross both daylight-saving changes
of America/New_York and Europe/Berlin, and Apache Flink 2.3's results of TUMBLE, HOP and CUMULATE
windows over them, computed on a TIMESTAMP_LTZ time attribute with `table.local-time-zone` set to
each zone (and to UTC, for hops whose size is no whole multiple of the slide, and hops whose slide
is longer than the size).

    bash scripts/flink_env.sh
    .venv-flink/bin/python scripts/flink_time_zone_fixtures.py

Flink runs in batch mode (the results of a bounded input; streaming mode fires the same windows).
Each result row is (case, k, window_start, window_end, window_time_end_s, n, total): window_start
and window_end as Flink gives them, TIMESTAMP(3) wall-clock values in the session zone, as text;
window_time, a TIMESTAMP_LTZ instant, as the seconds since 1970-01-01 UTC of window_time + 1 ms
(the instant the window ends). The tests compare the macros' windows with these rows.
"""

from __future__ import annotations

import csv
import datetime
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
OUT = PROJECT_DIR / "tests" / "fixtures" / "flink_time_zones"

# three days around each change (2024: New York on March 10 and November 3, Berlin on March 31
# and October 27), an event every 47 minutes, keys a and b in turn, values 1 to 9
SPANS = [
    ("2024-03-09", "2024-03-12"),
    ("2024-03-30", "2024-04-02"),
    ("2024-10-26", "2024-10-29"),
    ("2024-11-02", "2024-11-05"),
]
STEP_S = 47 * 60

CASES = {
    # name: (zones, window table function call over the events)
    "tumble_1d": (["America/New_York", "Europe/Berlin"], "TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' DAY)"),
    "tumble_6h_offset_1h": (
        ["America/New_York", "Europe/Berlin"],
        "TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '6' HOUR, INTERVAL '1' HOUR)",
    ),
    "hop_12h_1d": (
        ["America/New_York", "Europe/Berlin"],
        "HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '12' HOUR, INTERVAL '1' DAY)",
    ),
    "cumulate_1h_1d": (
        ["America/New_York", "Europe/Berlin"],
        "CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' HOUR, INTERVAL '1' DAY)",
    ),
    "hop_7m_10m": (["UTC"], "HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '7' MINUTE, INTERVAL '10' MINUTE)"),
    "hop_2h_5h": (
        ["UTC", "America/New_York"],
        "HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' HOUR, INTERVAL '5' HOUR)",
    ),
    # a slide longer than the size: the rows between two windows belong to none
    "hop_2h_1h_gaps": (
        ["UTC", "Europe/Berlin"],
        "HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' HOUR, INTERVAL '1' HOUR)",
    ),
}


def events() -> list[tuple[str, int, int]]:
    """(k, epoch milliseconds, v)."""
    rows = []
    for first, last in SPANS:
        start = int(datetime.datetime.fromisoformat(first).replace(tzinfo=datetime.timezone.utc).timestamp())
        end = int(datetime.datetime.fromisoformat(last).replace(tzinfo=datetime.timezone.utc).timestamp())
        for i, second in enumerate(range(start, end, STEP_S)):
            rows.append(("ab"[i % 2], second * 1000 + (i % 7) * 111, 1 + i % 9))
    return rows


def main() -> None:
    from pyflink.table import EnvironmentSettings, TableEnvironment

    OUT.mkdir(parents=True, exist_ok=True)
    rows = events()
    with (OUT / "events.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["k", "ts_ms", "v"])
        writer.writerows(rows)

    results = []
    for case, (zones, call) in CASES.items():
        for zone in zones:
            env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
            env.get_config().set("table.local-time-zone", zone)
            env.get_config().set("parallelism.default", "1")
            env.execute_sql(
                f"""CREATE TABLE events (
                    k STRING, ts_ms BIGINT, v INT,
                    ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
                    WATERMARK FOR ts AS ts
                ) WITH ('connector' = 'filesystem', 'path' = '{OUT / "events.csv"}', 'format' = 'csv',
                        'csv.ignore-parse-errors' = 'true')"""
            )
            query = f"""
                SELECT k, CAST(window_start AS STRING), CAST(window_end AS STRING),
                       TIMESTAMPDIFF(SECOND, TO_TIMESTAMP_LTZ(0, 3), window_time + INTERVAL '0.001' SECOND),
                       COUNT(*), SUM(v)
                FROM TABLE({call})
                GROUP BY k, window_start, window_end, window_time
            """
            with env.execute_sql(query).collect() as collected:
                for row in collected:
                    results.append((case, zone, *row))
    results.sort(key=lambda r: tuple(str(x) for x in r))
    with (OUT / "flink_results.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["case", "time_zone", "k", "window_start", "window_end", "window_end_s", "n", "total"])
        writer.writerows(results)
    print(f"{len(rows)} events, {len(results)} result rows in {OUT}")


if __name__ == "__main__":
    main()
