"""Someone a question asks about by name: the subject after its verb ("Where did Gandhi grow up?",
"Does Sarah work?", "Where did the Beatles grow up?") or the owner of what it asks for ("When is
Sarah's birthday?").

A stranger: a name that is not the user's, nor a participant's, nor said in any memory found. Such
a question asks about nobody in the user's life, yet its frame is a question about a person: "Where
did the Beatles grow up?" is as near in meaning to "The user is originally from Leeds." as "Where did
she grow up?" is, and "his childhood" named the hometown kind (topics.py) for "Where did Gandhi spend
his childhood?". Unless it also asks about the user ("I", "my", "the user"), only what its words
found answers it (`stranger`: search.py keeps the memories the keyword channel found, and reads no
kind nor ended news); the user's facts found by their meaning alone do not.

An introduction: the fact that says who someone is to the user ("The user's best friend is named
Sarah."). It names her, so for any question about her it is near in meaning and shares her name,
and its importance (a relation's name is a key fact) carried it above what she did or has in the
learned order: first for "When is Sarah's birthday?", above "Sarah's birthday is on March 3rd.".
It says nothing of her but her place in the user's life: unless the question asks who she is, or
says that place ("Is Sarah my best friend?"), it comes right below the best memory that says
something else of her (`introduced_after`), with that memory's score (the list stays in score order)
and `score_parts.introduces` naming her. With no other memory of her, it keeps its place. The same
when the question asks of her by her place in the user's life, in any word for it ("Where does my
spouse work?" beside "The user's wife is named Anna.", whose.asked_of), unless it asks her name; and
when memories of the kind asked for say her (topics.py: "What does my wife do for a living?" reads the
partner's facts), it comes below the last of them: her employer and her role both answer before it.

Another's facts: "Where does Sarah live?" is as near "The user lives in Chicago." as "Sarah lives in
Denver." in its words ("live") and frame, and the user's city, filed with a key fact's importance,
came first. Asked by name about someone who is not the user (a participant, or someone a memory found
places in the user's life: "my friend Sarah", an introduction; a name only the user's own messages say
may be the user's: "I'm Marco."), and not about the user too, the user's own memories that do not say
that name come right below the best memory that does (`theirs_first`), with its score and
`score_parts.below_theirs` naming them. With no memory that says them, nothing moves. "Did Gandhi
visit my town?" asks about the user too ("my"): the user's town is what memory can answer of it, and
it is kept first.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Collection, Iterable, Mapping

from memex.db.memories import Found
from memex import people
from memex import literal
from memex.retrieval import speakers

Scored = tuple[str, float, dict[str, Any]]

_NAME = r"(?-i:[A-Z])[\w’'-]*"
# The subject after the verb, "the" allowed ("did the Beatles"); the owner, not "What's", "It's".
_ASKED_OF = re.compile(
    rf"\b(?:is|are|was|were|does|do|did|has|have|had|can|could|will|would|should)\s+(?:the\s+)?({_NAME}(?:\s+{_NAME})*)"
    rf"|\b(?!(?:what|who|where|when|why|how|which|that|it|there|here|let|she|he)'s)({_NAME})'s\b",
    re.IGNORECASE)
# The user asked about too: the question is theirs whatever else it names.
USER = re.compile(r"\b(?:i|me|my|mine|myself|the user|user's)\b", re.IGNORECASE)
# Ids that are words for someone, not a name: "the user" read as the user's name would become "the
# the user".
_NOT_NAMES = frozenset({"user", "users", "default", "guest", "admin", "test", "demo", "anonymous", "anon", "me",
                        "you", "someone", "nobody", "customer", "client", "agent", "assistant", "system", "bot"})
# A place that ends with the person it places ("The user's wife", "My sister's"), not with what is theirs.
_ENDS_IN_A_PERSON = re.compile(rf"\b(?:{people.PERSON})(?:e?s)?(?:['’]s)?$", re.IGNORECASE)
# A question that asks someone's name or who they are: their introduction is the answer.
_ASKS_A_NAME = re.compile(r"\b(?:names?|called|named|who)\b", re.IGNORECASE)
# Asking who someone is: the introduction is the answer.
_WHO = re.compile(r"^\W*who(?:'s|\s+is|\s+was|\s+are)\b", re.IGNORECASE)
# A place (a word of people.WORDS) ending where a text read backwards starts (`_placed`): \b and IGNORECASE
# read a character alike in either direction.
_PLACE_BACKWARDS = re.compile(rf"(?:{'|'.join(re.escape(word[::-1]) for word in people.WORDS)})\b", re.IGNORECASE)
# The offline rules' "The user's best friend is named Sarah.", "The user's sister's name is Ana." and the
# LLM extractor's other wordings of one relation's name (its prompt asks for "sister_name = Anna" in a
# sentence of its own): "The user has a sister named Ana.", "The user's sister is Ana.", "Ana is the
# user's sister.": the place, and the name.
_INTRODUCES = (
    re.compile(r"^(?P<place>.*?)\s+(?:(?:is\s+)?named|is\s+called|name\s+is)\s+(?P<name>.+?)\.?$", re.IGNORECASE),
    re.compile(rf"^(?P<place>.*\b(?:{people.PERSON}))\s+is\s+(?P<name>{_NAME}(?:\s+{_NAME})*)\.?$", re.IGNORECASE),
    re.compile(rf"^(?P<name>{_NAME}(?:\s+{_NAME})*)\s+is\s+(?P<place>the\s+user['’]s\s+(?:{people.PERSON}))\.?$",
               re.IGNORECASE),
)
# What the first two of _INTRODUCES must find, looked for first: a part of each, it finds something
# whenever the whole does, and fails on most lines in a fraction of the time (on LoCoMo's lines, under
# load, a substring test against the first pattern's ~40 µs, ~8 µs against the second's ~90: they try
# their alternatives at every word). "named", "called" and "name" have no letter that IGNORECASE
# matches beyond its two cases.
_NAMES_ONE = ("name", "called")
_ENDS_IN_A_NAME = re.compile(rf"\sis\s+{_NAME}(?:\s+{_NAME})*\.?$", re.IGNORECASE)
# The words of an introduction that say no place in the user's life.
_NO_PLACE = frozenset({"the", "user", "user's", "is", "a", "an", "of", "and", "has"})


def said_after(place: str) -> re.Pattern[str]:
    """`place`, a pattern that says a name by the backreference `(?P=name)`, compiled to match the name,
    a NUL, then a text (both through fold_extra_cases), and find `place` in the text as a search would: a
    name matched so is never compiled into a pattern, which re's cache (keyed by a pattern's text, process-wide)
    would keep after the name's user is erased."""
    return re.compile(rf"(?P<name>[^\x00]*)\x00.*?{place}", re.IGNORECASE | re.DOTALL)


def _spaces_before(name: str, content: str) -> list[int]:
    r"""Where a run of spaces right before `name` starts, at each place `content` says it (overlapping too;
    the starts of `(?<!\s)(?=\s+name\b)`, case ignored), found as data (literal.starts: the name is never
    compiled into a pattern, which re's cache would keep after its user is erased)."""
    found = []
    for at in literal.starts(name, content, bounded_before=False):
        start = at
        while start and content[start - 1].isspace():
            start -= 1
        if start < at:
            found.append(start)
    return found


def names(question: str) -> list[str]:
    """The names `question` asks about: its verb's subject or the owner of what it asks for."""
    said = (match.group(1) or match.group(2) for match in _ASKED_OF.finditer(question))
    bare = (re.sub(r"'s$", "", name) for name in said if name)
    return list(dict.fromkeys(name for name in bare if name.lower() not in ("i", "the")))


def stranger(question: str, known: Iterable[str] | None, found: Iterable[Found]) -> bool:
    """Whether `question` asks about someone by a name that none of `known` (the user's and the
    participants' names; None when not all were read) bears and none of `found` says, and not
    about the user."""
    if known is None or USER.search(question):
        return False
    asked = names(question)
    if not asked:
        return False
    said: set[str] = set()
    for name in known:
        said |= speakers.words(name)
    # Answered as soon as one of the names is said: most questions name a participant, and then no
    # memory found needs reading.
    if any(_said_in(name, said) for name in asked):
        return False
    for memory in found:
        said |= _words_of(memory)
        if any(_said_in(name, said) for name in asked):
            return False
    return True


def _said_in(name: str, said: set[str]) -> bool:
    """Whether every word of `name` is among `said`, one and many alike ("the Beatles", "a Beatle")."""
    return all(word in said or word.rstrip("s") in said or f"{word}s" in said for word in speakers.words(name))


def _words_of(memory: Found) -> frozenset[str]:
    return speakers.words(memory.content) | speakers.words(memory.speaker or "")


def theirs_first(question: str, scored: list[Scored], found: Mapping[str, Found],
                 participants: Iterable[str]) -> list[Scored]:
    """`scored` (best first) with the user's own memories that do not say whom `question` asks about
    by name (one of `participants`, or someone a memory found places in the user's life), and rank
    above the best memory that says them, right below that memory, unless it asks about the user too."""
    if USER.search(question):
        return scored
    known: set[str] = set()
    for name in participants:
        known |= speakers.words(name)
    asked = [name for name in names(question) if _said_in(name, known) or _placed(name, found.values())]
    if not asked:
        return scored

    def says(item: str) -> bool:
        return item in found and any(_said_in(name, _words_of(found[item])) for name in asked)

    at = next((i for i, (item, _, _) in enumerate(scored) if says(item)), None)
    if not at:
        return scored
    moved = {item for item, _, _ in scored[:at] if item in found and found[item].subject == "user"
             and found[item].speaker is None}
    if not moved:
        return scored
    score = scored[at][1]
    below = [(item, score, {**parts, "score": score, "below_theirs": asked[0]})
             for item, _, parts in scored[:at] if item in moved]
    return [entry for entry in scored[:at] if entry[0] not in moved] + [scored[at]] + below + scored[at + 1:]


def _placed(name: str, found: Iterable[Found]) -> bool:
    """Whether a memory of `found` gives `name` a place in the user's life: introduces them ("The
    user's best friend is named Sarah.") or says them after it ("My friend Sarah lives in Denver.")."""
    folded = name.casefold()
    ascii_name = name.isascii()
    for memory in found:
        content = memory.content
        # Both ways say the name: in ASCII, where ignoring case is lowering, a text that does not hold
        # it lowered is passed before any pattern
        if ascii_name and content.isascii() and folded not in content.lower():
            continue
        introduced = introduction(content)
        if introduced is not None and introduced.group("name").casefold() == folded:
            return True
        # `\b(?:{people.PERSON})\s+Name\b`, read from the name back: that pattern tries its alternatives at
        # every word (~12 µs a LoCoMo line that says the name), this only where the name is said
        starts = _spaces_before(name, content)
        if starts:
            backwards = content[::-1]
            if any(_PLACE_BACKWARDS.match(backwards, len(content) - start) for start in starts):
                return True
    return False


def introduced_after(question: str, scored: list[Scored], found: Mapping[str, Found],
                     relatives: frozenset[str] = frozenset(), of_the_kind: Collection[str] = ()) -> list[Scored]:
    """`scored` (best first) with each introduction of someone `question` asks about right below the
    best memory that says something else of them, unless it asks who they are: asked by name, unless
    it says their place in the user's life; asked by that place (`relatives`, whose.asked_of: "partner"
    for "Where does my spouse work?", by any word for them), unless it asks their name. When memories
    of the kind the question asks for (`of_the_kind`, topics.py) say them, it comes below the last of
    those: "The user's wife Anna works at Deloitte." and "... is an accountant." both answer "What
    does my wife do?", which the line naming her does not."""
    if _WHO.search(question):
        return scored
    asked = {name.casefold() for name in names(question)}
    relatives = frozenset() if _ASKS_A_NAME.search(question) else relatives
    if not asked and not relatives:
        return scored
    question_words = speakers.words(question)
    # Whom a memory introduces, read once a memory: as an introduction of someone asked of, then as
    # the message another introduction came from.
    introduced = cache(lambda item: introduction(found[item].content))

    def introduces(item: str) -> tuple[str, frozenset[str]] | None:
        memory = found.get(item)
        match = introduced(item) if memory is not None and memory.memory_type == "semantic" else None
        if match is None:
            return None
        if match.group("name").casefold() in asked:
            place = speakers.words(match.group("place")) - _NO_PLACE
            return None if place & question_words else (match.group("name"), frozenset())
        # the one named is the relative the place ends with: "The user's brother has a dog named Max."
        # names the brother's dog, and answers "Does my brother have a pet?"
        place = match.group("place")
        placed = people.said_in(place) & relatives if _ENDS_IN_A_PERSON.search(place) else None
        return (match.group("name"), placed) if placed else None

    introductions = {item: said for item, _, _ in scored if (said := introduces(item))}
    if not introductions:
        return scored
    order = list(scored)
    # What another memory says is read once a search, when first asked, not once an introduction
    # weighed against it.
    others = {item for item, _, _ in scored if item not in introductions and item in found}
    words_said = cache(lambda other: _words_of(found[other]))
    people_said = cache(lambda other: people.said_in(found[other].content))
    for item, (name, placed) in introductions.items():
        words = speakers.words(name)

        def says(other: str) -> bool:
            # something else of them: not the message that said the introduction ("My wife's name is Ana.")
            return other in others and (words <= words_said(other) or bool(placed and placed & people_said(other))) \
                and not (placed and introduced(other) is not None)

        at = next(i for i, entry in enumerate(order) if entry[0] == item)
        saying = [i for i, (other, _, _) in enumerate(order) if i > at and says(other)]
        if not saying:
            continue
        better = next((i for i in reversed(saying) if order[i][0] in of_the_kind), saying[0])
        _, _, parts = order.pop(at)
        score = order[better - 1][1]
        order.insert(better, (item, score, {**parts, "score": score, "introduces": name}))
    return order


def a_name(user_id: str) -> bool:
    """Whether the user's id reads as their name ("dave": "What did dave say about his garden?" asks
    the user's own memories, whether or not they ever said "I'm Dave"): one word of letters, not a
    word for someone."""
    return len(user_id) > 1 and user_id.isalpha() and user_id.casefold() not in _NOT_NAMES


def introduction(content: str) -> re.Match[str] | None:
    """The place in the user's life and the name a fact introducing someone says ("The user's best
    friend is named Sarah.": place, name), None when it introduces no one."""
    lowered = content.lower()
    named, placed, user_s = _INTRODUCES
    return (named.match(content) if any(word in lowered for word in _NAMES_ONE) else None) or (
        placed.match(content) if _ENDS_IN_A_NAME.search(content) else None) or user_s.match(content)
