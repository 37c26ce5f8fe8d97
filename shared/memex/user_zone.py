"""The "now" of a search or recall that gives no reference time, in the user's zone: the offset of the
user's latest turn sent with one (a client that sends `2026-03-04T21:30:00+09:00` sends its user's
zone), UTC when they never sent one. A question's "yesterday" and recall's "(said …)" days are read
in it (time_phrases.py); a request's `reference_time` or `as_of` keeps its own offset and wins."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import psycopg

from memex.db import erasure as erasure_rows
from memex.db import turns as turn_rows


def now(conn: psycopg.Connection, tenant_id: str, user_id: str, reference_time: datetime | None) -> datetime:
    """`reference_time`, else now in the user's zone; UserBeingErased, read in the same round trip,
    when the user's erasure has begun (a read at a request's start: db/erasing.py)."""
    if reference_time is not None:
        erasure_rows.refuse_if_erasing(conn, tenant_id, user_id)
        return reference_time
    offset = turn_rows.latest_offset(conn, tenant_id, user_id)
    return datetime.now(timezone.utc if offset is None else timezone(timedelta(minutes=offset)))
