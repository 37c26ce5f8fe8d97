"""One rule of the table (a regex with a `value` group and the clean function that validates it) and
the candidate memory a match of it files."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from memex import time_phrases
from memex.extraction.offline.values import Fields, a_name
from memex.jobs import Candidate, subject_key


@dataclass(frozen=True)
class Rule:
    type: str
    key: str  # may use {part}, from the clean function
    # Alternatives, each with a `value` group: their sources, each compiled when a sentence first may match
    # it (matching._Sieve). Compiling all ~490 at import cost ~1.1 s of CPU at a process's first extraction,
    # for a short turn that may match five; LoCoMo-dev's 2,760 lines, extracted in one process, may match 224
    # of the 472 sources (docs/measurements/big-turns.md).
    patterns: tuple[str, ...]
    # Lowercase words one of which every pattern contains: a sentence without any of them is not
    # scanned by the patterns (most sentences hold cues for two or three rules, not twenty).
    cues: frozenset[str]
    sentence: str  # formatted with the fields of the clean function
    clean: Callable[[re.Match[str]], list[Fields]] = a_name
    confidence: float = 0.8
    importance: float = 0.7
    historical: bool = False
    ends_only: bool = False  # Candidate.ends_only
    only_replacing: bool = False  # Candidate.only_replacing, the `old` field of the clean function


def rule(type_: str, key: str, cues: str, patterns: list[str], sentence: str, clean=a_name,
         confidence: float = 0.8, importance: float = 0.7, historical: bool = False, ends_only: bool = False,
         only_replacing: bool = False) -> Rule:
    return Rule(type_, key, tuple(patterns), frozenset(cues.split()), sentence, clean, confidence, importance, historical,
                ends_only, only_replacing)


def candidate_of(rule: Rule, fields: Fields, message_id: str, quote: str, subject: str = "user") -> Candidate:
    return Candidate(
        type=rule.type,
        key=subject_key(subject, rule.key.format(**fields)),
        value=fields["value"],
        content=_about(subject, rule.sentence.format(**fields)),
        confidence=rule.confidence,
        importance=rule.importance,
        source_message_id=message_id,
        raw_quote=quote,
        subject=subject,
        historical=rule.historical,
        ends_only=rule.ends_only,
        only_replacing=fields["old"] if rule.only_replacing else None,
        happened=fields.get("happened"),
    )


# Where a clause ends: a mark, or a word that begins another ("and", "but", ...); a comma before a year
# is a date's ("on May 3, 2019").
_CLAUSE_BREAK = re.compile(r"[;:!?]|,(?!\s*\d{4})|\s(?:and|but|or|so|while|whereas|though|although|because)\s",
                           re.IGNORECASE)


def own_time(sentence: str, match: re.Match[str]) -> str | None:
    """The times said in the clause of the sentence a rule matched in (time_phrases.named: "I moved to Paris
    last week." -> "last week"), which say when what it states happened: not another clause's ("I live in
    Paris and I have been vegan since 2019.": none for the city). A time said alone before a comma opens
    the clause after it ("Last week, I moved to Paris.")."""
    start = 0
    for brk in _CLAUSE_BREAK.finditer(sentence, 0, match.start()):
        opening = sentence[start:brk.start()].strip()
        if not (brk.group() == "," and opening and time_phrases.named(opening) == opening):
            start = brk.end()
    end = next((b.start() for b in _CLAUSE_BREAK.finditer(sentence, match.end())), len(sentence))
    return time_phrases.named(sentence[start:end])


def _about(subject: str, sentence: str) -> str:
    """A rule's sentence ("The user's employer is Acme.") about the participant who said it
    ("Melanie's employer is Acme."), so that a search naming them finds it."""
    if subject == "user":
        return sentence
    return sentence.replace("The user's", f"{subject}'s", 1).replace("The user", subject, 1)
