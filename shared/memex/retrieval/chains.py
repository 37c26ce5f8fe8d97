"""Questions about a chain of values: what came before a named value, the first of a kind, when a
named value began. Each is answered by one member of the user's supersession chains, ranked first.

The year trial (docs/measurements/year.md) asked "where did she work before Shopify?" and found
Shopify's own fact or the current employer first: every employer fact says "employer" and a name,
so neither the words nor the meaning tell the one before Shopify from the others. The chain does:
the fact that began Shopify replaced the one before it (memory_links). So:

- "before X" ("where did she work before Shopify?", "prior to Notion", "where did I live before
  moving to Dublin?", "what was my job before I became a nurse?"): the fact that began X (the
  earliest whose value holds X, or that X holds: "The user's plan: first day at Twilio tomorrow."
  for Twilio), and ranked first the fact it replaced; when it replaced none (a job said as starting
  tomorrow was filed under another key), the latest fact under its key, or under the keys the
  question names ("work": the employer or the job, past.key_words), begun by then.
- "first X" ("what was her first job?", "her first dog's name", "the earliest city she lived in"):
  the earliest fact under the keys X names (a replaced one as well as a current one).
- a question that asks when (answer_type.asks_time) and names the value of a fact in a chain ("when
  did she move to Dublin?", "when did I start at Notion?", "when did she go vegan?"): the fact that
  began that value, whose `valid_from` is the day it was said. A value in no chain (a name, a
  hometown) is left to the search: "When did Caroline go to the support group?" names Caroline's
  name fact, which no chain holds.

Only the facts of the subject asked about are read (a participant the question names, else the
user). The fact ranked first takes the first result's score (the list stays in score order) and says
why in `score_parts.chain` (before, first or began); nothing else moves. A question none of whose
facts are there is answered as before.

A question about the past that names no value ("where did she work previously?", "my old job") is
past.py's: ranking first the fact the current one replaced made bench.asked's user told every
statement worse (the employer's history and the work status's both answer "where did I use to
work?", the city's and whom she lives with both "where did I use to live?"), and the year asks none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memex import literal
from memex.models import SearchIn
from memex.retrieval import answer_type, current_first, past, speakers
from memex.retrieval.topics import WHO_OR_NAME
from memex.time_phrases import MONTHS

Scored = tuple[str, float, dict[str, Any]]

# What follows "before" up to the value it names: "before moving to", "before she started at", "prior
# to joining", "before I became a"; the value is the rest of the clause. "before that/then/now" and a
# date name no value: a date is the period's to read (time_phrases.py).
_BEFORE = re.compile(
    rf"\b(?:before|prior\s+to)\s+(?:{WHO_OR_NAME}\s+)?"
    r"(?:(?:mov(?:e|ed|ing)|relocat(?:e|ed|ing)|travel(?:l?ed|l?ing)?|start(?:ed|ing)?|join(?:ed|ing)?|work(?:ed|ing)?|"
    r"liv(?:e|ed|ing)|switch(?:ed|ing)?|go(?:ing)?|went|bec(?:ame|ome|oming)|gett?(?:ing)?|got|took|tak(?:e|ing))\s+)?"
    r"(?:(?:to|at|in|for|with|as|on|up|a|an|the|over|working|job)\s+)*(?P<value>[^?.!,;]+)",
    re.IGNORECASE)
_NO_VALUE = re.compile(r"^(?:now|that|then|this|it|today|yesterday|tomorrow|last\b|next\b|\d|"
                       rf"(?:{'|'.join(month[:3] for month in MONTHS)})[a-z]*\b)", re.IGNORECASE)
# "her first job", "my very first car", "the earliest city she lived in", after a possessive or "the"
# ("When did she first meet Sam?" asks when, not for a first of a kind); not "the first time", "her
# first day at Notion" (an event of a value, which the search's words find).
_FIRST = re.compile(r"\b(?:my|her|his|their|your|the user's|(?-i:[A-Z])[a-z]+'s|the)\s+(?:very\s+)?"
                    r"(?:first|earliest)\s+(?!(?:time|day|week|month|year|thing|one)s?\b)"
                    r"(?P<kind>[a-z]+(?:'s)?(?:\s+[a-z]+)?)", re.IGNORECASE)


@dataclass(frozen=True)
class Asked:
    """What a question asks of a chain: `kind` before, first or began; `value` the value it names
    (before), lower-cased; `key_words` the words of the keys it names (past.key_words)."""

    kind: str
    value: str | None
    key_words: tuple[str, ...]


def asked(question: str) -> Asked | None:
    """What the question asks of a chain, or None: it asks nothing of one."""
    before = _BEFORE.search(question)
    if before and not _NO_VALUE.match(before.group("value").strip()):
        value = before.group("value").strip().lower()
        return Asked("before", value, _key_words(question, question[:before.start()]))
    first = _FIRST.search(question)
    if first:
        words = _key_words(question, first.group("kind"))
        if words:
            return Asked("first", None, words)
    if answer_type.asks_time(question):
        return Asked("began", None, ())
    return None


def texts(question: str, asking: Asked) -> list[str]:
    """What a fact's value must hold, or be held in, to be read for the question (history.send_chain_facts)."""
    if asking.kind == "before":
        return [asking.value or ""]
    if asking.kind == "began":
        return [question]
    return []


def answer(question: str, asking: Asked, rows: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, str]:
    """The fact that answers (`rows`: history.send_chain_facts, in the order the key's history lists them,
    db/memories.chain), or None, and the kind."""
    asked_words = speakers.words(question)
    named = {row["subject"] for row in rows if speakers.named(asked_words, row["subject"])}
    rows = [row for row in rows if row["subject"] in (named or {"user"})]
    if asking.kind == "first":
        return next((row for row in rows if row["decision"] != "end"), None), "first"
    if asking.kind == "began":
        began = [row for row in rows if _names(question.lower(), row["value"].lower())
                 and row["decision"] != "end" and (row["replaced"] or row["followed"])]
        return (began[0] if began else None), "began"
    value = asking.value or ""
    naming = [row for row in rows if _names(row["value"].lower(), value) or _names(value, row["value"].lower())]
    keyed = [row for row in naming if row["by_key"]]
    starts = [row for row in keyed or naming if row["decision"] != "end"]
    if not starts:
        return None, "before"
    start = starts[0]
    held = {row["id"] for row in naming}
    replaced = [row for row in rows if row["id"] in start["replaced"] and row["id"] not in held]
    if replaced:
        return replaced[-1], "before"
    # Those listed before it: on a tie of where they stand, one listed after it is not before it.
    earlier = [row for row in rows[:rows.index(start)] if row["id"] not in held
               and (row["key"] == start["key"] or row["by_key"])]
    return (earlier[-1] if earlier else None), "before"


def first(request: SearchIn, scored: list[Scored], row: dict[str, Any] | None, kind: str,
          relevance: dict[str, float], now: datetime) -> list[Scored]:
    """`scored` with the fact that answers (`row`) first, with the first result's score."""
    if row is None:
        return scored
    at = {item: index for index, (item, _, _) in enumerate(scored)}
    if row["id"] in at:
        parts = scored[at[row["id"]]][2]
    elif current_first.in_scope(request, row):
        parts = current_first.taken_in(request, row["valid_from"], row["importance"], relevance.get(row["id"], 0.0),
                                       now)
    else:
        return scored
    score = scored[0][1] if scored else parts["score"]
    return [(row["id"], score, {**parts, "score": score, "chain": kind}),
            *(entry for entry in scored if entry[0] != row["id"])]


def _names(text: str, value: str) -> bool:
    """Whether `text` holds `value` as whole words (found as data: literal.py says why)."""
    return bool(value) and literal.says(value, text)


_NAME = re.compile(r"(?<=\S\s)(?-i:[A-Z])[a-z]+")


def _key_words(question: str, part: str) -> tuple[str, ...]:
    """The words of the keys `part` of the question names (past.key_words), without the names it says:
    "John" in "Which city was John in?" asks about John, and would name every key of his
    (john_likes), not the city."""
    names = {name.lower() for name in _NAME.findall(question)}
    return tuple(word for word in past.key_words(part, None) if word not in names)
