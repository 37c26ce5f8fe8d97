"""Speaker cues: a question that names a participant is about what they said or what is known of them.

In a conversation between named people ("What did Melanie paint?"), the memories spoken by
Melanie, or filed under her as their subject, are more likely the answer than the other
participant's lines that merely mention her. A memory's speaker is read with its ranking
(db/memories.py SPEAKER); search.py favours the memories whose speaker the question names.

For the same reason a participant's name is a poor keyword: in a conversation between Caroline and
Melanie most lines carry one name or the other (as their speaker, or "Thanks, Melanie!"), so the
name's matches rank lines that merely address her. `without_names` gives the question without the
names of the participants it names, for the keyword channel; the speaker cue stands for them.

An agent also asks about its user by name ("Where does Dana work?"), where memex files that person's
facts as "the user" ("The user's employer is Feedzai."): for a user with no other participant,
`as_the_user` turns the user's own name into "the user", and the question is then searched as one
about "the user" (first_person.py voices it, keywords.py leaves the words out, the speaker cue
favours the user's memories), not as a word the user's messages that say "Dana" share with it.
search.py embeds the question as asked beside it: "Melanie" alone, or a line that names the user in the
third person ("Melanie moved to Paris."), is what "the user" misses.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterable, Iterator

from memex import literal
from memex.db.memories import Found

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
# _WORD on lower-case ASCII, where a letter is a-z: a class of its own, not the negation of three
_ASCII_WORD = re.compile(r"[a-z]+(?:['-][a-z]+)*")
_POSSESSIVE = ("'s", "’s")


# The words of the texts read within `remembered`: text -> words.
_READ: ContextVar[dict[str, frozenset[str]] | None] = ContextVar("speakers_read", default=None)


@contextmanager
def remembered() -> Iterator[None]:
    """Within the block, each text's words are read once: a search asks them of the same candidates,
    speakers and question for the speaker cue, named.py and the learned order (~450 times a LoCoMo
    question, of ~55 texts). Forgotten with the block, not cached for the process: they
    are memories' contents, and a process-wide cache would keep an erased memory's words after its
    erasure."""
    token = _READ.set({})
    try:
        yield
    finally:
        _READ.reset(token)


def words(text: str) -> frozenset[str]:
    """The lower-cased words of `text`, possessives stripped ("Melanie's" -> "melanie")."""
    read = _READ.get()
    if read is None:
        return _words(text)
    found = read.get(text)
    if found is None:
        found = read[text] = _words(text)
    return found


def _words(text: str) -> frozenset[str]:
    if text.isascii():  # lowering ASCII keeps every letter a letter: the same words, lowered in one call
        lowered = text.lower()
        if "'s" not in lowered:  # most lines say no possessive: no word to strip
            return frozenset(_ASCII_WORD.findall(lowered))
        return frozenset(w[:-2] if w.endswith("'s") else w for w in _ASCII_WORD.findall(lowered))
    lowered = (w.lower() for w in _WORD.findall(text))
    return frozenset(w[:-2] if w.endswith(_POSSESSIVE) else w for w in lowered)


def names(question_words: frozenset[str], memory: Found) -> bool:
    """Whether the question names who said `memory` or whom it is about: a
    participant by name, or the user as "the user", the words memex writes its facts with."""
    return named(question_words, memory.speaker) or named(question_words, memory.subject)


def named(question_words: frozenset[str], speaker: str | None) -> bool:
    """Whether the question names `speaker` (every word of a several-word name)."""
    if not speaker:
        return False
    parts = words(speaker)
    return bool(parts) and parts <= question_words


def without_names(question: str, speakers: Iterable[str | None]) -> str | None:
    """`question` without the words of the participants' names it names (among `speakers`, the
    speakers of the memories found, or all the user's: memories.ahead), possessives
    included; None when it names none, or when nothing else would be left."""
    asked = words(question)
    names = {name for name in set(speakers) if named(asked, name)}
    if not names:
        return None
    parts = sorted({w for name in names for w in words(name)}, key=len, reverse=True)
    # `\b(?:{parts})(?:['’]s)?\b` (re.IGNORECASE), each part a word of its own, read as data (literal.py says why)
    said = _said(question, [[p] for p in parts], literal.boundary, literal.boundary)
    rest = _replaced(question, [(start, end, " ") for start, end, _ in said])
    return " ".join(rest.split()) if _WORD.search(rest) else None


def as_the_user(question: str, user_names: Iterable[str], participants: Iterable[str]) -> str | None:
    """`question` with the user's own name, possessive included, as "the user" ("Where does Dana
    work?" -> "Where does the user work?", "Dana's partner" -> "the user's partner"), when it names
    the user by one of `user_names` and the user has no other of `participants`; else None.

    With another participant, every line is someone's "I": the name is what tells the user's from
    theirs (on the vector channel too), and the speaker cue reads it; voiced as "I" the question
    lost 0.015 of R@10 on LoCoMo's questions naming the user (docs/measurements/locomo.md)."""
    mine = {name.casefold(): name for name in user_names}
    if any(name.casefold() not in mine for name in participants):
        return None
    asked = words(question)
    named_here = [name for name in mine.values() if named(asked, name)]
    if not named_here:
        return None
    # `(?<![\w'’-])(?:{names})(['’]s)?(?![\w'’-])` (re.IGNORECASE), each name its words with any whitespace
    # between them, the longest such pattern tried first; read as data (literal.py says why)
    spoken = sorted((_WORD.findall(name) for name in named_here), reverse=True,
                    key=lambda ws: sum(len(w) + w.count("-") for w in ws) + 3 * (len(ws) - 1))
    said = _said(question, spoken, lambda text, at: not _joins_name(text[at - 1:at]),
                 lambda text, at: not _joins_name(text[at:at + 1]))
    rewritten = _replaced(question, [(start, end, _the_user(question, start) + possessive)
                                     for start, end, possessive in said])
    return rewritten if rewritten != question else None


def _joins_name(char: str) -> bool:
    return literal.word_character(char) or char in ("'", "’", "-")


def _the_user(question: str, at: int) -> str:
    """"The user" where the name opened a sentence (first_person.py keeps the capital: "My")."""
    before = question[:at].rstrip()
    opens = not before or before[-1] in ".!?\"“("
    return "The user" if opens else "the user"


def _said(text: str, names: list[list[str]], opens: Callable[[str, int], bool],
          closes: Callable[[str, int], bool]) -> list[tuple[int, int, str]]:
    """Where `text` says one of `names` (each its words, said with whitespace between them), case ignored,
    possessive or not, where `opens` holds before and `closes` after, left to right and not overlapping, as
    a pattern trying them in order would: start, end and the possessive said ("" none)."""
    seen = literal.caseless(text)
    alternatives = [[literal.caseless(w) for w in words] for words in names]
    # a name is said only where its first word is: those places, left to right, are all there is to try
    places = sorted({at for words in alternatives for at in literal.places(seen, words[0])})
    found: list[tuple[int, int, str]] = []
    for at in places:
        if (found and at < found[-1][1]) or not opens(text, at):
            continue
        for words in alternatives:
            end = literal.said_at(seen, words, at)
            if end is None:
                continue
            if seen[end:end + 2] in _POSSESSIVE and closes(text, end + 2):
                found.append((at, end + 2, text[end:end + 2]))
                break
            if closes(text, end):
                found.append((at, end, ""))
                break
    return found


def _replaced(text: str, spans: list[tuple[int, int, str]]) -> str:
    """`text` with each span (start, end, what replaces it; in order, not overlapping) replaced."""
    parts, last = [], 0
    for start, end, replacement in spans:
        parts += [text[last:start], replacement]
        last = end
    return "".join(parts) + text[last:]
