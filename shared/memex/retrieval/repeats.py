"""Lines said again: a search's top k is not spent on a message's words it already returned.

A user who says "I had a long day at work." on fifty evenings has fifty episodic memories that read
the same; a question near them ranked them all above everything else, and the top ten held one line
ten times (trial 15, docs/measurements/quality.md). A message whose text reads as one ranked above
it goes below every line that reads as none other, in its order: the distinct lines take the top k
first, and a caller asking for more still gets each repeat (with its own day: "when did I last say
so?" needs them). A repeat takes the last distinct line's score when its own is higher, and names
the line it repeats in `score_parts.repeat_of`: the list stays in score order, so a caller who sorts
it by score does not bring the repeats back on top.

What reads as the same line is `reads_as`'s judgement, for the search and for recall's bullets
alike: the same words, and for words that count time from the day they were said ("yesterday"), the
same day. Only episodic memories are compared (messages, summaries): a fact is distinct by its key,
which two facts of the same words may not share. Recall (recall.py) takes in a bullet once per line as
`reads_as` reads it, with a message's values no longer current as part of the line: "I live in York."
said in January and again in February while York held states York both times (stale.py), and once
York was replaced both are one bullet naming the days it was said; a search moves the February line
below the distinct ones before it reads those values (no round trip is added), and each result still
carries its own `no_longer_current`.
"""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime, tzinfo
from typing import Any, Mapping, Sequence

from memex import time_phrases
from memex.db import memories as memory_rows

Scored = tuple[str, float, dict[str, Any]]


def reads_as(content: str, said: datetime | None, zone: tzinfo | None,
             no_longer_current: Sequence[str] = ()) -> tuple[str, date | None, tuple[str, ...]]:
    """What a line tells a reader: its words; the day it was said (in `zone`, the asker's) when they
    count time from it ("I was sick yesterday."; None when `said` is not known: a fact about the past
    holds from before it was said); and its values no longer current. Two lines that read as one tell a
    reader nothing more than the first (but for the days they were said, which recall names)."""
    day = said.astimezone(zone).date() if said is not None and time_phrases.counts_from_saying(content) else None
    return content, day, tuple(no_longer_current)


def after_distinct(scored: Sequence[Scored], found: Mapping[str, memory_rows.Found],
                   zone: tzinfo | None) -> list[Scored]:
    """`scored` (best first) with every message that reads as one before it moved below the others,
    repeats in their order, each at most the last distinct line's score and with `repeat_of` naming the
    line it repeats; `zone`: the asker's, for the days. A line a lift above moved before the one it
    had been found to repeat is the first of its words now, and loses its `repeat_of`."""
    rows = [found.get(item) for item, _, _ in scored]
    said = Counter(row.content for row in rows if row is not None and row.memory_type == "episodic")
    if len(said) == said.total():  # nearly every search: no words said twice, nothing to move
        return list(scored)
    firsts: list[Scored] = []
    repeats: list[tuple[Scored, str]] = []
    first_of: dict[tuple[str, date | None, tuple[str, ...]], str] = {}  # a line -> the memory first to say it
    for entry, row in zip(scored, rows):
        # the phrases are read only for words said twice: most lines are said once
        if row is None or row.memory_type != "episodic" or said[row.content] == 1:
            firsts.append(entry)
            continue
        line = reads_as(row.content, row.valid_from, zone)
        if line in first_of:
            repeats.append((entry, first_of[line]))
            continue
        first_of[line] = entry[0]
        item, score, parts = entry
        firsts.append((item, score, {key: value for key, value in parts.items() if key != "repeat_of"})
                      if "repeat_of" in parts else entry)
    last = firsts[-1][1]  # a repeat has a first before it
    return firsts + [(item, min(score, last), {**parts, "score": min(score, last), "repeat_of": first})
                     for (item, score, parts), first in repeats]
