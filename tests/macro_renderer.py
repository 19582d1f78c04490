"""Render the project's macros with plain Jinja, without dbt or Spark.

dbt compiles each ``{% macro %}`` block on its own and calls macros through its context, with
``return()``, ``exceptions.raise_compiler_error`` and ``adapter.dispatch``. This module gives the
macro files the same small context so fast tests can render them with many arguments and parse
the SQL with sqlglot. It only runs the project's Jinja; it computes no window itself.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from types import SimpleNamespace

import jinja2
import jinja2.sandbox
import pytz

PROJECT_DIR = Path(__file__).resolve().parent.parent
MACRO_DIR = PROJECT_DIR / "macros"
PACKAGE = "spark_windows"
MACRO_BLOCK = re.compile(
    r"{%-?\s*macro\s+(\w+)\s*\(.*?{%-?\s*endmacro\s*-?%}",
    re.DOTALL,
)


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
    warehouse (none: the relation is not built yet); `is_cte` marks an ephemeral model."""

    def __init__(self, name: str, columns=(), is_cte: bool = False):
        super().__init__(metadata={"type": "SparkRelation"})
        self.name = name
        self.columns = list(columns)
        self.is_cte = is_cte

    def __str__(self) -> str:
        return self.name


class _Adapter:
    def __init__(self, renderer: MacroRenderer, adapter_type: str):
        self._renderer = renderer
        self._type = adapter_type
        self.introspected: list[str] = []  # relations whose columns were looked up, in order

    def type(self) -> str:
        return self._type

    def get_columns_in_relation(self, relation: Relation) -> list:
        self.introspected.append(str(relation))
        return [SimpleNamespace(name=name) for name in relation.columns]

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


class _Sandbox(jinja2.sandbox.SandboxedEnvironment):
    """dbt lets a package call its private macros as `spark_windows._sw_name(...)`."""

    def is_safe_attribute(self, obj, attr, value):
        if isinstance(obj, SimpleNamespace) and attr.startswith("_sw"):
            return True
        return super().is_safe_attribute(obj, attr, value)


class MacroRenderer:
    """Loads every macro file under ``macros/``; ``call(name, ...)`` renders one macro.

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
    ):
        self.env = _Sandbox(extensions=["jinja2.ext.do"], undefined=jinja2.StrictUndefined)
        self.macros: dict[str, object] = {}
        self.packages: dict[str, dict[str, object]] = {PACKAGE: self.macros}
        self.search_order = dict(dispatch or {})
        self.env.globals.update(
            {
                "return": _return,
                "exceptions": SimpleNamespace(raise_compiler_error=_raise_compiler_error),
                # dbt's modules.pytz is a dict of the names in pytz.__all__
                "modules": SimpleNamespace(
                    re=re, datetime=datetime, pytz={name: getattr(pytz, name) for name in pytz.__all__}
                ),
                "adapter": _Adapter(self, adapter_type),
                # dbt's `execute`: false while it parses the project, true when it compiles a model
                "execute": execute,
                PACKAGE: SimpleNamespace(),
            }
        )
        for path in sorted(macro_dir.rglob("*.sql")):
            for match in MACRO_BLOCK.finditer(path.read_text()):
                self._add(match.group(1), match.group(0))
        for package, source in (packages or {}).items():
            macros = self.packages.setdefault(package, {})
            for match in MACRO_BLOCK.finditer(source):
                macros[match.group(1)] = self._compile(match.group(1), match.group(0))
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
