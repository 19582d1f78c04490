"""Writes a Java class-data archive of an embedded Spark's classes, for scripts/_setup.sh.

    python scripts/_class_archive.py ARCHIVE

Starts a local Spark with Hive support, runs the kinds of statement dbt and windowed_incremental
send (DDL, Parquet writes, partitions, aggregates, window functions, joins), and stops it; the
JVM writes every class it loaded to ARCHIVE as it exits (-XX:ArchiveClassesAtExit). A Spark
started with -XX:SharedArchiveFile=ARCHIVE maps those classes instead of loading and verifying
them again: on this project's 2-core machine an embedded Spark's start and first statements took
about 10 s instead of 15 s (tests/README.md, "Where the time goes"). The archive only speeds a start up: a JVM whose
Java or class path differs from the one that wrote it ignores it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

STATEMENTS = [
    "create table events (k int, ts timestamp, v double, p string) using parquet partitioned by (p)",
    "insert into events select id % 10, timestamp_micros(id * 1000000), id * 1.5, cast(id % 3 as string)"
    " from range(1000)",
    "describe extended events",
    "show tables like 'ev*'",
    "select k, window(ts, '1 minute'), count(*), sum(v), max(v) from events group by 1, 2",
    "select k, count(*) over (partition by k order by ts), row_number() over (partition by k order by v desc)"
    " from events",
    "select * from events as a left semi join (select distinct k from events) as b on a.k <=> b.k",
    "create table summary using parquet partitioned by (k) as select max(v) as m, k from events group by k",
    "alter table events add partition (p = '9')",
    "show partitions events",
    "alter table events drop if exists partition (p = '9')",
    "insert overwrite table summary partition (k = 1) select 1.0",
    "select to_json(map_from_entries(collect_list(struct(p, c)))) from (select p, count(*) c from events group by p)",
    "cache lazy table events",
    "uncache table events",
    "drop table summary",
]


def main() -> int:
    from pyspark.sql import SparkSession

    archive = Path(sys.argv[1]).resolve()
    archive.parent.mkdir(parents=True, exist_ok=True)
    # written under another name, and renamed once the JVM has ended: a Spark starting meanwhile
    # never maps half an archive
    partial = archive.with_name(f"{archive.name}.{os.getpid()}.partial")
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        spark = (
            SparkSession.builder.master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.sql.warehouse.dir", f"{scratch}/warehouse")
            .config(
                "spark.driver.extraJavaOptions",
                f"-Dderby.system.home={scratch} -XX:ArchiveClassesAtExit={partial}"
                f" -Xlog:disable -Xlog:all=error:stderr",
            )
            .enableHiveSupport()
            .getOrCreate()
        )
        for statement in STATEMENTS:
            spark.sql(statement).collect()
        jvm = spark.sparkContext._gateway.proc
        spark.stop()
        # the JVM ends when its standard input closes, and writes the archive as it ends
        jvm.stdin.close()
        jvm.wait(timeout=300)
    if not partial.exists():
        print(f"_class_archive: this Java wrote no class archive ({partial.name})", file=sys.stderr)
        return 1
    partial.replace(archive)
    return 0


if __name__ == "__main__":
    sys.exit(main())
