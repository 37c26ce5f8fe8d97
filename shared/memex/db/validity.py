"""Which memories a read counts as current: those that hold now (`active`), or, read as memory stood
at a time (a search's or recall's `as_of`), those valid then. A memory holds from when it began to
(`holds_from`, when its words said an earlier time than it stands in its history at: "I moved to Paris
last week"; else its `valid_from`) until its `valid_to`, which what replaced or ended it wrote
(timeline.py: when what replaced it began to hold, the time an event happened when it said one), so a fact
superseded after that time held then, and one said after it did not exist yet. A statement about
the past ("I used to be a nurse": `holds_from` = `valid_to`, before its `valid_from`) never holds at a
moment; an erased memory has no row left, so no time brings it back."""

from __future__ import annotations

from datetime import datetime
from typing import Any


def began(alias: str) -> str:
    """SQL: when the memory `alias` began to hold."""
    return f"coalesce({alias}.holds_from, {alias}.valid_from)"


def began_at(memory: dict[str, Any]) -> datetime | str:
    """When a memory read (a row, or memories.to_wire's) began to hold, as `began` reads it."""
    return memory["holds_from"] or memory["valid_from"]


def stands(alias: str) -> str:
    """SQL: where the memory `alias` stands in its key's history. `valid_from` stays when it was said (a
    recall's "(said …)", a period asked), and a fact said while it held stands there, so that of two values
    the later said is current ("I moved to Paris last week." said after "I live in Lyon."); one already over
    when it was said (its `valid_to` at or before its `valid_from`: "I lived in Rome in 2015.", "I left
    Google in 2019.") stands where it began, before the values said since (timeline.py)."""
    return f"CASE WHEN {alias}.valid_to <= {alias}.valid_from THEN {began(alias)} ELSE {alias}.valid_from END"


def stands_at(memory: dict[str, Any]) -> datetime:
    """Where a memory read (a row, or memories.to_wire's) stands in its key's history, as `stands` reads it."""
    said, ended = moment(memory["valid_from"]), memory["valid_to"]
    return moment(began_at(memory)) if ended is not None and moment(ended) <= said else said


def moment(value: datetime | str) -> datetime:
    """A time read from a row (a datetime) or from memories.to_wire's (RFC 3339)."""
    return value if isinstance(value, datetime) else datetime.fromisoformat(value.replace("Z", "+00:00"))


def held(alias: str, at: str | None) -> str:
    """SQL: the memory `alias` held at the named parameter `at`, or, for None, holds now."""
    if at is None:
        return f"{alias}.active"
    return f"({began(alias)} <= %({at})s AND ({alias}.valid_to IS NULL OR %({at})s < {alias}.valid_to))"


def ended(alias: str, at: str | None) -> str:
    """SQL: the memory `alias` had stopped holding by the named parameter `at`, or, for None, no longer holds."""
    if at is None:
        return f"NOT {alias}.active"
    return f"{alias}.valid_to <= %({at})s"


def said_by(alias: str, at: str | None) -> str:
    """SQL: the memory `alias` had been said by `at` (always, for None)."""
    return "true" if at is None else f"{alias}.valid_from <= %({at})s"
