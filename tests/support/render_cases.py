"""window_aggregate's window specs and render shortcut, shared by the fast render tests of its aggregates."""

from __future__ import annotations

TUMBLE = {"type": "tumble", "size": "1 minute"}
HOP = {"type": "hop", "slide": "1 minute", "size": "1 hour"}
CUMULATE = {"type": "cumulate", "step": "1 minute", "size": "1 hour"}
SESSION = {"type": "session", "gap": "10 minutes"}
SPECS = {"tumble": TUMBLE, "hop": HOP, "cumulate": CUMULATE, "session": SESSION}
WINDOW_COLUMNS = ["window_start", "window_end", "window_time"]


def render(renderer, window=HOP, group_by=("k",), aggregates=None, relation="events", agg_phase_strategy=None):
    aggregates = {"n": "count(*)"} if aggregates is None else aggregates
    group_by = list(group_by) if isinstance(group_by, tuple) else group_by
    return renderer.call("window_aggregate", relation, "ts", window, group_by, aggregates, None, agg_phase_strategy)


def is_row_copy(sql: str) -> bool:
    """The row-copy plan groups the table-valued macro's rows; the slice plans group panes."""
    return "__sw_windowed" in sql and "__sw_pane" not in sql
