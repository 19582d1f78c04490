"""Slow tests: each window data test fails on its bad fixture, with the expected failing rows.

The fixtures are seeds/bad_windows/: small bad windows and the tests applied to them, all
disabled unless dbt runs with ``--vars '{spark_windows_must_fail: true}'``, so the normal
``dbt build`` (the ``warehouse`` fixture) stays green. The examples' YAML shows each test
passing on good windows; ``must_pass__`` fixtures cover what no example does.
"""

from __future__ import annotations

import pytest

from dev.dbt_harness import run_dbt

pytestmark = pytest.mark.slow

MUST_FAIL_VARS = "{spark_windows_must_fail: true}"

# test name -> failing rows it must return (0: it must pass)
EXPECTED_FAILURES = {
    # 08:01-08:02:30 is 90 seconds long
    "must_fail__window_size_is": 1,
    # 08:02:30 is off the minute grid ...
    "must_fail__windows_aligned": 1,
    # ... but on the 30-second one
    "must_pass__windows_aligned_30_seconds": 0,
    # u1's 09:10 session touches its 09:00-09:10 one
    "must_fail__sessions_do_not_overlap": 1,
    # all users as one partition: u2 09:05 and u1 09:10 overlap, u2 09:20 touches u1's 09:20 end
    "must_fail__sessions_do_not_overlap_across_users": 3,
    # s1 counted 4 of 3, s3's reading in no window, s4 a window without readings; s2 and the
    # NULL sensor (matched NULL-safely) are right
    "must_fail__windows_cover_source": 3,
    # with late rows: s1 counted 4 + 1 late of 3, s4 as before; s3's reading is late, so right
    "must_fail__windows_cover_source_with_late_rows": 2,
    # 7 counted, 6 readings with a time
    "must_fail__windows_cover_source_totals": 1,
    # latest reading 08:02:00: s4's window ends 08:04 (s1's 08:02 end is exactly on it)
    "must_fail__window_is_closed": 1,
    # with 1 minute for late rows, windows must end by 08:01: s1's 08:02 and s4's 08:04 do not
    "must_fail__window_is_closed_with_delay": 2,
    # the last window ends exactly at the latest time
    "must_pass__window_is_closed_at_the_watermark": 0,
}


def _test_results(result) -> dict[str, tuple[str, int]]:
    return {
        row.node.name: (str(row.status), row.failures or 0)
        for row in result.result.results
        if row.node.resource_type == "test"
    }


def test_the_fixtures_are_not_part_of_the_normal_build(warehouse, dbt_target):
    listed = run_dbt(["ls", "--target", dbt_target, "--select", "tag:bad_windows"])
    assert not list(listed.result or []), "seeds/bad_windows must be disabled without the var"


def test_each_window_data_test_fails_on_its_bad_fixture(warehouse, dbt_target):
    result = run_dbt(
        ["build", "--target", dbt_target, "--select", "tag:bad_windows", "--vars", MUST_FAIL_VARS],
        expect_pass=False,
    )
    seeds = {row.node.name: str(row.status) for row in result.result.results if row.node.resource_type == "seed"}
    assert seeds == dict.fromkeys(
        ["bad_window_bounds", "bad_sessions", "bad_readings", "bad_reading_counts", "bad_late_readings"], "success"
    )
    expected = {name: ("fail", rows) if rows else ("pass", 0) for name, rows in EXPECTED_FAILURES.items()}
    assert _test_results(result) == expected


# equals_expected compares rows by position: through dbt, sides with different numbers of columns
# are a compile error naming both lists (not Spark's NUM_COLUMNS_MISMATCH), also under --empty,
# where ref() renders as a subquery and the columns are read from the table behind it.
MISMATCHED = "{{ spark_windows.test_equals_expected(ref('orders'), ref('expected__orders_hopping_count')) }}"


@pytest.mark.parametrize("flags", [[], ["--empty"]], ids=["plain", "empty"])
def test_equals_expected_between_different_column_lists_names_both(warehouse, dbt_target, flags):
    logged = []  # what dbt shows the user: the messages of its events
    callbacks = [lambda event: logged.append(event.info.msg)]
    args = ["compile", "--target", dbt_target, "--inline", MISMATCHED, *flags]
    result = run_dbt(args, expect_pass=False, callbacks=callbacks)
    shown = "\n".join([str(result.exception), *map(str, logged)])
    assert "has 4 columns (order_id, customer_id, order_ts, amount) but expected " in shown, shown[-3000:]
    assert "has 5 (window_start, window_end, orders, customers, distinct_customers); " in shown, shown[-3000:]
