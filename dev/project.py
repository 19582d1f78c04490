"""Where the project under test lives: the one definition the tests, their helpers and dev/ share."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]  # dev/project.py
MACRO_DIR = PROJECT_DIR / "macros"
PACKAGE = "spark_windows"  # the dbt project's name: the namespace of its macros
# dbt's target folder (compiled SQL, manifest): DBT_TARGET_PATH when set, as dbt reads it (.ci/run
# gives the cluster target's run a folder of its own)
TARGET_DIR = PROJECT_DIR / os.environ.get("DBT_TARGET_PATH", "target")
