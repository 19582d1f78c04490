"""Fast tests: the Python code passes ruff's lint and format checks (config in ruff.toml), and the
models pass sqlfluff's SQL lint (config in .sqlfluff)."""

from __future__ import annotations

import importlib.util
import inspect
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dev.project import PROJECT_DIR

pytestmark = pytest.mark.fast

PATHS = ["tests", "scripts", "dev", "integration_tests"]
SQL_PATHS = ["models", *sorted(str(p.relative_to(PROJECT_DIR)) for p in PROJECT_DIR.glob("integration_tests/*/models"))]


def tool(name: str) -> str:
    found = shutil.which(name) or str(Path(sys.executable).with_name(name))
    if not Path(found).exists():
        pytest.fail(f"{name} is not installed; scripts/test.sh installs requirements-dev.txt")
    return found


def ruff() -> str:
    return tool("ruff")


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["lint", "format"])
def test_python_code_passes_ruff(command):
    result = subprocess.run([ruff(), *command, *PATHS], cwd=PROJECT_DIR, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_models_pass_sqlfluff():
    assert "integration_tests/consumer/models" in SQL_PATHS
    result = subprocess.run([tool("sqlfluff"), "lint", *SQL_PATHS], cwd=PROJECT_DIR, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_sqlfluff_uses_the_project_config(tmp_path):
    """A consistently upper-case model: sqlfluff's default policy ("consistent") accepts it, the
    project's ("lower") does not. The macro call renders only with the stand-in library; without
    it the file would not parse (TMP and PRS errors)."""
    model = tmp_path / "shouting.sql"
    model.write_text(
        "SELECT\n"
        "    k,\n"
        "    window_start,\n"
        "    count(*) AS cnt\n"
        "FROM {{ spark_windows.tumble(ref('events'), 'ts', '5 minutes') }}\n"
        "GROUP BY k, window_start\n"
    )
    result = subprocess.run(
        [tool("sqlfluff"), "lint", "--config", str(PROJECT_DIR / ".sqlfluff"), "--format", "json", str(model)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    [report] = json.loads(result.stdout)
    codes = {violation["code"] for violation in report["violations"]}
    assert codes == {"CP01"}, result.stdout


def test_sqlfluff_stand_ins_take_the_macros_arguments():
    # a stand-in with fewer arguments than its macro fails the lint of a model that passes them
    path = PROJECT_DIR / "tests" / "support" / "sqlfluff_library" / "spark_windows.py"
    spec = importlib.util.spec_from_file_location("sqlfluff_stand_ins", path)
    stand_ins = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(stand_ins)
    macros = {}
    for sql in PROJECT_DIR.glob("macros/**/*.sql"):
        for name, arguments in re.findall(r"\{% macro ([a-z]\w*)\(([^)]*)\)", sql.read_text()):
            macros[name] = [argument.split("=")[0].strip() for argument in arguments.split(",")]
    functions = inspect.getmembers(stand_ins, inspect.isfunction)
    stood_in = {name: function for name, function in functions if not name.startswith("_")}
    assert stood_in
    for name, function in stood_in.items():
        assert list(inspect.signature(function).parameters) == macros[name], name
