"""A listing's cursor: the sort key of the last row sent (a time, an id, maybe more), opaque to the
client as base64 of its JSON, and bound to the listing that issued it.

A cursor's key alone would be taken by any listing of the same shape: one user's memory cursor by
another user's listing (or by the same user id's in another tenant), session s1's by session s2's,
which would then start somewhere in the middle (or past the end) and say nothing. So each cursor carries a digest of its listing (what it
lists, whose and in which tenant), and a listing refuses another's cursor by name."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from datetime import datetime, timedelta, timezone
from typing import Callable

from memex.errors import InvalidInput
from memex.models import is_id

NOT_ISSUED = "cursor: not a cursor this server issued"
OTHER_LISTING = ("cursor: the next_cursor of another listing; a cursor continues only the listing that "
                 "returned it (the same route, tenant, user, session, agent and include_inactive)")

_DIGEST = re.compile(r"[0-9a-f]{16}")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def listing(*parts: object) -> str:
    """The digest a listing's cursors carry: of its kind and its parameters (ids may be 256
    characters each, too long to carry in a cursor as they are)."""
    return hashlib.sha256(json.dumps([str(p) for p in parts]).encode()).hexdigest()[:16]


def encode(of: str, at: datetime, row_id: str, *rest: int) -> str:
    """The cursor after the row keyed (at, row_id, *rest) of the listing `of` (`listing()`)."""
    raw = json.dumps([of, at.isoformat(), row_id, *rest]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(cursor: str, of: str, rest: int = 0) -> tuple:
    """The key a cursor from `encode` holds (with `rest` integers after the time and the id).
    Raises InvalidInput for anything this server did not issue, however it is malformed (the
    client gets one clear answer, not the parser's complaint), and for another listing's cursor."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        decoded = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (ValueError, UnicodeError):
        raise InvalidInput(NOT_ISSUED) from None
    if not (isinstance(decoded, list) and decoded and isinstance(decoded[0], str)):
        raise InvalidInput(NOT_ISSUED)
    if decoded[0] != of:
        # Checked first: another listing's cursor may hold a key of another shape (a position).
        raise InvalidInput(OTHER_LISTING if _DIGEST.fullmatch(decoded[0]) else NOT_ISSUED)
    if not (len(decoded) == 3 + rest and all(isinstance(v, str) for v in decoded[1:3])
            and all(type(v) is int for v in decoded[3:])):
        raise InvalidInput(NOT_ISSUED)
    try:
        at = datetime.fromisoformat(decoded[1])
    except ValueError:
        raise InvalidInput(NOT_ISSUED) from None
    if at.tzinfo is None or not is_id(decoded[2]):
        raise InvalidInput(NOT_ISSUED)
    return (at, *decoded[2:])


def microseconds(at: datetime) -> int:
    """An instant as a cursor carries it among its integers (`rest`): microseconds since 1970, UTC."""
    return (at - _EPOCH) // timedelta(microseconds=1)


def instant(microseconds: int) -> datetime:
    """The instant `microseconds()` gave. InvalidInput for a number no instant gives (one past the
    years a datetime holds): the client tampered with the cursor, Postgres must not be the one to say."""
    try:
        return _EPOCH + timedelta(microseconds=microseconds)
    except OverflowError:
        raise InvalidInput(NOT_ISSUED) from None


def page(of: str, cursor: str | None, read: Callable[[tuple | None], tuple[list, tuple | None]],
         rest: int = 0) -> tuple[list, str | None]:
    """A page of the listing `of`: `read(after)` with the key `cursor` holds (None for the first
    page), and the cursor after the page's last row when `read` says more follow (its key), else None."""
    items, next_key = read(decode(cursor, of, rest) if cursor else None)
    return items, encode(of, *next_key) if next_key else None
