"""The `spark_windows.<macro>(...)` calls of the models, as sqlfluff sees them.

Each function has the signature of the macro it stands for (in `macros/`), so a call with wrong
arguments fails to render, and returns what the macro's output looks like to a parser: a
parenthesized subquery to use right after FROM. What the real macros compute is tested elsewhere;
the lint needs only SQL that parses.
"""

from __future__ import annotations

from typing import Any


def _subquery(relation: Any) -> str:
    """`relation` is a ref() stand-in, a CTE or table name, or another macro's subquery."""
    return f"(select * from {relation})"


def tumble(relation, time_col, size, offset=None, time_zone=None):
    return _subquery(relation)


def hop(relation, time_col, slide, size, offset=None, allow_gaps=False, time_zone=None):
    return _subquery(relation)


def cumulate(relation, time_col, step, size, offset=None, time_zone=None):
    return _subquery(relation)


def session(relation, time_col, gap, partition_by=None):
    return _subquery(relation)


def count_window(relation, order_by, size, slide=None, partition_by=None):
    return _subquery(relation)


def calendar_window(relation, time_col, unit, time_zone=None, offset=None):
    return _subquery(relation)


def window_aggregate(
    relation, time_col, window, group_by, aggregates, time_zone=None, agg_phase_strategy=None, plan=None
):
    return _subquery(relation)


def window_firings(relation, time_col, window, group_by, aggregates, trigger=None, purge=False, evictor=None):
    return _subquery(relation)


def kafka_records(relation, value_schema, value_format="json", key_format="string", key_schema=None, keep_columns=None):
    return _subquery(relation)


def window_top_n(relation, partition_by, order_by, n, ranking="row_number"):
    return _subquery(relation)


def window_deduplicate(relation, partition_by, order_by, keep="first"):
    return _subquery(relation)
