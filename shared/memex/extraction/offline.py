"""The offline extractor: first-person patterns, no LLM. It misses things; it never invents.

Only the user's own statements are read, and a clause that is negated or in the past
("I don't work at", "I used to live in") yields nothing rather than a wrong current fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from memex.jobs import Candidate

_VALUE = r"(?P<value>[A-Z0-9][\w&'.\- ]{0,60}?)"
_END = r"(?=\s*(?:[.,;!?)]|$|\s(?:and|but|as|since|for|because|now|today|this|last|next)\b))"


@dataclass(frozen=True)
class _Rule:
    type: str
    key: str
    pattern: re.Pattern[str]
    sentence: str
    importance: float


def _rule(type_: str, key: str, lead: str, sentence: str, importance: float = 0.7) -> _Rule:
    return _Rule(type_, key, re.compile(rf"\b(?:{lead})\s+{_VALUE}{_END}"), sentence, importance)


_RULES = [
    _rule("fact", "employer", r"I (?:now )?work (?:at|for)|I(?:'ve| have)? (?:just )?(?:started|joined)(?: at| working at| working for)?|I'm (?:now )?working (?:at|for)",
          "The user's employer is {value}."),
    _rule("fact", "city", r"I (?:now )?live in|I(?:'ve| have)? (?:just )?moved to|I'm based in",
          "The user lives in {value}."),
    _rule("fact", "name", r"[Mm]y name is|[Cc]all me", "The user's name is {value}.", 0.8),
    _rule("fact", "pet_dog_name", r"[Mm]y dog(?:'s name)? is(?: called| named)?|[Mm]y dog,",
          "The user's dog is named {value}."),
    _rule("relation", "partner_name", r"[Mm]y (?:wife|husband|partner|girlfriend|boyfriend)(?:'s name)? is(?: called| named)?",
          "The user's partner is {value}."),
]
_NEGATED = re.compile(r"\b(?:not|n't|never|no longer|used to|stopped|left|quit)\b[^.?!]*$", re.IGNORECASE)


class OfflineExtractor:
    name = "offline-rules"

    def extract(self, messages: list[dict[str, Any]], history: list[dict[str, Any]]) -> list[Candidate]:
        found: dict[str, Candidate] = {}
        for message in messages:
            if message["role"] != "user":
                continue
            text = message["content"]
            for rule in _RULES:
                for match in rule.pattern.finditer(text):
                    if _NEGATED.search(text[: match.start("value")]):
                        continue
                    value = match.group("value").strip(" .'")
                    if not value:
                        continue
                    # A later statement in the same turn wins over an earlier one for the same key.
                    found[rule.key] = Candidate(
                        type=rule.type,
                        key=rule.key,
                        value=value,
                        content=rule.sentence.format(value=value),
                        confidence=0.7,
                        importance=rule.importance,
                        source_message_id=message["id"],
                        raw_quote=match.group(0),
                    )
        return list(found.values())
