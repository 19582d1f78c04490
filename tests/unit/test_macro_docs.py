"""Fast tests: the public macros' documentation stays in step with their source.

Public macros are the ``{% macro name(`` and ``{% test name(`` blocks of macros/windows/*.sql,
macros/kafka/*.sql and macros/data_tests/*.sql whose names do not start with ``_``,
``default__`` or ``spark__``. Each must have a YAML macro properties entry (``macros/windows/hop.yml`` for ``hop.sql``) whose
arguments are the signature's, in order, with a description and a type; and README.md must show
its signature in backticks exactly as the source declares it. A public file holds its macro
and that macro's ``default__``/``spark__`` implementations only.

Materializations (macros/materializations/*.sql) are documented the same way, under the name dbt
registers (``materialization_<name>_<adapter>``), in the YAML file beside their source; a README
section their description points to must exist.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from dev.macro_renderer import Block, blocks_in, project_blocks
from dev.project import MACRO_DIR, PACKAGE, PROJECT_DIR

README = PROJECT_DIR / "README.md"
PUBLIC_SOURCES = ("windows/*.sql", "kafka/*.sql", "data_tests/*.sql")
PRIVATE_PREFIXES = ("_", "default__", "spark__")
# the macros this project has always had: if the scan stops finding them, the other tests
# would pass without checking anything
KNOWN_PUBLIC = {"tumble", "hop", "cumulate", "session", "window_aggregate", "equals_expected"}
KNOWN_MATERIALIZATIONS = {"materialization_windowed_incremental_spark"}


def public_files() -> list[Path]:
    return [path for pattern in PUBLIC_SOURCES for path in sorted(MACRO_DIR.glob(pattern))]


def public_signatures() -> list[Block]:
    """The public macro and test blocks (a materialization is no macro one calls)."""
    return [
        block
        for path in public_files()
        for block in blocks_in(path.read_text(), path)
        if block.kind in ("macro", "test") and not block.name.startswith(PRIVATE_PREFIXES)
    ]


def materializations() -> list[Block]:
    return [block for block in project_blocks() if block.kind == "materialization"]


def yaml_entries() -> dict[str, list[tuple[Path, dict]]]:
    """Every ``macros:`` entry of the YAML files under macros/, by name (duplicates show)."""
    entries: dict[str, list[tuple[Path, dict]]] = {}
    for path in sorted([*MACRO_DIR.rglob("*.yml"), *MACRO_DIR.rglob("*.yaml")]):
        document = yaml.safe_load(path.read_text()) or {}
        for entry in document.get("macros") or []:
            entries.setdefault(str(entry.get("name")), []).append((path, entry))
    return entries


def _blank(value) -> bool:
    return value is None or str(value).strip() == ""


def _fail_on(problems: list[str], heading: str) -> None:
    """Fails with every problem listed, one a line, under `heading`."""
    if problems:
        pytest.fail(f"{heading} ({len(problems)}):\n  " + "\n  ".join(problems), pytrace=False)


@pytest.mark.fast
def test_the_scan_finds_the_public_macros():
    found = {signature.name for signature in public_signatures()}
    lost = sorted(KNOWN_PUBLIC - found)
    assert not lost, f"the scan of {PUBLIC_SOURCES} misses {lost}"
    names = [signature.name for signature in public_signatures()]
    assert len(names) == len(set(names)), f"a public macro is defined twice: {sorted(names)}"


@pytest.mark.fast
def test_every_public_macro_has_one_yaml_entry_beside_its_source():
    entries = yaml_entries()
    problems = []
    for signature in public_signatures():
        expected_file = signature.path.with_suffix(".yml")
        found = entries.get(signature.registered, [])
        files = [str(path.relative_to(PROJECT_DIR)) for path, _ in found]
        if not found:
            problems.append(
                f"{signature.name} ({signature.where}): no entry `- name: {signature.registered}` "
                f"under `macros:` in {expected_file.relative_to(PROJECT_DIR)}"
            )
        elif len(found) > 1:
            problems.append(f"{signature.registered}: documented more than once, in {files}")
        elif found[0][0] != expected_file:
            problems.append(
                f"{signature.registered}: documented in {files[0]}, expected beside its source "
                f"in {expected_file.relative_to(PROJECT_DIR)}"
            )
    _fail_on(problems, "public macros without their YAML macro properties")


@pytest.mark.fast
def test_yaml_arguments_are_the_signature_arguments_in_order():
    entries = yaml_entries()
    problems = []
    for signature in public_signatures():
        for path, entry in entries.get(signature.registered, []):
            documented = tuple(str(arg.get("name")) for arg in entry.get("arguments") or [])
            accepted = {signature.arguments}
            if signature.kind == "test" and signature.arguments[:1] == ("model",):
                accepted.add(signature.arguments[1:])  # dbt passes `model` to a generic test
            if documented not in accepted:
                problems.append(
                    f"{signature.registered} in {path.relative_to(PROJECT_DIR)}: arguments "
                    f"{list(documented)}, but {signature.where} declares "
                    f"{list(signature.arguments)}"
                )
    _fail_on(problems, "YAML arguments that differ from the macro signature")


@pytest.mark.fast
def test_every_description_and_type_is_filled_in():
    entries = yaml_entries()
    problems = []
    for signature in public_signatures():
        for path, entry in entries.get(signature.registered, []):
            where = f"{signature.registered} in {path.relative_to(PROJECT_DIR)}"
            if _blank(entry.get("description")):
                problems.append(f"{where}: empty description")
            for argument in entry.get("arguments") or []:
                for key in ("description", "type"):
                    if _blank(argument.get(key)):
                        name = argument.get("name")
                        problems.append(f"{where}: argument {name!r} has an empty {key}")
    _fail_on(problems, "empty descriptions or types")


@pytest.mark.fast
def test_argument_types_are_types_dbt_accepts():
    # the grammar dbt checks with the `validate_macro_args` flag: string, integer, float, bool,
    # any, relation, column, list[T], dict[K, V], optional[T]
    from dbt.parser.schemas import is_valid_type

    problems = [
        f"{name} in {path.relative_to(PROJECT_DIR)}: argument {argument.get('name')!r} has type "
        f"{argument.get('type')!r}"
        for name, found in yaml_entries().items()
        for path, entry in found
        for argument in entry.get("arguments") or []
        if not _blank(argument.get("type")) and not is_valid_type(str(argument["type"]))
    ]
    _fail_on(
        problems,
        "argument types dbt's validate_macro_args rejects (write the detail, e.g. 'duration', in the description)",
    )


@pytest.mark.fast
def test_every_yaml_entry_names_a_macro_of_the_project():
    defined = {block.registered for block in project_blocks()}
    problems = [
        f"{name} in {path.relative_to(PROJECT_DIR)}"
        for name, found in yaml_entries().items()
        for path, _ in found
        if name not in defined
    ]
    _fail_on(problems, "YAML entries naming no macro (dbt ignores them; a generic test `x` is `test_x`)")


@pytest.mark.fast
def test_readme_shows_every_public_signature_as_declared():
    readme = README.read_text()
    missing = [
        signature
        for signature in public_signatures()
        if f"`{signature.signature}`" not in readme and f"`{PACKAGE}.{signature.signature}`" not in readme
    ]
    _fail_on(
        [f"`{signature.signature}`    (declared in {signature.where})" for signature in missing],
        f"README.md lacks these signatures, each in backticks (optionally prefixed `{PACKAGE}.`) "
        "exactly as the source declares them",
    )


@pytest.mark.fast
def test_each_public_file_holds_its_macro_and_its_dispatch_implementations_only():
    """Private building blocks live in macros/_internal/, named for what they do."""
    problems = []
    for path in public_files():
        blocks = blocks_in(path.read_text(), path)
        names = [block.name for block in blocks]
        public = [block for block in blocks if block.name == path.stem]
        allowed = {path.stem, *(f"{prefix}{block.registered}" for block in public for prefix in PRIVATE_PREFIXES[1:])}
        if not public or not set(names) <= allowed:
            problems.append(f"{path.relative_to(PROJECT_DIR)}: defines {names}")
    _fail_on(
        problems, f"public files holding other macros than `<file name>` and its {PRIVATE_PREFIXES[1:]} implementations"
    )


@pytest.mark.fast
def test_every_materialization_has_a_description_beside_its_source():
    found = {block.registered for block in materializations()}
    assert KNOWN_MATERIALIZATIONS <= found, f"the scan of {MACRO_DIR} misses {sorted(KNOWN_MATERIALIZATIONS - found)}"
    entries = yaml_entries()
    headings = {line.lstrip("#").strip() for line in README.read_text().splitlines() if line.startswith("#")}
    problems = []
    for block in materializations():
        expected_file = block.path.with_suffix(".yml")
        found = entries.get(block.registered, [])
        if [path for path, _ in found] != [expected_file]:
            files = [str(path.relative_to(PROJECT_DIR)) for path, _ in found]
            problems.append(
                f"{block.name} ({block.where}): one entry `- name: {block.registered}` under `macros:` "
                f"expected in {expected_file.relative_to(PROJECT_DIR)}, found in {files}"
            )
            continue
        description = found[0][1].get("description")
        if _blank(description):
            problems.append(f"{block.registered} in {expected_file.relative_to(PROJECT_DIR)}: empty description")
            continue
        for section in re.findall(r'section "([^"]+)"', description):
            if section not in headings:
                problems.append(f"{block.registered}: points to README section {section!r}, which README.md lacks")
    _fail_on(problems, "materializations without their YAML description")
