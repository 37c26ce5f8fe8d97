"""The user's zone: the offset of the user's latest turn sent with one (a client that sends
`2026-03-04T21:30:00+09:00` sends its user's zone), UTC when they never sent one. The "now" of a search
or recall that gives no reference time is in it, so a question's "yesterday" and recall's "(said …)"
days are read in it (time_phrases.py); a request's `reference_time` or `as_of` keeps its own offset
and wins. A statement's own time ("we broke up in May") is read in the offset its turn was sent with,
else in the user's zone (`said_at`)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Callable

import psycopg

from memex.db import erasing
from memex.db import turns as turn_rows


def send_now(conn: psycopg.Connection, tenant_id: str, user_id: str,
             reference_time: datetime | None) -> Callable[[], datetime]:
    """`reference_time`, else now in the user's zone, sent now and read by calling what it returns;
    UserBeingErased then, read in the same round trip, when the user's erasure has begun (a read at a
    request's start: db/erasing.py). In a pipeline, after its sync, so that it shares a round trip
    with what a search reads of its user next (search.py)."""
    offset = "" if reference_time is not None else f", {turn_rows.LATEST_OFFSET} AS utc_offset"
    cursor = conn.execute(f"SELECT {erasing.MARKED} AS erasing{offset}", {"t": tenant_id, "u": user_id})

    def read() -> datetime:
        row = cursor.fetchone()
        erasing.refuse(row, user_id)
        return reference_time if reference_time is not None else datetime.now(zone(row["utc_offset"]))
    return read


def said_at(conn: psycopg.Connection, turn: dict[str, Any]) -> datetime:
    """When the turn (a row of turns) was said, in the offset its timestamp was sent with, else in the
    user's zone: a Tokyo user's turn sent without one is still said on Tokyo's day."""
    offset = turn["utc_offset"]
    if offset is None:
        offset = turn_rows.latest_offset(conn, turn["tenant_id"], turn["user_id"])
    return turn["occurred_at"].astimezone(zone(offset))


def zone(offset: int | None) -> timezone:
    """The zone of an offset in minutes (turns.utc_offset); UTC for none."""
    return timezone.utc if offset is None else timezone(timedelta(minutes=offset))
