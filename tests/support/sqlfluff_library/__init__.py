"""Stand-ins for the spark_windows macros, so sqlfluff's jinja templater can render the models.

`.sqlfluff` names this folder as the jinja templater's `library_path`. sqlfluff puts the names
defined here into every template's context: a function of this package is a bare-name macro
(`tumble(...)`), and the module `spark_windows` is the package namespace
(`spark_windows.tumble(...)`). `ref`, `source`, `config`, `var` and `is_incremental` come from
sqlfluff's own dbt builtins (`apply_dbt_builtins = True`).
"""

from .spark_windows import (
    calendar_window,
    count_window,
    cumulate,
    hop,
    session,
    tumble,
    window_aggregate,
    window_deduplicate,
    window_top_n,
)

__all__ = [
    "calendar_window",
    "count_window",
    "cumulate",
    "hop",
    "session",
    "tumble",
    "window_aggregate",
    "window_deduplicate",
    "window_top_n",
]
