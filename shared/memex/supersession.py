"""Decide how a candidate memory relates to the user's active memories it may contradict.

Actions: supersede (the old ones become history), coexist (both stay current), keep_old (the
candidate is history itself, the current value stays) and noop (nothing new).

The rules judge (no LLM): an exact duplicate changes nothing; a statement about the past is
kept as history; a key that holds one value at a time (employer, city) replaces the old value;
a key that can hold several (a second dog) adds a value beside the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from memex.config import Settings
from memex.jobs import Candidate

MULTI_VALUED_KEYS = frozenset({"pet_dog_name", "pet_cat_name", "child_name", "hobby", "allergy", "language"})


@dataclass(frozen=True)
class Decision:
    action: str  # "supersede", "coexist", "keep_old" or "noop"
    reason: str
    replaces: list[dict[str, Any]] = field(default_factory=list)


class Judge(Protocol):
    name: str

    def decide(self, candidate: Candidate, related: list[dict[str, Any]]) -> Decision:
        """`related`: the user's active memories (wire dicts) with the candidate's key or a
        semantically close one. `replaces` must only name memories from `related`."""
        ...


def _same(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


class RulesJudge:
    name = "rules"

    def decide(self, candidate: Candidate, related: list[dict[str, Any]]) -> Decision:
        return decide(candidate, [m for m in related if m["key"] == candidate.key])


def make_judge(settings: Settings) -> Judge:
    return RulesJudge()


def decide(candidate: Candidate, active_same_key: list[dict[str, Any]]) -> Decision:
    if candidate.historical:
        return Decision("keep_old", "a statement about the past: kept as history")
    for memory in active_same_key:
        if _same(memory["value"] or "", candidate.value):
            return Decision("noop", f"duplicate of memory {memory['id']}")
    if not active_same_key:
        return Decision("coexist", "first value for this key")
    if candidate.key in MULTI_VALUED_KEYS:
        return Decision("coexist", f"{candidate.key} holds several values")
    old = ", ".join(m["value"] or "" for m in active_same_key)
    return Decision("supersede", f"{candidate.key} holds one value: {candidate.value} replaces {old}", active_same_key)
