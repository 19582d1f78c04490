"""A plain-Python model of session windows with a gap per row (Flink's dynamic gap), used only
to check the SQL of spark_windows.session when its gap is an expression.

Times and gaps are integers in microseconds. It follows Flink's definition literally, not the
SQL's running maximum: every row opens the window [time, time + gap); any two windows that
overlap or touch (Flink's TimeWindow.intersects: a.start <= b.end and b.start <= a.end) are
merged into the window that covers both, until no two windows intersect.

The project's rules for gaps that Flink would refuse (README.md, section "Dynamic gaps" under
session):
- a NULL time or a NULL gap: the row belongs to no window;
- a negative gap counts as zero: the row opens [time, time), which still merges with the
  windows it touches (those that reach its time, and rows at the same time).
"""

from __future__ import annotations

from collections import defaultdict


def _intersects(a, b) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def session_dynamic(events, gaps):
    """events: (key, time, value) tuples; gaps: each event's gap, in the same order.

    Returns {(key, window_start, window_end): [values]}, window_end being the largest
    time + gap of the merged windows.
    """
    events = list(events)
    gaps = list(gaps)
    if len(events) != len(gaps):
        raise ValueError(f"{len(events)} events but {len(gaps)} gaps")
    by_key = defaultdict(list)
    for (key, time, value), gap in zip(events, gaps):
        if time is None or gap is None:
            continue
        by_key[key].append([time, time + max(gap, 0), [value]])
    result = {}
    for key, windows in by_key.items():
        merged = True
        while merged:
            merged = False
            for i in range(len(windows)):
                for j in range(i + 1, len(windows)):
                    if _intersects(windows[i], windows[j]):
                        a, b = windows[i], windows.pop(j)
                        windows[i] = [min(a[0], b[0]), max(a[1], b[1]), a[2] + b[2]]
                        merged = True
                        break
                if merged:
                    break
        for start, end, values in windows:
            assert (key, start, end) not in result
            result[(key, start, end)] = values
    return result
