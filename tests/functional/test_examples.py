"""Slow tests: each example model equals its hand-computed expected seed."""

from __future__ import annotations

import pytest
from compare import assert_same_rows, read_csv

from dev.project import PROJECT_DIR

pytestmark = pytest.mark.slow

EXPECTED_DIR = PROJECT_DIR / "seeds" / "expected"
EXAMPLES = sorted(path.stem.removeprefix("expected__") for path in EXPECTED_DIR.glob("expected__*.csv"))


def test_every_example_model_has_an_expected_seed():
    models = sorted(path.stem for path in (PROJECT_DIR / "models" / "examples").glob("*.sql"))
    assert models == EXAMPLES


@pytest.mark.parametrize("model", EXAMPLES)
def test_example_model_equals_expected_seed(warehouse, model):
    columns, rows = warehouse.table_as_text(model)
    expected_columns, expected_rows = read_csv(EXPECTED_DIR / f"expected__{model}.csv")
    assert_same_rows(columns, rows, expected_columns, expected_rows, model)
