"""Every SQL file the build compiled (models and data tests) is valid Spark SQL to sqlglot."""

from __future__ import annotations

import pytest

from dev.project import TARGET_DIR
from scripts import validate_sql  # the repository root is on pytest's pythonpath


@pytest.mark.slow
def test_every_compiled_file_parses_as_spark_sql(warehouse):
    count, problems = validate_sql.invalid_files(TARGET_DIR / "compiled")
    assert count >= 30, f"only {count} compiled files found"
    assert problems == []


@pytest.mark.fast
def test_validate_sql_names_a_file_it_cannot_read(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "good.sql").write_text("select 1 as a")
    (tmp_path / "models" / "broken.sql").write_text("select from where (")
    (tmp_path / "models" / "unclosed.sql").write_text("select 'abc as a")
    count, problems = validate_sql.invalid_files(tmp_path)
    assert count == 3
    assert sorted(line.split(":")[0] for line in problems) == ["models/broken.sql", "models/unclosed.sql"]
