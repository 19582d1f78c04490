"""An independent plain-Python model of the window semantics, used only to check the SQL.

Times are integers: microseconds since 1970-01-01 UTC (negative before). Every function takes
events as (key, time, value) tuples, skips events whose time is None, and returns the windows as
a dict {(key, start, end): [values]}. It follows Flink's definitions directly (windows as sets
of instants, sessions as merged intervals), not the SQL's formulas.
"""

from __future__ import annotations

from collections import defaultdict


def _window_starts_with_offset(time: int, step: int, offset: int) -> int:
    """The latest instant <= time that lies on the grid offset + k * step (k any integer)."""
    k = (time - offset) // step  # Python's // is floor division, also for negatives
    return offset + k * step


def tumble(events, size, offset=0):
    windows = defaultdict(list)
    for key, time, value in events:
        if time is None:
            continue
        start = _window_starts_with_offset(time, size, offset)
        assert start <= time < start + size
        windows[(key, start, start + size)].append(value)
    return windows


def hop(events, slide, size, offset=0):
    windows = defaultdict(list)
    for key, time, value in events:
        if time is None:
            continue
        start = _window_starts_with_offset(time, slide, offset)
        while start + size > time:  # every grid window [start, start + size) that holds time
            windows[(key, start, start + size)].append(value)
            start -= slide
    return windows


def cumulate(events, step, size, offset=0):
    windows = defaultdict(list)
    for key, time, value in events:
        if time is None:
            continue
        start = _window_starts_with_offset(time, size, offset)
        for end in range(start + step, start + size + 1, step):
            if end > time:
                windows[(key, start, end)].append(value)
    return windows


def session(events, gap):
    """Each event opens [time, time + gap); intervals that overlap or touch merge (Flink)."""
    by_key = defaultdict(list)
    for key, time, value in events:
        if time is not None:
            by_key[key].append((time, value))
    windows = {}
    for key, rows in by_key.items():
        rows.sort(key=lambda row: row[0])
        start, end, values = None, None, []
        for time, value in rows:
            if start is not None and time <= end:
                end = max(end, time + gap)
                values.append(value)
                continue
            if start is not None:
                windows[(key, start, end)] = values
            start, end, values = time, time + gap, [value]
        if start is not None:
            windows[(key, start, end)] = values
    return windows


def aggregate(windows):
    """count(*), count(v), sum(v), min(v), max(v) per window, with SQL's NULL rules."""
    rows = []
    for (key, start, end), values in windows.items():
        present = [v for v in values if v is not None]
        rows.append(
            (
                key,
                start,
                end,
                len(values),
                len(present),
                sum(present) if present else None,
                min(present) if present else None,
                max(present) if present else None,
            )
        )
    return rows
