"""Plain-Python model of windowed_incremental with session windows, for the replay and crash tests.

Written from the rules, independent of the SQL, and recomputed from scratch each run:

- new rows: ingestion time after the last processed one; a run without any changes nothing;
- watermark: the largest event time seen so far (late rows too) minus the delay; a run judges its
  rows by the watermark of the previous run (W_prev; none on the first run: nothing is late);
- a session: a maximal chain of accepted rows of one group (NULL is a group) whose own windows
  [t, t + gap) overlap or touch; window_start = first time, window_end = last time + gap;
- a stored session is expired when window_end + allowed_lateness <= W_prev;
- a new row is late when its own window is expired, or when its own window overlaps or touches an
  expired stored session of its group; otherwise it is accepted (and may start, extend or merge
  sessions). Rows with a NULL event time are in no session and not late;
- after the run the table is the sessions of all accepted rows, is_final = window_end +
  allowed_lateness <= the new watermark;
- the changelog diffs the sessions before and after the run by identity (group, window_start):
  +I for a new identity, -U / +U for one whose end or aggregates changed, -D for one that is gone.

Times are integer microseconds. `Row` and the aggregate functions are reference_incremental's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reference_incremental import Row

OWN_WINDOW_EXPIRED = "own window expired"
TOUCHES_EXPIRED_SESSION = "touches an expired session"


@dataclass
class Session:
    key: str | None
    start: int
    end: int
    rows: list[Row]


@dataclass
class Image:
    """A session as the table stores it."""

    end: int
    values: dict
    is_final: bool


@dataclass
class RunReport:
    """What one run did, for tests that check the scenario holds the cases it is meant to."""

    until: int
    new: list = field(default_factory=list)  # every new row
    late: list = field(default_factory=list)  # (row, reason)
    accepted: list = field(default_factory=list)  # (row, the stored sessions its own window touches)
    before: dict = field(default_factory=dict)  # (key, start) -> Image, before the run
    after: dict = field(default_factory=dict)  # (key, start) -> Image, after the run
    changelog: list = field(default_factory=list)  # this run's rows of SessionModel.changelog


def sessions_of(rows: list[Row], gap: int) -> list[Session]:
    """The session windows of rows with a time, per key: t2 joins t1's session when t2 <= t1 + gap."""
    by_key: dict = {}
    for row in rows:
        if row.ts is not None:
            by_key.setdefault(row.key, []).append(row)
    sessions = []
    for key, key_rows in by_key.items():
        current = None
        for row in sorted(key_rows, key=lambda row: row.ts):
            if current is not None and row.ts <= current.end:
                current.rows.append(row)
                current.end = row.ts + gap
            else:
                current = Session(key, row.ts, row.ts + gap, [row])
                sessions.append(current)
    return sessions


def touches(ts: int, gap: int, session: Session) -> bool:
    """The row's own window [ts, ts + gap) overlaps or touches the session [start, end)."""
    return ts <= session.end and session.start <= ts + gap


@dataclass
class SessionModel:
    gap: int
    delay: int
    lateness: int
    aggregates: dict  # output name -> function(list of rows) -> value
    processed_until: int | None = None
    max_event: int | None = None
    watermark: int | None = None
    batch_id: int = 0
    accepted: list = field(default_factory=list)  # every accepted row so far
    table: dict = field(default_factory=dict)  # (key, start) -> Image
    late: list = field(default_factory=list)  # (row, missed windows, watermark at arrival, batch_id)
    changelog: list = field(default_factory=list)  # (batch_id, op, key, start, end, values, is_final)
    state: list = field(default_factory=list)  # (batch_id, max ingestion, max event, watermark,
    #                                             new_rows, late_rows, windows_updated)
    reports: list = field(default_factory=list)  # one RunReport per run, also for runs with nothing new

    def run(self, source: list[Row], arrived_until: int) -> RunReport:
        """One scheduled run seeing the rows of `source` that arrived by `arrived_until`."""
        if any(row.ingested is None for row in source):
            raise ValueError("a row has no ingestion time: the run fails")
        visible = [row for row in source if row.ingested <= arrived_until]
        new = [row for row in visible if self.processed_until is None or row.ingested > self.processed_until]
        report = RunReport(arrived_until, new=new, before=dict(self.table))
        self.reports.append(report)
        if not new:
            report.after = dict(self.table)
            return report
        self.batch_id += 1
        previous = self.watermark
        stored = sessions_of(self.accepted, self.gap)
        expired = [s for s in stored if previous is not None and s.end + self.lateness <= previous]
        accepted_now = []
        for row in new:
            if row.ts is None:
                continue
            reason = self._late_reason(row, expired, previous)
            if reason:
                report.late.append((row, reason))
                self.late.append((row, [(row.ts, row.ts + self.gap)], previous, self.batch_id))
            else:
                bridged = [s for s in stored if s.key == row.key and touches(row.ts, self.gap, s)]
                report.accepted.append((row, bridged))
                accepted_now.append(row)
        self.accepted.extend(accepted_now)
        self.processed_until = max(row.ingested for row in new)
        times = [row.ts for row in new if row.ts is not None] + [self.max_event]
        self.max_event = max((time for time in times if time is not None), default=None)
        self.watermark = None if self.max_event is None else self.max_event - self.delay

        fresh = {id(row) for row in accepted_now}
        after_sessions = sessions_of(self.accepted, self.gap)
        self.table = {
            (s.key, s.start): Image(
                s.end, {name: function(s.rows) for name, function in self.aggregates.items()}, self.is_final(s.end)
            )
            for s in after_sessions
        }
        report.after = dict(self.table)
        report.changelog = changelog_rows(self.batch_id, report.before, report.after)
        self.changelog.extend(report.changelog)
        updated = sum(1 for s in after_sessions if any(id(row) in fresh for row in s.rows))
        self.state.append(
            (
                self.batch_id,
                self.processed_until,
                self.max_event,
                self.watermark,
                len(new),
                len(report.late),
                updated,
            )
        )
        return report

    def _late_reason(self, row: Row, expired: list[Session], previous: int | None) -> str | None:
        if previous is None:
            return None
        if row.ts + self.gap + self.lateness <= previous:
            return OWN_WINDOW_EXPIRED
        if any(s.key == row.key and touches(row.ts, self.gap, s) for s in expired):
            return TOUCHES_EXPIRED_SESSION
        return None

    def is_final(self, end: int) -> bool:
        return self.watermark is not None and end + self.lateness <= self.watermark


def changelog_rows(batch_id: int, before: dict, after: dict) -> list[tuple]:
    """The changelog of one run: the sessions before and after it, diffed by (key, start)."""
    rows = []
    for (key, start), old in sorted(before.items(), key=_identity_order):
        new = after.get((key, start))
        if new is None:
            rows.append((batch_id, "-D", key, start, old.end, old.values, old.is_final))
        elif (new.end, new.values) != (old.end, old.values):
            rows.append((batch_id, "-U", key, start, old.end, old.values, old.is_final))
            rows.append((batch_id, "+U", key, start, new.end, new.values, new.is_final))
    for (key, start), new in sorted(after.items(), key=_identity_order):
        if (key, start) not in before:
            rows.append((batch_id, "+I", key, start, new.end, new.values, new.is_final))
    return rows


def _identity_order(item) -> tuple:
    (key, start), _ = item
    return (key is not None, key or "", start)


def replay(changelog: list[tuple]) -> dict:
    """The table a consumer rebuilds from the changelog: batch by batch, -D and -U delete by
    identity (key, start), then +U and +I insert. Rows: (batch_id, op, key, start, end, values...)."""
    table: dict = {}
    for batch_id in sorted({row[0] for row in changelog}):
        batch = [row for row in changelog if row[0] == batch_id]
        for _, op, key, start, *_ in batch:
            if op in ("-D", "-U"):
                assert (key, start) in table, f"batch {batch_id}: {op} of a session not in the table: {key} {start}"
                del table[(key, start)]
        for _, op, key, start, end, *values in batch:
            if op in ("+U", "+I"):
                assert (key, start) not in table, f"batch {batch_id}: {op} of a session already there: {key} {start}"
                table[(key, start)] = (end, *values)
            elif op not in ("-D", "-U"):
                raise AssertionError(f"batch {batch_id}: unknown changelog op {op!r}")
    return table
