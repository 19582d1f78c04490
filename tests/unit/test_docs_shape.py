"""docs/benchmarks.md, tests/README.md and CHANGELOG.md keep the shape of a reference: today's
figures each with the date it was measured, no dated sections and no tables of CI runs, one
CHANGELOG section per version with the newest release the project's version."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.fast

PROJECT_DIR = Path(__file__).resolve().parents[2]
BENCHMARKS = PROJECT_DIR / "docs" / "benchmarks.md"
TESTS_README = PROJECT_DIR / "tests" / "README.md"
CHANGELOG = PROJECT_DIR / "CHANGELOG.md"

DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
# a heading that says when, not what: a date or a time of day
DIARY_WORDS = re.compile(r"\b(morning|afternoon|evening|night|later)\b", re.IGNORECASE)
# the header cell of a table of CI runs
RUN_CELL = re.compile(r"^(ci )?runs?$", re.IGNORECASE)
# `## [Unreleased]`, or `## [1.2.3] - 2026-12-05`
SECTION = re.compile(r"^## \[(?P<name>[^\]]+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?$")


def prose_lines(text: str) -> list[str]:
    """The lines of a Markdown text outside its fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def headings(text: str) -> list[str]:
    return [line for line in prose_lines(text) if re.match(r"#{1,6} ", line)]


def cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def tables(text: str) -> list[list[str]]:
    """Each Markdown table of the text, as its lines (header, separator, rows), in order."""
    found, current = [], []
    for line in prose_lines(text) + [""]:
        if line.lstrip().startswith("|"):
            current.append(line)
        elif current:
            found.append(current)
            current = []
    return found


def first_table_after_the_top_heading(text: str) -> list[str]:
    lines = prose_lines(text)
    top = next(i for i, line in enumerate(lines) if line.startswith("# "))
    return tables("\n".join(lines[top + 1 :]))[0]


def is_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def undated_rows(table: list[str]) -> list[str]:
    """The rows of a table (not its header or separator) without a valid YYYY-MM-DD date."""
    return [row for row in table[2:] if not any(is_date(date) for date in DATE.findall(row))]


def dated_headings(text: str) -> list[str]:
    return [heading for heading in headings(text) if DATE.search(heading) or DIARY_WORDS.search(heading)]


def run_tables(text: str) -> list[str]:
    """The header rows of the tables that list CI runs."""
    return [table[0] for table in tables(text) if any(RUN_CELL.match(cell) for cell in cells(table[0]))]


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def changelog_problems(changelog: str, project_version: str) -> list[str]:
    """What keeps a CHANGELOG from the Keep-a-Changelog shape: `## [Unreleased]` first, then one
    `## [version] - date` per released version, newest first, the newest the project's version."""
    sections = [line for line in headings(changelog) if line.startswith("## ")]
    problems = [f"not `## [version] - YYYY-MM-DD`: {line}" for line in sections if not SECTION.match(line)]
    parsed = [(match["name"], match["date"]) for match in map(SECTION.match, sections) if match]
    names = [name for name, _ in parsed]
    if names[:1] != ["Unreleased"]:
        problems.append(f"the first section is not [Unreleased]: {names[:1]}")
    released = [name for name in names if name != "Unreleased"]
    problems += [f"[{name}] has more than one section" for name in sorted(set(names)) if names.count(name) > 1]
    problems += [f"[{name}] has no date" for name, date in parsed if name != "Unreleased" and not date]
    if not all(re.fullmatch(r"\d+\.\d+\.\d+", name) for name in released):
        return problems + [f"a released section is no version: {released}"]
    if released != sorted(released, key=version_key, reverse=True):
        problems.append(f"the versions are not newest first: {released}")
    if released[:1] != [project_version]:
        problems.append(f"the newest release {released[:1]} is not dbt_project.yml's version {project_version}")
    return problems


def test_each_figure_of_todays_benchmark_table_has_the_date_it_was_measured():
    table = first_table_after_the_top_heading(BENCHMARKS.read_text())
    assert len(table) > 2, "docs/benchmarks.md's first table has no rows"
    assert undated_rows(table) == [], "rows of docs/benchmarks.md's first table without a YYYY-MM-DD date"


@pytest.mark.parametrize("path", [BENCHMARKS, TESTS_README], ids=lambda path: str(path.relative_to(PROJECT_DIR)))
def test_no_heading_is_dated_and_no_table_lists_ci_runs(path):
    text = path.read_text()
    assert dated_headings(text) == [], f"{path.name}: a heading says when (a date or time of day), not what"
    assert run_tables(text) == [], f"{path.name}: a table of CI runs; CI prints its own times (--durations)"


def test_the_changelog_has_one_section_per_version_and_its_newest_release_is_the_projects_version():
    version = str(yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())["version"])
    assert changelog_problems(CHANGELOG.read_text(), version) == []
