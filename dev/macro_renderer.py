"""Render the project's macros with plain Jinja, without dbt or Spark, and parse the SQL.

dbt compiles each ``{% macro %}`` block on its own and calls macros through its context, with
``return()``, ``exceptions.raise_compiler_error`` and ``adapter.dispatch``. This module gives the
macro files the same small context so fast tests can render them with many arguments and parse
the SQL with sqlglot (``parse``, ``parse_relation``, ``output_names``). It loads the three kinds
of block dbt reads from ``macros/``, named as dbt registers them: ``{% macro x %}`` as ``x``,
``{% test x %}`` as ``test_x`` and ``{% materialization x, adapter='spark' %}`` as
``materialization_x_spark``. It only runs the project's Jinja; it computes no window itself.
"""

from __future__ import annotations

import datetime
import json
import re
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import jinja2
import jinja2.sandbox
import pytz
import sqlglot
from sqlglot import exp

from dev.project import MACRO_DIR, PACKAGE, PROJECT_DIR

OPENING = re.compile(r"{%-?\s*(macro|test|materialization)\s+(\w+)\s*")
ADAPTER_OPTION = re.compile(r"adapter\s*=\s*['\"](\w+)['\"]")


@dataclass(frozen=True)
class Block:
    """One ``{% macro %}``, ``{% test %}`` or ``{% materialization %}`` block of a macro file."""

    kind: str  # "macro", "test" or "materialization"
    name: str  # as the source declares it
    registered: str  # as dbt registers it: `x`, `test_x`, `materialization_x_spark`
    parameters: str  # the text between the parentheses, as written ("" for a materialization)
    body: str  # the text between the opening and the closing tag
    source: str  # the block as a macro dbt would compile
    path: Path | None  # none for text that is no file of the project

    @property
    def signature(self) -> str:
        """``name(parameters)`` with each run of whitespace as one space."""
        parameters = " ".join(self.parameters.split())
        return f"{self.name}({parameters})"

    @property
    def arguments(self) -> tuple[str, ...]:
        """Argument names as Jinja reads them (defaults may hold commas, lists, strings)."""
        template = jinja2.Environment().parse(f"{{% macro m({self.parameters}) %}}{{% endmacro %}}")
        (macro,) = template.find_all(jinja2.nodes.Macro)
        return tuple(argument.name for argument in macro.args)

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


def blocks_in(text: str, path: Path | None = None) -> list[Block]:
    """The blocks of a macro file's text, in order."""
    blocks = []
    for opening in OPENING.finditer(text):
        kind, name = opening.groups()
        if kind == "materialization":
            header_end = text.index("%}", opening.end())
            adapter = ADAPTER_OPTION.search(text, opening.end(), header_end)
            registered = f"materialization_{name}_{adapter.group(1) if adapter else 'default'}"
            parameters = ""
        else:
            if text[opening.end()] != "(":
                raise ValueError(f"{path}: no parameters after {kind} {name}")
            parameters = _parameter_text(text, opening.end() + 1)
            header_end = text.index("%}", opening.end() + len(parameters) + 2)
            registered = f"test_{name}" if kind == "test" else name
        closing = re.compile(r"{%-?\s*end" + kind + r"\s*-?%}").search(text, header_end)
        if closing is None:
            raise ValueError(f"{path}: {kind} {name} has no end{kind}")
        body = text[header_end + 2 : closing.start()]
        if kind == "macro":
            source = text[opening.start() : closing.end()]
        else:
            source = f"{{% macro {registered}({parameters}) %}}{body}{{% endmacro %}}"
        blocks.append(Block(kind, name, registered, parameters, body, source, path))
    return blocks


def project_blocks(macro_dir: Path = MACRO_DIR) -> list[Block]:
    """Every block of every macro file under ``macro_dir``, file by file in name order."""
    return [block for path in sorted(macro_dir.rglob("*.sql")) for block in blocks_in(path.read_text(), path)]


def parse(sql: str) -> exp.Expression:
    """One Spark SQL statement, parsed by sqlglot (anything else fails the test)."""
    statements = [statement for statement in sqlglot.parse(sql, read="spark") if statement is not None]
    assert len(statements) == 1, sql
    return statements[0]


def parse_relation(sql: str) -> exp.Expression:
    """What a window macro returns (a subquery to use after FROM), in ``select * from ...``."""
    return parse(f"select * from {sql}")


def output_names(sql: str | exp.Expression) -> list[str]:
    """The names of the columns of the subquery a macro returns, in order: `sql` as the macro
    rendered it, or already parsed by ``parse_relation``."""
    tree = parse_relation(sql) if isinstance(sql, str) else sql
    subquery = tree.find(exp.Subquery).this
    if isinstance(subquery, exp.Union):  # branches of a union have the same columns
        subquery = subquery.left
    return [projection.alias_or_name for projection in subquery.expressions]


class CompilerError(Exception):
    """What ``exceptions.raise_compiler_error`` raises in dbt, as a Python exception."""


class _MacroReturn(Exception):
    def __init__(self, value):
        super().__init__()
        self.value = value


def _return(value):
    raise _MacroReturn(value)


def _raise_compiler_error(message):
    raise CompilerError(message)


class Relation(dict):
    """What ref() and source() return, as far as the macros look at it: a mapping whose metadata
    type ends in Relation, rendered as its name. `columns` are what the adapter finds in the
    warehouse (none: the relation is not built yet), each a name or a (name, Spark type) pair;
    `is_cte` marks an ephemeral model. As dbt's relations, `incorporate` gives a copy with an
    `event_time_filter` (a mapping of field_name, start, end: microbatch, --sample) or a `limit`
    (--empty), and such a relation renders as the subquery dbt writes. `statistics` are what
    Spark keeps of the table after ANALYZE TABLE, as DESCRIBE TABLE EXTENDED shows them: "rows"
    (the row count; none: never analyzed) and, by column name, info name -> value (min, max,
    distinct_count, ...)."""

    def __init__(
        self, name: str, columns=(), is_cte: bool = False, event_time_filter=None, limit=None, statistics=None
    ):
        super().__init__(metadata={"type": "SparkRelation"})
        self.name = name
        self.columns = list(columns)
        self.is_cte = is_cte
        self.statistics = dict(statistics or {})
        self.event_time_filter = event_time_filter
        self.limit = limit

    @property
    def identifier(self) -> str:
        return self.name.split(".")[-1]

    def incorporate(self, **changes) -> Relation:
        kept = {"event_time_filter": self.event_time_filter, "limit": self.limit, "statistics": self.statistics}
        kept.update(changes)
        return Relation(self.name, self.columns, self.is_cte, **kept)

    def __str__(self) -> str:
        rendered = self.name
        if self.limit is not None:
            rendered = (
                f"(select * from {rendered} where false limit 0)"
                if self.limit == 0
                else (f"(select * from {rendered} limit {self.limit})")
            )
        found = self.event_time_filter
        if found:
            bounds = [
                f"{found['field_name']} >= '{found['start']}'" if found.get("start") else None,
                f"{found['field_name']} < '{found['end']}'" if found.get("end") else None,
            ]
            rendered = f"(select * from {rendered} where {' and '.join(bound for bound in bounds if bound)})"
        return rendered


class _Adapter:
    def __init__(self, renderer: MacroRenderer, adapter_type: str):
        self._renderer = renderer
        self._type = adapter_type
        self.introspected: list[str] = []  # relations whose columns were looked up, in order
        self.tables: dict[str, Relation] = {}  # those relations by name, for DESCRIBE TABLE EXTENDED t c
        # what dbt's relation cache holds, by identifier (a test fills it; empty: nothing listed)
        self.listed: dict[str, SimpleNamespace] = {}
        self.dropped: list[str] = []  # relations dropped through the adapter, in order

    def type(self) -> str:
        return self._type

    def get_columns_in_relation(self, relation: Relation) -> list:
        self.introspected.append(str(relation))
        self.tables[relation.name] = relation
        # dbt-spark's columns carry the table's statistics (SparkColumn.table_stats), as it
        # parses them from Spark's "N bytes, M rows"
        rows = relation.statistics.get("rows")
        stats = {"stats:bytes:value": 4096} | ({"stats:rows:value": rows} if rows is not None else {})
        return [
            SimpleNamespace(name=column, dtype=None, table_stats=stats)
            if isinstance(column, str)
            else SimpleNamespace(name=column[0], dtype=column[1], table_stats=stats)
            for column in relation.columns
        ]

    def get_relation(self, database: str, schema: str, identifier: str):
        return self.listed.get(identifier)

    def drop_relation(self, relation) -> None:
        """As dbt: the relation dropped (one statement) and taken out of the relation cache."""
        self.dropped.append(str(relation))
        self.listed.pop(relation.identifier, None)

    def cache_dropped(self, relation) -> str:
        """As dbt: the relation taken out of the relation cache (no statement)."""
        self.listed.pop(relation.identifier, None)
        return ""

    def dispatch(self, name: str, macro_namespace: str = PACKAGE):
        """As dbt: each package of the namespace's search order (the root project's `dispatch:`
        config; by default the namespace alone), the adapter's prefix before `default__`."""
        searched = []
        for package in self._renderer.search_order.get(macro_namespace, [macro_namespace]):
            macros = self._renderer.packages.get(package, {})
            for candidate in (f"{self._type}__{name}", f"default__{name}"):
                searched.append(f"{package}.{candidate}")
                if candidate in macros:
                    return macros[candidate]
        raise CompilerError(
            f"In dispatch: no macro named {name!r} in namespace {macro_namespace!r}; searched {searched}"
        )


def _query_table(sql: str, spark_version: str, expression_types: dict[str, str] | None, tables: dict):
    """What dbt's run_query returns for the queries macros ask while compiling: `select version()`
    (Spark's "4.3.0 <commit>"), DESCRIBE QUERY of one expression over a relation: the type the
    test gives for that expression in `expression_types`, or a day-time interval for any
    expression when the test gives none (a session gap's type, which most tests do not vary), and
    DESCRIBE TABLE EXTENDED of a column of a table whose columns were looked up (`tables`), with
    its statistics."""
    if sql.strip().lower() == "select version()":
        return SimpleNamespace(rows=[(f"{spark_version} 0123abc",)])
    column = re.fullmatch(r"describe table extended (\S+) (\S+)", sql.strip())
    if column and column.group(1) in tables:
        return _described_column(tables[column.group(1)], column.group(2))
    described = re.fullmatch(r"describe query select \((.*)\) as __sw_value from \S+ as __sw_source", sql.strip(), re.S)
    if described and (expression_types is None or described.group(1) in expression_types):
        data_type = "interval day to second" if expression_types is None else expression_types[described.group(1)]
        return SimpleNamespace(rows=[("__sw_value", data_type, None)])
    raise AssertionError(f"a macro ran a query while compiling: {sql}")


def _described_column(relation: Relation, column: str):
    """DESCRIBE TABLE EXTENDED's rows of one column of a table, as Spark prints them: info name,
    value ('NULL' where not analyzed)."""
    name = column.strip("`")
    types = {c: None for c in relation.columns if isinstance(c, str)} | dict(
        c for c in relation.columns if not isinstance(c, str)
    )
    found = {"col_name": name, "data_type": types[name], "comment": "NULL"}
    for info in ["min", "max", "num_nulls", "distinct_count", "avg_col_len", "max_col_len", "histogram"]:
        found[info] = relation.statistics.get(name, {}).get(info, "NULL")
    return SimpleNamespace(rows=list(found.items()))


class _Sandbox(jinja2.sandbox.SandboxedEnvironment):
    """dbt lets a package call its private macros as `spark_windows._sw_name(...)`."""

    def is_safe_attribute(self, obj, attr, value):
        if isinstance(obj, SimpleNamespace) and attr.startswith("_sw"):
            return True
        return super().is_safe_attribute(obj, attr, value)


class MacroRenderer:
    """Loads every block of the macro files under ``macros/``; ``call(name, ...)`` renders a
    macro or a generic test (``test_<name>``), ``materialization(name, **context)`` runs a
    materialization's body with a stubbed dbt context, ``render(text, **context)`` a template.

    ``packages`` adds other projects' macros by package name (their macro files' text), for
    ``adapter.dispatch`` only; ``dispatch`` is the root project's `dispatch:` config, a search
    order of packages by macro namespace, e.g. ``{"spark_windows": ["my_project", "spark_windows"]}``.
    """

    def __init__(
        self,
        adapter_type: str = "spark",
        macro_dir: Path = MACRO_DIR,
        execute: bool = True,
        packages: dict[str, str] | None = None,
        dispatch: dict[str, list[str]] | None = None,
        spark_version: str = "4.3.0",
        expression_types: dict[str, str] | None = None,
    ):
        self.env = _Sandbox(extensions=["jinja2.ext.do"], undefined=jinja2.StrictUndefined)
        self.macros: dict[str, object] = {}
        self.materializations: dict[str, Block] = {}
        self.packages: dict[str, dict[str, object]] = {PACKAGE: self.macros}
        self.search_order = dict(dispatch or {})
        adapter = _Adapter(self, adapter_type)
        self.env.globals.update(
            {
                "return": _return,
                "exceptions": SimpleNamespace(raise_compiler_error=_raise_compiler_error),
                # dbt's modules.pytz is a dict of the names in pytz.__all__
                "modules": SimpleNamespace(
                    re=re, datetime=datetime, pytz={name: getattr(pytz, name) for name in pytz.__all__}
                ),
                "adapter": adapter,
                # dbt's tojson (json.dumps; its `default` is left out)
                "tojson": lambda value, sort_keys=False: json.dumps(value, sort_keys=sort_keys),
                # dbt's fromjson (json.loads)
                "fromjson": json.loads,
                # dbt's `execute`: false while it parses the project, true when it compiles a model
                "execute": execute,
                # dbt's run_query, for the queries macros ask while compiling: Spark's version,
                # and the type of an expression (``expression_types``: expression -> Spark type; {} for
                # none: any such query fails the test)
                "run_query": lambda sql: _query_table(sql, spark_version, expression_types, adapter.tables),
                PACKAGE: SimpleNamespace(),
            }
        )
        for block in project_blocks(macro_dir):
            if block.kind == "materialization":
                self.materializations[block.registered] = block
            else:
                self._add(block.registered, block.source)
        for package, text in (packages or {}).items():
            self.packages[package] = {
                block.registered: self._compile(block.registered, block.source) for block in blocks_in(text)
            }
        self.env.globals[PACKAGE] = SimpleNamespace(**self.macros)

    def _compile(self, name: str, source: str):
        compiled = []

        def call(*args, **kwargs):
            # Compiled on first use, once every macro name is in the globals: a Jinja module
            # sees a copy of the globals taken when it is made.
            if not compiled:
                # Jinja does not export names that start with "_": re-export the macro.
                module = self.env.from_string(source + f"{{% set exported_macro = {name} %}}").module
                compiled.append(module.exported_macro)
            try:
                return compiled[0](*args, **kwargs)
            except _MacroReturn as returned:
                return returned.value

        return call

    def _add(self, name: str, source: str) -> None:
        if name in self.macros:
            raise ValueError(f"macro {name} is defined twice")
        self.macros[name] = self.env.globals[name] = self._compile(name, source)

    def call(self, name: str, *args, **kwargs):
        return self.macros[name](*args, **kwargs)

    def render(self, text: str, **context):
        """Renders a template (a model, a materialization's body) with the project's macros and
        `context` as its variables; what it passes to ``return()``, else the text it renders."""
        try:
            return self.env.from_string(text).render(**context)
        except _MacroReturn as returned:
            return returned.value

    def materialization(self, name: str, adapter: str = "spark", **context):
        """Runs the body of ``{% materialization name, adapter=... %}``; `context` stands in for
        what dbt gives it (config, this, sql, run_query, statement, ...)."""
        return self.render(self.materializations[f"materialization_{name}_{adapter}"].body, **context)
