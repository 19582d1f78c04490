"""Fast tests: the public macros' documentation stays in step with their source.

Public macros are the ``{% macro name(`` and ``{% test name(`` blocks of macros/windows/*.sql and
macros/data_tests/*.sql whose names do not start with ``_``, ``default__`` or ``spark__``. Each
must have a YAML macro properties entry (``macros/windows/hop.yml`` for ``hop.sql``) whose
arguments are the signature's, in order, with a description and a type; and README.md must show
its signature in backticks exactly as the source declares it. A public file holds its macro
and that macro's ``default__``/``spark__`` implementations only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import jinja2
import pytest
import yaml

PROJECT_DIR = Path(__file__).resolve().parent.parent
MACRO_DIR = PROJECT_DIR / "macros"
README = PROJECT_DIR / "README.md"
PUBLIC_SOURCES = ("windows/*.sql", "data_tests/*.sql")
PRIVATE_PREFIXES = ("_", "default__", "spark__")
PACKAGE = "spark_windows"
DEFINITION = re.compile(r"{%-?\s*(macro|test)\s+(\w+)\s*\(")
# the macros this project has always had: if the scan stops finding them, the other tests
# would pass without checking anything
KNOWN_PUBLIC = {"tumble", "hop", "cumulate", "session", "window_aggregate", "equals_expected"}


@dataclass(frozen=True)
class Signature:
    kind: str  # "macro" or "test"
    name: str
    parameters: str  # the text between the parentheses, whitespace runs as one space
    arguments: tuple[str, ...]
    path: Path

    @property
    def yaml_name(self) -> str:
        """dbt registers a generic test ``{% test x() %}`` as the macro ``test_x``."""
        return f"test_{self.name}" if self.kind == "test" else self.name

    @property
    def text(self) -> str:
        return f"{self.name}({self.parameters})"

    @property
    def where(self) -> str:
        return str(self.path.relative_to(PROJECT_DIR))


def _parameter_text(source: str, start: int) -> str:
    """The text from ``start`` (just after an opening parenthesis) to its closing one."""
    depth, quote = 1, None
    for index in range(start, len(source)):
        char = source[index]
        if quote:
            if char == quote and source[index - 1] != "\\":
                quote = None
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return source[start:index]
    raise ValueError(f"unbalanced parentheses after offset {start}")


def _argument_names(parameters: str) -> tuple[str, ...]:
    """Argument names as Jinja reads them (defaults may hold commas, lists, strings)."""
    template = jinja2.Environment().parse(f"{{% macro m({parameters}) %}}{{% endmacro %}}")
    (macro,) = template.find_all(jinja2.nodes.Macro)
    return tuple(argument.name for argument in macro.args)


def signatures_in(path: Path) -> list[Signature]:
    source = path.read_text()
    found = []
    for match in DEFINITION.finditer(source):
        kind, name = match.groups()
        if name.startswith(PRIVATE_PREFIXES):
            continue
        raw = _parameter_text(source, match.end())
        parameters = re.sub(r"\s+", " ", raw).strip()
        found.append(Signature(kind, name, parameters, _argument_names(raw), path))
    return found


def public_signatures() -> list[Signature]:
    return [
        signature
        for pattern in PUBLIC_SOURCES
        for path in sorted(MACRO_DIR.glob(pattern))
        for signature in signatures_in(path)
    ]


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
        found = entries.get(signature.yaml_name, [])
        files = [str(path.relative_to(PROJECT_DIR)) for path, _ in found]
        if not found:
            problems.append(
                f"{signature.name} ({signature.where}): no entry `- name: {signature.yaml_name}` "
                f"under `macros:` in {expected_file.relative_to(PROJECT_DIR)}"
            )
        elif len(found) > 1:
            problems.append(f"{signature.yaml_name}: documented more than once, in {files}")
        elif found[0][0] != expected_file:
            problems.append(
                f"{signature.yaml_name}: documented in {files[0]}, expected beside its source "
                f"in {expected_file.relative_to(PROJECT_DIR)}"
            )
    _fail_on(problems, "public macros without their YAML macro properties")


@pytest.mark.fast
def test_yaml_arguments_are_the_signature_arguments_in_order():
    entries = yaml_entries()
    problems = []
    for signature in public_signatures():
        for path, entry in entries.get(signature.yaml_name, []):
            documented = tuple(str(arg.get("name")) for arg in entry.get("arguments") or [])
            accepted = {signature.arguments}
            if signature.kind == "test" and signature.arguments[:1] == ("model",):
                accepted.add(signature.arguments[1:])  # dbt passes `model` to a generic test
            if documented not in accepted:
                problems.append(
                    f"{signature.yaml_name} in {path.relative_to(PROJECT_DIR)}: arguments "
                    f"{list(documented)}, but {signature.where} declares "
                    f"{list(signature.arguments)}"
                )
    _fail_on(problems, "YAML arguments that differ from the macro signature")


@pytest.mark.fast
def test_every_description_and_type_is_filled_in():
    entries = yaml_entries()
    problems = []
    for signature in public_signatures():
        for path, entry in entries.get(signature.yaml_name, []):
            where = f"{signature.yaml_name} in {path.relative_to(PROJECT_DIR)}"
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
    defined = {
        f"test_{name}" if kind == "test" else name
        for path in MACRO_DIR.rglob("*.sql")
        for kind, name in DEFINITION.findall(path.read_text())
    }
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
        if f"`{signature.text}`" not in readme and f"`{PACKAGE}.{signature.text}`" not in readme
    ]
    _fail_on(
        [f"`{signature.text}`    (declared in {signature.where})" for signature in missing],
        f"README.md lacks these signatures, each in backticks (optionally prefixed `{PACKAGE}.`) "
        "exactly as the source declares them",
    )


@pytest.mark.fast
def test_each_public_file_holds_its_macro_and_its_dispatch_implementations_only():
    """Private building blocks live in macros/_internal/, named for what they do."""
    problems = []
    for path in sorted(path for pattern in PUBLIC_SOURCES for path in MACRO_DIR.glob(pattern)):
        blocks = DEFINITION.findall(path.read_text())
        dispatched = f"test_{path.stem}" if path.parent.name == "data_tests" else path.stem
        allowed = {path.stem, *(f"{prefix}{dispatched}" for prefix in PRIVATE_PREFIXES[1:])}
        extra = sorted(name for _, name in blocks if name not in allowed)
        if extra or path.stem not in {name for _, name in blocks}:
            problems.append(f"{path.relative_to(PROJECT_DIR)}: defines {[name for _, name in blocks]}")
    _fail_on(
        problems, f"public files holding other macros than `<file name>` and its {PRIVATE_PREFIXES[1:]} implementations"
    )
