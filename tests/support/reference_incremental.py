"""Plain-Python model of windowed_incremental's semantics, for the replay and crash tests.

Written from the rules in the README, independent of the SQL: one run is one micro-batch of the
rows whose ingestion time lies after the last processed one; the watermark is the largest event
time seen so far minus the delay, and a run judges its rows by the watermark of the previous run;
a window is expired when window_end + allowed_lateness <= that watermark; a row with at least one
live window recomputes all its live windows in full from every row ingested so far; a row whose
windows all expired goes to the late table; is_final = window_end + lateness <= the watermark
after the run; the changelog holds +I for a new window and -U / +U for a recomputed one.

Times are integer microseconds; windows are (start, end) pairs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MINUTE = 60_000_000


def windows_of(ts: int, kind: str, size: int, slide: int) -> list[tuple[int, int]]:
    """Every window holding ts (no offsets): tumble(size), hop(slide, size), cumulate(step=slide, size)."""
    if kind == "tumble":
        start = ts - ts % size
        return [(start, start + size)]
    if kind == "hop":
        last = ts - ts % slide
        return [(last - i * slide, last - i * slide + size) for i in range(size // slide - 1, -1, -1)]
    if kind == "cumulate":
        start = ts - ts % size
        return [(start, start + j * slide) for j in range(1, size // slide + 1) if start + j * slide > ts]
    raise ValueError(kind)


@dataclass
class Row:
    key: str
    ts: int | None
    value: int | None
    ingested: int


@dataclass
class Model:
    kind: str
    size: int
    slide: int
    delay: int
    lateness: int
    aggregates: dict  # output name -> function(list of rows) -> value
    processed_until: int | None = None
    max_event: int | None = None
    watermark: int | None = None
    batch_id: int = 0
    table: dict = field(default_factory=dict)  # (key, start, end) -> {name: value}
    late: list = field(default_factory=list)  # (row, missed windows, watermark at arrival, batch_id)
    changelog: list = field(default_factory=list)  # (batch_id, op, key, start, end, values)

    def run(self, source: list[Row], arrived_until: int) -> None:
        """One scheduled run seeing the rows of `source` that arrived by `arrived_until`."""
        visible = [row for row in source if row.ingested <= arrived_until]
        new = [row for row in visible if self.processed_until is None or row.ingested > self.processed_until]
        if not new and self.batch_id > 0:
            return
        self.batch_id += 1
        previous = self.watermark
        touched = set()
        for row in new:
            if row.ts is None:
                continue
            windows = windows_of(row.ts, self.kind, self.size, self.slide)
            live = [w for w in windows if previous is None or w[1] + self.lateness > previous]
            if live:
                touched.update((row.key, *w) for w in live)
            else:
                self.late.append((row, windows, previous, self.batch_id))
        if new:
            self.processed_until = max(row.ingested for row in new)
            times = [row.ts for row in new if row.ts is not None]
            if times:
                self.max_event = max(times + ([self.max_event] if self.max_event is not None else []))
        self.watermark = None if self.max_event is None else self.max_event - self.delay
        ingested = [row for row in source if row.ingested <= self.processed_until] if new else []
        for key, start, end in sorted(touched):
            rows = [row for row in ingested if row.key == key and row.ts is not None and start <= row.ts < end]
            values = {name: function(rows) for name, function in self.aggregates.items()}
            old = self.table.get((key, start, end))
            if old is None:
                self.changelog.append((self.batch_id, "+I", key, start, end, values))
            else:
                self.changelog.append((self.batch_id, "-U", key, start, end, old))
                self.changelog.append((self.batch_id, "+U", key, start, end, values))
            self.table[(key, start, end)] = values

    def is_final(self, end: int) -> bool:
        return self.watermark is not None and end + self.lateness <= self.watermark


def sum_of_values(rows: list[Row]):
    values = [row.value for row in rows if row.value is not None]
    return sum(values) if values else None


def count_rows(rows: list[Row]) -> int:
    return len(rows)


def max_of_values(rows: list[Row]):
    values = [row.value for row in rows if row.value is not None]
    return max(values) if values else None
