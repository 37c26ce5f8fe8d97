"""The words a regex requires, read from the regex itself: every match of it holds, as a whole word (a
run of \\w with none beside it), one word of each set `required` names. A sentence that lacks them
cannot match, so matching.py does not scan it with that regex: most of the table's patterns need a
verb the sentence does not say, and a set lookup costs far less than a scan.

Only what is certain is required. A word is one the regex spells out in literal characters (or a
one-letter class such as [Ww]), with a non-word character, \\b, ^, $ or a lookaround that refuses
\\w on each side of it; alternatives (`moved|relocated`, and what the parser factors them into:
`l(?:ike|ove)`) require one word of theirs each. Anything the reading does not follow (a repeat of
two or more, a lookaround's own words, a back reference, an ASCII or locale flag) requires nothing,
so a pattern is never skipped where it could match; it is only scanned more often than it needs.

Words are compared folded (`words`) as re.IGNORECASE compares them (literal.caseless): in lower case, and
the four non-ASCII letters that a case-insensitive ASCII letter matches (İ ı ſ K) as that letter. A word
with another non-ASCII character is required of no sentence."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product
from re import _constants as sre  # the parser's node names: a pattern's tree is what tells what it requires
from re import _parser

from memex.literal import caseless

_WORD = re.compile(r"\w+")
_ASCII_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_ASCII_TOKEN = re.compile(r"[A-Za-z0-9_]+")
# A run of alternatives read as the strings they spell, up to this many (`(?:I'm|I am) (?:a|an|the)`
# is six); more are read as a choice of words each.
_MOST_STRINGS = 256


def words(sentence: str) -> set[str]:
    """The words of `sentence`, folded as the required words are."""
    return set(_WORD.findall(caseless(sentence)))


def required(pattern: re.Pattern[str]) -> list[frozenset[str]]:
    """Sets of words, one word of each of which every match of `pattern` holds."""
    if pattern.flags & (re.ASCII | re.LOCALE | re.VERBOSE):
        return []
    return _clauses(_segments(_parser.parse(_CLASS.sub(_class_like, pattern.pattern), pattern.flags).data), False, False)


# A character class in a pattern's source (an escape outside one is matched first, so that "\[" is none).
_CLASS = re.compile(r"\\.|\[\^?\]?(?:\\.|[^\]\\])*\]", re.DOTALL)


def _class_like(m: re.Match[str]) -> str:
    """A class as a short one that is the same to the reading (ASCII characters spelled out, only
    non-word characters, \\w among them, or none of these): parsing the table's patterns is most of the time taken, and
    more than half of their source is classes, a capital's of 490 characters among them."""
    return m.group() if m.group()[0] == "\\" else _short_class(m.group())


@lru_cache(maxsize=None)
def _short_class(source: str) -> str:
    op, av = _parser.parse(source).data[0]  # a class of one character is parsed as that character
    if op is not sre.IN or _spelled_class(av) is not None:
        return source
    if av[0][0] is sre.NEGATE:
        return r"[^\d]"
    if _nonword_only(av):
        return r"[\s]"
    return r"[\w]" if (sre.CATEGORY, sre.CATEGORY_WORD) in av else r"[\d]"


@dataclass
class _Segment:
    """A stretch of a pattern: the strings it spells (`strings`), or what is known of what it matches
    (empty or not, whether it starts and ends with a non-word character when not empty); a zero-width
    assertion says whether the character before or after it is a non-word one (or none)."""
    strings: frozenset[str] | None = None
    nullable: bool = True
    first_nonword: bool = False
    last_nonword: bool = False
    zero_width: bool = False
    before_nonword: bool = False
    after_nonword: bool = False
    alternatives: list[list[_Segment]] = field(default_factory=list)  # a choice whose words are required
    once: list[_Segment] | None = None  # what a repeat matches at least once

    @staticmethod
    def spelled(strings: frozenset[str]) -> _Segment:
        nonempty = [s for s in strings if s]
        return _Segment(strings, "" in strings, all(s[0] not in _ASCII_WORD for s in nonempty),
                        all(s[-1] not in _ASCII_WORD for s in nonempty))


_UNKNOWN = _Segment()  # matches anything, or nothing
_ANY_CHAR = _Segment(nullable=False)


def _segments(items: list) -> list[_Segment]:
    """A sequence of the parser's nodes as segments, adjacent spelled ones joined while they are few."""
    out: list[_Segment] = []
    run: list[str] = []  # ASCII characters in a row, spelled as one string

    def add(segment: _Segment) -> None:
        last = out[-1] if out else None
        if segment.strings is not None and last is not None and last.strings is not None \
                and len(segment.strings) * len(last.strings) <= _MOST_STRINGS:
            out[-1] = _Segment.spelled(frozenset(a + b for a, b in product(last.strings, segment.strings)))
        else:
            out.append(segment)

    for op, av in items:
        if op is sre.LITERAL and av < 128:
            run.append(chr(av).lower())
            continue
        if run:
            add(_Segment.spelled(frozenset(["".join(run)])))
            run.clear()
        for segment in _segments_of(op, av):
            add(segment)
    if run:
        add(_Segment.spelled(frozenset(["".join(run)])))
    return out


def _segments_of(op, av) -> list[_Segment]:
    if op is sre.LITERAL:
        return [_ANY_CHAR]  # a non-ASCII character (_segments spells the others): its case may be a word character or not
    if op is sre.IN:
        spelled = _spelled_class(av)
        if spelled is not None:
            return [_Segment.spelled(spelled)]
        nonword = _nonword_only(av)
        return [_Segment(nullable=False, first_nonword=nonword, last_nonword=nonword)]
    if op is sre.SUBPATTERN:
        _, add_flags, _, sub = av
        return [_UNKNOWN] if add_flags & (sre.SRE_FLAG_ASCII | sre.SRE_FLAG_LOCALE) else _segments(sub)
    if op is sre.ATOMIC_GROUP:
        return _segments(av)
    if op is sre.BRANCH:
        return [_choice([_segments(alternative) for alternative in av[1]])]
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        return [_repeat(*av)]
    if op is sre.AT:
        return [_at(av)]
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return [_lookaround(op, *av)]
    if op is sre.GROUPREF or op is sre.GROUPREF_EXISTS:
        return [_UNKNOWN]
    return [_ANY_CHAR]  # ANY, NOT_LITERAL, CATEGORY


def _choice(alternatives: list[list[_Segment]]) -> _Segment:
    spelled = [alternative[0].strings if len(alternative) == 1 else frozenset([""]) if not alternative else None
               for alternative in alternatives]
    if all(strings is not None for strings in spelled):
        union = frozenset().union(*spelled)
        if len(union) <= _MOST_STRINGS:
            return _Segment.spelled(union)
    return _Segment(nullable=any(_nullable(a) for a in alternatives),
                    first_nonword=all(_starts_nonword(a, True) for a in alternatives),
                    last_nonword=all(_ends_nonword(a, True) for a in alternatives), alternatives=alternatives)


def _repeat(least: int, most: int, sub: list) -> _Segment:
    segments = _segments(sub)
    if most == 1:
        if len(segments) == 1 and segments[0].strings is not None:
            strings = segments[0].strings
            return _Segment.spelled(strings | {""} if least == 0 else strings)
        if least == 1:
            return _Segment(nullable=_nullable(segments), first_nonword=_starts_nonword(segments, True),
                            last_nonword=_ends_nonword(segments, True), alternatives=[segments])
    return _Segment(nullable=least == 0 or _nullable(segments), first_nonword=_starts_nonword(segments, True),
                    last_nonword=_ends_nonword(segments, True), once=segments if least >= 1 else None)


def _at(code) -> _Segment:
    before = code in (sre.AT_BOUNDARY, sre.AT_BEGINNING, sre.AT_BEGINNING_STRING)
    after = code in (sre.AT_BOUNDARY, sre.AT_END, sre.AT_END_STRING)
    # \b beside a word character says the character on its other side is none.
    return _Segment(zero_width=True, before_nonword=before, after_nonword=after)


def _lookaround(op, direction: int, sub: list) -> _Segment:
    if op is sre.ASSERT_NOT:
        refuses_word = len(sub) == 1 and sub[0][0] is sre.IN and sub[0][1][0][0] is not sre.NEGATE \
            and (sre.CATEGORY, sre.CATEGORY_WORD) in sub[0][1]
        return _Segment(zero_width=True, before_nonword=refuses_word and direction < 0,
                        after_nonword=refuses_word and direction > 0)
    segments = _segments(sub)
    return _Segment(zero_width=True, before_nonword=direction < 0 and _ends_nonword(segments, False),
                    after_nonword=direction > 0 and _starts_nonword(segments, False))


def _spelled_class(members: list) -> frozenset[str] | None:
    """The characters of a class of ASCII characters ([Ww], [- ]), in lower case; None for any other class."""
    if not all(op is sre.LITERAL and av < 128 for op, av in members):
        return None
    return frozenset(chr(av).lower() for _, av in members)


def _nonword_only(members: list) -> bool:
    """Whether a class matches only non-word characters (ASCII ones, which have no other case)."""
    def nonword(op, av) -> bool:
        if op is sre.LITERAL:
            return av < 128 and not chr(av).isalnum() and chr(av) != "_"
        if op is sre.RANGE:
            return av[1] < 128 and all(not chr(c).isalnum() and chr(c) != "_" for c in range(av[0], av[1] + 1))
        return op is sre.CATEGORY and av in (sre.CATEGORY_SPACE, sre.CATEGORY_NOT_WORD)
    return all(nonword(op, av) for op, av in members)


def _nullable(segments: list[_Segment]) -> bool:
    return all(s.zero_width or s.nullable for s in segments)


def _starts_nonword(segments: list[_Segment], at_end: bool) -> bool:
    """Whether the character where `segments` start is a non-word one (or there is none), when they
    match; `at_end` when they match nothing and say nothing of it."""
    for s in segments:
        if s.zero_width:
            if s.after_nonword:
                return True
            continue
        if not s.first_nonword:
            return False
        if not s.nullable:
            return True
    return at_end


def _ends_nonword(segments: list[_Segment], at_start: bool) -> bool:
    """As _starts_nonword, for the character before where `segments` end."""
    for s in reversed(segments):
        if s.zero_width:
            if s.before_nonword:
                return True
            continue
        if not s.last_nonword:
            return False
        if not s.nullable:
            return True
    return at_start


def _clauses(segments: list[_Segment], left: bool, right: bool) -> list[frozenset[str]]:
    """The sets of words required by `segments`, where `left` and `right` say whether what stands
    before and after them is a non-word character (or nothing)."""
    clauses: list[frozenset[str]] = []
    for i, s in enumerate(segments):
        if s.strings is None and not s.alternatives and s.once is None:
            continue
        before = _ends_nonword(segments[:i], left)
        after = _starts_nonword(segments[i + 1:], right)
        if s.strings is not None:
            clauses.extend(_spelled_clauses(s.strings, before, after))
        elif s.alternatives:
            each = [_clauses(alternative, before, after) for alternative in s.alternatives]
            if all(each):
                clauses.append(frozenset().union(*(_likeliest_absent(c) for c in each)))
        else:
            # The first time round: what follows is the next time round, or what follows the repeat.
            clauses.extend(_clauses(s.once, before, after and _starts_nonword(s.once, True)))
    return clauses


def _spelled_clauses(strings: frozenset[str], before: bool, after: bool) -> list[frozenset[str]]:
    """The words each string holds (a word at its edge only where the string's neighbour is no word
    character): those all hold, each required; and one of each string's others, its longest."""
    held = []
    for s in strings:
        found = set()
        for token in _ASCII_TOKEN.finditer(s):
            if (token.start() > 0 or before) and (token.end() < len(s) or after):
                found.add(token.group())
        if not found:
            return []
        held.append(found)
    common = set.intersection(*held)
    clauses = [frozenset([word]) for word in sorted(common)]  # in one order whatever the hash seed
    others = [found - common for found in held]
    if all(others):
        clauses.append(frozenset(max(found, key=lambda w: (len(w), w)) for found in others))
    return clauses


def _likeliest_absent(clauses: list[frozenset[str]]) -> frozenset[str]:
    """Of an alternative's sets, the one a sentence most likely lacks: the one whose shortest word is
    longest ("I" is in most sentences, "relocated" in few), then the fewest words, then the first in
    order of words (a tie otherwise went to the set met first, which the hash seed chose)."""
    return min(clauses, key=lambda c: (-min(len(w) for w in c), len(c), sorted(c)))
