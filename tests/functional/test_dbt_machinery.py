"""Slow tests: the macros inside dbt's own machinery, on the embedded Spark.

A throwaway project installs spark_windows as a package. Its input `clicks` holds 600 clicks
spread over the three days before today (UTC) and clicks on the batch edges (the last and the
first microsecond of a day); a later build adds a late click at 23:50 yesterday. Each window
call is written once (macros/click_windows.sql) and built twice: as a table model and as a
microbatch model (daily batches, event_time='window_start', partitioned by the window's day,
lookback 1), so the microbatch windows can be compared with the table's, row for row:

- the first microbatch run (four daily batches, from `begin` to today);
  the windows that start before `begin` are in no batch, and left out of the comparison;
- the next run after the late click arrived (lookback: yesterday's batch again, and today's);
- a single batch built again alone (--event-time-start/--event-time-end).

Also: every public macro under `dbt build --empty` (empty tables with the full build's columns)
and `--sample` (the windows of the sampled day, as the full build has them); the sessions,
count windows and firings a microbatch model refuses; and time columns of the wrong type:
refused at compile time where the column's type is known, failing the run where it is not.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import textwrap

import pytest
from compare import assert_same_rows

from dev.dbt_harness import PROJECT_DIR, DbtFailed, configure_environment, run_dbt

pytestmark = pytest.mark.slow

SCHEMA = os.environ.get("SPARK_WINDOWS_SCHEMA", "spark_windows") + "_dbt_machinery"
DAY_US = 86_400_000_000
TODAY = dt.datetime.now(dt.timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
DAY0 = TODAY - dt.timedelta(days=3)
DAY0_US = int(DAY0.timestamp()) * 1_000_000
WINDOWED = ["tumble", "hop", "cumulate", "calendar_window", "window_aggregate"]
OTHERS = ["session", "count_window", "window_top_n", "window_deduplicate", "window_firings", "kafka_records"]

CLICKS = """
{{ config(event_time='event_ts') }}
-- 600 clicks of 7 users over three days, plus clicks on the batch edges, plus (later) a late one
select
    concat('u', cast(id % 7 as string)) as user_id,
    timestamp_micros({{ var('day0_us') }} + (id * 7919 % 259200) * 1000000 + id % 1000) as event_ts,
    id % 13 as amount
from range(600)
union all
select * from values
    ('edge', timestamp_micros({{ var('day0_us') }} + 86400000000 - 1), 100),
    ('edge', timestamp_micros({{ var('day0_us') }} + 86400000000), 200),
    ('edge', timestamp_micros({{ var('day0_us') }} + 2 * 86400000000 - 1), 300)
    {%- if var('with_late') %},
    ('late', timestamp_micros({{ var('day0_us') }} + 3 * 86400000000 - 600000000), 400)
    {%- endif %}
    as edges (user_id, event_ts, amount)
"""

CLICK_WINDOWS = """
{#- One window call per name, the same text in the table model and the microbatch model. -#}
{% macro click_windows(name) %}
{%- if name == 'tumble' %}
select user_id, window_start, window_end, count(*) as clicks, sum(amount) as amount, to_date(window_start) as window_day
from {{ spark_windows.tumble(ref('clicks'), 'event_ts', '1 hour') }}
group by user_id, window_start, window_end
{%- elif name == 'hop' %}
select window_start, window_end, count(distinct user_id) as users, count(*) as clicks, to_date(window_start) as window_day
from {{ spark_windows.hop(ref('clicks'), 'event_ts', '5 minutes', '1 hour') }}
group by window_start, window_end
{%- elif name == 'cumulate' %}
select user_id, window_start, window_end, count(*) as clicks, max(amount) as top, to_date(window_start) as window_day
from {{ spark_windows.cumulate(ref('clicks'), 'event_ts', '1 hour', '6 hours', '-2 hours') }}
group by user_id, window_start, window_end
{%- elif name == 'calendar_window' %}
select window_date, window_start, window_end, count(*) as clicks, to_date(window_start) as window_day
from {{ spark_windows.calendar_window(ref('clicks'), 'event_ts', 'day', 'America/New_York') }}
group by window_date, window_start, window_end
{%- elif name == 'window_aggregate' %}
select *, to_date(window_start) as window_day
from {{ spark_windows.window_aggregate(ref('clicks'), 'event_ts', {'type': 'hop', 'slide': '10 minutes', 'size': '30 minutes'},
    ['user_id'], {'clicks': 'count(*)', 'amount': 'sum(amount)', 'users': 'count(distinct user_id)'}) }}
{%- elif name == 'session' %}
select user_id, window_start, window_end, count(*) as clicks
from {{ spark_windows.session(ref('clicks'), 'event_ts', '30 minutes', ['user_id']) }}
group by user_id, window_start, window_end
{%- elif name == 'count_window' %}
select * from {{ spark_windows.count_window(ref('clicks'), ['event_ts'], 10, partition_by=['user_id']) }}
{%- elif name == 'window_top_n' %}
select * from {{ spark_windows.window_top_n(ref('tb_tumble'), [], ['clicks desc', 'user_id'], 2) }}
{%- elif name == 'window_deduplicate' %}
select * from {{ spark_windows.window_deduplicate(ref('tb_tumble'), ['user_id'], ['amount'], 'last') }}
{%- elif name == 'window_firings' %}
select * from {{ spark_windows.window_firings(ref('clicks'), 'event_ts', {'type': 'tumble', 'size': '1 hour'},
    ['user_id'], {'clicks': 'count(*)'}, trigger={'every_rows': 5}) }}
{%- elif name == 'kafka_records' %}
select * from {{ spark_windows.kafka_records(ref('landed'), 'user_id string, amount int') }}
{%- endif %}
{% endmacro %}
"""

LANDED = """
{{ config(event_time='timestamp') }}
-- clicks as Kafka records (Spark's Kafka source schema), one per click
select
    cast(null as binary) as key,
    cast(to_json(named_struct('user_id', user_id, 'amount', amount)) as binary) as value,
    'clicks' as topic,
    0 as partition,
    row_number() over (order by event_ts, user_id) as offset,
    event_ts as timestamp,
    0 as timestampType
from {{ ref('clicks') }}
"""

MICROBATCH_CONFIG = (
    "{{ config(materialized='incremental', incremental_strategy='microbatch', event_time='window_start', "
    "batch_size='day', begin=var('day0'), lookback=1, partition_by=['window_day'], tags=['microbatch']) }}"
)

# time columns of the wrong type: a string column the macro can look up, and CTEs it cannot
TYPED = """
select user_id, cast(event_ts as string) as event_label, to_date(event_ts) as event_day, amount
from {{ ref('clicks') }}
"""
TYPE_CASES = {
    "string_of_a_ref": "select * from {{ spark_windows.tumble(ref('clicks_typed'), 'event_label', '1 hour') }}",
    "date_of_a_ref": """
        select window_start, window_end, count(*) as clicks
        from {{ spark_windows.tumble(ref('clicks_typed'), 'event_day', '1 day') }}
        group by window_start, window_end""",
    "bad_value_of_a_cte": """
        with labelled as (select * from values ('2024-11-02 10:00:00'), ('n/a') as t (label))
        select * from {{ spark_windows.tumble('labelled', 'label', '1 hour') }}""",
    "decimal_of_a_cte": """
        with priced as (select 1.5bd as price)
        select * from {{ spark_windows.session('priced', 'price', '30 minutes') }}""",
}
REFUSED = {
    "session": "session: cannot run in a microbatch model (incremental_strategy='microbatch'): a session lasts as long",
    "count_window": "count_window: cannot run in a microbatch model (incremental_strategy='microbatch'): a row's number",
    "window_firings": "window_firings: cannot run in a microbatch model (incremental_strategy='microbatch'): its firings",
}


def write_project(root) -> None:
    (root / "models").mkdir()
    (root / "macros").mkdir()
    (root / "dbt_project.yml").write_text(
        textwrap.dedent(f"""
        name: dbt_machinery
        version: "0.1.0"
        config-version: 2
        profile: spark_windows
        model-paths: ["models"]
        macro-paths: ["macros"]
        vars:
          day0: "{DAY0:%Y-%m-%d}"
          day0_us: {DAY0_US}
          with_late: false
        models:
          dbt_machinery:
            +schema: dbt_machinery
            +materialized: table
            +file_format: parquet
        """)
    )
    (root / "packages.yml").write_text(f"packages:\n  - local: {PROJECT_DIR}\n")
    (root / "macros" / "click_windows.sql").write_text(CLICK_WINDOWS)
    models = root / "models"
    (models / "clicks.sql").write_text(CLICKS)
    (models / "clicks_typed.sql").write_text(TYPED)
    (models / "landed.sql").write_text(LANDED)
    for name in WINDOWED + OTHERS:
        (models / f"tb_{name}.sql").write_text(
            f"{{{{ config(tags=['every_macro']) }}}}\n{{{{ click_windows('{name}') }}}}\n"
        )
    for name in WINDOWED:
        (models / f"mb_{name}.sql").write_text(f"{MICROBATCH_CONFIG}\n{{{{ click_windows('{name}') }}}}\n")
    for name in REFUSED:
        (models / f"mb_refused_{name}.sql").write_text(
            MICROBATCH_CONFIG.replace("'microbatch']", "'refused']") + f"\n{{{{ click_windows('{name}') }}}}\n"
        )
    for name, sql in TYPE_CASES.items():
        (models / f"type_{name}.sql").write_text(f"{{{{ config(tags=['types']) }}}}\n{textwrap.dedent(sql)}\n")


@pytest.fixture(scope="module")
def project(tmp_path_factory, dbt_target) -> dict:
    """Runs every step once, in order, and keeps what each step built or said."""
    if dbt_target != "local":
        pytest.skip("builds a throwaway project on Spark embedded in dbt")
    root = tmp_path_factory.mktemp("dbt_machinery")
    configure_environment(root / "state", dbt_target)
    write_project(root)
    from pyspark.sql import SparkSession

    def spark():
        return SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()

    def table(name: str) -> tuple[list[str], list[tuple]]:
        frame = spark().table(f"{SCHEMA}.{name}")
        columns = [field.name for field in frame.schema.fields]
        texts = [
            f"date_format(`{field.name}`, 'yyyy-MM-dd HH:mm:ss.SSSSSS')"
            if field.dataType.simpleString() == "timestamp"
            else f"cast(`{field.name}` as string)"
            for field in frame.schema.fields
        ]
        rows = spark().sql(f"select {', '.join(texts)} from {SCHEMA}.{name}").collect()
        return columns, [tuple(row) for row in rows]

    def dbt(args: list[str], expect_pass: bool = True) -> str:
        shown: list[str] = []
        result = run_dbt(args, expect_pass, root, [lambda event: shown.append(str(event.info.msg))])
        return "\n".join([str(result.exception), *shown])

    def tables(prefix: str, names: list[str]) -> dict:
        return {name: table(f"{prefix}_{name}") for name in names}

    late = ["--vars", json.dumps({"with_late": True})]
    found: dict = {}
    dbt(["deps"])
    dbt(["run", "--select", "clicks", "clicks_typed", "landed"])
    dbt(["build", "--empty", "--select", "tag:every_macro"])
    found["empty"] = tables("tb", WINDOWED + OTHERS)
    sample = {"start": f"{DAY0 + dt.timedelta(days=1):%Y-%m-%d}", "end": f"{DAY0 + dt.timedelta(days=2):%Y-%m-%d}"}
    dbt(["run", "--select", "tag:every_macro", "--sample", json.dumps(sample)])
    found["sample"] = tables("tb", WINDOWED + OTHERS)
    dbt(["run", "--select", "tag:every_macro"])
    found["table"] = tables("tb", WINDOWED + OTHERS)
    # --full-refresh: in a test session that started Spark before this module, the metastore is the
    # session's own and may hold the microbatch tables of an earlier day's run (other batches)
    dbt(["run", "--select", "tag:microbatch", "--full-refresh"])
    found["microbatch"] = tables("mb", WINDOWED)
    dbt(["run", "--select", "clicks", "tag:every_macro", *late])
    found["table_late"] = tables("tb", WINDOWED)
    found["lookback_log"] = dbt(["run", "--select", "tag:microbatch", *late])
    found["microbatch_late"] = tables("mb", WINDOWED)
    rerun = ["--event-time-start", sample["start"], "--event-time-end", sample["end"]]
    found["rerun_log"] = dbt(["run", "--select", "tag:microbatch", *rerun, *late])
    found["microbatch_rerun"] = tables("mb", WINDOWED)
    found["refused"] = {name: dbt(["run", "--select", f"mb_refused_{name}"], expect_pass=False) for name in REFUSED}
    found["types"] = {}
    for name in TYPE_CASES:
        try:
            found["types"][name] = dbt(["run", "--select", f"type_{name}"])
            found["types"][name + ":rows"] = table(f"type_{name}")
        except DbtFailed:
            found["types"][name] = dbt(["run", "--select", f"type_{name}"], expect_pass=False)
    return found


def iso(moment: dt.datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M:%S}.000000"


@pytest.mark.parametrize("name", WINDOWED + OTHERS)
def test_every_macro_builds_empty_under_dbt_build_empty(project, name):
    columns, rows = project["empty"][name]
    assert rows == []
    assert columns == project["table"][name][0]


@pytest.mark.parametrize("name", WINDOWED + OTHERS)
def test_every_macro_builds_under_sample_with_the_windows_of_the_sampled_rows(project, name):
    columns, rows = project["sample"][name]
    assert columns == project["table"][name][0]
    assert rows, f"{name}: nothing built from the sampled day"


def test_under_sample_the_windows_inside_the_sampled_day_are_the_full_builds(project):
    """Hours do not cross days: the sampled day's hourly windows are whole, the others absent."""
    day_start, day_end = iso(DAY0 + dt.timedelta(days=1)), iso(DAY0 + dt.timedelta(days=2))
    columns, sampled = project["sample"]["tumble"]
    _, full = project["table"]["tumble"]
    assert all(day_start <= row[1] < day_end for row in sampled)
    assert_same_rows(
        columns, sampled, columns, [row for row in full if day_start <= row[1] < day_end], "sampled tumble"
    )


@pytest.mark.parametrize("name", WINDOWED)
@pytest.mark.parametrize(
    "step, table_step",
    [("microbatch", "table"), ("microbatch_late", "table_late"), ("microbatch_rerun", "table_late")],
    ids=["first run", "lookback after a late click", "one batch again"],
)
def test_microbatch_windows_equal_the_table_models(project, name, step, table_step):
    """Every window that starts on or after `begin`: no batch holds the windows that start
    before it (a hop that starts at 23:05 the day before holds the first clicks)."""
    columns, rows = project[step][name]
    expected_columns, expected = project[table_step][name]
    start = expected_columns.index("window_start")
    expected = [row for row in expected if row[start] >= iso(DAY0)]
    # three local days (each crossing a UTC batch edge at 05:00); hundreds of the other windows
    assert len(expected) >= (3 if name == "calendar_window" else 50), f"{name}: too few windows to tell anything"
    assert_same_rows(columns, rows, expected_columns, expected, f"{name} ({step})")


def test_windows_straddling_a_batch_edge_hold_the_rows_of_both_days(project):
    """Hand-checked: the edge clicks at 23:59:59.999999 and 00:00 of the next day are 5 minutes
    apart at most from the windows [23:05, 00:05) ... [23:55, 00:55) of hop(5 min, 1 hour)."""
    columns, rows = project["microbatch"]["hop"]
    edge = DAY0 + dt.timedelta(days=1)
    by_start = {row[0]: row for row in rows}
    table_rows = {row[0]: row for row in project["table"]["hop"][1]}
    for minutes in range(5, 60, 5):
        start = iso(edge - dt.timedelta(hours=1) + dt.timedelta(minutes=minutes))
        assert by_start[start][3] == table_rows[start][3]
        # the click at 00:00 of the next day is in it, read past the batch's end
        assert int(by_start[start][3]) >= 2
    assert columns == ["window_start", "window_end", "users", "clicks", "window_day"]


def test_a_late_click_is_picked_up_by_lookback(project):
    late_start = iso(DAY0 + dt.timedelta(days=3) - dt.timedelta(minutes=10))
    before = {row[1] for row in project["microbatch"]["tumble"][1] if row[0] == "late"}
    after = [row for row in project["microbatch_late"]["tumble"][1] if row[0] == "late"]
    assert before == set()
    assert [(row[1], row[3]) for row in after] == [(late_start[:11] + "23:00:00.000000", "1")]
    assert "batch" in project["lookback_log"].lower()


@pytest.mark.parametrize("name", REFUSED)
def test_a_microbatch_model_refuses_what_cannot_be_computed_batch_by_batch(project, name):
    assert REFUSED[name] in project["refused"][name]
    assert "windowed_incremental" in project["refused"][name]


def test_a_string_time_column_of_a_ref_is_a_compile_error_with_the_cast_to_write(project):
    said = project["types"]["string_of_a_ref"]
    assert "tumble: time_col ('event_label') is a column of type string in" in said
    assert "to_timestamp(event_label, 'yyyy-MM-dd HH:mm:ss')" in said


def test_a_date_time_column_is_taken_as_midnight_utc(project):
    columns, rows = project["types"]["date_of_a_ref:rows"]
    counts = {row[0]: int(row[2]) for row in rows}
    # 600 spread clicks plus 3 edge clicks over three days; each day's window starts at midnight
    assert sorted(counts) == [iso(DAY0 + dt.timedelta(days=day)) for day in range(3)]
    assert sum(counts.values()) == 603


def test_a_time_value_that_does_not_convert_fails_the_run_naming_it(project):
    said = project["types"]["bad_value_of_a_cte"]
    assert "spark_windows: the time column label holds 'n/a', which is not a time" in said


def test_a_time_column_of_a_number_fails_the_run_naming_its_type(project):
    said = project["types"]["decimal_of_a_cte"]
    assert "spark_windows: the time column price is of type decimal(2,1)" in said
