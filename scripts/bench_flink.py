"""The cases of scripts/bench.py that Apache Flink expresses with the same semantics, timed in
Flink 2.3 (PyFlink, a local mini-cluster, parallelism 2), in batch and in streaming mode, over
the same generated events (the CSV copies `scripts/bench.py --csv` writes of them).

    bash scripts/flink_env.sh                                      # .venv-flink: apache-flink
    .venv/bin/python scripts/bench.py --csv --events 5000000        # the CSV copies (Spark)
    .venv-flink/bin/python scripts/bench_flink.py --events 5000000 --runs 3
    .venv-flink/bin/python scripts/bench_flink.py --events 100000 --runs 1 --mode batch --cases wa_tumble_1m

Each case is one Flink SQL query (window table-valued functions TUMBLE, HOP, CUMULATE and
SESSION, grouped by window_start and window_end as Flink's window aggregation; the NEXMark-shaped
queries as bench.py's, with window joins) whose result is written, through
`CREATE TABLE ... AS SELECT`, to the `blackhole` connector (Flink's counterpart of Spark's
`noop`: every row is computed, nothing is kept) and to the `filesystem` connector as CSV (a
table on disk, as a dbt table model writes one). One warm-up run per case, mode and sink, then
--runs timed runs, interleaved; the report gives the median of the wall time (planning, the
job's own mini-cluster and the job) and, in brackets, the median of the job's run time as
Flink reports it (JobExecutionResult.getNetRuntime).

The sources are the `filesystem` connector reading the CSV copies (the PyFlink package ships
the csv and json formats, not Parquet, and nothing else can be fetched). Each source declares
`WATERMARK FOR <event time> AS <event time> - INTERVAL '0.001' SECOND`, which batch mode
ignores: in streaming mode the copies, one file per table sorted by event time, leave no row
late, so the results are those of batch mode; windows fire as the watermark passes their end,
the rest at the end of the input. The millisecond keeps the rows of one millisecond together:
with no delay, a window ending at the next millisecond fired on the first of them, and a
second, in the last millisecond of the window, came late and was dropped. Session windows run
in streaming mode only: Flink 2.3 has none in batch mode. The event time is TIMESTAMP(3), Flink's precision for a time attribute (the data
have microseconds: no tumble, hop or cumulate window changes, and a session only where a gap is
within a millisecond of the session gap).

Writes the results as JSON and as a markdown table to --out (events_<N>.json and .md), and
leaves the filesystem sink's output of the last run of each case in --out/output/, which
scripts/check_flink.py compares with Spark's results of the same cases.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent

# the CSV copies' columns (scripts/bench.py: generate and generate_nexmark), and the event time
TABLES = {
    "events": ("k STRING, ts TIMESTAMP(3), v INT, u INT", "ts"),
    "person": (
        "id BIGINT, name STRING, email_address STRING, city STRING, state STRING, date_time TIMESTAMP(3)",
        "date_time",
    ),
    "auction": (
        "id BIGINT, item_name STRING, initial_bid BIGINT, reserve BIGINT, date_time TIMESTAMP(3), "
        "expires TIMESTAMP(3), seller BIGINT, category INT",
        "date_time",
    ),
    "bid": (
        "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, date_time TIMESTAMP(3)",
        "date_time",
    ),
}

TUMBLE = "TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)"
HOP = "HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '1' HOUR)"
CUMULATE = "CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '1' HOUR)"
SESSION = "SESSION(TABLE events PARTITION BY k, DESCRIPTOR(ts), INTERVAL '10' MINUTE)"
AGGREGATES = "COUNT(*) AS readings, SUM(v) AS vehicles"
# avg over a double: Flink's AVG of an INT column is an INT (integer division), Spark's a double
ALL_MERGEABLE = AGGREGATES + ", AVG(CAST(v AS DOUBLE)) AS mean, MIN(v) AS lowest, MAX(v) AS highest"
DISTINCT = "COUNT(DISTINCT u) AS users"


def window_aggregate(tvf: str, aggregates: str) -> str:
    """Flink's window aggregation: the columns of bench.py's window_aggregate cases, without
    window_time."""
    return f"SELECT k, window_start, window_end, {aggregates} FROM TABLE({tvf}) GROUP BY k, window_start, window_end"


def bids(tvf: str) -> str:
    return f"{tvf}(TABLE bid, DESCRIPTOR(date_time), "


HOT = (
    "SELECT auction, window_start, window_end, COUNT(*) AS bids FROM TABLE("
    + bids("HOP")
    + "INTERVAL '2' SECOND, INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end"
)
BIDS_TUMBLED = "TABLE(" + bids("TUMBLE") + "INTERVAL '10' SECOND))"

# the cases of scripts/bench.py (same names), as Flink SQL; the same column names and order as
# Spark's results less window_time, so scripts/check_flink.py can compare them
CASES = {
    "wa_tumble_1m": window_aggregate(TUMBLE, AGGREGATES),
    "wa_hop_1h_1m": window_aggregate(HOP, AGGREGATES),
    "wa_cumulate_1h_1m": window_aggregate(CUMULATE, AGGREGATES),
    "wa_tumble_1m_all": window_aggregate(TUMBLE, ALL_MERGEABLE),
    "wa_hop_1h_1m_all": window_aggregate(HOP, ALL_MERGEABLE),
    "wa_cumulate_1h_1m_all": window_aggregate(CUMULATE, ALL_MERGEABLE),
    "wa_tumble_1m_distinct": window_aggregate(TUMBLE, DISTINCT),
    "wa_hop_1h_1m_distinct": window_aggregate(HOP, DISTINCT),
    "wa_cumulate_1h_1m_distinct": window_aggregate(CUMULATE, DISTINCT),
    "wa_session_10m": window_aggregate(SESSION, AGGREGATES),
    # q5 hot items: the auctions with the most bids per hopping window (a window join of two
    # window aggregations)
    "nexmark_q5_hot_items": (
        f"SELECT counts.auction, counts.window_start, counts.window_end, counts.bids FROM ({HOT}) AS counts "
        f"JOIN (SELECT window_start, window_end, MAX(bids) AS top_bids FROM ({HOT}) GROUP BY window_start, window_end) "
        "AS tops ON counts.window_start = tops.window_start AND counts.window_end = tops.window_end "
        "AND counts.bids = tops.top_bids"
    ),
    # q7 highest bid per tumbling window, with the bid itself
    "nexmark_q7_highest_bid": (
        f"SELECT b.auction, b.bidder, b.price, b.window_end FROM {BIDS_TUMBLED} AS b "
        f"JOIN (SELECT window_start, window_end, MAX(price) AS top_price FROM {BIDS_TUMBLED} "
        "GROUP BY window_start, window_end) AS h ON b.window_start = h.window_start "
        "AND b.window_end = h.window_end AND b.price = h.top_price"
    ),
    # q8 new users: people who opened auctions in the window they registered in (a window join)
    "nexmark_q8_new_users": (
        "SELECT p.id, p.name, p.window_start FROM (SELECT id, name, window_start, window_end FROM "
        "TABLE(TUMBLE(TABLE person, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) "
        "GROUP BY id, name, window_start, window_end) AS p "
        "JOIN (SELECT seller, window_start, window_end FROM "
        "TABLE(TUMBLE(TABLE auction, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) "
        "GROUP BY seller, window_start, window_end) AS a "
        "ON p.id = a.seller AND p.window_start = a.window_start AND p.window_end = a.window_end"
    ),
    # q11 user sessions: bids per bidder session, 10 seconds gap
    "nexmark_q11_user_sessions": (
        "SELECT bidder, window_start, window_end, COUNT(*) AS bids FROM "
        "TABLE(SESSION(TABLE bid PARTITION BY bidder, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) "
        "GROUP BY bidder, window_start, window_end"
    ),
}

# Flink 2.3 refuses session windows in batch mode, both the SESSION table-valued function
# ("Unaligned windows like session are not supported in batch mode yet") and the older
# GROUP BY SESSION(...) group window ("SessionGroupWindow ... is not supported right now")
STREAMING_ONLY = {"wa_session_10m", "nexmark_q11_user_sessions"}

# the cases of scripts/bench.py not run here, and why
NOT_RUN = {
    "native_window_hop_1h_1m": "Spark's window() plan of wa_hop_1h_1m: the same query in Flink",
    "tvf_hop_1h_1m_group_by": "the row-copy plan of wa_hop_1h_1m in Spark: the same query in Flink",
    "tvf_hop_1h_1m_distinct_group_by": "the row-copy plan of wa_hop_1h_1m_distinct: the same query in Flink",
    "native_session_window_10m": "Spark's session_window() plan of wa_session_10m: the same query in Flink",
    "wa_tumble_1m_approx_distinct": "an approximate count: Spark's and Flink's sketches give different estimates",
    "wa_hop_1h_1m_approx_distinct": "an approximate count: Spark's and Flink's sketches give different estimates",
    "wa_tumble_1m_percentile": "Spark's percentile_approx (a sketch) has no Flink aggregate with its result",
    "wa_hop_1h_1m_percentile": "Spark's percentile_approx (a sketch) has no Flink aggregate with its result",
}

MODES = ("batch", "streaming")
SINKS = ("blackhole", "filesystem")


def csv_dir(args, events: int) -> Path:
    """Where `scripts/bench.py --csv` writes its copies (bench.py's csv_dir)."""
    return args.state_dir / "csv" / f"events_{events}_{args.keys}_{args.days}"


def output_dir(args, events: int) -> Path:
    return args.out / "output" / f"events_{events}_{args.keys}_{args.days}"


def table_environment(args, mode: str):
    from pyflink.common import Configuration
    from pyflink.table import EnvironmentSettings, TableEnvironment

    config = Configuration()
    settings = {
        "parallelism.default": str(args.parallelism),
        "table.exec.resource.default-parallelism": str(args.parallelism),
        "table.local-time-zone": "UTC",
        **dict(option.split("=", 1) for option in args.conf),
    }
    for key, value in settings.items():
        config.set_string(key, value)
    builder = EnvironmentSettings.new_instance().with_configuration(config)
    builder = builder.in_batch_mode() if mode == "batch" else builder.in_streaming_mode()
    return TableEnvironment.create(builder.build()), settings


def register_sources(t_env, folder: Path) -> None:
    for table, (columns, time_col) in TABLES.items():
        t_env.execute_sql(
            f"CREATE TEMPORARY TABLE {table} ({columns}, "
            f"WATERMARK FOR {time_col} AS {time_col} - INTERVAL '0.001' SECOND) WITH ("
            f"'connector' = 'filesystem', 'path' = '{folder / table}', 'format' = 'csv', "
            "'csv.null-literal' = '')"  # Spark writes NULL as an empty field
        )


def run_case(t_env, name: str, sink: str, output: Path) -> tuple[float, float]:
    """One run: the case's result written to the sink; (wall seconds, job seconds)."""
    if sink == "filesystem":
        shutil.rmtree(output, ignore_errors=True)
        options = f"'connector' = 'filesystem', 'path' = '{output}', 'format' = 'csv'"
    else:
        options = "'connector' = 'blackhole'"
    started = time.perf_counter()
    result = t_env.execute_sql(f"CREATE TABLE sink_{name} WITH ({options}) AS {CASES[name]}")
    job = result.get_job_client().get_job_execution_result().result()
    wall = time.perf_counter() - started
    t_env.execute_sql(f"DROP TABLE sink_{name}")
    return wall, job.get_net_runtime() / 1000


def java_version() -> str:
    java = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else "java"
    output = subprocess.run([java, "-version"], capture_output=True, text=True).stderr
    return output.splitlines()[0] if output else "unknown"


def cell(entry: dict | None) -> str:
    if entry is None:
        return "-"
    return f"{entry['median_s']:.2f} ({entry['job_median_s']:.2f})"


def markdown(report: dict) -> str:
    columns = [(mode, sink) for mode in report["modes"] for sink in report["sinks"]]
    lines = [
        f"{report['events']:,} events, {report['keys']:,} keys, {report['days']} day(s); Flink "
        f"{report['flink']}, {report['java']}; parallelism {report['parallelism']}; "
        f"{report['machine']}; median of {report['runs']} run(s) after one warm-up, {report['date']}",
        "",
        "| case | " + " | ".join(f"{mode} {sink} s" for mode, sink in columns) + " |",
        "|---|" + "---:|" * len(columns),
    ]
    for name in report["cases"]:
        cells = [cell(report["results"][mode][sink].get(name)) for mode, sink in columns]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Each cell: median wall time of the query (planning, the job's mini-cluster, the job), "
        "in brackets the job's run time as Flink reports it; '-': not run in that mode.",
    ]
    return "\n".join(lines) + "\n"


def bench_size(args, events: int, names: list[str]) -> dict:
    import pyflink.version

    folder = csv_dir(args, events)
    if not (folder / "events").is_dir():
        sys.exit(
            f"bench_flink: no CSV copies of {events:,} events in {folder}; write them with "
            f".venv/bin/python scripts/bench.py --csv --events {events} --keys {args.keys} --days {args.days}"
        )
    results = {mode: {sink: {} for sink in args.sinks} for mode in args.modes}
    settings = {}
    for mode in args.modes:
        t_env, settings = table_environment(args, mode)
        register_sources(t_env, folder)
        runs = [
            (name, sink) for name in names for sink in args.sinks if mode == "streaming" or name not in STREAMING_ONLY
        ]
        for name, sink in runs:  # warm-up
            run_case(t_env, name, sink, output_dir(args, events) / mode / name)
        timings = {run: [] for run in runs}
        for _ in range(args.runs):
            for name, sink in runs:
                timings[(name, sink)].append(run_case(t_env, name, sink, output_dir(args, events) / mode / name))
        for (name, sink), values in timings.items():
            results[mode][sink][name] = {
                "median_s": statistics.median(wall for wall, _ in values),
                "job_median_s": statistics.median(job for _, job in values),
                "runs_s": [round(wall, 3) for wall, _ in values],
                "job_runs_s": [round(job, 3) for _, job in values],
            }
            print(f"{mode} {sink} {name}: {cell(results[mode][sink][name])}", flush=True)
    return {
        "events": events,
        "keys": args.keys,
        "days": args.days,
        "runs": args.runs,
        "flink": pyflink.version.__version__,
        "java": java_version(),
        "parallelism": args.parallelism,
        "settings": settings,
        "machine": f"{platform.machine()}, {os.cpu_count()} cpus",
        "date": datetime.date.today().isoformat(),
        "modes": args.modes,
        "sinks": args.sinks,
        "cases": names,
        "not_run": {name: NOT_RUN[name] for name in sorted(NOT_RUN)},
        "streaming_only": sorted(STREAMING_ONLY),
        "results": results,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, nargs="+", default=[5_000_000], help="one or more sizes")
    parser.add_argument("--keys", type=int, default=1_000, help="as given to bench.py --csv")
    parser.add_argument("--days", type=int, default=1, help="as given to bench.py --csv")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per case (median)")
    parser.add_argument("--cases", nargs="*", help="only these cases")
    parser.add_argument("--mode", choices=["batch", "streaming", "both"], default="both")
    parser.add_argument("--sink", choices=["blackhole", "filesystem", "both"], default="both")
    parser.add_argument("--parallelism", type=int, default=2)
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="a Flink option")
    parser.add_argument("--state-dir", type=Path, default=PROJECT_DIR / ".spark_state" / "bench")
    parser.add_argument("--out", type=Path, help="results and sink output (default: <state-dir>/flink)")
    args = parser.parse_args(argv)
    args.out = args.out or args.state_dir / "flink"
    args.modes = list(MODES) if args.mode == "both" else [args.mode]
    args.sinks = list(SINKS) if args.sink == "both" else [args.sink]
    bad = [option for option in args.conf if "=" not in option]
    if bad:
        parser.error(f"--conf takes KEY=VALUE, got {bad}")
    names = args.cases or list(CASES)
    not_run = {name: NOT_RUN[name] for name in names if name in NOT_RUN}
    if not_run:
        parser.error("not run in Flink: " + "; ".join(f"{name}: {why}" for name, why in not_run.items()))
    unknown = sorted(set(names) - set(CASES))
    if unknown:
        parser.error(f"unknown cases {unknown}; known: {sorted(CASES)}")

    args.out.mkdir(parents=True, exist_ok=True)
    for events in args.events:
        report = bench_size(args, events, names)
        table = markdown(report)
        print("\n" + table, flush=True)
        (args.out / f"events_{events}.json").write_text(json.dumps(report, indent=2) + "\n")
        (args.out / f"events_{events}.md").write_text(table)
    print("not run in Flink: " + "; ".join(f"{name} ({why})" for name, why in NOT_RUN.items()))
    print(
        f"batch mode runs no session case ({', '.join(sorted(STREAMING_ONLY))}): Flink 2.3 has no batch session window"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
