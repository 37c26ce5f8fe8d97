"""Context for a prompt: what matters for a query, packed into a token budget.

Three buckets spend the budget: the memories relevant to the query (the search, floor included), the
user's current facts (their own semantic and procedural memories, those the query found first, then
the most important) and the latest messages of the current session, those its turn's processing has
not stored as memories yet among them (cited without a memory id): an agent recalls for its reply
right after sending the turn it replies to, long before a backlogged queue gets to it. That turn
goes in first, its messages in the order said up to the first that does not fit (a larger budget never
leaves out one a smaller one held);
then the search's first `ANSWER`, then the facts, then the rest of what the search found, then the
session's other messages: facts first, ten of them (about a hundred tokens) filled a tight budget and left
out the line that answers (the first-hour trial, docs/measurements/quality.md: asked about remote work with 120 tokens, a
context of ten facts, the stale view among them and not the message that changed it). The facts and
the session's messages do not depend on the query passing the relevance floor: a broad question
("what should I know before planning her week?") matches no memory in particular, yet who the user
is and what was just said still belong in its prompt. What went in is listed in another order: what
the query found first, as the search ranked it, then the facts it did not find, then the greetings
the search found ("Nice to meet you, Maya!" says nothing of the user, yet ranks high beside the line
it answers), then the session's messages; listed first, up to ten standing facts pushed the line
that answers the question past what a reader takes in first. A caller that wants nothing for a
question the search found nothing for (the memory-service seed's harness asks noise questions) says
`require_relevant`. A bullet goes in whole or not at all, but the search's best memory when it does not
fit what is left of the budget (a pasted document, a long message): its content goes in cut to fit, then
CUT, then its notes (the days said, the values no longer current), so that the answer neither drops the
memory the query is about nor hides that it holds only its beginning. Every bullet is cited with the bucket that took it in. The answer's `degraded` names what its search had to do without (search.py). A fact that has been replaced (a question about
the past finds it, retrieval/past.py) says until when it held, so that the prompt does not read it as
true now beside the fact that replaced it; a message that said it ("I live in York and love my cat")
says the day it was said and which of its values are no longer current, so that a reader neither takes
the old value for today's nor the whole message for stale. A memory that says when by the day it was said ("I'm
moving next month", "yesterday") says that day too: read weeks later, "next month" means nothing
without it.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime, tzinfo
from typing import Any, Iterable, Sequence

from memex import emoji, filler
from memex.budget import at_least, count_tokens, within
from memex.context import Context
from memex.db import memories as memory_rows
from memex.db import recall_buckets
from memex.episodic import episodic_text, own_words
from memex.metrics import RECALL_TOKENS
from memex.models import RecallIn, SearchIn, wire_time
from memex.retrieval import repeats
from memex.retrieval import stale as no_longer_current
from memex.retrieval.search import Dependencies, read_now, search

HEADER = "Relevant memories about the user:"
# How a bullet cut to fit the budget ends: the search's best memory, when it is bigger than the whole
# budget, goes in cut rather than not at all, and says it was (in the context: the seeds' citations have no
# field for it).
CUT = " … [cut]"
CURRENT_FACTS = 10
# The search's best, taken in before the standing facts. Three: a fact and the message it came from, or
# a new view and the old one, come in pairs at the top; with three, a budget of 120 tokens held the
# search's first hit for 43 of the first-hour trial's 44 questions (36 when the facts went first), and
# three short lines leave most of it to the facts.
ANSWER = 3
RELEVANT = 30
RECENT_SESSION = 10
SNIPPET = 200
# What a bullet reads as (_reading): its content, the day it counts time from, its values no longer
# current, the day a fact held until.
Reading = tuple[str, date | None, tuple[str, ...], str | None]
# What continues the character before it, besides a combining mark (NFD "e" + U+0301, a Devanagari
# vowel sign, a variation selector): a joiner, as in "👩" ZWJ "💻", a skin tone, a flag's tag letters.
_CONTINUES = re.compile("[\u200c\u200d\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f]")


def recall(ctx: Context, tenant_id: str, request: RecallIn) -> dict[str, Any]:
    # Without a reference time, now in the user's zone (user_zone.py), for the search and the bullets' days;
    # read with the check that the user is not being erased, which the search then does not repeat, and
    # with what the search reads of the user before its first round (search.read_now): one round trip.
    def asked(reference_time: datetime | None) -> SearchIn:
        return SearchIn(user_id=request.user_id, query=request.query, agent_id=request.agent_id, top_k=RELEVANT,
                        reference_time=reference_time, as_of=request.as_of)

    deps = Dependencies(ctx, tenant_id)
    read_now(ctx, tenant_id, asked(request.reference_time), deps)
    now = deps.now
    relevant = search(ctx, tenant_id, asked(now), deps)["results"]
    scores = {memory["id"]: memory["score"] for memory in relevant}

    conn = ctx.db.connection()
    standing = bool(relevant) or not request.require_relevant  # the facts and the latest messages
    fact_ids = recall_buckets.current_facts(conn, tenant_id, request.user_id, request.agent_id,
                                            CURRENT_FACTS, request.as_of) if standing else []
    recent = recall_buckets.latest_messages(conn, tenant_id, request.user_id, request.session_id,
                                            request.agent_id, RECENT_SESSION, request.as_of) \
        if standing and request.session_id else []
    # A message not yet stored as a memory (its turn queued or failed) stands for itself, under a key
    # of its own (no memory has its id).
    pending = {f"message:{row['message_id']}": _unprocessed(row) for row in recent if row["memory_id"] is None}
    recent_ids = [row["memory_id"] or f"message:{row['message_id']}" for row in recent]
    found = {memory["id"]: memory for memory in relevant}
    missing = [item for item in fact_ids + recent_ids if item not in found and item not in pending]
    found.update(memory_rows.get_many(conn, tenant_id, missing) if missing else {})
    found.update(pending)
    # Facts the query found keep the search's order; the others follow by importance.
    rank = {memory["id"]: place for place, memory in enumerate(relevant)}
    fact_ids = sorted((item for item in fact_ids if item in found), key=lambda item: rank.get(item, len(rank)))
    recent_ids = [item for item in recent_ids if item in found]  # erased meanwhile: absent
    stale = no_longer_current.of(conn, tenant_id, request.user_id, found.values(), request.as_of)
    # The days a bullet names are the asker's: those of the offset `reference_time` (or `as_of`) came
    # with, else the user's zone.
    zone = now.tzinfo

    # What goes in: the budget is spent in the buckets' order of priority.
    admitted: dict[str, str] = {}  # memory id -> the bucket that took it in
    # A bullet that reads as one already taken in tells the prompt nothing more ("I had a long day at
    # work." said on fifteen evenings filled a budget fifteen times, trial 15): the first goes in, as
    # the buckets' order took it, the others spend nothing. What a bullet reads as is repeats.reads_as
    # (the search's judge of a line said again), so the same bullet is the same line. A line some of
    # whose values are no longer current names the days it was said, each saying's: "I live in York."
    # said on six days while York held, York since replaced, is one bullet from its first day to its
    # last, not six that differ by their day (each saying is stale: stale.py).
    readings = {item: _reading(memory, stale.get(item, ()), request.as_of, zone) for item, memory in found.items()}
    days: dict[Reading, set[date]] = {}
    for reading, day in readings.values():
        if day is not None:
            days.setdefault(reading, set()).add(day)
    bullets = {item: _bullet(reading, days.get(reading, ())) for item, (reading, _) in readings.items()}
    taken: set[Reading] = set()
    used = count_tokens(HEADER)

    def admit(item: str, bucket: str) -> bool:
        """Takes `item` in, cited with `bucket`, when it fits what is left of the budget (the search's
        best, when it does not, cut to fit: `_cut`); whether it is in the context now (a bullet that
        reads as one already in is, at no cost)."""
        nonlocal used
        reading = readings[item][0]
        if item in admitted or reading in taken:
            return True
        # Joined with a newline; counted as its own piece, then checked on the whole text. A bullet
        # whose bytes alone rule it out is not counted: a memory of a megabyte costs a count seconds.
        line = "\n- " + bullets[item]
        cost = count_tokens(line) if used + at_least(line) <= request.max_tokens else None
        if cost is None or used + cost > request.max_tokens:
            if item != best:
                return False
            # Cut to what is left, not to the whole budget: one that fitted the whole budget but not what
            # the session's latest turn left went in at smaller budgets, cut, and not at these (review revN).
            content = reading[0]
            cut = _cut(content, bullets[item][len(content):], request.max_tokens - used)
            if cut is None:
                return False
            bullets[item], cost = cut, count_tokens("\n- " + cut)
        # one of the user's standing facts is cited as one, whichever pass took it in
        admitted[item] = "facts" if item in standing_facts else bucket
        taken.add(reading)
        used += cost
        return True

    # A greeting or an acknowledgement the search found beside the line it answers ("Nice to meet
    # you, Maya!" under "Hi! I'm Maya. I work at Spotify.") takes neither a first place nor a place
    # before the facts: it is spent on, and listed, after the facts.
    idle = [memory["id"] for memory in relevant if memory["memory_type"] == "episodic"
            and filler.says_nothing(own_words(memory["content"], memory.get("metadata", {}).get("name")))]
    found_ids = [memory["id"] for memory in relevant if memory["id"] not in idle]
    best = found_ids[0] if found_ids else None
    standing_facts = set(fact_ids)
    # The session's latest turn first: an agent recalls for its reply right after sending it, and
    # packed last, after long lines the search found, what was just said went in at some budgets and
    # not at larger ones (a first user's trial, qa6).
    # Its messages in the order said, up to the first that does not fit, and none of the rest later:
    # what is held is always the turn's first messages, so a larger budget never leaves out one a
    # smaller one held (newest first, a long reply that fitted took the place of the user's line, which
    # a later pass took in at smaller budgets: review revK).
    latest = _sent_in(found[recent_ids[0]]) if recent_ids else None
    of_latest = [item for item in recent_ids if _sent_in(found[item]) == latest]
    for item in reversed(of_latest):
        if not admit(item, "recent"):
            break
    left_out = {item for item in of_latest if item not in admitted}
    for bucket, ids in (("relevant", found_ids[:ANSWER]), ("facts", fact_ids), ("relevant", found_ids[ANSWER:] + idle),
                        ("recent", recent_ids)):
        for item in ids:
            if item not in left_out:
                admit(item, bucket)
    # In what order: what the query found first, as the search ranked it (the facts among it in their
    # place: a fact the search ranks below the line that answers stays below it), then the facts it
    # did not find, then the greetings it found, then the session's latest messages in the order said.
    order = list(found_ids)
    order += [item for item in fact_ids if item not in scores]
    order += idle
    order += [item for item in reversed(recent_ids) if item not in scores]
    lines = [HEADER]
    citations: list[dict[str, Any]] = []
    for item in order:
        if item not in admitted:
            continue
        memory = found[item]
        lines.append(f"- {bullets[item]}")
        source = memory["sources"][0] if memory["sources"] else {}
        citations.append({
            "memory_id": memory["id"],  # null for a message its turn's processing has not stored yet
            "turn_id": source.get("turn_id"),
            "message_id": source.get("message_id"),
            # the search's score; 0 for a fact or message the query itself did not find
            "score": scores.get(item, 0.0),
            "snippet": snippet(memory["content"]),
            "bucket": admitted[item],
        })
    context = "\n".join(lines) if citations else ""
    token_count = count_tokens(context)
    # Token counts of pieces can differ from the count of their concatenation; never exceed.
    while token_count > request.max_tokens and citations:
        lines.pop()
        citations.pop()
        context = "\n".join(lines) if citations else ""
        token_count = count_tokens(context)
    ctx.metrics.record(RECALL_TOKENS, token_count)
    return {"context": context, "citations": citations, "token_count": token_count, "degraded": deps.degraded}


def snippet(content: str) -> str:
    """The first SNIPPET characters of `content`, ended before a character they would cut from what
    continues it: "cafe" of an NFD "café", "👩" and a joiner of "👩‍💻", read as other text."""
    return content[:_whole(content, min(len(content), SNIPPET))]


def _whole(content: str, end: int) -> int:
    """`end`, or the place before it that cuts no character from what continues it (snippet), nor a drawn
    emoji (emoji.SEQUENCE: a flag's two letters, "🇵" "🇹", either alone a letter in a box)."""
    if not 0 < end < len(content):
        return end
    # The sequences are read from the last place before `end` that none holds and the walk back stops at:
    # those read from the start are the same there, and a long content's every emoji is not read twice a bullet.
    start = end
    while start > 0 and (emoji.held(content[start]) or _continues(content, start)):
        start -= 1
    drawn = {place for sequence in emoji.SEQUENCE.finditer(content, start, end + 1)
             for place in range(sequence.start() + 1, sequence.end())}
    while end > 0 and (end in drawn or _continues(content, end)):
        end -= 1
    return end


def _continues(content: str, place: int) -> bool:
    """Whether the character at `place` continues the one before it as one character: a mark, a joiner, a
    skin tone, a tag letter, or what follows a joiner."""
    return bool(unicodedata.category(content[place])[0] == "M" or _CONTINUES.match(content, place)
                or content[place - 1] == "\u200d")


def _cut(content: str, notes: str, tokens: int) -> str | None:
    """A bullet of the beginning of its `content` that fits `tokens` as a line, ended with CUT and then its
    `notes` (the days said, the values no longer current: they say what the beginning is), cut between
    characters as snippet is; None when no word of it would. A count of the pieces joined may exceed
    theirs: cut again a token shorter until the whole fits."""
    room = tokens - count_tokens("\n- " + CUT + notes)
    while room > 0:
        kept = content[:_whole(content, len(within(content, room)))].rstrip()
        if not kept:
            return None
        if count_tokens("\n- " + kept + CUT + notes) <= tokens:
            return kept + CUT + notes
        room -= 1
    return None


def _unprocessed(row: dict[str, Any]) -> dict[str, Any]:
    """A message whose turn is not processed (yet), as a memory of it would read: the same text, said
    at its turn's time, cited by its turn and message; it has no memory id, and no facts drawn from it."""
    return {"id": None, "content": episodic_text(row), "memory_type": "episodic", "active": True,
            "valid_from": wire_time(row["said_at"]), "valid_to": None, "metadata": {},
            "sources": [{"turn_id": row["turn_id"], "message_id": row["message_id"]}]}


def _sent_in(memory: dict[str, Any]) -> str | None:
    """The turn a message was sent in (a memory of its own when it has none: added as a memory)."""
    return memory["sources"][0]["turn_id"] if memory["sources"] else memory["id"]


def _reading(memory: dict[str, Any], stale: Sequence[str], as_of: datetime | None,
             zone: tzinfo) -> tuple[Reading, date | None]:
    """What a memory's bullet reads as: what repeats.reads_as reads of it (its content, the day it was said
    when it counts time from that day, its values no longer current), and for a fact no longer current,
    the day until which it held (as of `as_of` when given: a fact that ended after it held then); and the
    day it was said when its bullet names it: one that counts time from it, or some of whose values are no
    longer current. The days are those of `zone`."""
    # A statement about the past holds from before it was said: its valid_from is not that day.
    said = memory.get("valid_from") if not memory.get("metadata", {}).get("historical") else None
    said_at = datetime.fromisoformat(said) if said else None
    content, counted, values = repeats.reads_as(memory["content"], said_at, zone, stale)
    ended = memory.get("valid_to")
    until = _day(ended, zone) if not memory["active"] and ended and (
        as_of is None or datetime.fromisoformat(ended) <= as_of) else None
    day = counted or (said_at.astimezone(zone).date() if said_at is not None and values else None)
    return (content, counted, values, until), day


def _bullet(reading: Reading, days: Iterable[date]) -> str:
    """A bullet as it reads (`_reading`), with the days it was said: one, two, or the first and last of more."""
    content, _, values, until = reading
    said = sorted(days)
    notes = []
    if said:
        notes.append("said " + (said[0].isoformat() if len(said) == 1 else
                                f"{said[0].isoformat()} and {said[1].isoformat()}" if len(said) == 2 else
                                f"{said[0].isoformat()} to {said[-1].isoformat()}"))
    if values:
        notes.append(f"no longer current: {', '.join(values)}")
    if until is not None:
        notes.append(f"until {until}")
    return f"{content} ({'; '.join(notes)})" if notes else content


def _day(moment: str, zone: tzinfo) -> str:
    """The day (YYYY-MM-DD) of a time as answers send it, in `zone`."""
    return datetime.fromisoformat(moment).astimezone(zone).date().isoformat()
