"""How many Hypothesis examples each property test needs, measured by mutation analysis.

    python dev/mutate_properties.py [--tests NAME,...] [--mutants N] [--out FILE]

For each slow property test (an @given test of tests/functional that takes only the `spark` and
`renderer` fixtures):
  1. the macro files its first 5 examples call (the renderer records them);
  2. mutants of those files, one small change each (`<` for `<=`, ` - ` for ` + `, `desc` for
     `asc`, `union` for `union all`, ...), at sites drawn at random (seeded by the test's name);
     the checks and the microbatch wrapper are left alone (a mutant there fails every example);
  3. a mutant is live when the SQL the test renders in its first 5 examples differs from the
     project's; for each of the first N live mutants, the test runs on Spark with the mutated
     macros, its own examples (derandomized, as the suite runs them) up to its max_examples, no
     shrinking: the number of the first failing example, or none (the mutant survived).

A test's count of examples is enough when every mutant it kills is killed well within it; a
mutant killed only near the end says the count is what finds it. Prints one line per live
mutant and a summary per test, and writes the results as JSON (default
.spark_state/mutants.json). It runs the tests' Python models and the macros' SQL; it changes no
file of the project (mutants are copies of macros/ in a temporary folder). Takes minutes per
test: run it alone, not beside the test suite. tests/README.md ("How many examples") holds the
last figures.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import inspect
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
# the test helpers, and the repository root (dev/, and tests.functional, whose property tests run here)
sys.path[:0] = [str(PROJECT_DIR / "tests" / "support"), str(PROJECT_DIR)]

from dev.macro_renderer import MacroRenderer, project_blocks  # noqa: E402

FIRST_EXAMPLES = 5
# argument checks and the microbatch wrapper: a mutant there fails every example at once
LEFT_ALONE = {"_internal/_sw_validate.sql", "_internal/_sw_microbatch.sql", "_internal/_sw_sql_text.sql"}
# (pattern, replacement): one site of one of these is one mutant
OPERATORS = [
    (r"<=", "<"),
    (r">=", ">"),
    (r"(?<![<>=!\-])<(?![=>])", "<="),
    (r"(?<![\-=<>])>(?![=])", ">="),
    (r" \+ ", " - "),
    (r" - ", " + "),
    (r"\bmin\(", "max("),
    (r"\bmax\(", "min("),
    (r"\basc\b", "desc"),
    (r"\bdesc\b", "asc"),
    (r"\bfloor\(", "ceil("),
    (r"\band\b", "or"),
    (r"\bleft join\b", "join"),
    (r"\bunion all\b", "union"),
    (r"\bis null\b", "is not null"),
    (r"\bis not null\b", "is null"),
    (r"(?<=[\s(,])1(?=[\s),])", "2"),
    (r"(?<=[\s(,])0(?=[\s),])", "1"),
    (r"\bpreceding\b", "following"),
]


def sites(text: str) -> list[tuple[int, int, int]]:
    """(line index, column, operator index) of every mutation site of a macro file's text, outside
    Jinja comments ({# #}) and SQL line comments (--)."""
    found = []
    in_comment = False
    for number, line in enumerate(text.split("\n")):
        if in_comment:
            in_comment = "#}" not in line
            continue
        if "{#" in line:
            in_comment = "#}" not in line.split("{#", 1)[1]
            continue
        code = line if line.strip().startswith("{%") else line.split("--", 1)[0]
        for index, (pattern, _) in enumerate(OPERATORS):
            found.extend((number, match.start(), index) for match in re.finditer(pattern, code))
    return found


def mutate(text: str, site: tuple[int, int, int]) -> tuple[str, str]:
    """The text with the one change at `site`, and that change as `before => after` (its line)."""
    number, column, index = site
    pattern, replacement = OPERATORS[index]
    lines = text.split("\n")
    line = lines[number]
    match = re.compile(pattern).match(line, column)
    if match is None:
        raise ValueError(f"no {pattern!r} at line {number + 1}, column {column}")
    lines[number] = line[:column] + replacement + line[match.end() :]
    return "\n".join(lines), f"{line.strip()}  =>  {lines[number].strip()}"


def property_tests() -> dict[str, object]:
    """`module::name` -> the Hypothesis-wrapped test, for every @given test of tests/functional
    whose fixtures are `spark` and `renderer` only."""
    found = {}
    for path in sorted((PROJECT_DIR / "tests" / "functional").glob("test_*.py")):
        module = importlib.import_module(f"tests.functional.{path.stem}")
        for name, test in vars(module).items():
            if not name.startswith("test_") or not hasattr(test, "hypothesis"):
                continue
            # a decorator around the Hypothesis test (functools.wraps) carries its attributes
            while hasattr(getattr(test, "__wrapped__", None), "hypothesis"):
                test = test.__wrapped__
            if set(inspect.signature(test).parameters) <= {"spark", "renderer"}:
                found[f"{path.stem}::{name}"] = test
    return found


@functools.cache
def spark_session():
    """A local Spark with the settings of the `local` target that change results."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # no host-name lookup
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("OFF")
    return spark


def run_examples(test, renderer, max_examples: int) -> tuple[int | None, str | None]:
    """Runs `test` with `renderer` on its own examples up to `max_examples`, without shrinking:
    (the number of the first failing example, its error) or (None, None) when all pass."""
    from hypothesis import Phase, settings

    inner = test.hypothesis.inner_test
    calls = 0

    @functools.wraps(inner)  # the same digest, so the same derandomized examples
    def counted(*args, **kwargs):
        nonlocal calls
        calls += 1
        return inner(*args, **kwargs)

    own = test._hypothesis_internal_use_settings
    test.hypothesis.inner_test = counted
    test._hypothesis_internal_use_settings = settings(
        own,
        max_examples=max_examples,
        phases=[Phase.explicit, Phase.generate],
        report_multiple_bugs=False,
        database=None,
    )
    fixtures = {"spark": spark_session, "renderer": lambda: renderer}
    try:
        test(**{name: fixtures[name]() for name in inspect.signature(test).parameters})
        return None, None
    except Exception as error:  # the mutant's failure, whatever it is
        return calls, f"{type(error).__name__}: {str(error)[:160]}"
    finally:
        test.hypothesis.inner_test = inner
        test._hypothesis_internal_use_settings = own


class Recording(MacroRenderer):
    """A renderer that records the names of the macros a test calls."""

    def __init__(self, **options):
        self.called: set[str] = set()
        super().__init__(**options)

    def _compile(self, name: str, source: str):
        call = super()._compile(name, source)

        def recorded(*args, **kwargs):
            self.called.add(name)
            return call(*args, **kwargs)

        return recorded


class Both:
    """Renders with the project's macros and a mutant's; hands out the project's SQL (so every
    example passes) and notes whether the mutant's ever differed."""

    def __init__(self, project: MacroRenderer, mutant: MacroRenderer):
        self.project, self.mutant, self.differs = project, mutant, False

    def _both(self, method: str, *args, **kwargs):
        ours = getattr(self.project, method)(*args, **kwargs)
        try:
            theirs = getattr(self.mutant, method)(*args, **kwargs)
        except Exception:  # the mutant cannot even render: it differs
            theirs = object()
        self.differs = self.differs or theirs != ours
        return ours

    def call(self, name: str, *args, **kwargs):
        return self._both("call", name, *args, **kwargs)

    def render(self, text: str, **context):
        return self._both("render", text, **context)

    def __getattr__(self, name: str):
        return getattr(self.project, name)


def macro_files(test) -> list[str]:
    """The macro files (relative to macros/) the test's first examples call, less LEFT_ALONE."""
    recording = Recording()
    run_examples(test, recording, FIRST_EXAMPLES)
    paths = {block.registered: block.path for block in project_blocks()}
    macro_dir = PROJECT_DIR / "macros"
    files = {str(paths[name].relative_to(macro_dir)) for name in recording.called if name in paths}
    return sorted(files - LEFT_ALONE)


def analyse(key: str, test, wanted: int, scratch: Path) -> list[dict]:
    """Up to `wanted` live mutants of the files `test` uses, each run as the suite runs the test."""
    max_examples = test._hypothesis_internal_use_settings.max_examples
    macro_dir = PROJECT_DIR / "macros"
    candidates = [(file, site) for file in macro_files(test) for site in sites((macro_dir / file).read_text())]
    random.Random(key).shuffle(candidates)
    project = MacroRenderer()
    # one copy of macros/; each mutant changes one file of it, given back after
    mutant_dir = scratch / "macros"
    shutil.rmtree(mutant_dir, ignore_errors=True)
    shutil.copytree(macro_dir, mutant_dir)
    results: list[dict] = []
    for file, site in candidates:
        if sum(result["live"] for result in results) >= wanted:
            break
        original = (macro_dir / file).read_text()
        text, change = mutate(original, site)
        (mutant_dir / file).write_text(text)
        result = {"mutant": f"{file}:{site[0] + 1}: {change}", "live": False}
        try:
            mutant = MacroRenderer(macro_dir=mutant_dir)
        except Exception:  # the macros no longer load: no test would even start
            continue
        finally:  # the renderer has read every file: the copy is the project's again
            (mutant_dir / file).write_text(original)
        both = Both(project, mutant)
        run_examples(test, both, FIRST_EXAMPLES)
        if both.differs:
            started = time.perf_counter()
            killed_at, error = run_examples(test, mutant, max_examples)
            seconds = round(time.perf_counter() - started, 1)
            result.update(live=True, killed_at=killed_at, error=error, seconds=seconds)
            print(f"{key} ({max_examples}): {result['mutant'][:150]} -> {killed_at or 'survived'}", flush=True)
        results.append(result)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", help="comma-separated test names (module::name or name); default: every one")
    parser.add_argument("--mutants", type=int, default=5, help="live mutants per test (default 5)")
    parser.add_argument("--out", type=Path, default=PROJECT_DIR / ".spark_state" / "mutants.json")
    args = parser.parse_args()
    tests = property_tests()
    if args.tests:
        asked = args.tests.split(",")
        unknown = [name for name in asked if not any(key == name or key.endswith(f"::{name}") for key in tests)]
        if unknown:
            parser.error(f"no property test named {', '.join(unknown)}; the property tests: {', '.join(tests)}")
        tests = {key: test for key, test in tests.items() if key in asked or key.split("::")[1] in asked}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    found = json.loads(args.out.read_text()) if args.out.exists() else {}
    with tempfile.TemporaryDirectory(prefix="mutants-") as scratch:
        for key, test in tests.items():
            found[key] = {
                "max_examples": test._hypothesis_internal_use_settings.max_examples,
                "mutants": analyse(key, test, args.mutants, Path(scratch)),
            }
            args.out.write_text(json.dumps(found, indent=1))
    for key, result in found.items():
        live = [mutant for mutant in result["mutants"] if mutant["live"]]
        killed = sorted(mutant["killed_at"] for mutant in live if mutant["killed_at"])
        survived = len(live) - len(killed)
        print(f"{key}: max_examples {result['max_examples']}, killed at {killed}, survived {survived}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
