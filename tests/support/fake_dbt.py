"""Stand-ins for what dbt hands the macros, for the fast tests that render them without dbt."""

from __future__ import annotations


class Config:
    """dbt's `config` as a materialization reads it: `get` with a default."""

    def __init__(self, values: dict):
        self.values = values

    def get(self, key, default=None):
        return self.values.get(key, default)


# the windowed_incremental configs the render tests use: a tumbling model and a session model
TUMBLE_CONFIG = {
    "time_col": "reading_ts",
    "ingestion_time_col": "ingested_at",
    "window": {"type": "tumble", "size": "1 minute"},
    "group_by": ["sensor_id"],
    "aggregates": {"vehicles": "sum(car_count)", "readings": "count(*)"},
    "watermark_delay": "5 minutes",
    "allowed_lateness": "10 minutes",
}
SESSION_CONFIG = {
    **TUMBLE_CONFIG,
    "time_col": "click_ts",
    "window": {"type": "session", "gap": "10 minutes"},
    "group_by": ["user_id"],
    "aggregates": {"clicks": "count(*)", "revenue": "sum(amount)"},
    "allowed_lateness": "20 minutes",
    "emit": "changelog",
    "partition_size": "1 hour",
}
