"""Fast test: the Python code passes ruff's lint and format checks (config in ruff.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from dbt_harness import PROJECT_DIR

pytestmark = pytest.mark.fast

PATHS = ["tests", "scripts", "integration_tests"]


def ruff() -> str:
    found = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(found).exists():
        pytest.fail("ruff is not installed; scripts/test.sh installs requirements.txt")
    return found


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["lint", "format"])
def test_python_code_passes_ruff(command):
    result = subprocess.run([ruff(), *command, *PATHS], cwd=PROJECT_DIR, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
