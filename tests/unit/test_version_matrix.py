"""Fast checks that the dbt minors the package admits and the Spark releases it supports are the
ones CI proves: require-dbt-version in dbt_project.yml, the entries (a dbt minor with a Spark
release) scripts/version_matrix.sh builds by default and what it installs for each (its --pins,
which installs nothing), the README's table, and .ci/run calling the script. (The script itself
runs in CI: it needs Spark and minutes.)"""

from __future__ import annotations

import re
import subprocess

import pytest
import yaml
from packaging.requirements import Requirement

from dev.project import PROJECT_DIR

pytestmark = pytest.mark.fast

SCRIPT = PROJECT_DIR / "scripts" / "version_matrix.sh"
# the Spark releases analysts' lakehouses run, each with the pyspark wheel that ships it
SPARK_RELEASES = {"3.5": "3.5.8", "4.0": "4.0.5", "4.1": "4.1.4", "4.2": "4.2.1", "4.3": "4.3.0"}


def admitted_minors() -> list[str]:
    """Every 1.x minor inside require-dbt-version, e.g. ['>=1.10.0', '<1.13.0'] -> 1.10 to 1.12."""
    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())
    bounds = project["require-dbt-version"]
    low = re.fullmatch(r">=1\.(\d+)\.0", bounds[0])
    high = re.fullmatch(r"<1\.(\d+)\.0", bounds[1])
    assert low and high, f"require-dbt-version should read ['>=1.A.0', '<1.B.0'], not {bounds}"
    return [f"1.{minor}" for minor in range(int(low.group(1)), int(high.group(1)))]


def matrix_pins() -> dict[str, tuple[list[Requirement], list[Requirement]]]:
    """What scripts/version_matrix.sh --pins says each default entry (`<dbt minor>/<spark
    release>`) installs: the requirements pip installs as usual, and those it installs after them
    with --no-deps."""
    printed = subprocess.run(
        ["bash", str(SCRIPT), "--pins"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    pins = {}
    for line in printed.splitlines():
        entry, _, wanted = line.partition(": ")
        normal, _, no_deps = wanted.partition(" --no-deps ")
        pins[entry] = ([Requirement(r) for r in normal.split()], [Requirement(r) for r in no_deps.split()])
    return pins


def entries_of(minor: str) -> list[str]:
    return [entry for entry in matrix_pins() if entry.split("/")[0] == minor]


def named(requirements: list[Requirement], name: str) -> list[Requirement]:
    return [r for r in requirements if r.name == name]


def test_the_matrix_builds_every_admitted_minor_and_every_spark_release_and_nothing_else():
    script = SCRIPT.read_text()
    default = re.search(r"^ALL_ENTRIES=\(([^)]*)\)", script, re.MULTILINE)
    assert default, "scripts/version_matrix.sh should set ALL_ENTRIES=(...)"
    entries = default.group(1).split()
    assert list(matrix_pins()) == entries
    assert sorted({entry.split("/")[0] for entry in entries}) == sorted(admitted_minors())
    assert sorted({entry.split("/")[1] for entry in entries}) == sorted(SPARK_RELEASES)
    assert len(entries) == len(set(entries))


def test_the_matrix_and_require_dbt_version_have_dbt_1_12():
    assert "1.12" in admitted_minors()
    assert entries_of("1.12")


# dbt-spark has no 1.12: dbt-spark 1.11.0 admits dbt-core below 2.0
DBT_SPARK_MINOR = {"1.12": "1.11"}


def only_releases_of(requirement: Requirement, minor: str) -> bool:
    """Whether the requirement admits some 1.x.y release of the minor and none of its neighbours."""
    number = int(minor.split(".")[1])
    return (
        any(requirement.specifier.contains(f"{minor}.{patch}") for patch in range(100))
        and not requirement.specifier.contains(f"1.{number - 1}.99")
        and not requirement.specifier.contains(f"1.{number + 1}.0")
    )


@pytest.mark.parametrize("entry", list(matrix_pins()))
def test_each_entry_installs_dbt_core_of_its_minor_with_dbt_spark_and_the_pyspark_of_its_release(entry):
    minor, release = entry.split("/")
    normal, no_deps = matrix_pins()[entry]
    (core,) = named(normal + no_deps, "dbt-core")
    assert only_releases_of(core, minor), core
    (spark,) = named(normal + no_deps, "dbt-spark")
    assert only_releases_of(spark, DBT_SPARK_MINOR.get(minor, minor)), spark
    if spark in normal:
        assert spark.extras == {"session"}, spark  # the extra brings pyspark; pinned here anyway
    assert [str(r) for r in named(normal, "pyspark")] == [f"pyspark=={SPARK_RELEASES[release]}"]


@pytest.mark.parametrize("entry", list(matrix_pins()))
def test_an_entry_installed_without_dbt_core_dependencies_lists_them_itself(entry):
    """dbt-core 1.12 requires dbt-core-experimental-parser, which cannot be installed without
    internet access: dbt-core goes in with --no-deps, and dbt-spark too (pip would fetch dbt-core's
    requirements with it); their other requirements are installed as usual."""
    normal, no_deps = matrix_pins()[entry]
    if not named(no_deps, "dbt-core"):
        assert not no_deps
        return
    assert {r.name for r in no_deps} == {"dbt-core", "dbt-spark"}
    assert not named(normal, "dbt-core") and not named(normal, "dbt-spark")
    assert not named(normal, "dbt-core-experimental-parser")
    names = {r.name for r in normal}
    # dbt-spark's requirements, and some of dbt-core's
    assert {"dbt-adapters", "dbt-common", "sqlparams", "pyspark"} <= names
    assert {"agate", "jinja2", "mashumaro", "metricflow", "protobuf", "dbt-protos"} <= names


def test_readme_lists_the_tested_entries():
    readme = (PROJECT_DIR / "README.md").read_text()
    section = readme[readme.index("### dbt and Spark versions") :]
    rows = re.findall(r"^\| (1\.\d+) \| [^|]+ \| (\d\.\d+)\.\d+ \|", section, re.MULTILINE)
    assert [f"{minor}/{release}" for minor, release in rows] == list(matrix_pins())


def test_ci_runs_the_matrix_and_fails_when_it_fails():
    """Beside the suite (in a session of its own at the lowest CPU priority, its environments
    and the iceberg target's installed first, the cluster and iceberg targets after it): its
    exit status, and theirs, are waited for and must be 0."""
    commands = [line.strip() for line in (PROJECT_DIR / ".ci" / "run").read_text().splitlines()]
    started = [c for c in commands if "bash scripts/version_matrix.sh" in c and not c.startswith("#")]
    assert started == [
        "{ nice -n 19 bash scripts/version_matrix.sh --install-only && nice -n 19 bash scripts/iceberg.sh --install-only"
        " && nice -n 19 bash scripts/version_matrix.sh; } || matrix=$?"
    ], started
    beside = commands.index('if [ "${1:-}" = --beside-the-suite ]; then')
    assert commands[beside + 1] == "echo 19 2>/dev/null >/proc/self/autogroup || true"
    iceberg = next(
        index for index, c in enumerate(commands) if c.startswith("nice -n 19 bash scripts/iceberg.sh -m slow")
    )
    # the replays (their killed runs included) and the Iceberg tests, on the iceberg target
    ran = " ".join(commands[iceberg : iceberg + 3])
    for module in (
        "test_incremental.py",
        "test_incremental_sessions.py",
        "test_incremental_iceberg.py",
        "test_incremental_iceberg_input.py",
    ):
        assert f"tests/functional/{module}" in ran, ran
    verdict = commands.index('[ "$matrix" -eq 0 ] && [ "$cluster" -eq 0 ] && [ "$iceberg" -eq 0 ]')
    assert verdict > iceberg > commands.index(started[0])
    assert 'setsid bash .ci/run --beside-the-suite "$ready" >"$beside_log" 2>&1 &' in commands
    # leaving early stops its whole process group
    assert 'kill -- "-$beside_pid" 2>/dev/null || true' in commands
    assert 'wait "$beside_pid" || beside_status=$?' in commands
    assert '[ "$beside_status" -eq 0 ]' in commands
    assert commands.index('[ "$beside_status" -eq 0 ]') > commands.index("bash scripts/test.sh --durations=25")
