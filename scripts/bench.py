"""Benchmark of window_aggregate against the row-copy plans, on one local Spark session.

    python scripts/bench.py                         # 5,000,000 events, 1,000 keys, one day
    python scripts/bench.py --events 5000000 10000000 --cases wa_tumble_1m wa_hop_1h_1m
    python scripts/bench.py --driver-memory 2g --events 20000000 --runs 1
    python scripts/bench.py --incremental --events 10000000 --days 10
    python scripts/bench.py --incremental --session --events 10000000 --days 10
    python scripts/bench.py --incremental --events 10000000 --days 10 --new-rows 1000
    python scripts/bench.py --incremental --target cluster --events 100000 --days 1 --new-rows 1000
    scripts/iceberg.sh --python scripts/bench.py --incremental --iceberg --events 3000000 --days 10 --new-rows 1000
    python scripts/bench.py --incremental --retention --events 10000000 --days 10 --new-rows 100000 --refresh-runs 1
    python scripts/bench.py --incremental --events 10000000 40000000 --days 10 --same-rate --new-rows 100000 --refresh-runs 1
    python scripts/bench.py --incremental --by-file --streaming --events 3000000 10000000 --days 10 --same-rate --new-rows 100000 --refresh-runs 1
    python scripts/bench.py --incremental --by-file --streaming append update --events 10000000 30000000 --days 10 --same-rate --new-rows 100000 --refresh-runs 1
    python scripts/bench.py --incremental --by-file --emit-policy final --streaming append --events 10000000 30000000 --days 10 --same-rate --new-rows 100000 --refresh-runs 1
    python scripts/bench.py --dbt --events 3000000 --cases wa_tumble_1m_distinct wa_hop_1h_1m_distinct
    python scripts/bench.py --csv --events 5000000    # CSV copies for scripts/bench_flink.py
    python scripts/bench.py --dbt --events 3000000 --order random time --key-type int --keys 10 1000

Generates the events once per size (Parquet, in .spark_state/bench), then times each case
several times, interleaved, and prints the median of each and its ratio to window_aggregate's
1-minute tumble; with several sizes, also how each case grows from the first size. A case runs
its whole query and writes to Spark's `noop` sink, so every window is computed and nothing is
collected. The SQL comes from the project's macros. The cases cover counts and sums, all five
mergeable aggregates, count(distinct), HLL distinct counts and KLL medians (sketches merged from
panes), standard deviations, approx_count_distinct and percentile_approx (row copy), and sessions against Spark's
session_window; the report ends with the ratios of the pairs in RATIOS.

The data's shape (each option takes one value or several; every combination is a shape of its
own, with its own events and its own table of figures): --order, how event times lie in the
files (random: drawn at random over the span; time: in time order; arrival: in the order rows
arrive, event time 0-2 minutes before arrival and 2% of the rows up to 30 minutes), --key-type
(string or int), --keys (how many), --null-share (the share of NULL values in v and u). The
report gives each shape's rows per key and minute (1 minute is the sliding cases' slide).

With --dbt: each case is the table model models/bench/bench_window_case.sql (what an analyst
runs), built by dbt in this process over a table of the same events; the time is the model's
execution time as dbt reports it.

With --incremental: the windowed_incremental model models/bench/bench_vehicles_incremental.sql
(tumbling 1 minute) through dbt in this process; times `dbt run --full-refresh` over the history
of N events, then runs that each find 1% new rows, or --new-rows (the events that follow, in
arrival order, with their ingestion times), and prints the medians (the model's execution time as dbt reports
it, and the whole dbt invocation) and their ratio, and per run the Spark jobs it started, the
bytes it wrote to table files (Hadoop's file system statistics: staging tables that a run drops
count too) and the bytes of the model's table files it left new. Each --events size builds its
history from nothing, in turn; with several, the report ends with how a run grows from the first
size. --refresh-runs 1 times a single full refresh per size, with no warm-up (large histories).
Every size spans --days; with --same-rate, --days x its size / the first size: the events arrive
at the same rate, as in a history that grows as time passes, and a run's new rows touch as many
windows at every size (over a fixed span, a larger history is denser, and the same number of new
rows spans less time and touches fewer windows). With --session as well, the session model
models/bench/bench_sessions_incremental.sql (gap 2 minutes) over events whose keys are drawn at
random, so each key's events arrive as a random stream (about 4 events a session).

With --incremental --by-file: the models tell new rows by their input file (input_file_col,
`_metadata.file_path`), and each landing keeps its rows' own ingestion times (event time plus
0-120 s), so many fall at or below the newest ingestion time already landed: the ingestion-time
mode would refuse them, the file mode reads each once (dbt's own incremental model, which tells
new rows by ingestion time, is left out). With --streaming as well: Spark's Structured Streaming
beside it on the same files, as a Spark engineer would write the same scheduled job: the
table's folder as a Parquet file source, withWatermark('ts', '5 minutes'), groupBy window('ts',
'1 minute') (sessions: session_window('ts', '2 minutes')) and k, count and sum, the RocksDB state
store, append mode to a Parquet folder, trigger(availableNow=True) once per run: its first run
(a new checkpoint) reads the whole history, as a full refresh does, and each later run the new
files. It drops rows later than its watermark, where windowed_incremental keeps them (allowed
lateness 10 minutes, then the late table). Append mode writes each window once, when the
watermark closes it; the model rewrites the partitions a run touches, with the early results of
windows still open. `--streaming update` (or `append update`, both side by side) is the peer
that does the same: update mode, and a foreachBatch that merges each micro-batch's updated
windows into the hours they fall in (an insert overwrite, dynamic partition overwrite, of a
table partitioned by hour, the hours named in it: the updated windows and the hours' other
windows); the report says how many windows of its table and of the model's differ. Structured
Streaming has no update mode for session windows.

With --incremental --emit-policy final: the model appends each window once, when its watermark
passes the end plus allowed_lateness; beside `--streaming append` (the same contract), the
report compares both tables of final windows where both hold a window.

With --incremental --target cluster: the same models and stream of events on the `cluster` target
(scripts/cluster.sh start), where each statement is a round trip through the Thrift server: the
model times, their ratio, and the statements dbt sent for each model's last run.

With --incremental --iceberg (on the `iceberg` target: run it with scripts/iceberg.sh --python, which
gives it Spark 3.5.8 with Apache Iceberg): the model on Parquet tables, then on Iceberg tables
(file_format='iceberg'), each size's same events built again for each, in one process: the runs'
times, Spark jobs and statements (as --statements gives them) side by side.

With --incremental --statements: each statement of the last incremental run of each model, with
the time Spark took in dbt-spark's `execute` (parsing, analysis, and a command's whole work) and
in fetching its rows (a query's jobs), and the Spark jobs it started.

With --incremental --floor: after those runs, the least that a run which writes once and commits
by metadata must do, with no window semantics, timed beside the statement of dbt's
insert_overwrite, on the same counts of the hours the newest --new-rows rows touch: the state
read, the new partitions written into a folder of the run's own, one commit row, the table's
partitions re-pointed, the staging table dropped (commit_floor says each step; two ways of
staging). What it adds to the insert overwrite is the least such a run adds to the same query.

With --incremental --retention: after those runs, a retention job removes the input's oldest
file (deleted, then REFRESH TABLE), and one run and --runs runs more are timed after it: the
first finds fewer rows than were processed and compares the input hour by hour; the later ones
should not. The input then holds fewer rows than the windows counted (the report says how many
were removed).

With --csv: generates the events of each size as above (the Parquet files and the NEXMark rows)
and writes a CSV copy of each table, for scripts/bench_flink.py, which times the same cases in
Apache Flink (whose Python package reads CSV but not Parquet); times nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import itertools
import json
import os
import platform
import re
import shutil
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # dev/, the development package

from dev.macro_renderer import MacroRenderer  # noqa: E402
from dev.project import PROJECT_DIR  # noqa: E402

AGGREGATES = {"readings": "count(*)", "vehicles": "sum(v)"}
ALL_MERGEABLE = {
    "readings": "count(*)",
    "vehicles": "sum(v)",
    "mean": "avg(v)",
    "lowest": "min(v)",
    "highest": "max(v)",
}
KLL_MEDIAN = "kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(v), 0.5)"
TUMBLE = {"type": "tumble", "size": "1 minute"}
HOP = {"type": "hop", "slide": "1 minute", "size": "1 hour"}
CUMULATE = {"type": "cumulate", "step": "1 minute", "size": "1 hour"}
SESSION = {"type": "session", "gap": "10 minutes"}
# pairs of cases whose ratio the report prints (the goals: a sliding window at about the cost
# of a tumbling one, with the same aggregates; sessions no slower than Spark's session_window)
RATIOS = [
    ("wa_hop_1h_1m", "wa_tumble_1m"),
    ("wa_hop_1h_1m_all", "wa_tumble_1m_all"),
    ("wa_cumulate_1h_1m_all", "wa_tumble_1m_all"),
    ("wa_hop_1h_1m_distinct", "wa_tumble_1m_distinct"),
    ("wa_cumulate_1h_1m_distinct", "wa_tumble_1m_distinct"),
    ("tvf_hop_1h_1m_distinct_group_by", "wa_tumble_1m_distinct"),
    ("wa_hop_1h_1m_hll", "wa_tumble_1m_hll"),
    ("wa_cumulate_1h_1m_hll", "wa_tumble_1m_hll"),
    ("wa_hop_1h_1m_approx_distinct", "wa_tumble_1m_approx_distinct"),
    ("wa_hop_1h_1m_kll", "wa_tumble_1m_kll"),
    ("wa_cumulate_1h_1m_kll", "wa_tumble_1m_kll"),
    ("wa_hop_1h_1m_stddev", "wa_tumble_1m_stddev"),
    ("wa_cumulate_1h_1m_stddev", "wa_tumble_1m_stddev"),
    ("wa_hop_1h_1m_percentile", "wa_tumble_1m_percentile"),
    ("wa_session_10m", "native_session_window_10m"),
    ("native_window_hop_1h_1m", "wa_hop_1h_1m"),
]
# the sliding cases also run with agg_phase_strategy='two_phase' (name + TWO_PHASE), against the
# same tumbling case
TWO_PHASE = "_two_phase"
TWO_PHASE_CASES = [
    "wa_hop_1h_1m",
    "wa_hop_1h_1m_all",
    "wa_cumulate_1h_1m_all",
    "wa_hop_1h_1m_distinct",
    "wa_cumulate_1h_1m_distinct",
    "wa_hop_1h_1m_hll",
    "wa_cumulate_1h_1m_hll",
    "wa_hop_1h_1m_kll",
    "wa_cumulate_1h_1m_kll",
]
RATIOS += [(name + TWO_PHASE, tumble) for name, tumble in RATIOS if name in TWO_PHASE_CASES]


# Few windows per row: hop sliding every 30 minutes with a size of 2, 3, 6, 12 and 60 slides, each
# aggregate set in every plan window_aggregate can take (its default; its pane plan in one phase
# and in two; the row-copy plan, the hop macro then GROUP BY; Spark's window() expansion), beside
# the 30-minute tumble of the same aggregates: which plan is fastest on each shape
# (`--keys`/`--days` set the rows per key and slide). The plans that copy rows run up to
# FEW_COPY_RATIOS windows per row: beyond, they cost that many times the rows.
FEW_SLIDE = "30 minutes"
FEW_RATIOS = [2, 3, 6, 12, 60]
FEW_COPY_RATIOS = [2, 3, 6]
FEW_AGGREGATES = {
    "sum": AGGREGATES,
    "all": ALL_MERGEABLE,
    "distinct": {"users": "count(distinct u)"},
    "hll": {"users": "hll_sketch_estimate(hll_sketch_agg(u))"},
    "kll": {"median_v": KLL_MEDIAN},
}
FEW_PLANS = ["default", "one_phase", "two_phase", "row_copy", "spark_window"]
# the peers' GROUP BY of a KLL median reads no quantile out of an empty sketch (a window whose
# values are all NULL), which Spark refuses (KLL_INVALID_INPUT_SKETCH_BUFFER), as window_aggregate
# does not
FEW_PEER_AGGREGATES = {
    KLL_MEDIAN: "case when kll_sketch_get_n_bigint(kll_sketch_agg_bigint(v)) > 0 "
    "then kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(v), 0.5) end"
}


def few_name(plan: str, ratio: int, aggregates: str) -> str:
    """A few-windows case: `few_<plan>_hop_r<ratio>_<aggregates>`, or the tumble with ratio 1."""
    return f"few_{plan}_{'tumble' if ratio == 1 else 'hop'}_r{ratio}_{aggregates}"


# the macros take a table name or a query as their relation, not the {source} the runs fill in:
# the cases are rendered over this name, which then becomes {source} again
PLACEHOLDER = "bench_source"


def render(renderer: MacroRenderer, macro: str, relation: str, *arguments) -> str:
    """A macro call over `relation` ('{source}', '{source}_bid', ...), {source} left to fill in."""
    sql = renderer.call(macro, relation.replace("{source}", PLACEHOLDER), *arguments)
    return sql.replace(PLACEHOLDER, "{source}")


def wa_case(window, aggregates) -> dict:
    return {"time_col": "ts", "window": window, "group_by": ["k"], "aggregates": aggregates}


def case_specs(renderer: MacroRenderer) -> dict[str, dict]:
    """Each case: a window_aggregate call, or {'sql': query reading {source}} for the plans it is
    compared with (Spark's own window functions, the table-valued macro and GROUP BY)."""
    specs = one_phase_specs(renderer)
    for name in TWO_PHASE_CASES:
        specs[name + TWO_PHASE] = {**specs[name], "agg_phase_strategy": "two_phase"}
    return specs


def one_phase_specs(renderer: MacroRenderer) -> dict[str, dict]:
    tvf_hop = render(renderer, "hop", "{source}", "ts", HOP["slide"], HOP["size"])
    return {
        "wa_tumble_1m": wa_case(TUMBLE, AGGREGATES),
        "wa_hop_1h_1m": wa_case(HOP, AGGREGATES),
        "wa_cumulate_1h_1m": wa_case(CUMULATE, AGGREGATES),
        "native_window_hop_1h_1m": {
            "sql": "select k, window.start as window_start, window.end as window_end, "
            "count(*) as readings, sum(v) as vehicles from {source} "
            "group by k, window(ts, '1 hour', '1 minute')"
        },
        "tvf_hop_1h_1m_group_by": {
            "sql": f"select k, window_start, window_end, count(*) as readings, sum(v) as vehicles "
            f"from {tvf_hop} group by k, window_start, window_end"
        },
        "wa_tumble_1m_all": wa_case(TUMBLE, ALL_MERGEABLE),
        "wa_hop_1h_1m_all": wa_case(HOP, ALL_MERGEABLE),
        "wa_cumulate_1h_1m_all": wa_case(CUMULATE, ALL_MERGEABLE),
        "wa_tumble_1m_distinct": wa_case(TUMBLE, {"users": "count(distinct u)"}),
        "wa_hop_1h_1m_distinct": wa_case(HOP, {"users": "count(distinct u)"}),
        "wa_cumulate_1h_1m_distinct": wa_case(CUMULATE, {"users": "count(distinct u)"}),
        "tvf_hop_1h_1m_distinct_group_by": {
            "sql": f"select k, window_start, window_end, count(distinct u) as users "
            f"from {tvf_hop} group by k, window_start, window_end"
        },
        "wa_tumble_1m_hll": wa_case(TUMBLE, {"users": "hll_sketch_estimate(hll_sketch_agg(u))"}),
        "wa_hop_1h_1m_hll": wa_case(HOP, {"users": "hll_sketch_estimate(hll_sketch_agg(u))"}),
        "wa_cumulate_1h_1m_hll": wa_case(CUMULATE, {"users": "hll_sketch_estimate(hll_sketch_agg(u))"}),
        "wa_tumble_1m_kll": wa_case(TUMBLE, {"median_v": KLL_MEDIAN}),
        "wa_hop_1h_1m_kll": wa_case(HOP, {"median_v": KLL_MEDIAN}),
        "wa_cumulate_1h_1m_kll": wa_case(CUMULATE, {"median_v": KLL_MEDIAN}),
        "wa_tumble_1m_stddev": wa_case(TUMBLE, {"spread": "stddev(v)"}),
        "wa_hop_1h_1m_stddev": wa_case(HOP, {"spread": "stddev(v)"}),
        "wa_cumulate_1h_1m_stddev": wa_case(CUMULATE, {"spread": "stddev(v)"}),
        # the row-copy plan: approx_count_distinct (HLL++) and percentile_approx
        "wa_tumble_1m_approx_distinct": wa_case(TUMBLE, {"users": "approx_count_distinct(u)"}),
        "wa_hop_1h_1m_approx_distinct": wa_case(HOP, {"users": "approx_count_distinct(u)"}),
        "wa_tumble_1m_percentile": wa_case(TUMBLE, {"median_v": "percentile_approx(v, 0.5)"}),
        "wa_hop_1h_1m_percentile": wa_case(HOP, {"median_v": "percentile_approx(v, 0.5)"}),
        "wa_session_10m": wa_case(SESSION, AGGREGATES),
        "native_session_window_10m": {
            "sql": "select k, session_window.start as window_start, session_window.end as window_end, "
            "count(*) as readings, sum(v) as vehicles from {source} "
            "group by k, session_window(ts, '10 minutes')"
        },
    }


def few_windows_specs(renderer: MacroRenderer) -> dict[str, dict]:
    """The few-windows cases (FEW_RATIOS x FEW_AGGREGATES x FEW_PLANS, and the tumbles)."""
    specs = {}
    for label, aggregates in FEW_AGGREGATES.items():
        specs[few_name("default", 1, label)] = wa_case({"type": "tumble", "size": FEW_SLIDE}, aggregates)
        grouped = ", ".join(f"{FEW_PEER_AGGREGATES.get(sql, sql)} as {name}" for name, sql in aggregates.items())
        for ratio in FEW_RATIOS:
            size = f"{30 * ratio} minutes"
            hop = {"type": "hop", "slide": FEW_SLIDE, "size": size}
            specs[few_name("default", ratio, label)] = wa_case(hop, aggregates)
            for plan in ("one_phase", "two_phase"):
                specs[few_name(plan, ratio, label)] = {**wa_case(hop, aggregates), "plan": plan}
            if ratio not in FEW_COPY_RATIOS:
                continue
            tvf = render(renderer, "hop", "{source}", "ts", FEW_SLIDE, size)
            specs[few_name("row_copy", ratio, label)] = {
                "sql": f"select k, window_start, window_end, {grouped} from {tvf} group by k, window_start, window_end"
            }
            specs[few_name("spark_window", ratio, label)] = {
                "sql": f"select k, window.start as window_start, window.end as window_end, {grouped} "
                f"from {{source}} group by k, window(ts, '{size}', '{FEW_SLIDE}')"
            }
    return specs


def nexmark_specs(renderer: MacroRenderer) -> dict[str, dict]:
    """NEXMark-shaped queries over {source}_person, {source}_auction and {source}_bid, written
    with the macros (event time: date_time)."""

    def wa(relation, window, group_by, aggregates):
        return render(renderer, "window_aggregate", relation, "date_time", window, group_by, aggregates)

    hot = wa(
        "{source}_bid", {"type": "hop", "slide": "2 seconds", "size": "10 seconds"}, ["auction"], {"bids": "count(*)"}
    )
    highest = wa("{source}_bid", {"type": "tumble", "size": "10 seconds"}, [], {"top_price": "max(price)"})
    bids_tumbled = render(renderer, "tumble", "{source}_bid", "date_time", "10 seconds")
    people = render(renderer, "tumble", "{source}_person", "date_time", "10 seconds")
    auctions = render(renderer, "tumble", "{source}_auction", "date_time", "10 seconds")
    sessions = wa("{source}_bid", {"type": "session", "gap": "10 seconds"}, ["bidder"], {"bids": "count(*)"})
    return {
        # q5 hot items: the auctions with the most bids per hopping window
        "nexmark_q5_hot_items": {
            "sql": f"select counts.auction, counts.window_start, counts.window_end, counts.bids "
            f"from {hot} as counts join (select window_end, max(bids) as top_bids from {hot} as c "
            "group by window_end) as tops on counts.window_end = tops.window_end and counts.bids = tops.top_bids"
        },
        # q7 highest bid per tumbling window, with the bid itself
        "nexmark_q7_highest_bid": {
            "sql": f"select b.auction, b.bidder, b.price, b.window_end from {bids_tumbled} as b "
            f"join {highest} as h on b.window_end = h.window_end and b.price = h.top_price"
        },
        # q8 new users: people who opened auctions in the window they registered in
        "nexmark_q8_new_users": {
            "sql": f"select p.id, p.name, p.window_start from (select distinct id, name, window_start, window_end "
            f"from {people}) as p join (select distinct seller, window_start, window_end from {auctions}) as a "
            "on p.id = a.seller and p.window_start = a.window_start and p.window_end = a.window_end"
        },
        # q11 user sessions: bids per bidder session, 10 seconds gap
        "nexmark_q11_user_sessions": {"sql": f"select * from {sessions}"},
    }


def generate_nexmark(spark, args, events: int, view: str) -> None:
    """NEXMark-shaped person, auction and bid rows (1 : 3 : 46 of `events`), one event every
    `days` * 86400 / events seconds from 2024-01-01 UTC, as temp views {view}_person, ..."""
    span_us, start_us = args.days * 86_400_000_000, 1_704_067_200_000_000
    step = max(1, span_us // events)
    base = spark.range(events, numPartitions=max(2, events // 1_000_000)).selectExpr(
        "id", f"timestamp_micros({start_us} + id * {step}) as date_time", "id % 50 as slot"
    )
    base.where("slot = 0").selectExpr(
        "id div 50 as id",
        "concat('person ', id div 50) as name",
        "concat('p', id div 50, '@example.com') as email_address",
        "element_at(array('Phoenix', 'Portland', 'Seattle', 'Boise'), cast(id % 4 as int) + 1) as city",
        "element_at(array('AZ', 'OR', 'WA', 'ID'), cast(id % 4 as int) + 1) as state",
        "date_time",
    ).createOrReplaceTempView(f"{view}_person")
    base.where("slot between 1 and 3").selectExpr(
        "id div 50 * 3 + slot - 1 as id",
        "concat('item ', id) as item_name",
        "cast(rand(29) * 1000 as bigint) as initial_bid",
        "cast(rand(31) * 2000 as bigint) as reserve",
        "date_time",
        "date_time + interval 10 minutes as expires",
        "cast(rand(37) * greatest(id div 50, 1) as bigint) as seller",
        "cast(rand(41) * 5 as int) + 10 as category",
    ).createOrReplaceTempView(f"{view}_auction")
    base.where("slot >= 4").selectExpr(
        "cast(rand(43) * greatest(id div 50 * 3, 1) as bigint) as auction",
        "cast(rand(47) * greatest(id div 50, 1) as bigint) as bidder",
        "cast(rand(53) * 10000 as bigint) as price",
        "element_at(array('apple', 'google', 'facebook', 'baidu'), cast(id % 4 as int) + 1) as channel",
        "concat('https://www.nexmark.com/item/', id) as url",
        "date_time",
    ).createOrReplaceTempView(f"{view}_bid")


def case_sql(renderer: MacroRenderer, spec: dict, view: str) -> str:
    if "sql" in spec:
        return spec["sql"].replace("{source}", view)
    arguments = (spec["time_col"], spec["window"], spec["group_by"], spec["aggregates"])
    return "select * from " + renderer.call(
        "window_aggregate", view, *arguments, None, spec.get("agg_phase_strategy"), spec.get("plan")
    )


def all_specs(renderer: MacroRenderer) -> dict[str, dict]:
    return {**case_specs(renderer), **nexmark_specs(renderer), **few_windows_specs(renderer)}


def cases(renderer: MacroRenderer, view: str) -> dict[str, str]:
    return {name: case_sql(renderer, spec, view) for name, spec in all_specs(renderer).items()}


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


# how each --order places event times (microseconds from the start of the span) in the files,
# whose rows follow the id: `step` is the span divided by the number of events
EVENT_TIMES = {
    "random": "cast(rand(7) * {span} as bigint)",
    "time": "id * {step} + cast(rand(7) * {step} as bigint)",
    # arrival at id * step; the event happened 0-120 s before, or for 2% of rows up to 30 minutes
    "arrival": "greatest(0, id * {step} - cast(rand(7) * (case when rand(3) < 0.02 then 1800 else 120 end) * 1000000 as bigint))",
}


def generate(spark, args, events: int) -> str:
    """N events over `days` days from 2024-01-01 UTC in the shape of `args` (--order, --key-type,
    --keys, --null-share): keys uniform, v in 0..99 and users u in 0..999, each NULL with the
    given share."""
    path = events_path(args, events)
    if not path.exists():
        span_us = args.days * 86_400_000_000
        start_us = 1_704_067_200_000_000
        offset = EVENT_TIMES[args.order].format(span=span_us, step=max(1, span_us // events))
        spark.range(events, numPartitions=max(2, events // 1_000_000)).selectExpr(
            f"cast(id % {args.keys} as {args.key_type}) as k",
            f"timestamp_micros({start_us} + {offset}) as ts",
            f"case when rand(11) < {args.null_share} then null else cast(rand(13) * 100 as int) end as v",
            f"case when rand(19) < {args.null_share} then null else cast(rand(23) * 1000 as int) end as u",
        ).write.parquet(str(path))
    view = f"bench_events_{events}_{args.keys}{shape_slug(args)}"
    spark.read.parquet(str(path)).createOrReplaceTempView(view)
    generate_nexmark(spark, args, events, view)
    return view


def events_path(args, events: int) -> Path:
    return args.state_dir / f"events_{events}_{args.keys}_{args.days}{shape_slug(args)}_u.parquet"


DEFAULT_SHAPE = {"order": "random", "key_type": "string", "null_share": 0.01}


def shape_slug(args) -> str:
    """'' for the default shape (random order, string keys, 1% NULLs), else e.g. '_time_int_n0p01'."""
    if all(getattr(args, name) == value for name, value in DEFAULT_SHAPE.items()):
        return ""
    return f"_{args.order}_{args.key_type}_n{args.null_share:g}".replace(".", "p")


def shapes(args) -> list[argparse.Namespace]:
    """One namespace per combination of the shape options, each with one value of each."""
    return [
        argparse.Namespace(**{**vars(args), "order": order, "key_type": key_type, "keys": keys, "null_share": share})
        for order, key_type, keys, share in itertools.product(args.order, args.key_type, args.keys, args.null_share)
    ]


def csv_dir(args, events: int) -> Path:
    """Where --csv writes its copies (scripts/bench_flink.py reads them there)."""
    return args.state_dir / "csv" / f"events_{events}_{args.keys}_{args.days}"


def write_csv_copies(spark, args, events: int, view: str) -> Path:
    """The events and the person, auction and bid rows of `view` as CSV, one file per table
    (a directory holding one part file), without a header, sorted by event time (a streaming
    source with a watermark that follows the event time then sees no late row), timestamps in
    UTC with microseconds ('2024-01-01 00:00:00.123456'), NULL as an empty field."""
    target = csv_dir(args, events)
    for table, time_col in (("events", "ts"), ("person", "date_time"), ("auction", "date_time"), ("bid", "date_time")):
        relation = spark.table(view if table == "events" else f"{view}_{table}")
        relation.repartition(1).sortWithinPartitions(time_col).write.mode("overwrite").option(
            "timestampFormat", "yyyy-MM-dd HH:mm:ss.SSSSSS"
        ).csv(str(target / table))
    return target


def report(spark, args, events, names, timings, medians, chosen=None) -> None:
    """The timings as a markdown table, after the settings of the Spark session that ran them
    (bench.py's own, or with --dbt the session of dbt's local target)."""
    base = medians.get("wa_tumble_1m")
    conf = spark.sparkContext.getConf()
    density = events / (args.keys * args.days * 1440)
    print(
        f"\n{events:,} events, {args.keys:,} {args.key_type} keys, {args.days} day(s), event times in {args.order} "
        f"order, {args.null_share:.0%} NULLs, {density:,.2f} rows per key and minute; {spark.sparkContext.master}, "
        f"{spark.conf.get('spark.sql.shuffle.partitions')} shuffle partitions, "
        f"driver memory {conf.get('spark.driver.memory', 'default')}; "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cpus; "
        f"median of {args.runs} runs after one warm-up"
    )
    print("| case | median s | runs s | x wa_tumble_1m | plan taken |\n|---|---:|---|---:|---|")
    for name in names:
        ratio = f"{medians[name] / base:.2f}" if base else "-"
        runs = ", ".join(f"{value:.2f}" for value in timings[name])
        taken = (chosen or {}).get(name)
        plan = f"{taken[0]} ({taken[1]})" if taken else ""
        print(f"| {name} | {medians[name]:.2f} | {runs} | {ratio} | {plan} |")
    pairs = [(case, base_case) for case, base_case in RATIOS if case in medians and base_case in medians]
    if pairs:
        print("\n| case | x case |\n|---|---:|")
        for case, base_case in pairs:
            print(f"| {case} | {medians[case] / medians[base_case]:.2f} x {base_case} |")
    report_few_windows(args, events, medians, chosen or {})
    sys.stdout.flush()


def report_few_windows(args, events, medians, chosen) -> None:
    """The few-windows cases that ran: per shape (windows per row, aggregates) each plan's median,
    the plan the default took (`chosen`: case -> (plan, why) from its compiled SQL), the fastest
    plan, and the taken plan's time over the fastest's and over the tumble's. A plan's time is its
    own case's: the default case runs the same SQL once more (its column shows the noise)."""
    rows = []
    for label, ratio in itertools.product(FEW_AGGREGATES, FEW_RATIOS):
        times = {plan: medians.get(few_name(plan, ratio, label)) for plan in FEW_PLANS}
        taken, why = chosen.get(few_name("default", ratio, label)) or (None, "")
        if times["default"] is None or times.get(taken) is None:
            continue
        ran = {plan: value for plan, value in times.items() if value is not None and plan != "default"}
        fastest = min(ran, key=ran.get)
        tumble = medians.get(few_name("default", 1, label))
        cells = " | ".join("-" if times[plan] is None else f"{times[plan]:.2f}" for plan in FEW_PLANS)
        versus_tumble = f"{times[taken] / tumble:.2f}" if tumble else "-"
        rows.append(
            f"| {ratio} | {label} | {cells} | {taken} ({why}) | {fastest} | {times[taken] / ran[fastest]:.2f} "
            f"| {versus_tumble} |"
        )
    if rows:
        per_slide = events / (args.keys * args.days * 48)
        print(
            f"\nfew windows per row (hop sliding every {FEW_SLIDE}; {per_slide:,.1f} rows per key and slide; "
            f"{'statistics kept' if args.statistics else 'no statistics'}), median s:"
        )
        print(
            "| windows per row | aggregates | "
            + " | ".join(FEW_PLANS)
            + " | taken | fastest | taken / fastest | taken / tumble |"
        )
        print("|---:|---|" + "---:|" * len(FEW_PLANS) + "---|---|---:|---:|")
        print("\n".join(rows))


def time_query(spark, sql: str) -> float:
    started = time.perf_counter()
    spark.sql(sql).write.format("noop").mode("overwrite").save()
    return time.perf_counter() - started


def dbt_models(args, renderer: MacroRenderer, names: list[str]) -> int:
    """Each case as the table model models/bench/bench_window_case.sql, built by dbt in this
    process; times the model's execution as dbt reports it."""
    import json

    from dev.dbt_harness import configure_environment, run_dbt

    state_dir = args.state_dir / "dbt"
    if state_dir.exists():
        shutil.rmtree(state_dir)
    configure_environment(state_dir, "local")
    os.environ["SPARK_WINDOWS_DRIVER_MEMORY"] = args.driver_memory
    run_dbt(["seed", "--select", "sensor_readings_arrivals"])  # opens the session and the schema

    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    specs = all_specs(renderer)
    for shape, events in itertools.product(shapes(args), args.events):
        view = generate(spark, shape, events)
        table = f"spark_windows.{view}"
        spark.sql(f"create table {table} using parquet location '{events_path(shape, events)}'")
        if args.statistics:
            # what window_aggregate reads to choose between one phase and two
            spark.sql(f"analyze table {table} compute statistics for columns ts, k")
        for name in ("person", "auction", "bid"):
            spark.table(f"{view}_{name}").write.saveAsTable(f"{table}_{name}")
        chosen = {}

        def timed(name, table=table, chosen=chosen):
            variables = {
                "spark_windows_bench": True,
                "spark_windows_bench_source": table,
                "spark_windows_bench_case": specs[name],
            }
            result = run_dbt(["run", "--select", "bench_window_case", "--vars", json.dumps(variables)])
            # the plan window_aggregate took, as the compiled SQL names it
            named = re.search(r"window_aggregate plan: (\w+) \(([^)]*)\)", result.result.results[0].node.compiled_code)
            chosen[name] = named.groups() if named else None
            return result.result.results[0].execution_time

        for name in names:  # warm-up
            timed(name)
        timings = {name: [] for name in names}
        for _ in range(args.runs):
            for name in names:
                timings[name].append(timed(name))
        medians = {name: statistics.median(values) for name, values in timings.items()}
        print("\ndbt table models (models/bench/bench_window_case.sql), execution time as dbt reports it:")
        report(spark, shape, events, names, timings, medians, chosen)
    spark.stop()
    return 0


def incremental(args) -> int:
    """Full refresh of the incremental bench model against runs that add --new-rows rows (1%);
    for the tumbling model, dbt's own incremental materialization of the same counts beside it
    (models/bench/bench_vehicles_dbt_incremental.sql), on the same rows, runs interleaved. With
    several --events sizes, each size's history is built from nothing in turn (one process), and
    the report ends with how a run grows from the first size."""
    state_dir = args.state_dir / "incremental"
    if state_dir.exists():
        shutil.rmtree(state_dir)
    from dev.dbt_harness import configure_environment, run_dbt

    configure_environment(state_dir, "iceberg" if args.iceberg else "local")
    os.environ["SPARK_WINDOWS_DRIVER_MEMORY"] = args.driver_memory
    model = "bench_sessions_incremental" if args.session else "bench_vehicles_incremental"
    # sessions have no GROUP BY equivalent that a run could recompute by hour: no dbt peer; nor
    # by file: it tells new rows by ingestion time; with --iceberg the model's peer is itself on
    # Parquet tables
    models = [model] if args.session or args.by_file or args.iceberg else [model, "bench_vehicles_dbt_incremental"]
    for mode in args.streaming or []:
        models.append(STREAMING_PEERS[mode])
    run_dbt(["seed", "--select", "sensor_readings_arrivals"])  # opens the session and the schema

    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    if args.iceberg:
        args.statements = True
        formats = {
            (events, file_format): incremental_size(spark, args, events, models, run_dbt, file_format)
            for events in args.events
            for file_format in ("parquet", "iceberg")
        }
        spark.stop()
        for (_, file_format), size in formats.items():
            print(f"\nfile_format='{file_format}':")
            report_incremental_size(args, model, models, size)
        report_formats(model, formats)
        return 0
    sizes = [incremental_size(spark, args, events, models, run_dbt) for events in args.events]
    spark.stop()
    for size in sizes:
        report_incremental_size(args, model, models, size)
    if len(sizes) > 1:
        report_incremental_growth(model, models, sizes)
    return 0


def report_formats(model: str, formats: dict) -> None:
    """--iceberg: each size's runs on Parquet and on Iceberg tables, side by side (model time)."""
    print(
        f"\n{model} on Parquet and Iceberg tables, one process (Spark 3.5.8, Iceberg 1.10.2):\n"
        "| events | new rows | file_format | run s (median) | runs | statements | Spark jobs | full refresh s |\n"
        "|---:|---:|---|---:|---|---:|---:|---:|"
    )
    for (events, file_format), size in formats.items():
        increments = size["increments"]
        runs = ", ".join(f"{value[model][0]:.2f}" for value in increments)
        print(
            f"| {events:,} | {size['batch']:,} | {file_format} | {_median(increments, model, 0):.2f} | {runs} "
            f"| {len(size['statements'][model])} | {_jobs(increments, model)} | {_median(size['full'], model, 0):.2f} |"
        )
    for events in dict.fromkeys(events for events, _ in formats):
        parquet, iceberg = (formats[(events, name)]["increments"] for name in ("parquet", "iceberg"))
        print(
            f"{events:,} events: a run on Iceberg tables / on Parquet tables: "
            f"{_median(iceberg, model, 0) / _median(parquet, model, 0):.2f} x (model time)"
        )


def io_counters(spark) -> tuple[int, int]:
    """The id of Spark's last job and the bytes Hadoop's local file system has written in this
    process (table files; not shuffle files, nor the metastore's)."""
    jvm = spark.sparkContext._jvm
    written = sum(
        stats.getBytesWritten()
        for stats in jvm.org.apache.hadoop.fs.FileSystem.getAllStatistics()
        if stats.getScheme() == "file"
    )
    jobs = spark.sparkContext.statusTracker().getJobIdsForGroup()
    return max(jobs, default=-1), written


def folder_bytes(folder: Path, since: float = 0.0) -> int:
    """The bytes of the files under `folder` last modified at or after `since` (a time.time())."""
    stats = (path.stat() for path in folder.rglob("*") if path.is_file())
    return sum(stat.st_size for stat in stats if stat.st_mtime >= since)


class StatementTimes:
    """--statements: each statement dbt runs on the embedded Spark, timed where its work happens
    in dbt-spark's session cursor: Spark parses and analyses it, and runs a command (CREATE,
    INSERT, ALTER, ...), in `execute`; a query runs its jobs when dbt fetches its rows. Records
    (statement, execute s, fetch s, Spark jobs started) in `statements` while in use."""

    def __init__(self, spark):
        self.spark = spark
        self.statements: list[list] = []

    def __enter__(self):
        from dbt.adapters.spark.session import Cursor

        self.patch = [(Cursor, name, getattr(Cursor, name)) for name in ("execute", "fetchall", "fetchone")]
        timer = self

        def measured(method, starts_statement: bool):
            def wrapper(cursor, *args):
                jobs_before = timer.last_job()
                started = time.perf_counter()
                try:
                    return method(cursor, *args)
                finally:
                    elapsed = time.perf_counter() - started
                    jobs = timer.last_job() - jobs_before
                    if starts_statement:
                        timer.statements.append([statement_label(args[0]), elapsed, 0.0, jobs])
                    elif timer.statements:
                        timer.statements[-1][2] += elapsed
                        timer.statements[-1][3] += jobs

            return wrapper

        Cursor.execute = measured(Cursor.execute, True)
        Cursor.fetchall = measured(Cursor.fetchall, False)
        Cursor.fetchone = measured(Cursor.fetchone, False)
        return self

    def __exit__(self, *exc):
        for owner, name, method in self.patch:
            setattr(owner, name, method)

    def last_job(self) -> int:
        """The id of the next job Spark's scheduler starts (one cheap call through py4j; the
        status tracker's list of every job grows with the jobs, and took milliseconds a call)."""
        try:
            return self.spark.sparkContext._jsc.sc().dagScheduler().nextJobId()
        except Exception:
            return max(self.spark.sparkContext.statusTracker().getJobIdsForGroup(), default=-1)


def statement_label(sql: str) -> str:
    """The first words of a statement, without dbt's leading comment."""
    text = sql.split("*/", 1)[-1] if sql.lstrip().startswith("/*") else sql
    return " ".join(text.split())[:90]


def incremental_size(spark, args, events: int, models: list[str], run_dbt, file_format: str | None = None) -> dict:
    """One history size: the event table of `events` rows, the full refreshes, then the runs that
    each land --new-rows rows. Returns the timings of each and, per incremental run, its Spark
    jobs, the bytes it wrote and the bytes of the model's table files it left new. `file_format`:
    the windowed_incremental models' (var spark_windows_bench_file_format; default parquet)."""
    from pyspark.sql import functions as F

    variables = {"spark_windows_bench": True, "spark_windows_bench_source": "spark_windows.bench_events"}
    if file_format is not None:
        variables["spark_windows_bench_file_format"] = file_format
    if args.by_file:
        variables["spark_windows_bench_by_file"] = True
    if args.emit_policy != "every_run":
        variables["spark_windows_bench_emit_policy"] = args.emit_policy
    if args.state_runs:
        # the runs before and after the compaction keep their state as it is
        variables["spark_windows_bench_compact_every"] = 1_000_000_000
    compacting = json.dumps({**variables, "spark_windows_bench_compact_every": 1})
    variables = json.dumps(variables)
    days = args.days * events / args.events[0] if args.same_rate else args.days
    span_us, start_us = int(days * 86_400_000_000), 1_704_067_200_000_000
    batch = args.new_rows or events // 100

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
    # each model's table folder (managed tables, in the schema's folder)
    schema_row = spark.sql("describe schema extended spark_windows").where("info_name = 'Location'").first()
    folders = {name: Path(schema_row[1].removeprefix("file:")) / name for name in models}
    source_folder = Path(schema_row[1].removeprefix("file:")) / "bench_events"
    spark.sql("drop table if exists spark_windows.bench_events")
    # Iceberg's session catalog (--iceberg) drops a Parquet table without its files
    shutil.rmtree(source_folder, ignore_errors=True)
    history = rows(0, events).repartitionByRange(max(1, events // 100_000), "ingested_at")
    history.sortWithinPartitions("ingested_at").write.format("parquet").saveAsTable("spark_windows.bench_events")

    last_statements = {}  # with --statements: {model: its last run's statements}

    def timed(extra, run_vars=variables):
        """Each model in a dbt invocation of its own: {model: (model s, invocation s, Spark jobs,
        bytes written, bytes of its table files left new)}."""
        times = {}
        for name in models:
            jobs_before, written_before = io_counters(spark)
            began, started = time.time(), time.perf_counter()
            if name in STREAMING_PEERS.values():
                mode = "update" if name == STREAMING_PEERS["update"] else "append"
                streaming_run(spark, args, source_folder, folders[name], "--full-refresh" in extra, mode)
                model_time = time.perf_counter() - started
            else:
                statements = StatementTimes(spark) if args.statements else contextlib.nullcontext()
                with statements:
                    result = run_dbt(["run", "--select", name, "--vars", run_vars, *extra])
                model_time = result.result.results[0].execution_time
                if args.statements:
                    last_statements[name] = statements.statements
            invocation = time.perf_counter() - started
            jobs_after, written_after = io_counters(spark)
            times[name] = (
                model_time,
                invocation,
                # the streaming query's jobs run in a job group of its own, which this count misses
                None if name in STREAMING_PEERS.values() else jobs_after - jobs_before,
                written_after - written_before,
                folder_bytes(folders[name], began) if folders[name].exists() else 0,
            )
        return times

    refresh_runs = args.runs if args.refresh_runs is None else args.refresh_runs
    if args.refresh_runs is None:
        timed(["--full-refresh"])  # warm-up
    full = [timed(["--full-refresh"]) for _ in range(refresh_runs)]
    if args.state_runs:
        fill_state(spark, models[0], args.state_runs)

    def land(run: int) -> None:
        # a landing job stamps what it lands: a row whose arrival (event time + jitter) is not
        # after the table's newest ingestion time gets the landing's time, just after it (an
        # earlier time would be a row no run reads, and the run would fail on it)
        # (with --by-file the rows keep their own times: the file mode reads them all)
        batch_rows = rows(events + run * batch, batch)
        if not args.by_file:
            landed = spark.sql("select max(ingested_at) from spark_windows.bench_events").collect()[0][0]
            batch_rows = batch_rows.withColumn(
                "ingested_at",
                F.greatest("ingested_at", F.lit(landed) + F.expr("interval 1 microsecond")),
            )
        batch_rows.coalesce(1).sortWithinPartitions("ingested_at").write.insertInto("spark_windows.bench_events")

    increments = []
    for run in range(args.runs):
        land(run)
        increments.append(timed([]))
    run_statements = dict(last_statements)
    compaction, compacted = [], []
    landed = args.runs  # the next landing's number: each lands events of its own
    if args.state_runs:
        # one run that compacts the state (compact_state_every=1), then runs on the compacted state
        land(landed)
        compaction.append(timed([], compacting))
        for run in range(landed + 1, landed + args.runs + 1):
            land(run)
            compacted.append(timed([]))
        landed += args.runs + 1
    removal, removed, removed_rows = [], [], 0
    if args.retention:
        # a retention job removes the input's oldest file: the next run finds fewer rows than were
        # processed; then runs on the input as it is
        oldest = (
            spark.table("spark_windows.bench_events")
            .groupBy(F.col("_metadata.file_path").alias("path"))
            .agg(F.min("ingested_at").alias("first"), F.count("*").alias("rows"))
            .orderBy("first")
            .first()
        )
        Path(unquote(urlparse(oldest["path"]).path)).unlink()
        spark.sql("refresh table spark_windows.bench_events")
        removed_rows = oldest["rows"]
        land(landed)
        removal.append(timed([]))
        for run in range(landed + 1, landed + args.runs + 1):
            land(run)
            removed.append(timed([]))
    model = models[0]
    windows = spark.sql(f"select count(*) from spark_windows.{model}").collect()[0][0]
    # with emit_policy final the model's table holds the closed windows; the rows of the open
    # ones are in the folder of the last commit's open rows (sessions), or in the input
    kept = "0"
    if args.emit_policy == "final" and args.session:
        last = spark.sql(f"select max(batch_id) from spark_windows.{model}__state").first()[0]
        kept = f"(select count(*) from parquet.`{folders[model]}/_sw_open_{last % 2}` where __sw_closed_end is null)"
    elif args.emit_policy == "final":
        # the rows whose minute (plus the 10 minutes of allowed lateness) the watermark has not passed
        kept = (
            "(select count(*) from spark_windows.bench_events where unix_micros(ts) - pmod(unix_micros(ts), 60000000)"
            f" + 660000000 > (select unix_micros(max(watermark)) from spark_windows.{model}__state))"
        )
    counted = None
    if args.by_file:
        # every row read once: counted in one window, kept as late, or (final) in an open window
        counted = spark.sql(
            "select (select count(*) from spark_windows.bench_events), "
            f"(select sum(readings) from spark_windows.{model}) + (select count(*) from spark_windows.{model}__late) + {kept}"
        ).collect()[0]
    elif len(models) > 1:
        # both read every row once: each row counted in one window, or kept as late
        counted = spark.sql(
            "select (select count(*) from spark_windows.bench_events), "
            f"(select sum(readings) from spark_windows.{model}) + (select count(*) from spark_windows.{model}__late), "
            f"(select sum(readings) from spark_windows.{models[1]})"
            if models[1] == "bench_vehicles_dbt_incremental"
            else "select (select count(*) from spark_windows.bench_events), "
            f"(select sum(readings) from spark_windows.{model}) + (select count(*) from spark_windows.{model}__late)"
        ).collect()[0]
    differ = None
    if STREAMING_PEERS["update"] in models:
        # the update peer's table holds every window: the rows it counted, and its rows against
        # the model's (rows in one and not in the other, each way)
        ours = f"select k, window_start, window_end, readings, vehicles from spark_windows.{model}"
        theirs = (
            f"select k, window_start, window_end, readings, vehicles from spark_windows.{STREAMING_PEERS['update']}"
        )
        counted = [
            *counted,
            spark.sql(f"select sum(readings) from spark_windows.{STREAMING_PEERS['update']}").first()[0],
        ]
        differ = [
            spark.sql(f"select count(*) from (({ours}) except all ({theirs}))").first()[0],
            spark.sql(f"select count(*) from (({theirs}) except all ({ours}))").first()[0],
        ]
    if STREAMING_PEERS["append"] in models and args.emit_policy == "final":
        differ = final_windows_differ(spark, model, folders[STREAMING_PEERS["append"]], args)
    table_bytes = folder_bytes(folders[model])
    return {
        "events": events,
        "days": days,
        "batch": batch,
        "windows": windows,
        "counted": counted,
        "differ": differ,
        "table_bytes": table_bytes,
        "full": full,
        "increments": increments,
        "compaction": compaction,
        "compacted": compacted,
        "statements": run_statements,
        "removal": removal,
        "removed": removed,
        "removed_rows": removed_rows,
        "floor": commit_floor(spark, batch) if args.floor else None,
    }


def final_windows_differ(spark, model: str, peer_folder: Path, args) -> list[int]:
    """--emit-policy final beside the append peer: both write each window once, when it closes.
    The peer closes a window once its watermark passes the end and drops later rows; the model
    once its watermark passes the end plus allowed_lateness (10 minutes), keeping later rows in
    __late. Compared where both hold a window: [the model's final windows, the peer's, held by
    both with the same values, held by both with other values, the model's not in the peer's]."""
    start, end = ("session_window.start", "session_window.end") if args.session else ("window.start", "window.end")
    spark.read.parquet(str(peer_folder / "windows")).selectExpr(
        "k", f"{start} as window_start", f"{end} as window_end", "readings", "vehicles"
    ).createOrReplaceTempView("__bench_peer_final")
    return list(
        spark.sql(f"""
        select
            (select count(*) from spark_windows.{model}),
            (select count(*) from __bench_peer_final),
            count_if(ours.readings = theirs.readings and ours.vehicles <=> theirs.vehicles),
            count_if(not (ours.readings = theirs.readings and ours.vehicles <=> theirs.vehicles)),
            (select count(*) from spark_windows.{model} as o left anti join __bench_peer_final as t
                on o.k = t.k and o.window_start = t.window_start and o.window_end = t.window_end)
        from spark_windows.{model} as ours
        join __bench_peer_final as theirs
            on ours.k = theirs.k and ours.window_start = theirs.window_start and ours.window_end = theirs.window_end
        """).first()
    )


def incremental_cluster(args) -> int:
    """--incremental --target cluster: the same models and the same stream of events as
    --incremental, on the `cluster` target (a Spark cluster behind a Thrift server; start the
    local one with scripts/cluster.sh start), where every statement is a round trip. The events are
    made by SQL on the cluster; dbt runs in this process. Times a full refresh, then --runs runs
    that each land --new-rows rows, each model in turn (the tumbling model beside dbt's own
    incremental model of the same counts); prints the medians of the model's execution time as
    dbt reports it, their ratio, and the statements dbt sent for each model's last run (dbt's own
    included)."""
    from dbt.adapters.spark.connections import SparkConnectionManager
    from pyhive import hive

    from dev.dbt_harness import configure_environment, run_dbt

    host = os.environ.get("SPARK_WINDOWS_THRIFT_HOST", "127.0.0.1")
    port = int(os.environ.get("SPARK_WINDOWS_THRIFT_PORT", "10000"))
    try:
        connection = hive.connect(host=host, port=port, username="bench")
    except Exception as error:  # noqa: BLE001 (PyHive raises Thrift's transport errors)
        print(f"bench: no Thrift server answers on {host}:{port} ({error}); start one with scripts/cluster.sh start")
        return 2
    cursor = connection.cursor()

    def sql(text: str) -> list:
        cursor.execute(text)
        return cursor.fetchall() if cursor.description else []

    configure_environment(args.state_dir / "cluster", "cluster")
    models = (
        ["bench_sessions_incremental"]
        if args.session
        else ["bench_vehicles_incremental", "bench_vehicles_dbt_incremental"]
    )
    events = args.events[0]
    span_us, start_us = int(args.days * 86_400_000_000), 1_704_067_200_000_000
    batch = args.new_rows or events // 100
    step = span_us // events
    key = f"cast(rand(5) * {args.keys} as int)" if args.session else f"id % {args.keys}"

    def rows(first: int, count: int) -> str:
        """As --incremental's: events first .. first+count-1, each arriving 0-120 s after it happened."""
        return (
            f"select k, ts, v, ts + make_dt_interval(0, 0, 0, rand(17) * 120) as ingested_at from ("
            f"select cast({key} as string) as k, timestamp_micros({start_us} + id * {step} + cast(rand(7) * {step} as bigint)) as ts, "
            f"case when rand(11) < 0.01 then null else cast(rand(13) * 100 as int) end as v from range({first}, {first + count})) as e"
        )

    sql("create database if not exists spark_windows")
    sql("drop table if exists spark_windows.bench_events")
    # files of about 100,000 rows in arrival order, as --incremental writes them
    sql(
        f"create table spark_windows.bench_events using parquet as select /*+ REPARTITION_BY_RANGE({max(1, events // 100_000)}, "
        f"ingested_at) */ * from ({rows(0, events)}) as h sort by ingested_at"
    )
    variables = json.dumps({"spark_windows_bench": True, "spark_windows_bench_source": "spark_windows.bench_events"})
    sent: list[str] = []
    original = SparkConnectionManager.add_query

    def add_query(manager, text, *rest, **kwargs):
        sent.append(statement_label(text))
        return original(manager, text, *rest, **kwargs)

    SparkConnectionManager.add_query = add_query
    last = {}

    def timed(extra: list[str]) -> dict:
        times = {}
        for name in models:
            sent.clear()
            result = run_dbt(["run", "--select", name, "--vars", variables, *extra])
            times[name] = result.result.results[0].execution_time
            last[name] = list(sent)
        return times

    try:
        full = timed(["--full-refresh"])
        increments = []
        for run in range(args.runs):
            # a landing stamps rows not after the newest ingestion time just after it, as --incremental's
            sql(
                "insert into spark_windows.bench_events select /*+ COALESCE(1) */ k, ts, v, greatest(ingested_at, "
                f"(select max(ingested_at) from spark_windows.bench_events) + interval 1 microsecond) from ({rows(events + run * batch, batch)}) as n "
                "sort by ingested_at"
            )
            increments.append(timed([]))
    finally:
        SparkConnectionManager.add_query = original
    print(
        f"\nwindowed_incremental on the cluster target ({host}:{port}): {events:,} events of history, {args.keys:,} keys, "
        f"{args.days} day(s), {batch:,} new rows per run; median of {args.runs} runs after a full refresh; model time "
        "as dbt reports it; statements: all that dbt sent for the model's last run, its own included"
    )
    print("| model | full refresh s | run s (median) | runs s | statements |\n|---|---:|---:|---|---:|")
    medians = {}
    for name in models:
        values = [run[name] for run in increments]
        medians[name] = statistics.median(values)
        runs = ", ".join(f"{value:.2f}" for value in values)
        print(f"| {name} | {full[name]:.2f} | {medians[name]:.2f} | {runs} | {len(last[name])} |")
    if len(models) > 1:
        print(f"\nratio: {medians[models[0]] / medians[models[1]]:.2f} x {models[1]}")
    for name in models:
        print(f"\nthe statements of {name}'s last run:")
        for label in last[name]:
            print(f"- `{label}`")
    connection.close()
    return 0


FLOOR_ROUNDS = 10  # --floor: timed rounds, after two warm-ups


def commit_floor(spark, batch: int) -> dict:
    """--floor: the least that a run which writes once and commits by metadata must do, with no
    window semantics, timed beside the statement of dbt's insert_overwrite, in this session on
    the event table as the runs left it. Each recomputes the counts per key and minute of every
    hour that the newest `batch` rows (by ingestion time) touch, from all the rows of those
    hours, as models/bench/bench_vehicles_dbt_incremental.sql does. `insert overwrite`: one
    statement into a table partitioned by hour (dynamic partition overwrite). `write once`, two
    ways: the state read, the new partitions written into a folder of the run's own (`create
    table ... location ... as`, or an insert into a run's partition of one staging table), the
    partitions listed, one commit row inserted, the table's partitions dropped and added at
    their new folders, and the staging table (or its run's partition) dropped. Returns
    {way: [{step: s}] per round} and the rows in which the three tables differ at the end."""
    schema = spark.sql("describe schema extended spark_windows").where("info_name = 'Location'").first()[1]
    tables = ["floor_peer", "floor_target", "floor_target_b", "floor_state", "floor_staging"]
    for table in tables:
        spark.sql(f"drop table if exists spark_windows.{table}")
        shutil.rmtree(Path(schema.removeprefix("file:")) / table, ignore_errors=True)
    cut = spark.sql(
        f"select min(ingested_at) from (select ingested_at from spark_windows.bench_events "
        f"order by ingested_at desc limit {batch})"
    ).first()[0]

    def counts(new_rows: str) -> str:
        return f"""
            with touched_hours as (
                select distinct date_trunc('hour', ts) as window_partition
                from spark_windows.bench_events where {new_rows}
            )
            select k, date_trunc('minute', ts) as window_start,
                date_trunc('minute', ts) + interval 1 minute as window_end,
                count(*) as readings, sum(v) as vehicles, date_trunc('hour', ts) as window_partition
            from spark_windows.bench_events
            where date_trunc('hour', ts) in (select window_partition from touched_hours)
            group by k, date_trunc('minute', ts), date_trunc('hour', ts)"""

    run = counts(f"ingested_at >= timestamp_micros({int(cut.timestamp() * 1_000_000)})")
    for table in tables[:3]:
        spark.sql(
            f"create table spark_windows.{table} using parquet partitioned by (window_partition) as {counts('true')}"
        )
    spark.sql("create table spark_windows.floor_state (batch_id bigint, partitions string) using parquet")
    spark.sql(
        "create table spark_windows.floor_staging (k string, window_start timestamp, window_end timestamp, "
        "readings bigint, vehicles bigint, run_id bigint, window_partition timestamp) using parquet "
        f"partitioned by (run_id, window_partition) location '{schema}/floor_staging'"
    )

    def timed(steps: dict, step: str, sql: str):
        started = time.perf_counter()
        rows = spark.sql(sql).collect()
        steps[step] = steps.get(step, 0.0) + time.perf_counter() - started
        return rows

    def insert_overwrite(_: int) -> dict:
        steps = {}
        timed(steps, "set", "set spark.sql.sources.partitionOverwriteMode = DYNAMIC")
        timed(
            steps,
            "insert overwrite",
            f"insert overwrite table spark_windows.floor_peer partition (window_partition) {run}",
        )
        timed(steps, "set", "set spark.sql.sources.partitionOverwriteMode = STATIC")
        return steps

    def repoint(steps: dict, table: str, run_id: int, listed: list, folder: str) -> None:
        """commit row, then the table's partitions at the run's folders"""
        specs = [part.split("/")[-1].split("=", 1) for part in listed]
        timed(steps, "commit row", f"insert into spark_windows.floor_state values ({run_id}, '{','.join(listed)}')")
        clauses = [
            (f"partition (window_partition = '{unquote(value)}')", f"{folder}/{key}={value}") for key, value in specs
        ]
        timed(
            steps,
            "drop partitions",
            f"alter table spark_windows.{table} drop if exists " + ", ".join(c for c, _ in clauses),
        )
        timed(
            steps,
            "add partitions",
            f"alter table spark_windows.{table} add " + " ".join(f"{c} location '{f}'" for c, f in clauses),
        )

    def write_once_ctas(run_id: int) -> dict:
        steps = {}
        timed(steps, "state read", "select max(batch_id) from spark_windows.floor_state")
        folder, pending = f"{schema}/floor_target/run-{run_id}", f"spark_windows.floor_pending_{run_id}"
        timed(
            steps,
            "stage",
            f"create table {pending} using parquet partitioned by (window_partition) location '{folder}' as {run}",
        )
        listed = [row[0] for row in timed(steps, "list partitions", f"show partitions {pending}")]
        repoint(steps, "floor_target", run_id, listed, folder)
        timed(steps, "drop staging", f"drop table {pending}")
        return steps

    def write_once_insert(run_id: int) -> dict:
        steps = {}
        timed(steps, "state read", "select max(batch_id) from spark_windows.floor_state")
        timed(
            steps,
            "stage",
            f"insert into spark_windows.floor_staging partition (run_id = {run_id}, window_partition) "
            f"select k, window_start, window_end, readings, vehicles, window_partition from ({run})",
        )
        partition = f"partition (run_id = {run_id})"
        listed = [
            row[0]
            for row in timed(steps, "list partitions", f"show partitions spark_windows.floor_staging {partition}")
        ]
        repoint(steps, "floor_target_b", run_id, listed, f"{schema}/floor_staging/run_id={run_id}")
        # the staging table is external: dropping its run's partition keeps the files
        timed(steps, "drop staging", f"alter table spark_windows.floor_staging drop {partition}")
        return steps

    ways = {
        "insert overwrite": insert_overwrite,
        "write once (create table as)": write_once_ctas,
        "write once (insert into a staging table)": write_once_insert,
    }
    rounds = {way: [] for way in ways}
    for run_id in range(1, FLOOR_ROUNDS + 3):
        for way, step in ways.items():
            steps = step(run_id)
            if run_id > 2:
                rounds[way].append(steps)
    differ = [
        spark.sql(
            f"select count(*) from ((select * from spark_windows.{a} except all select * from spark_windows.{b}) "
            f"union all (select * from spark_windows.{b} except all select * from spark_windows.{a}))"
        ).first()[0]
        for a, b in (("floor_peer", "floor_target"), ("floor_peer", "floor_target_b"))
    ]
    partitions = spark.sql("select partitions from spark_windows.floor_state order by batch_id desc limit 1").first()[0]
    return {"rounds": rounds, "differ": differ, "partitions": len(partitions.split(","))}


def report_floor(batch: int, floor: dict) -> None:
    rounds = floor["rounds"]
    base = statistics.median(sum(steps.values()) for steps in rounds["insert overwrite"])
    print(
        f"\nthe least a run that writes once and commits by metadata does (--floor), beside dbt's insert overwrite: "
        f"the counts per key and minute of the {floor['partitions']} hour(s) that the newest {batch:,} rows touch, "
        f"median of {FLOOR_ROUNDS} rounds after two warm-ups, each way in turn; Spark statements only (dbt's own "
        f"statements left out); tables differing from the insert overwrite's at the end by {floor['differ']} rows"
    )
    steps = list(dict.fromkeys(step for way in rounds.values() for step in way[0]))
    print("| way | " + " | ".join(steps) + " | all s | × insert overwrite |\n|---|" + "---:|" * (len(steps) + 2))
    for way, values in rounds.items():
        cells = [f"{statistics.median(v[step] for v in values):.3f}" if step in values[0] else "" for step in steps]
        total = statistics.median(sum(v.values()) for v in values)
        print(f"| {way} | " + " | ".join(cells) + f" | {total:.2f} | {total / base:.2f} |")


def fill_state(spark, model: str, runs: int) -> None:
    """--state-runs: the model's state table as after `runs` committed runs, one file each:
    commit rows 2 .. runs, copies of the first but for batch_id and empty arrival counts (the
    counts of the rows processed still add up), each written by an insert of its own."""
    state = f"spark_windows.{model}__state"
    columns = [field.name for field in spark.table(state).schema]
    for batch_id in range(2, runs + 1):
        values = {"batch_id": f"cast({batch_id} as bigint)", "arrival_counts": "'{}'"}
        select = ", ".join(values.get(column, column) for column in columns)
        spark.sql(f"insert into {state} select {select} from {state} where batch_id = 1")


# --streaming's peers by output mode
STREAMING_PEERS = {"append": "structured_streaming", "update": "structured_streaming_update"}


def streaming_run(spark, args, source_folder: Path, folder: Path, fresh: bool, mode: str = "append") -> None:
    """One scheduled run of a Structured Streaming peer (--streaming): the new files of the
    event table's folder, through a windowed aggregation with a watermark, trigger availableNow.
    `append`: into Parquet files in `folder`, the windows the watermark closed, each written once.
    `update`: each micro-batch's updated windows merged into the hours they fall in, as the model
    rewrites its partitions: foreachBatch, an insert overwrite (dynamic partition overwrite) of the
    table `folder` names, partitioned by hour, of the updated windows and the hours' other
    windows; its checkpoint beside the table's folder. `fresh`: a new checkpoint and output, so
    the run reads the whole history (the peer's full refresh)."""
    from pyspark.sql import functions as F

    checkpoint = folder / "checkpoint" if mode == "append" else folder.with_name(folder.name + "__checkpoint")
    table = f"spark_windows.{folder.name}"
    if fresh:
        if mode == "update":
            spark.sql(f"drop table if exists {table}")
        for path in (folder, checkpoint):
            if path.exists():
                shutil.rmtree(path)
    spark.conf.set(
        "spark.sql.streaming.stateStore.providerClass",
        "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
    )
    schema = spark.table("spark_windows.bench_events").schema
    events = spark.readStream.schema(schema).parquet(str(source_folder)).withWatermark("ts", "5 minutes")
    window = F.session_window("ts", "2 minutes") if args.session else F.window("ts", "1 minute")
    counts = events.groupBy(window, "k").agg(F.count("*").alias("readings"), F.sum("v").alias("vehicles"))
    if mode == "append":
        writer = counts.writeStream.format("parquet").option("path", str(folder / "windows")).outputMode("append")
    else:

        def merge(batch, _batch_id):
            updated = batch.select(
                "k",
                F.col("window.start").alias("window_start"),
                F.col("window.end").alias("window_end"),
                "readings",
                "vehicles",
                F.date_trunc("hour", "window.start").alias("window_partition"),
            ).persist()
            session = batch.sparkSession
            if not session.catalog.tableExists(table):
                updated.write.format("parquet").partitionBy("window_partition").saveAsTable(table)
            else:
                # the hours as literals, so that the read of the stored windows skips the others
                hours = [row[0] for row in updated.selectExpr("unix_micros(window_partition)").distinct().collect()]
                if hours:
                    updated.createOrReplaceTempView("__peer_updated")
                    listed = ", ".join(f"timestamp_micros({hour})" for hour in hours)
                    session.conf.set("spark.sql.sources.partitionOverwriteMode", "DYNAMIC")
                    session.sql(f"""
                        insert overwrite table {table} partition (window_partition)
                        select * from __peer_updated
                        union all
                        select stored.* from {table} as stored
                        left anti join __peer_updated as updated
                            on stored.k = updated.k and stored.window_start = updated.window_start
                        where stored.window_partition in ({listed})""")
                    session.conf.set("spark.sql.sources.partitionOverwriteMode", "STATIC")
            updated.unpersist()

        writer = counts.writeStream.foreachBatch(merge).outputMode("update")
    query = writer.option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start()
    query.awaitTermination()


def _median(values, name, index):
    found = [value[name][index] for value in values]
    return None if None in found else statistics.median(found)


def _jobs(values, name) -> str:
    jobs = _median(values, name, 2)
    return "—" if jobs is None else f"{jobs:.0f}"


def report_incremental_size(args, model: str, models: list[str], size: dict) -> None:
    full, increments, batch = size["full"], size["increments"], size["batch"]
    if size["counted"] is not None:
        removed = f" (the input less the {size['removed_rows']:,} rows --retention removed)" if size["removal"] else ""
        print(
            f"\nrows in the input{removed}, counted by {model} (with its late rows), by the peer: {list(size['counted'])}"
        )
    if size["differ"] is not None and args.emit_policy == "final":
        print(
            f"final windows of {model}, of {STREAMING_PEERS['append']}, held by both with the same values, with other "
            f"values, of {model} not in {STREAMING_PEERS['append']}'s: {size['differ']}"
        )
    elif size["differ"] is not None:
        print(
            f"windows of {model} not in {STREAMING_PEERS['update']}'s table, and of that table not in {model}'s: "
            f"{size['differ']}"
        )
    refreshes = "one timed full refresh" if len(full) == 1 else f"median of {len(full)} full refreshes"
    warm = " after one warm-up" if args.refresh_runs is None else ""
    print(
        f"\nwindowed_incremental, {'session gap 2 minutes' if args.session else 'tumble 1 minute'}: "
        f"{size['events']:,} events of history, {args.keys:,} keys, "
        f"{size['days']:g} day(s), {batch:,} new rows per incremental run ({size['windows']:,} windows at the end, "
        f"its table {size['table_bytes'] / 1e6:,.1f} MB); local[2], driver memory {args.driver_memory}; "
        f"{refreshes}{warm}, median of {len(increments)} incremental runs"
    )
    print(
        "| model | run | model s (median) | runs | dbt invocation s (median) | Spark jobs | MB written "
        "| MB of its table files new |\n|---|---|---:|---|---:|---:|---:|---:|"
    )
    for name in models:
        for run, values in (("full refresh", full), (f"{batch:,} new rows", increments)):
            runs = ", ".join(f"{value[name][0]:.2f}" for value in values)
            print(
                f"| {name} | {run} | {_median(values, name, 0):.2f} | {runs} | {_median(values, name, 1):.2f} "
                f"| {_jobs(values, name)} | {_median(values, name, 3) / 1e6:,.2f} "
                f"| {_median(values, name, 4) / 1e6:,.2f} |"
            )
    print(
        f"\nan incremental run of {model} costs {_median(increments, model, 0) / _median(full, model, 0):.1%} "
        f"of a full refresh (model time; {_median(increments, model, 1) / _median(full, model, 1):.1%} "
        "with dbt's start-up)"
    )
    if size["compaction"]:
        print(
            f"\n{model} with a state of {args.state_runs:,} committed runs, one file each (--state-runs), "
            "then one run that compacts it, then runs on the compacted state (model time):\n"
            "| state | model s (median) | runs | Spark jobs |\n|---|---:|---|---:|"
        )
        for label, values in (
            (f"{args.state_runs:,} files", increments),
            ("the run that compacts it", size["compaction"]),
            ("compacted (one file, then one per run)", size["compacted"]),
        ):
            runs = ", ".join(f"{value[model][0]:.2f}" for value in values)
            print(f"| {label} | {_median(values, model, 0):.2f} | {runs} | {_jobs(values, model)} |")
    for name, statements in size["statements"].items():
        print(
            f"\nthe statements of {name}'s last run of {batch:,} new rows (--statements; execute: Spark parses and "
            "analyses it and runs a command; fetch: a query's jobs run as dbt reads its rows; dbt's own statements "
            "included, the first of them before the model starts):\n"
            "| statement | execute s | fetch s | Spark jobs |\n|---|---:|---:|---:|"
        )
        for label, execute, fetch, jobs in statements:
            print(f"| `{label}` | {execute:.3f} | {fetch:.3f} | {jobs} |")
        print(
            f"| {len(statements)} statements | {sum(row[1] for row in statements):.2f} "
            f"| {sum(row[2] for row in statements):.2f} | {sum(row[3] for row in statements)} |"
        )
    if size["removal"]:
        print(
            f"\n{model} after a retention job removed the input's oldest file ({size['removed_rows']:,} rows; "
            "--retention), model time:\n| runs | model s (median) | runs | Spark jobs |\n|---|---:|---|---:|"
        )
        for label, values in (
            ("before the removal", increments),
            ("the first run after it", size["removal"]),
            ("the runs after that one", size["removed"]),
        ):
            runs = ", ".join(f"{value[model][0]:.2f}" for value in values)
            print(f"| {label} | {_median(values, model, 0):.2f} | {runs} | {_jobs(values, model)} |")
    if size["floor"]:
        report_floor(batch, size["floor"])
    for peer in models[1:]:
        print(
            f"{model} / {peer}, {batch:,} new rows: "
            f"{_median(increments, model, 0) / _median(increments, peer, 0):.2f} x "
            f"(model time; {_median(increments, model, 1) / _median(increments, peer, 1):.2f} x with dbt's start-up)"
        )


def report_incremental_growth(model: str, models: list[str], sizes: list[dict]) -> None:
    """How an incremental run's model time grows with the history, from the first size."""
    first = sizes[0]
    print("\nan incremental run as the history grows (model time, median):")
    print(
        "| model | events of history | days | run s | × the first size | run / full refresh |\n"
        "|---|---:|---:|---:|---:|---:|"
    )
    for name in models:
        base = _median(first["increments"], name, 0)
        for size in sizes:
            run = _median(size["increments"], name, 0)
            full = _median(size["full"], name, 0)
            print(
                f"| {name} | {size['events']:,} | {size['days']:g} | {run:.2f} | {run / base:.2f} | {run / full:.1%} |"
            )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, nargs="+", default=[5_000_000], help="one or more sizes")
    parser.add_argument("--keys", type=int, nargs="+", default=[1_000], help="one or more key counts")
    parser.add_argument(
        "--order", nargs="+", choices=sorted(EVENT_TIMES), default=["random"], help="how event times lie in the files"
    )
    parser.add_argument("--key-type", nargs="+", choices=["string", "int"], default=["string"])
    parser.add_argument("--null-share", type=float, nargs="+", default=[0.01], help="share of NULL v and u values")
    parser.add_argument("--days", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3, help="timed runs per case (median)")
    parser.add_argument("--cases", nargs="*", help="only these cases (shell-style patterns: 'few_*')")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--shuffle-partitions", type=int, default=8)
    parser.add_argument("--driver-memory", default="4g")
    parser.add_argument("--state-dir", type=Path, default=PROJECT_DIR / ".spark_state" / "bench")
    parser.add_argument("--clean", action="store_true", help="regenerate the events")
    parser.add_argument(
        "--incremental", action="store_true", help="time the windowed_incremental model (each --events size)"
    )
    parser.add_argument("--session", action="store_true", help="with --incremental: the session model")
    parser.add_argument(
        "--by-file", action="store_true", help="with --incremental: new rows by input file (input_file_col)"
    )
    parser.add_argument(
        "--streaming",
        nargs="*",
        choices=sorted(STREAMING_PEERS),
        help="with --incremental: Spark's Structured Streaming beside it, in these output modes (default append)",
    )
    parser.add_argument(
        "--emit-policy",
        choices=["every_run", "on_watermark", "final"],
        default="every_run",
        help="with --incremental: the model's emit_policy (final: compared with --streaming append's windows)",
    )
    parser.add_argument(
        "--new-rows", type=int, help="with --incremental: rows each incremental run adds (default 1%% of the history)"
    )
    parser.add_argument(
        "--state-runs",
        type=int,
        help="with --incremental: first fill the model's state as after this many runs (one file each), then time "
        "runs on it, one run that compacts it, and runs on the compacted state",
    )
    parser.add_argument(
        "--statements",
        action="store_true",
        help="with --incremental: time each statement of the last incremental run of each model",
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="with --incremental: then time the least a run that writes once and commits by metadata does, beside "
        "dbt's insert overwrite of the same counts",
    )
    parser.add_argument(
        "--retention",
        action="store_true",
        help="with --incremental: then remove the oldest file of the input, as a retention job does, and time the "
        "runs after it",
    )
    parser.add_argument(
        "--same-rate",
        action="store_true",
        help="with --incremental and several --events sizes: each history spans --days x its size / the first size",
    )
    parser.add_argument(
        "--target",
        choices=["local", "cluster"],
        default="local",
        help="with --incremental: the dbt target (cluster: scripts/cluster.sh's Thrift server; the models and "
        "statements of the last runs only)",
    )
    parser.add_argument(
        "--iceberg",
        action="store_true",
        help="with --incremental: the model on Parquet, then on Iceberg tables (the iceberg target: scripts/iceberg.sh --python)",
    )
    parser.add_argument(
        "--refresh-runs",
        type=int,
        help="with --incremental: timed full refreshes per size, with no warm-up (default: --runs, after a warm-up)",
    )
    parser.add_argument(
        "--dbt", action="store_true", help="build each case as a dbt table model instead of writing to noop"
    )
    parser.add_argument(
        "--no-statistics",
        dest="statistics",
        action="store_false",
        help="with --dbt: leave the events table unanalyzed (window_aggregate then chooses without its row counts)",
    )
    parser.add_argument(
        "--csv", action="store_true", help="write CSV copies of the events for scripts/bench_flink.py; time nothing"
    )
    args = parser.parse_args(argv)
    if args.streaming == []:
        args.streaming = ["append"]
    if args.session and "update" in (args.streaming or []):
        parser.error("--streaming update: Structured Streaming has no update mode for session windows")
    if (args.incremental or args.csv) and len(shapes(args)) > 1:
        parser.error("--incremental and --csv take one shape: one value of --order, --key-type, --keys, --null-share")
    if args.csv and shape_slug(shapes(args)[0]):
        parser.error(
            "--csv writes the default shape only (random order, string keys, 1% NULLs): drop the shape options"
        )
    if args.incremental and shape_slug(shapes(args)[0]):
        parser.error("--incremental generates a stream of its own: --order, --key-type and --null-share do not apply")
    if args.incremental:
        args = shapes(args)[0]
        args.state_dir.mkdir(parents=True, exist_ok=True)
        if args.target == "cluster":
            return incremental_cluster(args)
        return incremental(args)
    if args.clean and args.state_dir.exists():
        shutil.rmtree(args.state_dir)
    args.state_dir.mkdir(parents=True, exist_ok=True)

    renderer = MacroRenderer()
    known = list(cases(renderer, "v"))
    names = [name for pattern in args.cases or ["*"] for name in known if fnmatch.fnmatchcase(name, pattern)]
    unknown = [pattern for pattern in args.cases or [] if not fnmatch.filter(known, pattern)]
    if unknown:
        parser.error(f"unknown cases {unknown}; known: {sorted(known)}")

    if args.dbt:
        return dbt_models(args, renderer, names)
    spark = spark_session(args)
    spark.sparkContext.setLogLevel("ERROR")
    if args.csv:
        args = shapes(args)[0]
        for events in args.events:
            print(
                f"CSV copies of {events:,} events: {write_csv_copies(spark, args, events, generate(spark, args, events))}"
            )
        spark.stop()
        return 0
    for shape in shapes(args):
        time_sizes(spark, shape, renderer, names)
    spark.stop()
    return 0


def time_sizes(spark, args, renderer: MacroRenderer, names: list[str]) -> None:
    """Every case on each --events size of one shape, to the noop sink; a table per size, and how
    each case grows from the first size."""
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
        report(spark, args, events, names, timings, medians)
    if len(args.events) > 1:
        first = args.events[0]
        print(f"\ngrowth from {first:,} events (median / median at {first:,})")
        print("| case | " + " | ".join(f"{n:,}" for n in args.events[1:]) + " |")
        print("|---|" + "---:|" * (len(args.events) - 1))
        for name in names:
            growth = [medians_by_size[n][name] / medians_by_size[first][name] for n in args.events[1:]]
            print(f"| {name} | " + " | ".join(f"{g:.2f}" for g in growth) + " |")


if __name__ == "__main__":
    sys.exit(main())
