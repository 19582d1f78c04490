"""Plain-Python model of windowed_incremental's semantics, for the replay and crash tests.

Written from the rules in docs/guides/windowed_incremental.md, independent of the SQL: one run is
one micro-batch of the rows whose ingestion time lies after the last processed one; the watermark
is the largest event time seen so far minus the delay, and a run judges its rows by the watermark
of the previous run;
a window is expired when window_end + allowed_lateness <= that watermark; a row with at least one
live window recomputes all its live windows in full from every row ingested so far; a row whose
windows all expired goes to the late table; is_final = window_end + lateness <= the watermark
after the run. A run with no new rows changes nothing.

Emit policy and firing metadata (W_prev: the watermark before the run, none on the first run;
W: the watermark after it, none while no event time was seen):

- a window is published under a watermark X: with 'every_run' (the default) always; with
  'on_watermark' when X is not None and window_end <= X. The table shows the published windows;
- for every window of the state after the run (`old`: its state before the run, if any):
  old_published = old exists and is published under W_prev; changed = the run recomputed it
  (even when its values came out equal); it is emitted when it is published under W and
  (not old_published or changed);
- revision: the number of times the window was emitted (0 while never emitted: only with
  on_watermark, and such a window is not shown);
- timing of an emission: 'early' when W is None or window_end > W; else 'on_time' when the
  window's previous timing was None or 'early'; else 'late'. A window not emitted keeps its timing;
- the changelog of an emission: -U with the old image then +U with the new one when
  old_published, else +I with the new image. A window's end never moves and the watermark never
  goes back, so a tumble, hop or cumulate window is never unpublished or gone: no -D.

With 'final' the windows are those of 'every_run' (kept apart from the model's table), and the
model's table holds each window once, appended by the run after which it is final and before
which it was not (under W_prev), with its values then.

With every_run this is +I for a new window and -U / +U for a recomputed one. With on_watermark a
window nobody touched in a run is emitted (+I, revision 1, 'on_time') by the run whose
watermark passes its end, and a published window that accepted rows recompute fires -U / +U
with timing 'late'.

Changelog rows are `ChangelogRow`s (batch_id, op, key, start, end, values, is_final, revision,
timing) carrying an image: the new one for +I / +U, for -U / -D the old one as the table held it
before the run (is_final under W_prev). Times are integer microseconds; windows are (start, end)
pairs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

MINUTE = 60_000_000
EMIT_POLICIES = ("every_run", "on_watermark", "final")


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


def published(emit_policy: str, end: int, watermark: int | None) -> bool:
    """Whether the table shows a window ending at `end` under `watermark`."""
    if emit_policy in ("every_run", "final"):
        return True
    return watermark is not None and end <= watermark


def firing_timing(end: int, watermark: int | None, old_timing: str | None) -> str:
    """The timing of an emission under the watermark after the run."""
    if watermark is None or end > watermark:
        return "early"
    if old_timing in (None, "early"):
        return "on_time"
    return "late"


@dataclass
class Row:
    key: str
    ts: int | None
    value: int | None
    ingested: int


class WindowImage(NamedTuple):
    """A tumble, hop or cumulate window as the table shows it (its identity holds the times)."""

    values: dict
    is_final: bool
    revision: int
    timing: str | None


class ChangelogRow(NamedTuple):
    """One changelog row: the image it shows is the new one for +I / +U, the old one for -U / -D."""

    batch_id: int
    op: str  # +I, -U, +U or -D
    key: str | None
    start: int
    end: int
    values: dict
    is_final: bool
    revision: int
    timing: str | None


@dataclass
class Model:
    kind: str
    size: int
    slide: int
    delay: int
    lateness: int
    aggregates: dict  # output name -> function(list of rows) -> value
    emit_policy: str = "every_run"
    processed_until: int | None = None
    max_event: int | None = None
    watermark: int | None = None
    batch_id: int = 0
    table: dict = field(default_factory=dict)  # the state: (key, start, end) -> {name: value}
    revisions: dict = field(default_factory=dict)  # (key, start, end) -> times emitted
    timings: dict = field(default_factory=dict)  # (key, start, end) -> timing of the last emission
    late: list = field(default_factory=list)  # (row, missed windows, watermark at arrival, batch_id)
    changelog: list = field(default_factory=list)  # ChangelogRow
    touched: dict = field(default_factory=dict)  # batch_id -> the windows that run recomputed
    finals: list = field(default_factory=list)  # (batch_id, key, start, end, values): as each turned final

    def __post_init__(self) -> None:
        if self.emit_policy not in EMIT_POLICIES:
            raise ValueError(f"emit_policy {self.emit_policy!r}")

    def run(self, source: list[Row], arrived_until: int) -> None:
        """One scheduled run seeing the rows of `source` that arrived by `arrived_until`."""
        visible = [row for row in source if row.ingested <= arrived_until]
        new = [row for row in visible if self.processed_until is None or row.ingested > self.processed_until]
        if not new and self.batch_id > 0:
            return
        self.batch_id += 1
        previous = self.watermark
        before = {identity: self.image(identity) for identity in self.table}  # judged by W_prev
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
        for key, start, end in touched:
            rows = [row for row in ingested if row.key == key and row.ts is not None and start <= row.ts < end]
            self.table[(key, start, end)] = {name: function(rows) for name, function in self.aggregates.items()}
        self.touched[self.batch_id] = touched
        for identity in sorted(self.table, key=identity_order):
            self._fire(identity, before.get(identity), identity in touched, previous)
            key, start, end = identity
            if self.is_final(end) and not (previous is not None and end + self.lateness <= previous):
                self.finals.append((self.batch_id, key, start, end, dict(self.table[identity])))

    def _fire(self, identity: tuple, old: WindowImage | None, changed: bool, previous: int | None) -> None:
        """Emits the window when the rules say so: revision, timing and changelog rows."""
        key, start, end = identity
        old_published = old is not None and published(self.emit_policy, end, previous)
        if not published(self.emit_policy, end, self.watermark) or (old_published and not changed):
            return
        self.revisions[identity] = (old.revision if old else 0) + 1
        self.timings[identity] = firing_timing(end, self.watermark, old.timing if old else None)
        new = self.image(identity)
        if old_published:
            self.changelog.append(ChangelogRow(self.batch_id, "-U", key, start, end, *old))
            self.changelog.append(ChangelogRow(self.batch_id, "+U", key, start, end, *new))
        else:
            self.changelog.append(ChangelogRow(self.batch_id, "+I", key, start, end, *new))

    def image(self, identity: tuple) -> WindowImage:
        """A window of the state as it stands (is_final under the current watermark)."""
        return WindowImage(
            self.table[identity],
            self.is_final(identity[2]),
            self.revisions.get(identity, 0),
            self.timings.get(identity),
        )

    def shown(self) -> dict:
        """The model's table: (key, start, end) -> WindowImage of every published window."""
        return {
            identity: self.image(identity)
            for identity in sorted(self.table, key=identity_order)
            if published(self.emit_policy, identity[2], self.watermark)
        }

    def is_final(self, end: int) -> bool:
        return self.watermark is not None and end + self.lateness <= self.watermark


def identity_order(identity: tuple) -> tuple:
    """Sorts identities (key, start, ...) with a NULL key first."""
    key, *times = identity
    return (key is not None, key or "", *times)


def replay(changelog: list[tuple], identity_width: int = 3) -> dict:
    """The table a consumer rebuilds from the changelog: batch by batch, -D and -U delete by
    identity, then +U and +I insert. Rows: (batch_id, op, *identity, *image), the identity being
    the `identity_width` fields after op ((key, start, end); sessions: (key, start)), the image
    whatever follows it. Returns identity -> image as a tuple."""
    table: dict = {}
    for batch_id in sorted({row[0] for row in changelog}):
        batch = [row for row in changelog if row[0] == batch_id]
        for row in batch:
            op, identity = row[1], tuple(row[2 : 2 + identity_width])
            if op in ("-D", "-U"):
                assert identity in table, f"batch {batch_id}: {op} of a window not in the table: {identity}"
                del table[identity]
            elif op not in ("+U", "+I"):
                raise AssertionError(f"batch {batch_id}: unknown changelog op {op!r}")
        for row in batch:
            op, identity = row[1], tuple(row[2 : 2 + identity_width])
            if op in ("+U", "+I"):
                assert identity not in table, f"batch {batch_id}: {op} of a window already there: {identity}"
                table[identity] = tuple(row[2 + identity_width :])
    return table


def sum_of_values(rows: list[Row]):
    values = [row.value for row in rows if row.value is not None]
    return sum(values) if values else None


def count_rows(rows: list[Row]) -> int:
    return len(rows)


def mean_of_values(rows: list[Row]):
    values = [row.value for row in rows if row.value is not None]
    return sum(values) / len(values) if values else None


def max_of_values(rows: list[Row]):
    values = [row.value for row in rows if row.value is not None]
    return max(values) if values else None
