"""Fast checks that the dbt minors the package admits are the ones CI proves: require-dbt-version
in dbt_project.yml, the minors scripts/version_matrix.sh builds by default, the README's table,
and .ci/run calling the script. (The script itself runs in CI: it needs Spark and minutes.)"""

from __future__ import annotations

import re

import pytest
import yaml
from project import PROJECT_DIR

pytestmark = pytest.mark.fast

SCRIPT = PROJECT_DIR / "scripts" / "version_matrix.sh"


def admitted_minors() -> list[str]:
    """Every 1.x minor inside require-dbt-version, e.g. ['>=1.10.0', '<1.12.0'] -> 1.10, 1.11."""
    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())
    bounds = project["require-dbt-version"]
    low = re.fullmatch(r">=1\.(\d+)\.0", bounds[0])
    high = re.fullmatch(r"<1\.(\d+)\.0", bounds[1])
    assert low and high, f"require-dbt-version should read ['>=1.A.0', '<1.B.0'], not {bounds}"
    return [f"1.{minor}" for minor in range(int(low.group(1)), int(high.group(1)))]


def test_the_matrix_builds_exactly_the_admitted_minors():
    script = SCRIPT.read_text()
    default = re.search(r"^ALL_MINORS=\(([^)]*)\)", script, re.MULTILINE)
    assert default, "scripts/version_matrix.sh should set ALL_MINORS=(...)"
    assert default.group(1).split() == admitted_minors()
    for minor in admitted_minors():
        pins = re.search(rf"^\s*{re.escape(minor)}\) echo \"([^\"]*)\"", script, re.MULTILINE)
        assert pins, f"scripts/version_matrix.sh has no pins for dbt {minor}"
        assert f"dbt-core~={minor}.0" in pins.group(1).split()
        assert f"dbt-spark[session]~={minor}.0" in pins.group(1).split()


def test_readme_lists_the_tested_minors():
    readme = (PROJECT_DIR / "README.md").read_text()
    section = readme[readme.index("### dbt versions") :]
    rows = re.findall(r"^\| (1\.\d+) \| ", section, re.MULTILINE)
    assert rows == admitted_minors()


def test_ci_runs_the_matrix():
    commands = [line.strip() for line in (PROJECT_DIR / ".ci" / "run").read_text().splitlines()]
    assert "bash scripts/version_matrix.sh" in commands
