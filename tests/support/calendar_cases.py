"""Days around clock changes, computed by hand: each as (zone, local date, the UTC instant its day
begins, its length in hours). The calendar model is checked against them, the SQL against the model."""

from __future__ import annotations

import datetime as dt

HOUR = 3_600_000_000
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def utc(text: str) -> int:
    """Microseconds since the epoch of a UTC time written as text."""
    return (dt.datetime.fromisoformat(text).replace(tzinfo=dt.timezone.utc) - EPOCH) // dt.timedelta(microseconds=1)


DST_DAYS = [
    ("America/New_York", "2024-03-10", "2024-03-10 05:00", 23),
    ("America/New_York", "2024-11-03", "2024-11-03 04:00", 25),
    ("Australia/Sydney", "2024-04-07", "2024-04-06 13:00", 25),
    ("Australia/Sydney", "2024-10-06", "2024-10-05 14:00", 23),
    ("Europe/Berlin", "2024-03-31", "2024-03-30 23:00", 23),
    ("Europe/Berlin", "2024-10-27", "2024-10-26 22:00", 25),
    # zones whose clocks move at midnight: 00:00 does not exist, the day begins at 01:00
    ("America/Santiago", "2024-09-08", "2024-09-08 04:00", 23),
    ("Asia/Beirut", "2024-03-31", "2024-03-30 22:00", 23),
    # midnight happens once, after 23:00-24:00 of the day before happened twice
    ("America/Santiago", "2024-04-07", "2024-04-07 04:00", 24),
    # no change at all
    ("Asia/Tokyo", "2024-02-29", "2024-02-28 15:00", 24),
    # the jump from 23:30 EST to 00:30 EDT straddles midnight: the day begins at 00:00 read with
    # EST, 01:00 EDT, and 00:30-01:00 EDT belong to the day before
    ("America/Toronto", "1919-03-31", "1919-03-31 05:00", 23),
    # clocks back across midnight (00:01 to 23:01 the day before): the local date goes back for
    # an hour, but those instants belong to the day that has begun
    ("America/St_Johns", "1995-10-29", "1995-10-29 02:30", 25),
    ("America/Goose_Bay", "2010-11-07", "2010-11-07 03:00", 25),
    ("America/Moncton", "1995-10-29", "1995-10-29 03:00", 25),
    ("Antarctica/Casey", "2010-03-05", "2010-03-04 13:00", 27),
]
