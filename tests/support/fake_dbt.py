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


# the columns of the state table windowed_incremental keeps, and its committer table option as
# SHOW TABLE EXTENDED lists it
STATE_COLUMNS = [
    "batch_id",
    "max_ingestion_time",
    "max_event_time",
    "watermark",
    "new_rows",
    "late_rows",
    "windows_updated",
    "run_started_at",
    "pending_table",
    "config_fingerprint",
    "config",
    "arrival_counts",
]
COMMITTER = "mapreduce.fileoutputcommitter.algorithm.version=2"


def listed_text(schema: str, identifier: str, columns: list[str], storage: list[str], iceberg: bool = False) -> str:
    """A table's text in SHOW TABLE EXTENDED, as Spark 4.3 prints it (Spark 3.5 the same lines),
    which dbt-spark keeps in its relation cache: top-level string `columns`, `storage` properties.
    `iceberg`: an Iceberg table in Spark's session catalog, as Iceberg 1.10 on Spark 3.5 lists it
    (provider `hive`, the format in its table properties, no storage properties)."""
    fields = "".join(f" |-- {column}: string (nullable = true)\n" for column in columns)
    if iceberg:
        return f"""Catalog: spark_catalog
Database: {schema}
Table: {identifier}
Owner: root
Created By: Spark 2.2 or prior
Type: EXTERNAL
Provider: hive
Table Properties: [current-schema={{"type":"struct","schema-id":0}}, current-snapshot-id=7593365334933366155, format=iceberg/parquet, table_type=ICEBERG, write.parquet.compression-codec=zstd]
Location: file:/w/{schema}.db/{identifier}
Serde Library: org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe
Partition Provider: Catalog
Schema: root
{fields}"""
    return f"""Catalog: spark_catalog
Database: {schema}
Table: {identifier}
Owner: root
Created Time: Tue Dec 01 00:14:02 UTC 2026
Last Access: UNKNOWN
Created By: Spark 4.3.0
Type: MANAGED
Provider: parquet
Location: file:/w/{schema}.db/{identifier}
Serde Library: org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe
Storage Properties: [{", ".join(storage)}]
Partition Provider: Catalog
Schema: root
{fields}"""
