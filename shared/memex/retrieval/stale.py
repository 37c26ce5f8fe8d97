"""What of a message is no longer current: the values of the facts drawn from it that a later
message replaced or ended ("I live in Lisbon." once the user said "We moved to Berlin.": Lisbon).

Recall notes them on the message's line; a search returns them with the message
(`no_longer_current`), so that an agent that searches instead of recalling does not tell the user
something stale as if it held. A message is not stale for the fact it ended itself ("I left
Feedzai." is no stale news). Whichever agent heard the change: the user's facts are one set
(current_first.py).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable

from memex.db import history


def values(rows: Iterable[dict[str, Any]]) -> dict[str, list[str]]:
    """Per message, its values no longer current, from `rows` as history.send_replacements reads
    them; a message with none is absent."""
    stale: dict[str, list[str]] = {}
    for row in rows:
        later = [c for c in row["current"] or row["ended_by"] if c["id"] != row["message_memory"]]
        found = stale.setdefault(row["message_memory"], [])
        if not row["active"] and later and row["value"] and row["value"] not in found:
            found.append(row["value"])
    return {message: found for message, found in stale.items() if found}


def of(conn, tenant_id: str, user_id: str, memories: Iterable[dict[str, Any]],
       as_of: datetime | None = None) -> dict[str, list[str]]:
    """`values` of the messages among `memories` (one round trip; none without a message among them);
    with `as_of`, as they stood then: replaced or ended by then."""
    messages = [memory["id"] for memory in memories if memory["memory_type"] == "episodic" and memory["id"]]
    return values(history.send_replacements(conn, tenant_id, user_id, messages, as_of)()) if messages else {}
