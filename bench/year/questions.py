"""The questions asked of the year's user at a checkpoint, each with the answer true on that day, and
how a search's results are judged against it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from bench.year.life import Life


@dataclass(frozen=True)
class Question:
    kind: str  # current, history, early
    query: str
    answer: str  # a word a right result holds
    day: int | None = None  # for "when": the day the right result must be dated (valid_from, ±1)


def questions(life: Life, day: int) -> list[Question]:
    """Those whose answer she has said by `day`."""
    found: list[Question] = []
    cur = Life.current
    found.append(Question("current", "where does she work?", cur(life.employers, day)))
    found.append(Question("current", "where does she live?", cur(life.cities, day)))
    for what, query in ((life.partner, "who is her partner?"), (life.child, "what is her daughter's name?"),
                        (life.cat, "what is her cat's name?")):
        if what and what[0] <= day:
            found.append(Question("current", query, what[1]))
    if cur(life.diets, day):
        found.append(Question("current", "what diet does she follow?", cur(life.diets, day)))
    if cur(life.opinions, day):
        found.append(Question("current", "what does she think about remote work?", cur(life.opinions, day)))
    employers = [e for start, e in life.employers if start <= day]
    for before, after in zip(employers, employers[1:]):
        found.append(Question("history", f"where did she work before {after}?", before))
    cities = [(start, c) for start, c in life.cities if start <= day]
    for (_, before), (start, after) in zip(cities, cities[1:]):
        found.append(Question("history", f"where did she live before {after}?", before))
        found.append(Question("history", f"when did she move to {after}?", after, day=start))
    found.append(Question("early", "what was her first dog's name?", life.first_dog))
    found.append(Question("early", "where did she grow up?", life.hometown))
    found.append(Question("early", "what is her name?", life.name))
    found.append(Question("early", "what was her first job?", life.employers[0][1]))
    return found


def rank(question: Question, results: list[dict[str, Any]], start: datetime) -> int | None:
    """The 1-based rank of the first result that answers, or None."""
    for i, result in enumerate(results, 1):
        if question.answer.lower() not in result["content"].lower():
            continue
        if question.day is None:
            return i
        said = datetime.fromisoformat(result["valid_from"].replace("Z", "+00:00"))
        if abs(said - (start + timedelta(days=question.day, hours=12))) <= timedelta(days=1):
            return i
    return None
