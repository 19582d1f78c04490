"""A plain-Python simulation of Flink's window operator with a trigger and an evictor, used only to
check window_firings. It runs Flink's contract event by event, per key, and reuses no formula of
the SQL:

- Rows arrive in event-time order (ties by the row's JSON text) with a watermark that follows
  them: before a row at time t is processed, every timer due before t fires. A window's end
  timer (EventTimeTrigger, at window.maxTimestamp() = end - 1 microsecond) is due at `end`, so a
  session still takes a row exactly `gap` after its last one (Flink merges windows that touch).
  At the end of the input every timer left fires (a global window: up to the first timer after
  the input's last time).
- Each row goes to its windows (WindowAssigner; sessions merge with the open session when they
  touch or overlap), is appended to the window's buffer (ListState) and passed to the trigger's
  onElement. Timers call onEventTime.
- FIRE: if the buffer holds rows, the evictor's evictBefore removes rows from it (for good, as
  EvictingWindowOperator writes the buffer back), then the aggregates of the rest are emitted.
  FIRE_AND_PURGE (purge=True, PurgingTrigger) then empties the buffer; an empty buffer emits
  nothing.
- Triggers: CountTrigger (count since its last firing; fires when it reaches n and resets),
  ContinuousEventTimeTrigger (a timer at the first multiple of the interval after the window's
  first row, then every interval while before the window's end; epoch-aligned with floor
  arithmetic), a condition trigger (fires once, at the first row where the condition holds on
  the aggregates of every row of the window so far) and, for time windows, EventTimeTrigger's
  final firing at the window's end.
- Evictors: CountEvictor (keep the last n rows of the buffer), TimeEvictor (keep rows whose
  time is after the buffer's newest time minus the interval), DeltaEvictor (remove rows whose
  |value - last row's value| >= threshold; a NULL on either side removes nothing).

Times are integers (microseconds since the epoch).
"""

from __future__ import annotations

from collections import defaultdict


def _windows_of(ts, window):
    kind = window["type"]
    if kind == "tumble":
        size, offset = window["size"], window.get("offset", 0)
        start = ts - (ts - offset) % size
        return [(start, start + size)]
    if kind == "hop":
        size, slide, offset = window["size"], window["slide"], window.get("offset", 0)
        last = ts - (ts - offset) % slide
        return [(last - i * slide, last - i * slide + size) for i in range(size // slide)]
    raise ValueError(kind)


class _WindowState:
    def __init__(self, start, end):
        self.start, self.end = start, end
        self.buffer = []  # rows in arrival order
        self.count = 0  # CountTrigger
        self.seen = []  # the condition trigger's own copy of every row
        self.condition_fired = False
        self.next_timer = None  # ContinuousEventTimeTrigger
        self.pending_timer = None  # a session timer on its last instant, decided by the next row


def simulate(rows, window, trigger, purge, evictor, aggregate, key_of, time_of, text_of, value_of=None):
    """Firings as a list of dicts: key, window_start, window_end (None for a global window),
    firing, fired_at, is_final and the aggregates (aggregate(rows) -> dict).

    window: {'type': 'tumble', 'size'[, 'offset']}, {'type': 'hop', 'slide', 'size'[, 'offset']},
    {'type': 'session', 'gap'} or {'type': 'global'}, durations in microseconds.
    trigger: None, ('every_rows', n), ('every', interval) or ('when', predicate(aggregates)).
    evictor: None, ('keep_last', n), ('within', interval) or ('delta', threshold).
    """
    timed = [row for row in rows if time_of(row) is not None]
    by_key = defaultdict(list)
    for row in timed:
        by_key[key_of(row)].append(row)
    input_last = max((time_of(row) for row in timed), default=None)
    out = []
    for key, members in by_key.items():
        members.sort(key=lambda row: (time_of(row), text_of(row).encode("utf-8")))
        out.extend(
            _simulate_key(key, members, window, trigger, purge, evictor, aggregate, time_of, value_of, input_last)
        )
    return out


def _simulate_key(key, rows, window, trigger, purge, evictor, aggregate, time_of, value_of, input_last):
    kind = window["type"]
    windows = {}  # (start,) identity -> state; sessions keep their start while they grow
    timers = []  # (due, fire time, window id, is_end)
    emitted = []
    firings = defaultdict(int)

    def fire(state, wid, fired_at, is_final):
        if state.buffer:
            _evict(state, evictor, time_of, value_of)
            firings[wid] += 1
            record = {
                "key": key,
                "window_start": None if kind == "global" else state.start,
                "window_end": None if kind == "global" else state.end,
                "firing": firings[wid],
                "fired_at": fired_at,
                "is_final": is_final,
            }
            record.update(aggregate(state.buffer))
            emitted.append((record, state))
        if purge:
            state.buffer = []

    def continuous(state, wid, at):
        fire(state, wid, at, False)
        state.next_timer = at + trigger[1]
        if kind == "global" and state.next_timer > _global_last_timer(input_last, trigger[1]):
            return
        timers.append((state.next_timer, state.next_timer, wid, False))

    def run_timers(before):
        """Fires the timers due before `before` (None: all), in time order."""
        while True:
            due = [timer for timer in timers if before is None or timer[0] < before]
            if not due:
                return
            timer = min(due)
            timers.remove(timer)
            _, at, wid, is_end = timer
            state = windows.get(wid)
            if state is None:
                continue
            if is_end:
                if at != state.end - 1:
                    continue  # the end timer of a session that has grown since
                fire(state, wid, at, True)
                del windows[wid]  # allowed lateness 0: the window is cleaned up at its end
            elif at == state.next_timer and at < state.end - 1:
                continuous(state, wid, at)
            elif at == state.next_timer and at == state.end - 1 and kind == "session":
                # a timer on the session's last instant: a row exactly at the end would still
                # grow the session (and the timer then holds the rows before it); wait for it
                state.pending_timer = at

    for row in rows:
        ts = time_of(row)
        run_timers(ts)
        if kind == "global":
            targets = [("global", float("-inf"), float("inf"))]
        elif kind == "session":
            gap = window["gap"]
            open_sessions = [wid for wid, state in windows.items() if state.start <= ts <= state.end]
            if open_sessions:
                (wid,) = open_sessions
                pending, windows[wid].pending_timer = windows[wid].pending_timer, None
                if pending is not None and ts > pending:
                    windows[wid].end = max(windows[wid].end, ts + gap)
                    continuous(windows[wid], wid, pending)
                targets = [(wid, windows[wid].start, max(windows[wid].end, ts + gap))]
            else:
                targets = [(ts, ts, ts + gap)]
        else:
            targets = [((start, end), start, end) for start, end in _windows_of(ts, window)]
        for wid, start, end in targets:
            state = windows.get(wid)
            if state is None:
                state = windows[wid] = _WindowState(start, end)
            state.end = end
            if kind != "global":
                timers.append((state.end, state.end - 1, wid, True))
            state.buffer.append(row)
            result = _on_element(state, row, trigger, aggregate, kind, input_last, time_of)
            if result == "timer":
                timers.append((state.next_timer, state.next_timer, wid, False))
            elif result == "fire":
                fire(state, wid, ts, False)
    run_timers(None)
    # a session's firings carry the bounds of the whole session, known once it has closed
    for record, state in emitted:
        if kind == "session":
            record["window_end"] = state.end
    return [record for record, _ in emitted]


def _global_last_timer(input_last, interval):
    return input_last - input_last % interval + interval


def _on_element(state, row, trigger, aggregate, kind, input_last, time_of):
    if trigger is None:
        return None
    name, arg = trigger
    if name == "every_rows":
        state.count += 1
        if state.count >= arg:
            state.count = 0
            return "fire"
        return None
    if name == "every":
        if state.next_timer is None:
            ts = time_of(row)
            state.next_timer = ts - ts % arg + arg
            if kind == "global" and state.next_timer > _global_last_timer(input_last, arg):
                return None
            return "timer"
        return None
    if name == "when":
        state.seen.append(row)
        if not state.condition_fired and arg(aggregate(state.seen)):
            state.condition_fired = True
            return "fire"
        return None
    raise ValueError(name)


def _evict(state, evictor, time_of, value_of):
    if evictor is None:
        return
    name, arg = evictor
    buffer = state.buffer
    if name == "keep_last":
        if len(buffer) > arg:
            state.buffer = buffer[len(buffer) - arg :]
    elif name == "within":
        newest = max(time_of(row) for row in buffer)
        state.buffer = [row for row in buffer if time_of(row) > newest - arg]
    elif name == "delta":
        last = value_of(buffer[-1])

        def far(row):
            value = value_of(row)
            return value is not None and last is not None and abs(value - last) >= arg

        state.buffer = [row for row in buffer if not far(row)]
    else:
        raise ValueError(name)
