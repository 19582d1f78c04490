"""Independent plain-Python models of count_window and calendar_window, used only to check the SQL.

count windows are simulated the way Flink's DataStream API runs countWindow(size, slide) in Java
and Scala: per partition, rows arrive in order; a trigger fires every `slide` rows and an
evictor keeps the last `size` rows, so each firing emits the last `size` rows (or all rows so
far). No formula of the SQL is reused.

calendar windows are computed with Python's zoneinfo: a period's local first day is found with
the date arithmetic of the calendar, and its instant is searched for as the first instant whose
local date is that day or later, so no assumption on how a missing or repeated local midnight
is resolved is built in. Times are integers: microseconds since 1970-01-01 UTC.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from zoneinfo import ZoneInfo

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
DAY_US = 86_400_000_000


# --- count windows -------------------------------------------------------------------------


def spark_json(fields: dict, timestamps=()) -> str:
    """The text count_window breaks ties with: Spark's to_json of the row as count_window calls
    it, NULL fields written out, timestamps (given as microseconds, for the names in
    `timestamps`) as 'yyyy-MM-dd HH:mm:ss.SSSSSS' in UTC. Models strings, integers and
    timestamps only."""
    shown = {
        name: utc_text(value) if name in timestamps and value is not None else value for name, value in fields.items()
    }
    return json.dumps(shown, separators=(",", ":"), ensure_ascii=False)


def utc_text(micros: int) -> str:
    return (EPOCH + dt.timedelta(microseconds=micros)).strftime("%Y-%m-%d %H:%M:%S.%f")


def count_window(rows, size, slide=None, partition_of=lambda row: None, order_of=lambda row: (), text_of=repr):
    """Rows in count windows, as a list of (row, window_index, window_first_row, window_last_row).

    partition_of(row) gives the partition; order_of(row) a tuple of order values (None sorts
    first); text_of(row) the tie-breaking text, compared as UTF-8 bytes like Spark's strings.
    """
    slide = size if slide is None else slide
    partitions = defaultdict(list)
    for row in rows:
        partitions[partition_of(row)].append(row)

    def sort_key(row):
        order = tuple((value is not None, value) if value is not None else (False, 0) for value in order_of(row))
        return (order, text_of(row).encode("utf-8"))

    out = []
    for members in partitions.values():
        arrived = []  # (row number, row) in arrival order; the evictor's buffer
        fired = 0
        for number, row in enumerate(sorted(members, key=sort_key), start=1):
            arrived.append((number, row))
            arrived = arrived[-size:]  # CountEvictor.of(size): keep the last `size` rows
            if number % slide == 0:  # CountTrigger.of(slide): fire every `slide` rows
                first, last = arrived[0][0], arrived[-1][0]
                out.extend((kept, fired, first, last) for _, kept in arrived)
                fired += 1
    return out


# --- calendar windows ----------------------------------------------------------------------

UNITS = ("day", "week", "month", "quarter", "year")


def local_date(micros: int, zone: str) -> dt.date:
    return (EPOCH + dt.timedelta(microseconds=micros)).astimezone(ZoneInfo(zone)).date()


def period_start(day: dt.date, unit: str) -> dt.date:
    if unit == "day":
        return day
    if unit == "week":  # ISO weeks start on Monday
        return day - dt.timedelta(days=day.weekday())
    if unit == "month":
        return day.replace(day=1)
    if unit == "quarter":
        return dt.date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)
    if unit == "year":
        return dt.date(day.year, 1, 1)
    raise ValueError(unit)


def next_period_start(start: dt.date, unit: str) -> dt.date:
    if unit == "day":
        return start + dt.timedelta(days=1)
    if unit == "week":
        return start + dt.timedelta(days=7)
    months = {"month": 1, "quarter": 3, "year": 12}[unit]
    month_index = start.year * 12 + start.month - 1 + months
    return dt.date(month_index // 12, month_index % 12 + 1, 1)


def day_start(day: dt.date, zone: str) -> int:
    """The first instant (microseconds) whose local date in `zone` is `day` or later.

    A binary search over instants: the local date never goes back by a whole day in the zones
    tested, and no zone is more than 26 hours from UTC, so the answer lies within two days of
    the local midnight read as UTC."""
    naive = (dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc) - EPOCH) // dt.timedelta(microseconds=1)
    low, high = naive - 2 * DAY_US, naive + 2 * DAY_US
    assert local_date(low, zone) < day <= local_date(high, zone)
    while high - low > 1:  # invariant: local_date(low) < day <= local_date(high)
        middle = (low + high) // 2
        if local_date(middle, zone) < day:
            low = middle
        else:
            high = middle
    return high


def calendar_window(micros, unit: str, zone: str):
    """(window_start, window_end, window_time) in microseconds, or None for a NULL time."""
    if micros is None:
        return None
    start_day = period_start(local_date(micros, zone), unit)
    start, end = day_start(start_day, zone), day_start(next_period_start(start_day, unit), zone)
    assert start <= micros < end
    return start, end, end - 1
