"""Current facts first: a message whose fact has since been replaced never outranks the fact that
replaced it.

"I work at Acme Corp." stays an episodic memory after the user says they moved to Globex, and for
"where does she work?" its words match better than the canonical "The user's employer is Globex.".
Each returned message is checked against the semantic facts drawn from it (history.replacements):

- when every fact drawn from it has been superseded, the current facts that replaced those the
  question is about are ranked just above it, taken in from beyond the ranking if need be. A
  message may say more than its facts: "My knee hurts after long runs. I live in Porto and work at
  Sonae." after a move and a new job holds no fact of the knee, and "any injuries?" is about that,
  not about where she lives (without this the new city and employer came first). So the question is
  about a replaced fact when it met the fact's own words: its value, and the words of its part of the
  message (its `raw_quote`) that no other fact's part holds. Two facts drawn from one sentence quote
  it alike: of "I live in Porto and work at Sonae.", "Porto" is the city's word and "Sonae" the
  employer's, and "Porto" lifts the new city only, as it does of "I live in Porto. I work at Sonae."
  (before, a term of the shared quote lifted both: the new employer came above the message for
  "Porto"). A question that met no fact's own words is about those whose part it met, by a term
  that part shares with another ("live" of the sentence above: both) or by meaning (the question at
  least as near the fact as the whole message). When it met no such part, it is about them all if
  the message says nothing beyond their quotes ("I work at Acme Corp.": what found it is theirs),
  else about none;
- when some of its facts are still current ("I work at Stripe. My dog is called Biscuit."), a fact
  that replaced one of the others is ranked above it only when the search ranked that fact too,
  at least as well as the message's current facts: the question is then about the part that
  changed, not the part that did not;
- when the question names the key of some of its facts, by its words, its verb or its kind
  (past.key_words: "where does she live?" the city), it is about those: only what replaced them is
  lifted. "I live in Porto and work at Sonae." replaced whole by a move and a new job lifts the new
  city for "where does she live?", not the new employer, which said nothing of where she lives.

A fact that ended with nothing after it ("I left Feedzai." while Feedzai was the employer) has no
current fact to stand for it: the message that ended it does, so "I work at Feedzai." does not answer
"where does she work?" above the news that the user left.

When the question names the key of such a fact, by its words or its verb ("where does she work?":
the employer or the job title, past.key_words) and the key has no value now, what it asks has no
current answer but that news: the message that ended it comes first, above whatever else the search
ranked (`ended`, history.send_ended), even when nothing passed the floor's gate ("what does she do
for a living?" is near nothing she said). Without it, "The user lives in Lisbon." came first for
"where does she work?": every line held a name, so the answer type told none apart, and the city
fact's importance carried it over the messages, the only lines left about the job. The ended fact
itself is not returned (it no longer holds; a question about the past finds it, past.py): returned
as history, below the news, it made "what is my job title?" after "I changed jobs from Zendesk to
Intercom." return the Zendesk title (bench.asked, docs/measurements/quality.md). A question that
names no such key ("is she still at Feedzai?") is answered as above.

The same holds when the key's value was taken back by a fact under another key: "I got laid off last
week." names no employer, and its "The user is out of work." ended the employer and the job title
(supersession.related_keys); for "where does she work?" that current fact is the news and comes
first, even when nothing passed the floor's gate ("what's her job?" after "I'm retired now." is near
nothing she said). A question about now then never answers with the job she no longer has.

A search scoped to one agent (`agent_id`) ranks what that agent was told, yet the user's facts are
one set whichever agent heard the change: told the coach "I work at Stripe." and later the planner
"I just started at Notion.", the coach's message is stale all the same. So the current fact that
replaced one of the agent's stands for it, with its own `agent_id` (the caller sees another agent
heard it): the topic channel ranks it for a question that names its kind ("where does she work?",
memories.topic_statement), and it is lifted as above; a message all of whose facts were replaced
takes it in from beyond the agent's scope. Nothing else of another agent's comes in: the planner's
other facts stay its own.

A lifted memory takes the message's score (the list stays in score order) and says why in
`score_parts.current_for` (the message's id); its other parts are its own. No message is dropped
(they are the record of what was said), and one is lowered below another only by the message that
ended what it said, or, for a question about the key it ended, by that news.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memex.extraction import families
from memex.jobs import own_key
from memex.models import SearchIn
from memex.retrieval import scoring, speakers, topics

Scored = tuple[str, float, dict[str, Any]]


def window(request: SearchIn, scored: list[Scored]) -> list[str]:
    """The memories whose replacements `lift` reads (history.send_replacements): the first `top_k`."""
    return [item for item, _, _ in scored[: request.top_k]]


def lift(request: SearchIn, scored: list[Scored], replacements: list[dict[str, Any]],
         relevance: dict[str, float], now: datetime, terms: frozenset[str]) -> list[Scored]:
    """`scored` (best first) with the current facts moved above the messages they made stale;
    `replacements`: those of its window, as history.send_replacements reads them (`named` by the
    question's key words, `near` its vector); `terms`: the question's, as its keyword channel searched
    them."""
    drawn: dict[str, list[dict[str, Any]]] = {}
    for row in replacements:
        drawn.setdefault(row["message_memory"], []).append(row)
    if not any(not fact["active"] and (fact["current"] or fact["ended_by"]) for facts in drawn.values()
               for fact in facts):
        return scored

    order = list(scored)
    score_of = {item: score for item, score, _ in scored}
    similarity = {item: parts.get("similarity") for item, _, parts in scored}
    for message in window(request, scored):
        facts = drawn.get(message, [])
        live = [fact["fact"] for fact in facts if fact["active"]]
        best_live = max((score_of.get(item, float("-inf")) for item in live), default=float("-inf"))
        # A question that names the key of some of the message's facts asks about those: "where does
        # she live?" lifts the city that replaced "I live in Porto and work at Sonae."'s, not the employer.
        asked = any(fact["named"] for fact in facts)
        stale = [fact for fact in facts if not fact["active"] and (fact["named"] or not asked)]
        if not live and not asked:
            stale = _asked_of(stale, terms, similarity.get(message))
        currents = {c["id"]: c for fact in stale for c in fact["current"] or fact["ended_by"]}
        currents.pop(message, None)  # the message that ended a fact is not stale for saying so
        for current_id, current in currents.items():
            at = {item: index for index, (item, _, _) in enumerate(order)}
            here = at[message]
            if current_id in at:
                if at[current_id] < here or score_of[current_id] < best_live:
                    continue
                _, _, parts = order.pop(at[current_id])  # it was below the message: `here` holds
            elif not live and in_scope(request, current, successor=True):
                parts = taken_in(request, datetime.fromisoformat(current["valid_from"]), current["importance"],
                                 relevance.get(current_id, 0.0), now)
            else:
                continue
            score_of[current_id] = score_of[message]
            order.insert(here, (current_id, score_of[message],
                                {**parts, "score": score_of[message], "current_for": message}))
    return order


def _asked_of(stale: list[dict[str, Any]], terms: frozenset[str], similarity: float | None) -> list[dict[str, Any]]:
    """Of the facts drawn from a message, none of which holds now (`stale`, as history.send_replacements
    reads them; `similarity`: the message's to the question), those the question asks about: those
    whose own words it met (`_own`); if it met none's, those whose part of the message it met, by a
    term of its quote or by meaning (the question at least as near the fact as the whole message); if
    it met none, all of them when the message says nothing beyond their quotes (what found it is
    theirs), else none (what found it was another part)."""
    met = [fact for fact, own in zip(stale, _own(stale)) if terms.intersection(own)]
    if met:
        return met
    met = [fact for fact in stale if terms.intersection(fact["quoted"])
           or similarity is not None and fact["near"] is not None and fact["near"] >= similarity]
    if met or not stale:
        return met
    return [] if set(stale[0]["said"]).difference(*(fact["quoted"] for fact in stale)) else stale


def _own(facts: list[dict[str, Any]]) -> list[set[str]]:
    """Each fact's own words among those the message states: the terms of its value, and those of its
    quote that no other fact's quote holds. "I live in Porto and work at Sonae." is the quote of the
    city and of the employer alike: "Porto" is the city's word, "Sonae" the employer's, and "live",
    which both quotes hold, neither's."""
    own = []
    for index, fact in enumerate(facts):
        others = set().union(*(other["quoted"] for at, other in enumerate(facts) if at != index))
        own.append(set(fact["valued"]) | set(fact["quoted"]).difference(others))
    return own


def ended(request: SearchIn, scored: list[Scored], rows: list[dict[str, Any]], relevance: dict[str, float],
          now: datetime) -> list[Scored]:
    """`scored` (best first) with, first, the messages that ended the value of a key the question
    names with nothing after it, or the current facts under another key that took it back (`rows`,
    best first: history.send_ended; each row's `message`), each with the first result's
    score (the list stays in score order) and `score_parts.ended` naming the key. Only the subject's the
    question asks about: a participant it names, else the user; and of a fact about someone in the
    subject's life (partner_leo_role), only when the question names someone in it ("her boyfriend")
    or that person ("Leo")."""
    asked = speakers.words(request.query)
    named = {row["subject"] for row in rows if speakers.named(asked, row["subject"])}
    others = topics.names_others(request.query)
    order = list(scored)
    first: list[tuple[str, dict[str, Any]]] = []
    for row in rows:
        message = row["message"]
        if row["subject"] not in (named or {"user"}) or any(item == message["id"] for item, _ in first):
            continue
        # "role" is a word of partner_leo_role: the breakup that ended Leo's job is no news of hers
        whom = _about_whom(row["key"], row["subject"])
        if whom and not others and not asked.intersection(whom):
            continue
        at = {item: index for index, (item, _, _) in enumerate(order)}
        if message["id"] in at:
            _, _, parts = order.pop(at[message["id"]])
        elif in_scope(request, message):
            parts = taken_in(request, datetime.fromisoformat(message["valid_from"]), message["importance"],
                             relevance.get(message["id"], 0.0), now)
        else:
            continue
        first.append((message["id"], {**parts, "ended": row["key"]}))
    if not first:
        return scored
    score = scored[0][1] if scored else max(parts["score"] for _, parts in first)
    return [(item, score, {**parts, "score": score}) for item, parts in first] + order


def _about_whom(key: str, subject: str) -> list[str]:
    """The words of a fact's key that name the person in its subject's life it is about ("partner",
    "leo" of partner_leo_role); none for the subject's own fact (employer, partner_name)."""
    base = own_key(subject, key)
    family = families.family_of(base)
    if family is None or not family.key.startswith("<relation>_<name>_"):
        return []
    parts = base.split("_")
    return parts[:len(parts) - len(family.key.split("_")) + 2]


def in_scope(request: SearchIn, memory: dict[str, Any], successor: bool = False) -> bool:
    """Whether a memory taken in from beyond the ranking is one this search may return; a
    `successor` (the current fact that replaced one of the agent's) whichever agent heard it."""
    filters = request.filters
    return ((successor or request.agent_id is None or memory["agent_id"] == request.agent_id)
            and filters.memory_type in (None, memory["memory_type"])
            and filters.session_id in (None, memory["session_id"])
            and (filters.subject is None or filters.subject.casefold() == memory["subject"].casefold())
            and not filters.metadata)  # containment is Postgres's to judge; not worth a round trip


def taken_in(request: SearchIn, valid_from: datetime, importance: float, relevance: float,
             now: datetime) -> dict[str, Any]:
    """Score parts of a memory taken in from beyond the ranking: its own relevance (0 when no channel
    found it), recency and importance; no channel's score or rank."""
    parts = scoring.score(relevance, valid_from, importance, now, request.alpha, request.half_life_days)
    return {**parts.as_dict(), "bm25": None, "similarity": None, "rerank": None}
