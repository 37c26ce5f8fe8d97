"""A user's turns as they were sent, for the user to take out: the listing of GET
/v1/users/{user_id}/turns, and the same turns as the JSON Lines `memex backfill` imports, so that an
import of an export stores the same conversation (and draws the same memories from it), but what the user
erased: an erasure is not undone by a re-import."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterator

from memex.context import Context
from memex.db import cursors
from memex.db import sessions as session_rows
from memex.db import turns as turn_rows
from memex.models import sent_user_name, wire_time
from memex.user_zone import zone

# Turns a page of `lines` reads: the listing's largest page.
LINES_PER_PAGE = 500


def turns(ctx: Context, tenant_id: str, user_id: str, limit: int, cursor: str | None,
          agent_id: str | None = None, session_id: str | None = None) -> dict[str, Any]:
    """The user's turns, the earliest said first, each with its messages as they were sent; with
    `agent_id` or `session_id`, only that agent's or that session's. A user being erased: 409, read
    with the page."""
    # A filter joins the digest only when given, named: an agent's id may not pass for a session's.
    of = cursors.listing("turns", tenant_id, user_id, *([f"agent={agent_id}"] if agent_id else []),
                         *([f"session={session_id}"] if session_id else []))
    rows, next_cursor = cursors.page(
        of, cursor, lambda after: session_rows.turns(ctx.db.connection(), tenant_id, user_id, limit, after,
                                                     agent_id, session_id), rest=1)
    return {"user_id": user_id, "turns": [_turn(row) for row in rows], "next_cursor": next_cursor}


def _turn(row: dict[str, Any]) -> dict[str, Any]:
    # None once the erasure of the episodic memories drawn from them took all its messages.
    messages = row["messages"] or []
    return {
        "turn_id": row["turn_id"], "session_id": row["session_id"], "agent_id": row["agent_id"],
        "occurred_at": wire_time(row["occurred_at"]), "utc_offset": row["utc_offset"],
        "received_at": wire_time(row["created_at"]), "status": row["status"], "metadata": row["metadata"],
        "idempotency_key": row["idempotency_key"], "user_name": sent_user_name(messages),
        "messages": [{k: m[k] for k in ("id", "role", "name", "content", "metadata")} for m in messages],
    }


@dataclass
class LeftOut:
    """What `lines` left out of the user's turns, by why."""

    messages: int = 0  # each a message that said a fact erased by id (drawn from it, or said again)
    turns_unrecorded: int = 0  # each the turn of a tombstone naming no message (written before migration 0051)
    turns_emptied: int = 0  # each left with no message (its episodic memories erased, or the messages above)

    def __str__(self) -> str:
        said = [(self.messages, "message", "that said a fact erased by id"),
                (self.turns_unrecorded, "turn", "a fact erased before migration 0051 was drawn from"
                 " (which of its messages is not recorded)"),
                (self.turns_emptied, "turn", "left with no message")]
        return ", ".join(f"{n} {what}{'s' if n != 1 else ''} {why}" for n, what, why in said if n)


def lines(ctx: Context, tenant_id: str, user_id: str, agent_id: str | None = None,
          as_user: str | None = None, left_out: LeftOut | None = None) -> Iterator[str]:
    """The user's turns (only `agent_id`'s when given), the earliest said first, one JSON line each
    (without its newline), as `memex backfill` imports them: for `as_user` when given, to import
    them as that user's. Pages of the listing's keyset query, each read on its own: turns sent
    meanwhile after the last page read are exported too, as a listing would page them. Without what
    the user erased (counted in `left_out` when given): a fact erased by id leaves its message and
    those that say it again (their tombstones name them), which an import would draw it from again,
    received after the erasure that no tombstone holds back."""
    left_out = left_out if left_out is not None else LeftOut()
    after = None
    # The digests a turn keeps are salted with its own user (db/erasure.py): given to another user, they would name
    # this user's turns in the other's erasure, which would then hold back this user's own restore.
    keeps_origins = as_user in (None, user_id)
    while True:
        rows, after = session_rows.turns(ctx.db.connection(), tenant_id, user_id, LINES_PER_PAGE, after, agent_id)
        erased = turn_rows.erased_messages(ctx.db.connection(), tenant_id, [row["turn_id"] for row in rows])
        for row in rows:
            turn = _turn(row)
            messages = _unerased(turn, erased.get(turn["turn_id"], set()), left_out)
            origins = row["imported_from_digests"] if keeps_origins else None
            if messages:
                yield json.dumps(as_import(as_user or user_id, {**turn, "messages": messages}, origins),
                                 ensure_ascii=False)
        if after is None:
            return


def _unerased(turn: dict[str, Any], erased: set[str], left_out: LeftOut) -> list[dict[str, Any]]:
    """The turn's messages but those its tombstones name (`erased`); none when one names no message."""
    if turn_rows.NO_MESSAGE in erased:
        left_out.turns_unrecorded += 1
        return []
    kept = [m for m in turn["messages"] if m["id"] not in erased]
    left_out.messages += len(turn["messages"]) - len(kept)
    if not kept:
        left_out.turns_emptied += 1
    return kept


def as_import(user_id: str, turn: dict[str, Any], imported_from_digests: list[str] | None) -> dict[str, Any]:
    """A listed turn as a line of an import (ImportedTurn): what was sent, the turn's id and what it keeps of
    the ids it was imported from (`imported_from_digests`), which its erasure keeps with its own (db/erasure.py).
    Its timestamp
    is in the offset it was sent with, which is the user's zone (user_zone.py); one sent without an offset
    says so by RFC 3339's "-00:00", which is read as it was. Its idempotency key, if it was sent one, is
    kept: a key is its user's own."""
    line: dict[str, Any] = {"user_id": user_id, "session_id": turn["session_id"]}
    if turn["agent_id"] is not None:
        line["agent_id"] = turn["agent_id"]
    line["timestamp"] = _in_sent_offset(turn["occurred_at"], turn["utc_offset"])
    line["messages"] = [{"role": m["role"], "content": m["content"],
                         **({"name": m["name"]} if m["name"] is not None else {}),
                         **({"metadata": m["metadata"]} if m["metadata"] else {})} for m in turn["messages"]]
    for field in ("metadata", "idempotency_key", "user_name"):
        if turn[field]:
            line[field] = turn[field]
    line["turn_id"] = turn["turn_id"]
    if imported_from_digests:
        line["imported_from_digests"] = imported_from_digests
    return line


def _in_sent_offset(said: str, utc_offset: int | None) -> str:
    # The inverse of models._sent_time, which reads a timestamp into UTC and the offset it was sent with.
    at = datetime.fromisoformat(said).astimezone(zone(utc_offset)).isoformat()
    return at.replace("+00:00", "-00:00") if utc_offset is None else at
