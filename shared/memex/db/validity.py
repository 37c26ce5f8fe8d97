"""Which memories a read counts as current: those that hold now (`active`), or, read as memory stood
at a time (a search's or recall's `as_of`), those valid then. A memory holds from when it began to
(`holds_from`, when its words said an earlier time than it stands in its history at: "I moved to Paris
last week"; else its `valid_from`) until its `valid_to`, which what replaced or ended it wrote
(timeline.py: when what replaced it began to hold, the time an event happened when it said one), so a fact
superseded after that time held then, and one said after it did not exist yet. A statement about
the past (`valid_from` = `valid_to`: "I used to be a nurse") never holds at a moment; an erased
memory has no row left, so no time brings it back."""

from __future__ import annotations

from datetime import datetime
from typing import Any


def began(alias: str) -> str:
    """SQL: when the memory `alias` began to hold."""
    return f"coalesce({alias}.holds_from, {alias}.valid_from)"


def began_at(memory: dict[str, Any]) -> datetime | str:
    """When a memory read (a row, or memories.to_wire's) began to hold, as `began` reads it."""
    return memory["holds_from"] or memory["valid_from"]


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
