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
- after the run the state is the sessions of all accepted rows, is_final = window_end +
  allowed_lateness <= the new watermark;
- emit policy and firing metadata, as in reference_incremental (W_prev / W: the watermark before
  / after the run): a session is published under X with 'every_run' (the default) always, with
  'on_watermark' when X is not None and window_end <= X; the table shows the published sessions.
  For each session after the run, by identity (group, window_start), with `old` its image before:
  old_published = old exists and is published under W_prev (by old's end); changed = old is none
  or its end or aggregates changed; it is emitted when published under W and (not old_published
  or changed); revision counts the emissions (0 while never emitted), and the timing of an
  emission is 'early' when W is None or end > W, else 'on_time' when the session's previous
  timing was None or 'early', else 'late'; a session not emitted keeps both;
- the changelog of a run: -U (old image) / +U (new image) for an emission when old_published,
  +I when not; -D (old image) for a published identity that is not published any more (a row
  extended it past the watermark, on_watermark only) or that is gone (merged into another, or
  replaced because its start moved earlier); unpublished identities that go leave no row.
  With every_run: +I for a new identity, -U / +U for one whose end or aggregates changed, -D for
  one that is gone.

Times are integer microseconds. `Row`, `ChangelogRow`, the aggregate functions and the emit
rules are reference_incremental's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reference_incremental import EMIT_POLICIES, ChangelogRow, Row, firing_timing, identity_order, published
from reference_incremental import replay as replay_windows

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
    """A session of the state: its end, aggregates, is_final, and how often and when it was emitted
    (revision 0 and timing None while never emitted)."""

    end: int
    values: dict
    is_final: bool
    revision: int = 0
    timing: str | None = None


@dataclass
class RunReport:
    """What one run did, for tests that check the scenario holds the cases it is meant to."""

    until: int
    new: list = field(default_factory=list)  # every new row
    late: list = field(default_factory=list)  # (row, reason)
    accepted: list = field(default_factory=list)  # (row, the stored sessions its own window touches)
    before: dict = field(default_factory=dict)  # the state before the run: (key, start) -> Image
    after: dict = field(default_factory=dict)  # the state after the run (published or not)
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
    emit_policy: str = "every_run"
    processed_until: int | None = None
    max_event: int | None = None
    watermark: int | None = None
    batch_id: int = 0
    accepted: list = field(default_factory=list)  # every accepted row so far
    table: dict = field(default_factory=dict)  # the state, every session: (key, start) -> Image
    late: list = field(default_factory=list)  # (row, missed windows, watermark at arrival, batch_id)
    changelog: list = field(default_factory=list)  # ChangelogRow
    state: list = field(default_factory=list)  # (batch_id, max ingestion, max event, watermark,
    #                                             new_rows, late_rows, windows_updated)
    reports: list = field(default_factory=list)  # one RunReport per run, also for runs with nothing new
    finals: list = field(default_factory=list)  # (batch_id, key, start, end, values): as each turned final

    def __post_init__(self) -> None:
        if self.emit_policy not in EMIT_POLICIES:
            raise ValueError(f"emit_policy {self.emit_policy!r}")

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
        self.table = {}
        for s in after_sessions:
            values = {name: function(s.rows) for name, function in self.aggregates.items()}
            self.table[(s.key, s.start)] = self._fire(report.before.get((s.key, s.start)), s.end, values, previous)
            if self.is_final(s.end) and not (previous is not None and s.end + self.lateness <= previous):
                self.finals.append((self.batch_id, s.key, s.start, s.end, values))
        report.after = dict(self.table)
        report.changelog = changelog_rows(
            self.batch_id, report.before, report.after, self.emit_policy, previous, self.watermark
        )
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

    def _fire(self, old: Image | None, end: int, values: dict, previous: int | None) -> Image:
        """The session's image after the run: revision and timing move on when it is emitted."""
        old_published = old is not None and published(self.emit_policy, old.end, previous)
        changed = old is None or (old.end, old.values) != (end, values)
        revision, timing = (old.revision, old.timing) if old else (0, None)
        if published(self.emit_policy, end, self.watermark) and (not old_published or changed):
            revision, timing = revision + 1, firing_timing(end, self.watermark, timing)
        return Image(end, values, self.is_final(end), revision, timing)

    def shown(self) -> dict:
        """The model's table: (key, start) -> Image of every published session."""
        return {
            identity: image
            for identity, image in sorted(self.table.items(), key=_identity_order)
            if published(self.emit_policy, image.end, self.watermark)
        }

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


def changelog_rows(
    batch_id: int, before: dict, after: dict, emit_policy: str, previous: int | None, watermark: int | None
) -> list[ChangelogRow]:
    """The changelog of one run from the states before and after it ((key, start) -> Image) and
    the watermarks before and after it. A session was emitted by the run when its revision moved on."""

    def row(op: str, key, start: int, image: Image) -> ChangelogRow:
        return ChangelogRow(
            batch_id, op, key, start, image.end, image.values, image.is_final, image.revision, image.timing
        )

    rows = []
    for (key, start), old in sorted(before.items(), key=_identity_order):
        if not published(emit_policy, old.end, previous):
            continue  # nothing of it was shown: nothing to take back
        new = after.get((key, start))
        if new is None or (new.revision == old.revision and not published(emit_policy, new.end, watermark)):
            rows.append(row("-D", key, start, old))
        elif new.revision != old.revision:
            rows.append(row("-U", key, start, old))
            rows.append(row("+U", key, start, new))
    for (key, start), new in sorted(after.items(), key=_identity_order):
        old = before.get((key, start))
        old_published = old is not None and published(emit_policy, old.end, previous)
        if not old_published and new.revision != (old.revision if old else 0):
            rows.append(row("+I", key, start, new))
    return rows


def _identity_order(item) -> tuple:
    identity, _ = item
    return identity_order(identity)


def replay(changelog: list[tuple]) -> dict:
    """The table a consumer rebuilds from the changelog: batch by batch, -D and -U delete by
    identity (key, start), then +U and +I insert. Rows: (batch_id, op, key, start, end, image...),
    the image being whatever follows the end (values, then revision and timing when given).
    Returns (key, start) -> (end, image...)."""
    return replay_windows(changelog, identity_width=2)
