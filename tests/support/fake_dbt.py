"""Stand-ins for what dbt hands the macros, for the fast tests that render them without dbt."""

from __future__ import annotations


class Config:
    """dbt's `config` as a materialization reads it: `get` with a default."""

    def __init__(self, values: dict):
        self.values = values

    def get(self, key, default=None):
        return self.values.get(key, default)
