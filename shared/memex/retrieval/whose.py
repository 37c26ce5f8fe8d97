"""Whose fact: a question about someone in the user's life is not answered by the user's own facts.

"Where does my wife work?" is as near in meaning to "The user's employer is Spotify." as to "The
user's wife works at Google.", and shares its words: the user's own employer came first, or was the
only answer of a user who never said where the wife works (docs/measurements/quality.md, "Whose
fact"). A question whose subject is someone the user speaks of by their place in their life (a
possessive and a word of the offline extractor's vocabulary: "does my wife", "is her brother",
"What's my dad's job?") or by the name a memory found gives such a person ("Where does Ana work?" beside
"The user's wife is named Ana."; not the user's own name nor a participant's), and that does not ask about the user too ("I", "we", "our"), is about that person. The
user's own facts (a fact about the user that names nobody in the user's life: "The user lives in
Leeds.") are then no answer, nor the user's messages they were drawn from unless those name someone
("I work at Spotify." goes; "I work at Spotify and my wife at Google." stays). Nor is a line the user
said or was told that names only other people in their life ("The user's dad lives in Bristol." to
"Where does my brother live?"). A line that names the one asked about, or a word for several ("my
parents"), and whatever a participant said are left to the rest of the ranking.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Iterable, Mapping

from memex.db.memories import Found
from memex import literal, people
from memex.retrieval import named

# The person is the question's subject: right after its verb ("does my wife work", "is her brother
# at", "What's my dad's job?"), not an aside to someone else's question ("What did Melanie do with
# her kids?").
_ASKS_OF_THEM = re.compile(
    rf"(?:\b(?:is|are|was|were|does|do|did|has|have|had|can|could|will|would|should)|['’]s)\s+"
    rf"(?:my|your|her|his|the\s+user['’]?s)\s+(?:{people.PERSON})(?:e?s)?\b", re.IGNORECASE)
# The user asked about too: "Where do my wife and I live?", "Does my sister know our address?".
_USER_TOO = re.compile(r"\b(?:i|me|myself|we|us|our|ours)\b", re.IGNORECASE)


def asked_of(question: str, found: Iterable[Found], known: Iterable[str] | None) -> frozenset[str]:
    """Who `question` asks about when it is someone in the user's life and not the user too, by the
    people `people.ONE` says they are and the name asked by (empty: not someone else); by name, only when
    `known` (the user's and the participants' names, None when not read) does not hold it: a
    participant, who may be the user ("John: ..." in a conversation the user is John in), is not
    someone the user speaks of."""
    question = question.replace("’", "'")
    if match := _ASKS_OF_THEM.search(question):
        # A "my" besides the one that names the person asks of the user's own too ("Does my wife
        # like my job?"), as the first person does.
        rest = question[:match.start()] + " " + question[match.end():]
        user_too = _USER_TOO.search(question) or re.search(r"\bmy\b", rest, re.IGNORECASE)
        return frozenset() if user_too else people.said_in(match.group(0))
    if known is None or named.USER.search(question):
        return frozenset()
    said = {name.casefold() for name in known}
    asked = [name for name in named.names(question) if name.casefold() not in said]
    found = list(found)
    return frozenset().union(*(people.said_in(place) | {name.casefold()} for name in asked if (place := _placed(name, found))))


# "wife Ana", "sister's name is Ana", "Ana is my wife": `_placed`'s pattern, matched against the name,
# a NUL, then the memory (named.said_after, literal.fold_extra_cases). The name is not compiled into a
# pattern: re's cache, keyed by a pattern's text and process-wide, would keep an erased user's names
# until 512 others pushed them out.
_PLACED = named.said_after(
    rf"(?P<place>\b(?:{people.PERSON})(?:e?s)?(?:['’]s\s+name\s+is|\s+is\s+(?:named|called)|\s+named|\s+called|,)?"
    rf"\s+(?P=name)\b|\b(?P=name)\s+is\s+(?:the\s+user['’]s|my|her|his)\s+(?:{people.PERSON})\b)")


def _placed(name: str, found: list[Found]) -> str:
    """The words of a memory found that say `name` is someone in the user's life ("The user's wife is
    named Ana.", "my friend Sarah", "Ana is my wife"), empty when none does; not the user's own name
    ("The user's name is Dana.")."""
    return next((memory.content[match.start("place") - len(name) - 1:match.end("place") - len(name) - 1]
                 for memory in found if name.casefold() in memory.content.casefold()
                 and (match := _PLACED.match(literal.fold_extra_cases(f"{name}\x00{memory.content}")))), "")


# Where a word of people.NAMES_A_PERSON begins, and where it ends (group 1): every place, overlapping too.
_PERSON_AT = re.compile(rf"(?=({people.NAMES_A_PERSON.pattern}))", re.IGNORECASE)


def _people_and_names(content: str, names: list[str]) -> list[str]:
    """What `NAMES_A_PERSON|\bName\b|…` (each of `names` in turn, case ignored) finds in `content`, as
    findall would: the first that matches where the leftmost match begins, then on from its end."""
    if not names:
        return people.NAMES_A_PERSON.findall(content)
    places = [(at.start(), 0, at.end(1)) for at in _PERSON_AT.finditer(content)]
    # an ASCII name not in an ASCII content lowered is nowhere in it: no scan of it
    lowered = content.lower() if content.isascii() else None
    for rank, name in enumerate(names, 1):
        if lowered is None or not name.isascii() or name.lower() in lowered:
            places += [(at, rank, at + len(name)) for at in literal.starts(name, content)]
    said, end = [], 0
    for start, _, stop in sorted(places):
        if start >= end:
            said.append(content[start:stop])
            end = stop
    return said


def not_theirs(kept: list[str], found: Mapping[str, Found], asked: frozenset[str]) -> list[str]:
    """`kept` without the user's own facts and the user's messages they were drawn from that name
    nobody in the user's life, by a relation word or by a name a memory found gives such a person
    ("We're moving to Edinburgh, Omar got a transfer." stays when "My husband Omar" was found), and
    without what the user told of someone else than the one `asked` of ("The user's dad lives in
    Bristol." to "Where does my brother live?"): a line that names only other people, by a word of
    `people.ONE` or the name an introduction gives them. A line that names the one asked of, or a word for
    several, stays ("My brother and dad live in Bristol.", "My parents live in Bristol."), and so does
    every line that names someone when several are asked of ("Where do my parents live?")."""
    names = {match.group("name"): people.said_in(match.group("place")) for memory in found.values()
             if memory.memory_type == "semantic" and (match := named.introduction(memory.content))
             and people.NAMES_A_PERSON.search(match.group("place"))}
    by_name = {name.casefold(): whom for name, whom in names.items()}
    # Whom each memory read says (the people words and names), read once a memory: the user's own
    # facts, another's lines and the messages facts came from all turn on it.
    @cache
    def said_in(item: str) -> list[str]:
        return [said.casefold() for said in _people_and_names(found[item].content, list(names))]

    def anothers(item: str) -> bool:
        if found[item].speaker is not None or asked & people.SEVERAL:
            return False
        whom = set()
        for word in said_in(item):
            if word in asked:
                return False  # the one asked of
            if word in by_name:
                whom |= by_name[word]
            elif (person := people.one(word)) is None:
                return False  # a word for several
            else:
                whom.add(person)
        return bool(whom) and not whom & asked

    own = {item for item, memory in found.items()
           if memory.memory_type == "semantic" and memory.speaker is None and memory.subject == "user"
           and not said_in(item)}
    sources = {found[item].message_id for item in own if found[item].message_id}
    return [item for item in kept if item not in own and not anothers(item) and not (
        found[item].memory_type == "episodic" and found[item].speaker is None
        and found[item].message_id in sources and not said_in(item))]
