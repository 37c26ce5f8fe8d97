"""Decide how a candidate memory relates to the active memories with the same key.

Rules (the judge without an LLM): an exact duplicate changes nothing; a key that holds one
value at a time (employer, city) replaces the old value; a key that can hold several (a second
dog) adds a value beside the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memex.jobs import Candidate

MULTI_VALUED_KEYS = frozenset({"pet_dog_name", "pet_cat_name", "child_name", "hobby", "allergy", "language"})


@dataclass(frozen=True)
class Decision:
    action: str  # "supersede", "coexist" or "noop"
    reason: str
    replaces: list[dict[str, Any]] = field(default_factory=list)


def _same(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def decide(candidate: Candidate, active_same_key: list[dict[str, Any]]) -> Decision:
    for memory in active_same_key:
        if _same(memory["value"] or "", candidate.value):
            return Decision("noop", f"duplicate of memory {memory['id']}")
    if not active_same_key:
        return Decision("coexist", "first value for this key")
    if candidate.key in MULTI_VALUED_KEYS:
        return Decision("coexist", f"{candidate.key} holds several values")
    old = ", ".join(m["value"] or "" for m in active_same_key)
    return Decision("supersede", f"{candidate.key} holds one value: {candidate.value} replaces {old}", active_same_key)
