"""Questions about the past: the facts that were replaced, ranked with what found them.

A search returns what holds now, so after "I work at Notion now" the fact "The user's employer is
Stripe." is history (inactive, its `valid_to` set), and "Where did I work before?" would find only
Notion's fact and the message that said Stripe. A question that asks about the past (`asks`) is
searched without its cue (`topic`: its words weigh against the floor's gate), and then also reads,
for each of the results a search ranked (current_first.window), the user's facts that are no longer
current and that it leads to (history.send_earlier): those a current fact replaced, and those a
message states that have since been replaced or that spoke of the past ("I used to live in Paris"),
with what its facts replaced. Each is ranked just above the memory that led to it, nearest in time first, with its score,
and says why in `score_parts.past_for` (that memory's id); on the wire it is `active: false` with its
`valid_to`. Such a question is the one current_first.py does not answer: a message whose fact was
replaced is what it asks about, so the current fact is not lifted above it. A question without a cue
is answered as before, and a replaced fact is taken in only when something the search found for the
question leads to it, or when the question itself asks about it.

When nothing the search found leads to a replaced fact (the question without its cue passed no
gate: "What diet did she follow?" is 0.32 to 0.34 from the facts and messages it may search, under
the floor's 0.35; or what it found has no history), the question asks about one by itself (`asked`,
history.send_asked): a replaced fact that the question searched or the question as asked ("Who did
I use to date?": its cue is part of what it asks) is as near as the floor's gate asks of any
memory, or one under a key the question names ("diet" for dietary_restriction, "city",
"relationship status"). Those are ranked first (above the results, with the first one's score, the
nearest in meaning first; alone, by their own score, their cosine as relevance), with
`score_parts.past_for` null: nothing led to them. When the search did lead to some, those the
question is as near as the gate are added too (another key's history). When the question names
the key of some of the replaced facts it reaches, by its words or its verb ("work" the employer or
the job, "live" the city), only those are taken in either way (of_keys_named): after a move and a new
job told together, "where did I work before?" reaches the old city through the same message.

The cues are few on purpose. "What did I say yesterday?" is about the past but not about a replaced
fact (time_phrases.py reads its period), and "When did she go to the museum?" asks when, not what was.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from memex import folding
from memex.models import SearchIn
from memex.retrieval import current_first, keywords, topics
from memex.time_phrases import MONTHS, WEEKDAYS

Scored = tuple[str, float, dict[str, Any]]

# "Where did I work before?", "where did she work before Notion?", "where did I use to live?", "my
# previous job", "her former employer", "where did he live previously?", "my old job", "in the past".
# Not "before the party" or "before August 3" (a time, as a question about an event names it), nor
# "what do I use to cook?" or "what did Nate use to make the ice cream?" (a thing used: only a verb
# of a state or a habit follows "did ... use to").
_DATES = rf"(?:{'|'.join(MONTHS + WEEKDAYS)})\b"
# Each cue matches the words it removes from what the channels search (`topic`): the time asked about
# is the cue's to say; what the question is about is in the rest ("Where did she work previously?" is
# searched as "Where did she work?", whose words and meaning the facts about work share). "did ... use
# to" is looked for within 80 characters: unbounded, a 10,000-character query of "did"s took 0.2 s.
_CUES = re.compile(
    r"\bused to\s+"
    r"|\b(?P<did>did\b.{0,80}?)\buse to\s+(?=(?:be|live|work|have|own|do|like|love|play|go|study|drive|eat|date)\b)"
    r"|\s*\bbefore\s+(?:now|that|then)\b|\s*\bbefore(?=\s*(?:[?.!]|$))"
    rf"|\bbefore\s+(?=(?!{_DATES})(?-i:[A-Z]))"
    r"|\s*\b(?:previously|formerly|in the past|back then)\b|\b(?:previous|former)\s+"
    r"|\b(?P<owner>(?:my|her|his|their|your|the user's|(?-i:[A-Z])[a-z]+'s)\s+)old\s+(?!friends?\b|age\b)",
    re.IGNORECASE)


def asks(question: str) -> bool:
    """Whether the question asks what was true before what is true now."""
    return bool(_CUES.search(question))


def topic(question: str) -> str:
    """The question without its past cues: what the channels search for a question about the past."""
    bare = _CUES.sub(lambda match: match.group("did") or match.group("owner") or "", question)
    bare = re.sub(r"\s+([?.!,])", r"\1", re.sub(r"\s{2,}", " ", bare)).strip()
    return bare.strip(" ,") or question


def of_keys_named(earlier: list[dict[str, Any]], alone: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The replaced facts a question leads to (`earlier`: history.send_earlier) and asks about by
    itself (`alone`: history.send_asked), only those of the keys it names (`by_key`) when it names
    the key of any: "where did I work before?" after a move and a new job leads to the old city too
    (through the current city, or the message that said both), and is near the old city in meaning,
    but asks about the employer. A question that names no key's words keeps them all: what led to
    them, or their meaning, is all that says what it asks."""
    if not any(row["by_key"] for row in (*earlier, *alone)):
        return earlier, alone
    return [row for row in earlier if row["by_key"]], [row for row in alone if row["by_key"]]


def lift(request: SearchIn, scored: list[Scored], earlier: list[dict[str, Any]], relevance: dict[str, float],
         now: datetime) -> list[Scored]:
    """`scored` (best first) with the replaced facts `earlier` (history.send_earlier of its window)
    ranked just above the memory that led to each; one that led none there is left as it was."""
    led: dict[str, list[dict[str, Any]]] = {}
    for row in earlier:
        led.setdefault(row["anchor"], []).append(row)
    if not led:
        return scored
    order = list(scored)
    for anchor in current_first.window(request, scored):
        for fact in led.get(anchor, []):  # each inserted at the anchor's place: the nearest ends first
            at = {item: index for index, (item, _, _) in enumerate(order)}
            here, score = at[anchor], order[at[anchor]][1]
            if fact["id"] in at:
                if at[fact["id"]] < here:
                    continue  # already above what led to it
                _, _, parts = order.pop(at[fact["id"]])
            elif current_first.in_scope(request, fact):
                parts = current_first.taken_in(request, fact["valid_from"], fact["importance"],
                                               relevance.get(fact["id"], 0.0), now)
            else:
                continue
            order.insert(here, (fact["id"], score, {**parts, "score": score, "past_for": anchor}))
    return order


# Words of a key that say what kind of value it holds, not what it is about: "the name of my old
# dog" is about the dog, and "name" would lead to every replaced name; "my old phone number" is not
# about number_of_children.
_KIND_OF_VALUE = ("name", "favorite", "opinion", "number")
_WORD = re.compile(r"[a-z]{3,}")
# Questions that ask for a fact by a verb, not by its key's words: "What did I do?" (a stop word and
# nothing else) and "what did she do for a living?" ask for the job (filed as `role`); "Who did I
# date?", "was she dating anyone?", "Who was I seeing?" and "who did he go out with?" for a partner or
# a relationship status; "where did I work?" for the employer or the job, "where did she live?" for the
# city; "job", "occupation" and "profession", which no key says, for the employer or the job too. Read
# in the topic as a whole: "what did I do for fun?", "what date did I move?" and "who was I
# seeing at the clinic?" ask for none of them.
_ASKED_BY_VERB = (
    (re.compile(r"^\W*what\s+(?:did|does|do|was|were|is|are|has|have)\s+(?:the\s+user|\S+)\s+(?:been\s+)?"
                r"do(?:ing)?(?:\s+for\s+(?:a\s+living|work))?\s*[?.!]*\s*$", re.IGNORECASE), ("role",)),
    (re.compile(r"\bdat(?:ed|ing)\b|\b(?:did|does|do)\s+(?:the\s+user|\S+)\s+date\b"
                r"|\bseeing(?=\s*(?:[?.!]|$)|\s+(?:any|some)(?:one|body)\b)|\b(?:go|going|gone|went)\s+out\s+with\b",
                re.IGNORECASE), ("partner", "relationship")),
    (re.compile(r"\bwork(?:s|ed|ing)?\b(?!\s+out\b)|\b(?:jobs?|occupation|profession)\b", re.IGNORECASE),
     ("employer", "role")),
    (re.compile(r"\b(?:live[sd]?|living)\b(?<!a\sliving)", re.IGNORECASE), ("city",)),
)
# "work" as a noun with a word saying what kind of work ("remote work", "unpaid overtime work"), the
# topic of a view or a liking ("what does she think about remote work?", "does he like shift work?"),
# names a subject of talk, not her job: with no employer now, the news of the last one's end is no
# answer to it. Hers or a determined one ("about her work", "of the work at Feedzai") is still her job.
_KIND_OF_WORK = re.compile(
    r"\b(?:about|on|of|regarding|towards?|lik(?:e[sd]?|ing)|lov(?:e[sd]?|ing)|hat(?:e[sd]?|ing)|enjoy(?:s|ed|ing)?|"
    r"prefer(?:s|red|ring)?)\s+(?!(?:her|his|their|my|your|our|its|the|a|an|this|that|these|those|any|some|no|to|"
    r"at|for|from|in|with|and|or|not|[a-z]+'s)\b)(?:[a-z-]+\s+){1,2}work\b(?!\s+(?:at|for)\b)", re.IGNORECASE)


def key_words(topic: str, kinds: topics.Topic | None) -> list[str]:
    """The words of a question about the past (its `topic`) that a replaced fact's key may begin
    with (history.send_asked stems them and drops the stop words), those of the keys it asks for by
    a verb, and those of the kinds of fact it names (`kinds`: topics.asked(topic), which the search
    reads once; "company" the employer). A present question names keys the same way
    (current_first.ended)."""
    # Folded as a key is (history._by_key): "Zoë" and "İbrahim" are the words zoe and ibrahim; not
    # stemmed, a Korean stem being no word of _WORD's.
    words = _WORD.findall(folding.fold(keywords.of(topic), stemmed=False).lower())
    verbs = _KIND_OF_WORK.sub(" ", topic)
    asked = [word for pattern, key in _ASKED_BY_VERB if pattern.search(verbs) for word in key]
    asked += kinds.key_words if kinds else ()
    return list(dict.fromkeys([*(word for word in words if not word.startswith(_KIND_OF_VALUE)), *asked]))


def asked(request: SearchIn, scored: list[Scored], rows: list[dict[str, Any]], now: datetime,
          near: float) -> list[Scored]:
    """`scored` with the replaced facts the question asks about by itself (`rows`, best first:
    history.send_asked) first; each with the score of the first result (the list stays in score
    order), or, when there is none, its own, its cosine as its relevance. When `lift` took in
    replaced facts already, only those as near as `near` (the floor's gate) are added: "Where did I
    work before?" after a job title and an employer both changed leads to the old title through the
    current one, and asks about the old employer by itself."""
    lifted = any("past_for" in parts for _, _, parts in scored)
    held = {item for item, _, _ in scored}
    facts = [row for row in rows if row["id"] not in held and current_first.in_scope(request, row)
             and (not lifted or (row["similarity"] or 0.0) >= near)][:request.top_k]
    taken = []
    for row in facts:
        parts = current_first.taken_in(request, row["valid_from"], row["importance"], row["similarity"] or 0.0, now)
        score = scored[0][1] if scored else parts["score"]
        taken.append((row["id"], score, {**parts, "score": score, "past_for": None}))
    if not scored:
        taken.sort(key=lambda entry: entry[1], reverse=True)
    return taken + scored
