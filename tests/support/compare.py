"""Compares result rows with expected rows as multisets and explains any difference."""

from __future__ import annotations

import csv
import datetime as dt
from collections import Counter
from pathlib import Path

FLOAT_DIGITS = 9


def normalize(value: str | None):
    """One canonical form for a CSV field or a value Spark printed as text."""
    if value is None or value == "":
        return None
    text = value.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        stamp = dt.datetime.fromisoformat(text)
    except ValueError:
        stamp = None
    if stamp is not None:
        if len(text) == 10:
            return stamp.date().isoformat()
        return stamp.strftime("%Y-%m-%d %H:%M:%S.%f")
    try:
        number = float(text)
    except ValueError:
        return text
    return float(f"{number:.{FLOAT_DIGITS}g}")


def read_csv(path: Path) -> tuple[list[str], list[tuple]]:
    with path.open(newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        return header, [tuple(row) for row in reader]


def assert_same_rows(
    actual_columns: list[str],
    actual_rows: list[tuple],
    expected_columns: list[str],
    expected_rows: list[tuple],
    label: str,
) -> None:
    """Equal as multisets, after normalizing; floats compared to 9 significant digits."""
    if [c.lower() for c in actual_columns] != [c.lower() for c in expected_columns]:
        raise AssertionError(f"{label}: columns {actual_columns} != expected {expected_columns}")
    actual = Counter(tuple(normalize(v) for v in row) for row in actual_rows)
    expected = Counter(tuple(normalize(v) for v in row) for row in expected_rows)
    if actual == expected:
        return
    missing = sorted((expected - actual).elements(), key=repr)
    unexpected = sorted((actual - expected).elements(), key=repr)
    lines = [
        f"{label}: {len(missing)} expected rows missing, {len(unexpected)} rows not expected "
        f"({sum(actual.values())} rows, {sum(expected.values())} expected)",
        "  columns: " + ", ".join(expected_columns),
    ]
    lines += [f"  - missing    {row}" for row in missing[:25]]
    lines += [f"  + unexpected {row}" for row in unexpected[:25]]
    raise AssertionError("\n".join(lines))
