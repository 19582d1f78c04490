"""Where the project under test lives: the one definition the tests and their helpers share."""

from __future__ import annotations

from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]  # tests/support/project.py
MACRO_DIR = PROJECT_DIR / "macros"
PACKAGE = "spark_windows"  # the dbt project's name: the namespace of its macros
