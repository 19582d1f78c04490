"""Compares what Flink computed (the filesystem sink's output of scripts/bench_flink.py) with
Spark's results of the same cases (scripts/bench.py's SQL, from this project's macros, over the
same generated events): the same rows, as multisets, in each mode Flink ran.

    .venv/bin/python scripts/check_flink.py --events 100000
    .venv/bin/python scripts/check_flink.py --events 100000 --cases wa_tumble_1m_all nexmark_q7_highest_bid

Flink's results have the columns of Spark's less window_time. Before comparing, numbers are
compared as doubles rounded to 6 decimals (an average added in another order may differ in the
last digits) and timestamps truncated to the millisecond (Flink's event time is TIMESTAMP(3):
a session ends at its last row's time plus the gap, to the millisecond in Flink, to the
microsecond in Spark). Exits 1 when any case disagrees.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # dev/, the development package

import bench  # noqa: E402  (its neighbours in scripts/)
from bench_flink import CASES, MODES, output_dir  # noqa: E402

from dev.macro_renderer import MacroRenderer  # noqa: E402


def normalized(frame, types: dict[str, str]):
    """Every column as a comparable value: numbers as doubles rounded to 6 decimals, timestamps
    truncated to the millisecond, strings as they are."""
    from pyspark.sql import functions as F

    columns = []
    for name, kind in types.items():
        column = F.col(name)
        if kind == "timestamp":
            column = F.date_trunc("millisecond", column.cast("timestamp"))
        elif kind != "string":
            column = F.round(column.cast("double"), 6)
        columns.append(column.alias(name))
    return frame.select(*columns)


def compare(spark, spark_sql: str, flink_dir: Path) -> dict:
    expected = spark.sql(spark_sql)
    if "window_time" in expected.columns:
        expected = expected.drop("window_time")
    types = dict(expected.dtypes)
    schema = ", ".join(f"`{name}` string" for name in types)
    found = spark.read.schema(schema).csv(str(flink_dir))
    expected, found = normalized(expected, types).cache(), normalized(found, types).cache()
    result = {
        "spark_rows": expected.count(),
        "flink_rows": found.count(),
        "only_spark": expected.exceptAll(found).count(),
        "only_flink": found.exceptAll(expected).count(),
    }
    expected.unpersist()
    found.unpersist()
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--keys", type=int, default=1_000)
    parser.add_argument("--days", type=int, default=1)
    parser.add_argument("--cases", nargs="*", help="only these cases (default: every case Flink wrote)")
    parser.add_argument("--state-dir", type=Path, default=bench.PROJECT_DIR / ".spark_state" / "bench")
    parser.add_argument("--out", type=Path, help="bench_flink.py's --out (default: <state-dir>/flink)")
    parser.add_argument("--driver-memory", default="4g")
    args = parser.parse_args(argv)
    args.out = args.out or args.state_dir / "flink"
    args.cores, args.shuffle_partitions = 2, 8  # as bench.py's defaults
    vars(args).update(bench.DEFAULT_SHAPE)  # the shape bench.py --csv writes for Flink
    folder = output_dir(args, args.events)
    names = args.cases or [name for name in CASES if any((folder / mode / name).is_dir() for mode in MODES)]
    unknown = sorted(set(names) - set(CASES))
    if unknown:
        parser.error(f"unknown cases {unknown}; known: {sorted(CASES)}")
    if not names:
        parser.error(f"no Flink output in {folder}: run scripts/bench_flink.py --sink filesystem (or both) first")

    spark = bench.spark_session(args)
    spark.sparkContext.setLogLevel("ERROR")
    queries = bench.cases(MacroRenderer(), bench.generate(spark, args, args.events))
    print(f"\n{args.events:,} events: Flink's results ({folder}) against Spark's")
    print(
        "| case | mode | Spark rows | Flink rows | only in Spark | only in Flink | agree |\n|---|---|---:|---:|---:|---:|---|"
    )
    disagreements = 0
    for name in names:
        for mode in MODES:
            if not (folder / mode / name).is_dir():
                continue
            result = compare(spark, queries[name], folder / mode / name)
            agree = result["only_spark"] == 0 and result["only_flink"] == 0
            disagreements += not agree
            print(
                f"| {name} | {mode} | {result['spark_rows']:,} | {result['flink_rows']:,} | "
                f"{result['only_spark']:,} | {result['only_flink']:,} | {'yes' if agree else 'NO'} |",
                flush=True,
            )
    spark.stop()
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
