"""scripts/README.md names every script, so a newcomer finds who runs each and why."""

from __future__ import annotations

import pytest

from dev.project import PROJECT_DIR

pytestmark = pytest.mark.fast

SCRIPTS = PROJECT_DIR / "scripts"


@pytest.mark.parametrize(
    "name", sorted(path.name for path in SCRIPTS.iterdir() if path.suffix in {".py", ".sh"} or path.is_dir())
)
def test_the_scripts_readme_names_each_script(name):
    if name == "__pycache__":
        pytest.skip("Python's cache")
    assert f"`{name}" in (SCRIPTS / "README.md").read_text(), f"scripts/README.md does not name {name}"
