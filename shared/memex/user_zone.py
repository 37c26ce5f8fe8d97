"""The "now" of a search or recall that gives no reference time, in the user's zone: the offset of the
user's latest turn sent with one (a client that sends `2026-03-04T21:30:00+09:00` sends its user's
zone), UTC when they never sent one. A question's "yesterday" and recall's "(said …)" days are read
in it (time_phrases.py); a request's `reference_time` or `as_of` keeps its own offset and wins."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Callable

import psycopg

from memex.db import erasure as erasure_rows


def now(conn: psycopg.Connection, tenant_id: str, user_id: str, reference_time: datetime | None) -> datetime:
    """`reference_time`, else now in the user's zone; UserBeingErased, read in the same round trip,
    when the user's erasure has begun (a read at a request's start: db/erasure.refuse_if_erasing)."""
    return send_now(conn, tenant_id, user_id, reference_time)()


def send_now(conn: psycopg.Connection, tenant_id: str, user_id: str,
             reference_time: datetime | None) -> Callable[[], datetime]:
    """`now` sent now and read by calling what it returns (UserBeingErased then): in a pipeline, after
    its sync, so that it shares a round trip with what a search reads of its user next (search.py)."""
    offset = erasure_rows.send_refuse_if_erasing(conn, tenant_id, user_id, offset=reference_time is None)

    def read() -> datetime:
        minutes = offset()
        if reference_time is not None:
            return reference_time
        return datetime.now(timezone.utc if minutes is None else timezone(timedelta(minutes=minutes)))
    return read
