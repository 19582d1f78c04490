"""Fast tests: windowed_incremental with iceberg_input. Its config checks, the input table found
among the tables the model reads, the SQL that asks for the input's snapshots (parsed as Spark
SQL), and what a run does with each answer: appends and compactions accepted, the newest
snapshot returned for the commit; a snapshot that deleted or rewrote rows, an expired start
snapshot and a rollback refused with their messages."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
import sqlglot
from fake_dbt import TUMBLE_CONFIG, Config

from dev.macro_renderer import CompilerError, MacroRenderer

pytestmark = pytest.mark.fast

SOURCE_ID = "source.clicks.raw.clicks"
SEED_ID = "seed.clicks.page_names"
GRAPH = {
    "sources": {
        SOURCE_ID: {
            "source_name": "raw",
            "name": "clicks",
            "database": None,
            "schema": "landing",
            "identifier": "landed_clicks",
        }
    },
    "nodes": {SEED_ID: {"name": "page_names", "database": None, "schema": "analytics", "alias": "page_names_v2"}},
}


class Relation:
    """A dbt relation as the macros use it: `incorporate` a new path, rendered as schema.identifier."""

    def __init__(self, schema: str, identifier: str):
        self.schema, self.identifier = schema, identifier

    def incorporate(self, path: dict, type: str | None = None) -> Relation:  # noqa: A002 (dbt's name)
        return Relation(path.get("schema", self.schema), path.get("identifier", self.identifier))

    def __str__(self) -> str:
        return f"{self.schema}.{self.identifier}"


@pytest.fixture
def renderer() -> MacroRenderer:
    renderer = MacroRenderer()
    renderer.env.globals.update(
        {
            "model": {"depends_on": {"nodes": [SOURCE_ID, SEED_ID]}},
            "graph": GRAPH,
            "this": Relation("analytics", "page_clicks"),
        }
    )
    return renderer


# a model that reads the source raw.clicks by snapshot
BY_SNAPSHOT = {"ingestion_time_col": None, "iceberg_input": "raw.clicks", "sequence_col": "landed_sequence"}


def config(renderer, **changes):
    values = {key: value for key, value in {**TUMBLE_CONFIG, **changes}.items() if value is not None}
    return renderer.call("_sw_incremental_config", Config(values))


def test_the_input_is_found_among_the_tables_the_model_reads(renderer):
    cfg = config(renderer, **BY_SNAPSHOT)
    assert str(cfg["input_table"]) == "landing.landed_clicks"
    assert cfg["ingestion_col"] == "timestamp_micros(landed_sequence)" and cfg["arrival_col"] == "landed_sequence"
    assert cfg["settings"]["iceberg_input"] == "raw.clicks" and cfg["settings"]["sequence_col"] == "landed_sequence"
    assert "ingestion_time_col" not in cfg["settings"]
    # a seed (or model) by its name, at its alias
    assert (
        str(config(renderer, **{**BY_SNAPSHOT, "iceberg_input": "page_names"})["input_table"])
        == "analytics.page_names_v2"
    )
    # without iceberg_input nothing changes
    cfg = config(renderer)
    assert cfg["input_table"] is None and cfg["settings"]["ingestion_time_col"] == "ingested_at"


@pytest.mark.parametrize(
    "changes, message",
    [
        (
            {**BY_SNAPSHOT, "ingestion_time_col": "ingested_at"},
            "iceberg_input and ingestion_time_col are both given; give one: with iceberg_input the run tells new rows by the "
            "Iceberg snapshots that appended them",
        ),
        ({**BY_SNAPSHOT, "input_file_col": "source_file"}, "iceberg_input and input_file_col are both given"),
        ({**BY_SNAPSHOT, "iceberg_input": ""}, "iceberg_input () must name the Iceberg table the model's SQL reads"),
        ({**BY_SNAPSHOT, "iceberg_input": ["raw.clicks"]}, "iceberg_input (['raw.clicks']) must name"),
        (
            {**BY_SNAPSHOT, "sequence_col": None},
            "with iceberg_input, sequence_col is missing; select the input's _last_updated_sequence_number under a name of "
            "its own and give that name, such as _last_updated_sequence_number as landed_sequence in the model's SQL and "
            "sequence_col='landed_sequence'",
        ),
        (
            {**BY_SNAPSHOT, "sequence_col": "_last_updated_sequence_number"},
            "sequence_col ('_last_updated_sequence_number') must be a name of its own: Iceberg reserves",
        ),
        ({**BY_SNAPSHOT, "sequence_col": "seq, 1"}, "sequence_col ('seq, 1') is not a column name"),
        (
            {"sequence_col": "landed_sequence"},
            "sequence_col ('landed_sequence') is given without iceberg_input",
        ),
    ],
)
def test_a_bad_iceberg_input_config_is_refused(renderer, changes, message):
    with pytest.raises(CompilerError) as error:
        config(renderer, **changes)
    assert message in str(error.value)


def test_an_input_the_model_does_not_read_is_refused_naming_the_tables_it_reads(renderer):
    with pytest.raises(CompilerError) as error:
        config(renderer, **{**BY_SNAPSHOT, "iceberg_input": "clicks"})
    assert (
        "iceberg_input ('clicks') is none of the tables the model's SQL reads ('raw.clicks', 'page_names'); give the "
        "Iceberg table it reads its rows from: a model or seed as ref() names it, a source as 'source_name.table_name'"
    ) in str(error.value)


@pytest.mark.parametrize("after", [None, 41])
def test_the_snapshot_query_parses_as_spark_sql(renderer, after):
    text = renderer.call("_sw_incremental_snapshots_sql", "landing.landed_clicks", after)
    statement = sqlglot.parse_one(text, read="spark")
    tables = {".".join(part.name for part in table.parts) for table in statement.find_all(sqlglot.exp.Table)}
    expected = {"landing.landed_clicks.history"} | ({"landing.landed_clicks.snapshots"} if after else set())
    assert tables == expected


def check(renderer, answer, stored=41, batch_id=3):
    """_sw_incremental_check_snapshots of a run whose last commit read up to snapshot `stored`,
    Spark answering the snapshot query with `answer` ((part, id, operation, made current at)).
    Once per renderer: a macro sees the globals of its first call."""
    asked = []

    def run_query(sql):
        asked.append(sql)
        return SimpleNamespace(rows=[list(row) for row in answer])

    renderer.env.globals["run_query"] = run_query
    cfg = {"input_table": Relation("landing", "landed_clicks")}
    settings = json.dumps({"input_snapshot": stored} if stored is not None else {})
    state = {"batch_id": batch_id, "config": settings}
    return renderer.call("_sw_incremental_check_snapshots", cfg, state), asked


def since(*snapshots):
    return [
        ("since", snapshot_id, operation, f"2024-05-01 08:{minute:02d}:00")
        for minute, (snapshot_id, operation) in enumerate(snapshots)
    ]


def test_appends_and_compactions_since_the_last_commit_are_accepted(renderer):
    answer = [("start", 41, None, None)] + since((41, "append"), (42, "append"), (43, "replace"), (44, "append"))
    current, asked = check(renderer, answer)
    assert current == 44
    assert "where snapshot_id = 41" in asked[0]


def test_a_first_run_takes_the_current_snapshot(renderer):
    current, asked = check(renderer, [("since", 7, None, "2024-05-01 08:00:00")], stored=None, batch_id=0)
    assert current == 7 and "limit 1" in asked[0]


def test_a_first_run_of_a_table_without_snapshots_takes_none(renderer):
    assert check(renderer, [], stored=None, batch_id=0)[0] is None


@pytest.mark.parametrize("operation", ["overwrite", "delete"])
def test_a_snapshot_that_deleted_or_rewrote_rows_is_refused_naming_it(renderer, operation):
    answer = [("start", 41, None, None)] + since((41, "append"), (42, "append"), (43, operation), (44, "append"))
    with pytest.raises(CompilerError) as error:
        check(renderer, answer)
    assert (
        f"landing.landed_clicks, the Iceberg input of analytics.page_clicks, changed rows since its last run read it: "
        f"snapshot 43 ({operation}, made current at 2024-05-01 08:02:00) deleted or rewrote rows"
    ) in str(error.value)
    assert "This run changed nothing. Run the model once with --full-refresh" in str(error.value)


def test_a_snapshot_before_the_start_is_not_checked(renderer):
    """Only the snapshots after the one the last commit read up to: that one may be anything."""
    answer = [("start", 41, None, None)] + since((41, "overwrite"), (42, "append"))
    assert check(renderer, answer)[0] == 42


def test_an_expired_start_snapshot_is_refused(renderer):
    with pytest.raises(CompilerError) as error:
        check(renderer, since((44, "append")))
    assert (
        "snapshot 41 of landing.landed_clicks, which the last run of analytics.page_clicks read up to, is no longer among "
        "the table's snapshots (expire_snapshots removed it)"
    ) in str(error.value)
    assert "expire only snapshots older than the model's last run" in str(error.value)


def test_a_start_snapshot_the_current_one_does_not_descend_from_is_refused(renderer):
    with pytest.raises(CompilerError) as error:
        check(renderer, [("start", 41, None, None)] + since((39, "append"), (40, "append")))
    assert "is not an ancestor of the table's current snapshot (the table was rolled back or replaced)" in str(
        error.value
    )


def test_the_new_rows_are_read_up_to_the_newest_sequence_number_and_null_ones_are_kept(renderer):
    """Rows without a sequence number (a format-version 2 table) stay in the scan, which counts
    them to refuse the run; the rows above the input's newest number are left to the next run."""
    cfg = config(renderer, **BY_SNAPSHOT)
    text = renderer.call("_sw_incremental_new_sql", cfg, "select * from landing.landed_clicks", {"ingestion_us": None})
    sequence = "timestamp_micros(landed_sequence)"
    assert " ".join(text.split()).endswith(
        f"where {sequence} <= (select timestamp_micros(max(latest_sequence_number)) from "
        f"landing.landed_clicks.metadata_log_entries) or {sequence} is null"
    )
    sqlglot.parse_one(text, read="spark")
