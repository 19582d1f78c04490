"""A throwaway dbt project in a temporary folder that installs spark_windows as a package."""

from __future__ import annotations

import textwrap
from pathlib import Path

from dev.dbt_harness import PROJECT_DIR, configure_environment, run_dbt


def scratch_project(root: Path, name: str, target: str, models: dict[str, str]) -> None:
    """Writes project `name` in `root` with `models` ({file name: text} under models/), its models
    in the schema `<profile schema>_<name>` and none of spark_windows' own nodes enabled, points dbt
    at a metastore of its own in `root` (used when this process starts Spark; one already running
    is reused), and installs the package."""
    configure_environment(root / "state", target)
    (root / "models").mkdir()
    (root / "dbt_project.yml").write_text(
        textwrap.dedent(f"""
        name: {name}
        version: "0.1.0"
        config-version: 2
        profile: spark_windows
        model-paths: ["models"]
        models:
          {name}:
            +schema: {name}
          spark_windows:
            +enabled: false
        seeds:
          spark_windows:
            +enabled: false
        data_tests:
          spark_windows:
            +enabled: false
        """)
    )
    (root / "packages.yml").write_text(f"packages:\n  - local: {PROJECT_DIR}\n")
    for file_name, text in models.items():
        (root / "models" / file_name).write_text(text)
    run_dbt(["deps"], project_dir=root)


def run_shown(args: list[str], root: Path, expect_pass: bool = True, env: dict[str, str] | None = None) -> str:
    """`dbt <args>` in the project at `root`; returns the exception dbt reports, if any, and every
    message it showed, one a line: where a failing run's message is asserted."""
    shown = []
    result = run_dbt(args, expect_pass, root, [lambda event: shown.append(str(event.info.msg))], env)
    return "\n".join([str(result.exception), *shown])
