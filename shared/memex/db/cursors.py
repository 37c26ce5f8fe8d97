"""A listing's cursor: the sort key of the last row sent (a time, an id, maybe more), opaque to the
client as base64 of its JSON."""

from __future__ import annotations

import base64
import json
from datetime import datetime

from memex.models import is_id


def encode(at: datetime, row_id: str, *rest: int) -> str:
    raw = json.dumps([at.isoformat(), row_id, *rest]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(cursor: str, rest: int = 0) -> tuple | None:
    """The key a cursor from `encode` holds (with `rest` integers after the time and the id); None
    for anything else, however it is malformed (the client gets one clear answer, not the parser's
    complaint)."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        decoded = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
        if not (isinstance(decoded, list) and len(decoded) == 2 + rest and isinstance(decoded[0], str)
                and isinstance(decoded[1], str) and all(type(v) is int for v in decoded[2:])):
            return None
        at = datetime.fromisoformat(decoded[0])
    except (ValueError, UnicodeError):
        return None
    if at.tzinfo is None or not is_id(decoded[1]):
        return None
    return (at, *decoded[1:])
