"""Benchmark of window_aggregate against the row-copy plans, on one local Spark session.

    python scripts/bench.py                         # 5,000,000 events, 1,000 keys, one day
    python scripts/bench.py --events 5000000 10000000 --cases wa_tumble_1m wa_hop_1h_1m
    python scripts/bench.py --driver-memory 2g --events 20000000 --runs 1
    python scripts/bench.py --incremental --events 10000000 --days 10
    python scripts/bench.py --incremental --session --events 10000000 --days 10

Generates the events once per size (Parquet, in .spark_state/bench), then times each case
several times, interleaved, and prints the median of each and its ratio to window_aggregate's
1-minute tumble; with several sizes, also how each case grows from the first size. A case runs
its whole query and writes to Spark's `noop` sink, so every window is computed and nothing is
collected. The SQL comes from the project's macros.

With --incremental: the windowed_incremental model models/bench/bench_vehicles_incremental.sql
(tumbling 1 minute) through dbt in this process; times `dbt run --full-refresh` over the history
of N events, then runs that each find 1% new rows (the events that follow, in arrival order,
with their ingestion times), and prints the medians (the model's execution time as dbt reports
it, and the whole dbt invocation) and their ratio. With --session as well, the session model
models/bench/bench_sessions_incremental.sql (gap 2 minutes) over events whose keys are drawn at
random, so each key's events arrive as a random stream (about 4 events a session).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR / "tests"))

from macro_renderer import MacroRenderer  # noqa: E402

AGGREGATES = {"readings": "count(*)", "vehicles": "sum(v)"}
HOP = {"type": "hop", "slide": "1 minute", "size": "1 hour"}


def cases(renderer: MacroRenderer, view: str) -> dict[str, str]:
    def wa(window):
        return "select * from " + renderer.call("window_aggregate", view, "ts", window, ["k"], AGGREGATES)

    tvf_hop = renderer.call("hop", view, "ts", HOP["slide"], HOP["size"])
    return {
        "wa_tumble_1m": wa({"type": "tumble", "size": "1 minute"}),
        "wa_hop_1h_1m": wa(HOP),
        "wa_cumulate_1h_1m": wa({"type": "cumulate", "step": "1 minute", "size": "1 hour"}),
        "native_window_hop_1h_1m": (
            "select k, window.start as window_start, window.end as window_end, "
            f"count(*) as readings, sum(v) as vehicles from {view} "
            "group by k, window(ts, '1 hour', '1 minute')"
        ),
        "tvf_hop_1h_1m_group_by": (
            f"select k, window_start, window_end, count(*) as readings, sum(v) as vehicles "
            f"from {tvf_hop} group by k, window_start, window_end"
        ),
    }


def spark_session(args):
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master(f"local[{args.cores}]")
        .appName("spark_windows bench")
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.sql.shuffle.partitions", str(args.shuffle_partitions))
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.warehouse.dir", str(args.state_dir / "warehouse"))
        .getOrCreate()
    )


def generate(spark, args, events: int) -> str:
    """N events over `days` days from 2024-01-01 UTC, keys uniform, v in 0..99 with 1% NULL."""
    path = args.state_dir / f"events_{events}_{args.keys}_{args.days}.parquet"
    if not path.exists():
        span_us = args.days * 86_400_000_000
        start_us = 1_704_067_200_000_000
        spark.range(events, numPartitions=max(2, events // 1_000_000)).selectExpr(
            f"cast(id % {args.keys} as string) as k",
            f"timestamp_micros({start_us} + cast(rand(7) * {span_us} as bigint)) as ts",
            "case when rand(11) < 0.01 then null else cast(rand(13) * 100 as int) end as v",
        ).write.parquet(str(path))
    view = f"bench_events_{events}"
    spark.read.parquet(str(path)).createOrReplaceTempView(view)
    return view


def report(args, events, names, timings, medians) -> None:
    base = medians.get("wa_tumble_1m")
    print(
        f"\n{events:,} events, {args.keys:,} keys, {args.days} day(s); local[{args.cores}], "
        f"{args.shuffle_partitions} shuffle partitions, driver memory {args.driver_memory}; "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cpus; "
        f"median of {args.runs} runs after one warm-up"
    )
    print("| case | median s | runs s | x wa_tumble_1m |\n|---|---:|---|---:|")
    for name in names:
        ratio = f"{medians[name] / base:.2f}" if base else "-"
        runs = ", ".join(f"{value:.2f}" for value in timings[name])
        print(f"| {name} | {medians[name]:.2f} | {runs} | {ratio} |")
    if "native_window_hop_1h_1m" in medians and "wa_hop_1h_1m" in medians:
        speedup = medians["native_window_hop_1h_1m"] / medians["wa_hop_1h_1m"]
        print(f"\nwa_hop_1h_1m is {speedup:.1f}x faster than Spark's window() for the same hop")
    sys.stdout.flush()


def time_query(spark, sql: str) -> float:
    started = time.perf_counter()
    spark.sql(sql).write.format("noop").mode("overwrite").save()
    return time.perf_counter() - started


def incremental(args) -> int:
    """Full refresh of the incremental bench model against runs that add 1% new rows."""
    state_dir = args.state_dir / "incremental"
    if state_dir.exists():
        shutil.rmtree(state_dir)
    from dbt_harness import configure_environment, run_dbt

    configure_environment(state_dir, "local")
    os.environ["SPARK_WINDOWS_DRIVER_MEMORY"] = args.driver_memory
    variables = '{"spark_windows_bench": true, "spark_windows_bench_source": "spark_windows.bench_events"}'
    model = "bench_sessions_incremental" if args.session else "bench_vehicles_incremental"
    command = ["run", "--select", model, "--vars", variables]
    run_dbt(["seed", "--select", "sensor_readings_arrivals"])  # opens the session and the schema

    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    events, span_us, start_us = args.events[0], args.days * 86_400_000_000, 1_704_067_200_000_000
    batch = events // 100

    def rows(first: int, count: int):
        """Events first .. first+count-1 of one stream whose event times grow with the id;
        each arrives 0-120 s after it happened."""
        step = span_us // events
        return (
            spark.range(first, first + count, numPartitions=max(1, count // 1_000_000))
            .selectExpr(
                f"cast({'cast(rand(5) * ' + str(args.keys) + ' as int)' if args.session else 'id % ' + str(args.keys)} as string) as k",
                f"timestamp_micros({start_us} + id * {step} + cast(rand(7) * {step} as bigint)) as ts",
                "case when rand(11) < 0.01 then null else cast(rand(13) * 100 as int) end as v",
            )
            .selectExpr("*", "ts + make_dt_interval(0, 0, 0, rand(17) * 120) as ingested_at")
        )

    # an event table loaded in batches: files of about 100,000 rows in arrival order, whose
    # Parquet statistics let a run skip the files that hold no new rows
    history = rows(0, events).repartitionByRange(max(1, events // 100_000), "ingested_at")
    history.sortWithinPartitions("ingested_at").write.format("parquet").saveAsTable("spark_windows.bench_events")

    def timed(extra):
        started = time.perf_counter()
        result = run_dbt(command + extra)
        return result.result.results[0].execution_time, time.perf_counter() - started

    timed(["--full-refresh"])  # warm-up
    full = [timed(["--full-refresh"]) for _ in range(args.runs)]
    increments = []
    for run in range(args.runs):
        rows(events + run * batch, batch).coalesce(1).sortWithinPartitions("ingested_at").write.insertInto(
            "spark_windows.bench_events"
        )
        increments.append(timed([]))
    windows = spark.sql(f"select count(*) from spark_windows.{model}").collect()[0][0]
    spark.stop()

    def median(values, index):
        return statistics.median(value[index] for value in values)

    print(
        f"\nwindowed_incremental, {'session gap 2 minutes' if args.session else 'tumble 1 minute'}: "
        f"{events:,} events of history, {args.keys:,} keys, "
        f"{args.days} day(s), {batch:,} new rows per incremental run ({windows:,} windows at the end); "
        f"local[2], driver memory {args.driver_memory}; median of {args.runs} runs after one warm-up"
    )
    print("| run | model s (median) | runs | dbt invocation s (median) |\n|---|---:|---|---:|")
    for name, values in (("full refresh", full), ("1% new rows", increments)):
        runs = ", ".join(f"{value[0]:.2f}" for value in values)
        print(f"| {name} | {median(values, 0):.2f} | {runs} | {median(values, 1):.2f} |")
    print(
        f"\nan incremental run costs {median(increments, 0) / median(full, 0):.1%} of a full refresh "
        f"(model time; {median(increments, 1) / median(full, 1):.1%} with dbt's start-up)"
    )
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, nargs="+", default=[5_000_000], help="one or more sizes")
    parser.add_argument("--keys", type=int, default=1_000)
    parser.add_argument("--days", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3, help="timed runs per case (median)")
    parser.add_argument("--cases", nargs="*", help="only these cases")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--shuffle-partitions", type=int, default=8)
    parser.add_argument("--driver-memory", default="4g")
    parser.add_argument("--state-dir", type=Path, default=PROJECT_DIR / ".spark_state" / "bench")
    parser.add_argument("--clean", action="store_true", help="regenerate the events")
    parser.add_argument(
        "--incremental", action="store_true", help="time the windowed_incremental model (first --events size)"
    )
    parser.add_argument("--session", action="store_true", help="with --incremental: the session model")
    args = parser.parse_args(argv)
    if args.incremental:
        args.state_dir.mkdir(parents=True, exist_ok=True)
        return incremental(args)
    if args.clean and args.state_dir.exists():
        shutil.rmtree(args.state_dir)
    args.state_dir.mkdir(parents=True, exist_ok=True)

    renderer = MacroRenderer()
    names = args.cases or list(cases(renderer, "v"))
    unknown = sorted(set(names) - set(cases(renderer, "v")))
    if unknown:
        parser.error(f"unknown cases {unknown}; known: {sorted(cases(renderer, 'v'))}")

    spark = spark_session(args)
    spark.sparkContext.setLogLevel("ERROR")
    medians_by_size = {}
    for events in args.events:
        queries = cases(renderer, generate(spark, args, events))
        for name in names:  # warm-up: JIT, file listing, code generation
            time_query(spark, queries[name])
        timings = {name: [] for name in names}
        for _ in range(args.runs):
            for name in names:
                timings[name].append(time_query(spark, queries[name]))
        medians = {name: statistics.median(values) for name, values in timings.items()}
        medians_by_size[events] = medians
        report(args, events, names, timings, medians)
    if len(args.events) > 1:
        first = args.events[0]
        print(f"\ngrowth from {first:,} events (median / median at {first:,})")
        print("| case | " + " | ".join(f"{n:,}" for n in args.events[1:]) + " |")
        print("|---|" + "---:|" * (len(args.events) - 1))
        for name in names:
            growth = [medians_by_size[n][name] / medians_by_size[first][name] for n in args.events[1:]]
            print(f"| {name} | " + " | ".join(f"{g:.2f}" for g in growth) + " |")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
