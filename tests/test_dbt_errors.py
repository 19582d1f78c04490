"""Slow test: through dbt itself (not the plain-Jinja renderer of the fast tests), a bad
argument stops compilation with the macro's message, and nothing runs."""

from __future__ import annotations

import pytest
from dbt_harness import run_dbt

pytestmark = pytest.mark.slow

BAD_CALLS = [
    (
        "select * from {{ spark_windows.hop(ref('orders'), 'order_ts', '7 minutes', '10 minutes') }}",
        "hop: size ('10 minutes') must be a whole multiple of slide ('7 minutes')",
    ),
    (
        "select * from {{ spark_windows.tumble(ref('orders'), 'order_ts', '5 parsecs') }}",
        "tumble: size ('5 parsecs') is not a duration; expected a string '<integer> <unit>'",
    ),
    (
        "select * from {{ spark_windows.window_aggregate(ref('orders'), 'order_ts',"
        " {'type': 'slide', 'size': '1 minute'}, [], {'n': 'count(*)'}) }}",
        "window_aggregate: window ({'type': 'slide', 'size': '1 minute'}) must be a dict whose 'type' is tumble",
    ),
]


@pytest.mark.parametrize("sql, message", BAD_CALLS)
def test_dbt_compile_stops_with_the_macros_message(warehouse, dbt_target, sql, message):
    logged = []  # what dbt shows the user: the messages of its events
    callbacks = [lambda event: logged.append(event.info.msg)]
    result = run_dbt(["compile", "--target", dbt_target, "--inline", sql], expect_pass=False, callbacks=callbacks)
    shown = "\n".join([str(result.exception), *map(str, logged)])
    assert message in shown, shown[-3000:]
