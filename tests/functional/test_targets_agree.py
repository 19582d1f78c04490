"""Slow test: the example and Flink reference models give identical results on every target.

Each run writes what those models hold on its target (column names and types, rows as text) to
.spark_state/results/<target>.json, stamped with a digest of the project's macros, models and
seeds. When another target's file carries the same digest (CI builds `local`, then `cluster`),
the two must be identical: same columns, same types, same rows, and the run records that they
were compared (agreed-<target>-<target>.txt, which .ci/run requires). Only
floating-point values may differ, in the last bits, as the order in which partial sums meet is
free on a cluster.
"""

from __future__ import annotations

import hashlib
import json
import math

import pytest

from dev.project import PROJECT_DIR

RESULTS_DIR = PROJECT_DIR / ".spark_state" / "results"
MODEL_DIRS = [PROJECT_DIR / "models" / "examples", PROJECT_DIR / "models" / "flink_reference"]
FLOATING = {"float", "double"}


def sources_digest() -> str:
    digest = hashlib.sha256()
    for folder in ("macros", "models", "seeds"):
        for path in sorted((PROJECT_DIR / folder).rglob("*")):
            if path.is_file():
                digest.update(str(path.relative_to(PROJECT_DIR)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def snapshot(warehouse) -> dict:
    tables = {}
    for model in sorted(path.stem for folder in MODEL_DIRS for path in folder.glob("*.sql")):
        types = warehouse.column_types(model)
        _, rows = warehouse.table_as_text(model)
        ordered = sorted(rows, key=lambda row: [(value is None, value or "") for value in row])
        tables[model] = {"columns": types, "rows": [list(row) for row in ordered]}
    return tables


def differences(mine: dict, theirs: dict, other: str) -> list[str]:
    found = []
    for model in sorted(set(mine) | set(theirs)):
        if model not in mine or model not in theirs:
            found.append(f"{model}: built on one target only")
            continue
        columns = [tuple(column) for column in mine[model]["columns"]]
        if columns != [tuple(column) for column in theirs[model]["columns"]]:
            found.append(f"{model}: columns {columns} here, {theirs[model]['columns']} on {other}")
            continue
        floating = [data_type in FLOATING for _, data_type in columns]
        rows, other_rows = mine[model]["rows"], theirs[model]["rows"]
        if len(rows) != len(other_rows):
            found.append(f"{model}: {len(rows)} rows here, {len(other_rows)} on {other}")
            continue
        for row, other_row in zip(rows, other_rows):
            if not all(same(a, b, is_float) for a, b, is_float in zip(row, other_row, floating)):
                found.append(f"{model}: row {row} here, {other_row} on {other}")
                break
    return found


def same(value: str | None, other: str | None, is_float: bool) -> bool:
    if value is None or other is None or not is_float:
        return value == other
    return math.isclose(float(value), float(other), rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.fast
def test_a_changed_value_type_or_row_count_is_a_difference():
    base = {"m": {"columns": [["k", "string"], ["avg_v", "double"]], "rows": [["a", "0.1"], ["b", None]]}}
    assert differences(base, json.loads(json.dumps(base)), "other") == []
    last_bits = {"m": {**base["m"], "rows": [["a", "0.10000000000000002"], ["b", None]]}}
    assert differences(base, last_bits, "other") == []
    for changed in (
        {"m": {**base["m"], "rows": [["a", "0.2"], ["b", None]]}},
        {"m": {**base["m"], "rows": [["a", "0.1"], ["b", "0"]]}},
        {"m": {**base["m"], "rows": [["a", "0.1"]]}},
        {"m": {**base["m"], "columns": [["k", "string"], ["avg_v", "decimal(14,4)"]]}},
        {"n": base["m"]},
    ):
        assert differences(base, changed, "other") != [], changed


@pytest.mark.slow
def test_models_give_identical_results_on_every_target(warehouse, dbt_target):
    mine = {"digest": sources_digest(), "tables": snapshot(warehouse)}
    assert len(mine["tables"]) == sum(len(list(folder.glob("*.sql"))) for folder in MODEL_DIRS) >= 20
    assert all(table["rows"] for table in mine["tables"].values()), "a model built no rows"
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    # written whole, then renamed: a run on another target at the same time would never read half a file
    written = RESULTS_DIR / f"{dbt_target}.json.part"
    written.write_text(json.dumps(mine))
    written.replace(RESULTS_DIR / f"{dbt_target}.json")

    compared = []
    for path in sorted(RESULTS_DIR.glob("*.json")):
        theirs = json.loads(path.read_text())
        if path.stem == dbt_target or theirs.get("digest") != mine["digest"]:
            continue  # this target, or results of other sources (an older build)
        assert differences(mine["tables"], theirs["tables"], path.stem) == [], f"{dbt_target} vs {path.stem}"
        compared.append(path.stem)
        # the record .ci/run checks: the target built second compares the two
        pair = "-".join(sorted([dbt_target, path.stem]))
        (RESULTS_DIR / f"agreed-{pair}.txt").write_text(mine["digest"] + "\n")
    print(f"{dbt_target}: {len(mine['tables'])} models; compared with {compared or 'no other target yet'}")
