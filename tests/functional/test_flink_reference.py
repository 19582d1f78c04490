"""Slow tests: the window macros reproduce Apache Flink 2.3's results, row for row.

seeds/flink_reference/ is the project's copy of the reference (events, Flink's results and the
README that says how they were made). The models under models/flink_reference/ make the same
six window calls on the same events, once through the table-valued macros (flink__*) and
once through window_aggregate (flink_wa__*), the keyed hop and cumulate also with
agg_phase_strategy='two_phase' (flink_wa_two_phase__*).
"""

from __future__ import annotations

import pytest
from compare import assert_same_rows, read_csv

from dev.project import PROJECT_DIR

pytestmark = pytest.mark.slow

REFERENCE_DIR = PROJECT_DIR / "seeds" / "flink_reference"
CASES = sorted(path.stem for path in (REFERENCE_DIR / "expected").glob("*.csv"))


def test_the_reference_has_six_cases():
    assert len(CASES) == 6


@pytest.mark.parametrize(
    "prefix, case",
    [(prefix, case) for prefix in ["flink__", "flink_wa__"] for case in CASES]
    + [("flink_wa_two_phase__", case) for case in ["cumulate_1h_15m", "hop_10m_5m"]],
)
def test_window_macro_matches_flink(warehouse, prefix, case):
    columns, rows = warehouse.table_as_text(f"{prefix}{case}")
    expected_columns, expected_rows = read_csv(REFERENCE_DIR / "expected" / f"{case}.csv")
    assert len(rows) == len(expected_rows)
    assert_same_rows(columns, rows, expected_columns, expected_rows, f"{prefix}{case}")
