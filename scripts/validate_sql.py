"""Checks that every SQL file dbt compiled for this project is valid Spark SQL to sqlglot.

    python scripts/validate_sql.py              # dbt compile, then parse target/compiled
    python scripts/validate_sql.py --no-compile # parse what a previous dbt command compiled

Exits 1 naming each file sqlglot cannot read with the `spark` dialect, and its error.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import sqlglot
from sqlglot.errors import SqlglotError

PROJECT_DIR = Path(__file__).resolve().parents[1]


def invalid_files(compiled_dir: Path) -> tuple[int, list[str]]:
    """Parses every compiled .sql file; returns how many were read and one line per failure."""
    problems = []
    files = sorted(compiled_dir.rglob("*.sql"))
    for path in files:
        sql = path.read_text()
        try:
            statements = sqlglot.parse(sql, read="spark")
        except SqlglotError as error:  # ParseError, and TokenError for unclosed quotes
            problems.append(f"{path.relative_to(compiled_dir)}: {error}")
            continue
        if not any(statement is not None for statement in statements):
            problems.append(f"{path.relative_to(compiled_dir)}: no SQL statement")
    return len(files), problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-compile", action="store_true", help="skip `dbt compile`")
    parser.add_argument("--target", default=None, help="dbt target to compile with")
    args = parser.parse_args(argv)
    compiled_dir = PROJECT_DIR / "target" / "compiled"
    if not args.no_compile:
        shutil.rmtree(compiled_dir, ignore_errors=True)  # no stale files of deleted models
        sys.path.insert(0, str(PROJECT_DIR))  # dev/, the development package: dbt run in this process
        from dev.dbt_harness import configure_environment, run_dbt

        target = args.target or "local"
        configure_environment(PROJECT_DIR / ".spark_state" / f"validate-{target}", target)
        run_dbt(["compile", "--target", target])
    count, problems = invalid_files(compiled_dir)
    if count == 0:
        print(f"validate_sql: no compiled SQL under {compiled_dir}", file=sys.stderr)
        return 1
    for line in problems:
        print(f"validate_sql: {line}", file=sys.stderr)
    print(f"validate_sql: {count - len(problems)} of {count} compiled files are valid Spark SQL")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
