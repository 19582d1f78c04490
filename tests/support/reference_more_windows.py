"""Independent plain-Python models of count_window and calendar_window, used only to check the SQL.

count windows are simulated the way Flink's DataStream API runs countWindow(size, slide) in Java
and Scala: per partition, rows arrive in order; a trigger fires every `slide` rows and an
evictor keeps the last `size` rows, so each firing emits the last `size` rows (or all rows so
far). No formula of the SQL is reused.

calendar windows are defined by instants, with Python's zoneinfo: each local date D has a
boundary instant start(D), the instant of its local midnight, and the window of an instant t is
[start(D), start(D')) for the period beginning on D whose boundary is the largest one <= t (D'
begins the next period). The local date of t is never used to pick the window, so a zone whose
local date goes back across midnight needs no special case. Times are integers: microseconds
since 1970-01-01 UTC.
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


def day_start(day: dt.date, zone: str, offset: int = 0) -> int:
    """start(day): the instant (microseconds) of the local midnight that begins `day` in `zone`.

    zoneinfo follows PEP 495 with fold=0: a local time that happens twice is its first
    occurrence, and a local time the clocks jump over is read with the UTC offset in force
    before the jump, that is moved later by the length of the jump. This is java.time's rule
    for LocalDateTime.atZone, which Spark's to_utc_timestamp uses: when the jump begins at 00:00
    the day begins at the first instant after the gap; when it straddles midnight (Toronto
    1919-03-31, 23:30 to 00:30) the day begins at 01:00, after its first instant. With `offset`
    (microseconds, less than a day either way), the day begins at that wall-clock time after
    (or before) its midnight, read by the same rule."""
    midnight = dt.datetime(day.year, day.month, day.day, tzinfo=ZoneInfo(zone))  # fold=0
    start = midnight + dt.timedelta(microseconds=offset)  # wall-clock arithmetic: same tzinfo, fold=0
    return (start - EPOCH) // dt.timedelta(microseconds=1)


def calendar_period(micros: int, unit: str, zone: str, offset: int = 0) -> dt.date:
    """The local date on which the period holding `micros` begins (calendar_window's window_date).

    Walks the periods forward from one that begins well before `micros` (its UTC date two days
    earlier: no zone is a day and more from UTC) while the next period has begun by `micros`, so
    the window starts at the largest boundary <= micros. A period whose start equals the next
    one's (a local date the zone skipped) holds no instant and is walked past."""
    utc_day = (EPOCH + dt.timedelta(microseconds=micros)).date()
    period = period_start(utc_day - dt.timedelta(days=2), unit)
    assert day_start(period, zone, offset) <= micros
    while day_start(next_period_start(period, unit), zone, offset) <= micros:
        period = next_period_start(period, unit)
    return period


def calendar_window(micros, unit: str, zone: str, offset: int = 0):
    """(window_start, window_end, window_time) in microseconds, or None for a NULL time."""
    if micros is None:
        return None
    period = calendar_period(micros, unit, zone, offset)
    start, end = day_start(period, zone, offset), day_start(next_period_start(period, unit), zone, offset)
    assert start <= micros < end
    return start, end, end - 1
