"""The incremental replay scenario: the run cut-offs, the arrivals, and reference models set up as the example models."""

from __future__ import annotations

import csv
import datetime
from pathlib import Path

from incremental_driver import SESSION_MODEL, SESSION_MODELS
from reference_incremental import (
    MINUTE,
    Model,
    Row,
    count_rows,
    max_of_values,
    mean_of_values,
    sum_of_values,
)
from reference_incremental_sessions import SessionModel

from dev.project import PROJECT_DIR

SENSOR_ARRIVALS = PROJECT_DIR / "seeds" / "examples" / "sensor_readings_arrivals.csv"
CLICK_ARRIVALS = PROJECT_DIR / "seeds" / "examples" / "click_arrivals.csv"
# ingestion cut-offs of the scheduled runs: 14 batches, one repeated cut (nothing new), then all.
# The sensor and the click replays use the same times, so the crash test (which runs both) follows both.
CUTS = [f"2024-05-01 08:{minute:02d}:00" for minute in (4, 6, 8, 12, 16, 20, 20, 24, 28, 32, 36, 40, 44, 48)]
CUTS.append("2024-05-01 09:00:00")


def us(text: str) -> int | None:
    """A UTC timestamp text as integer microseconds since the epoch."""
    if not text:
        return None
    moment = datetime.datetime.fromisoformat(text).replace(tzinfo=datetime.timezone.utc)
    return int(moment.timestamp()) * 1_000_000 + moment.microsecond


def read_arrivals(path: Path, key: str, ts: str, value: str) -> list[Row]:
    """The rows of an arrivals seed, named by its key, event time and value columns; an empty
    field is NULL, as dbt seed loads it."""
    with path.open() as handle:
        return [
            Row(
                key=row[key] or None,
                ts=us(row[ts]),
                value=int(row[value]) if row[value] else None,
                ingested=us(row["ingested_at"]),
            )
            for row in csv.DictReader(handle)
        ]


def arrivals() -> list[Row]:
    """The sensor readings in the order they arrived."""
    return read_arrivals(SENSOR_ARRIVALS, "sensor_id", "reading_ts", "car_count")


def click_arrivals() -> list[Row]:
    """The user clicks in the order they arrived."""
    return read_arrivals(CLICK_ARRIVALS, "user_id", "click_ts", "amount")


def reference_models() -> dict[str, Model]:
    """The configs of models/incremental/*.sql, in the reference model's terms. The on_watermark
    and final models are the same hop of vehicles and readings, but for their emit policy."""
    hop = ("hop", 5 * MINUTE, MINUTE, 5 * MINUTE, 2 * MINUTE)
    counts = {"vehicles": sum_of_values, "readings": count_rows}
    return {
        "sensor_vehicles_incremental_tumbling": Model("tumble", MINUTE, MINUTE, 5 * MINUTE, 10 * MINUTE, counts),
        "sensor_vehicles_incremental_hopping": Model(*hop, {**counts, "busiest": max_of_values}),
        "sensor_vehicles_incremental_on_watermark": Model(*hop, counts, emit_policy="on_watermark"),
        "sensor_vehicles_incremental_final": Model(*hop, counts, emit_policy="final"),
    }


def reference_model(name: str = SESSION_MODEL) -> SessionModel:
    """The config of models/incremental/<name>.sql, in the reference model's terms: the session
    models differ in their emit policy (named by the model's name), and the on_watermark one also
    averages the amounts (an aggregate a run cannot merge from stored sessions: it reads their
    rows again)."""
    on_watermark = name.endswith("_on_watermark")
    final = name.endswith("_final")
    return SessionModel(
        gap=10 * MINUTE,
        delay=5 * MINUTE,
        lateness=20 * MINUTE,
        aggregates={
            "clicks": count_rows,
            "revenue": sum_of_values,
            **({"average_amount": mean_of_values} if on_watermark else {}),
        },
        emit_policy="on_watermark" if on_watermark else "final" if final else "every_run",
    )


def reference_session_models() -> dict[str, SessionModel]:
    return {name: reference_model(name) for name in SESSION_MODELS}
