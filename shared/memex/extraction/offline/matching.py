"""Which rules match a sentence, and whether the words around a match leave it a plain statement
(not negated, hedged, hypothetical, reported, quoted or said to have ended)."""

from __future__ import annotations

import functools
import re
from bisect import bisect_left, bisect_right

from memex.extraction.offline.patterns import MONTH, WEEKDAY, WORDS
from memex.extraction.offline.required import words
from memex.extraction.offline.required_shipped import requires, shipped
from memex.extraction.offline.rule import Rule, own_time
from memex.extraction.offline.rules import ASKED_RULES, RULES
from memex.extraction.offline.values import Fields
from memex.extraction.vocabulary import FUNCTION_WORDS


_ASKED_UNSURE = frozenset("if unless whether wish suppose supposing imagine pretend assume dream".split())
# A question about someone lost ("Why did my dog Rex die so young?") names no one the user has now.
_ASKED_GONE = re.compile(r"\b(?:die|died|dying|dead|death|passed|pass away|put \w+ down|lost|losing|miss|missing|"
                         r"gone|late|ex|former|divorce|divorced|divorcing|rehome|rehomed|rehoming)\b", re.IGNORECASE)
# What ends a clause: a mark, or one of these words.
_CLAUSE_MARKS = re.compile(r"[,;:—–()]")
_CLAUSE_WORDS = frozenset("and but so because although though while whereas".split())
# Words before a match, in its clause, that make it something other than a plain statement. Each is a
# whole word (a run of \w), so one pass over the words of a sentence finds them all. What someone else
# claims, insists, reckons or swears of the user ("My sister claims I hate dogs") is theirs; "I swear
# I'm fine" is the user's own word, so "swear" is not among them.
_UNSURE_WORDS = frozenset(
    "not no never nobody if unless whether when whenever what whatever wish suppose supposing imagine pretend "
    "assume assumes assumed dream dreamed dreamt hope hoping maybe perhaps probably might may could would "
    "should think thinks thought believe believes guess wonder wondering doubt say says said tell tells "
    "told claim claims claimed reckon reckons reckoned insist insists insisted joke jokes joked convinced "
    "swears pretending pretends imagining".split())
_NEGATED = re.compile(r"n't\b", re.IGNORECASE)
# A sentence that opens by asking to play along ("Pretend you're a pirate and I'm a sailor"): every
# clause of it is make-believe, not only the first.
_MAKE_BELIEVE = re.compile(r"(?:let's |lets )?(?:pretend|pretending|imagine|imagining|suppose|supposing)\b", re.IGNORECASE)
# Words quoted within a sentence are mentioned, not said: "Translate 'I live in London' into French",
# "He texted 'I got the job!'". A quote that opens the sentence is the message itself. Quotes of any
# typography are straight here (plain.plain).
_QUOTED = re.compile(r"(?<=\s)(?:\"[^\"]+\"|'(?=\w)(?:[^']|'(?=\w))+'(?!\w))")
# Words right after a match that take it back.
_TAKEN_BACK = re.compile(r"[\s,]*(?:I think|I guess|I suppose|I believe|maybe|probably|perhaps|or not|jk|just kidding)\b",
                         re.IGNORECASE)
# Words later in the same clause (before any , ; or ., but for the comma that opens them) that say it has
# ended ("I started at Google in 2019 and left in 2022", "I've been a nurse for 15 years, but I quit last
# year"): left, quit or moved away, then nothing more, a time, or the job or the place itself. Anything else
# after them is something other that was left ("I work at Google, but I left Microsoft in 2019", "... but I
# quit smoking", "... but I left my phone at home", "... but I left school at 16").
_ENDED = re.compile(
    r"(?:,\s*)?\b(?:and|but) (?:then |later )?(?:I )?(?:left|quit|moved away)\b"
    r"(?=\s*(?:[,;.!?]|$)|\s+(?:(?:in|on|after|before|when|during|last|this|that|recently|earlier|later|"
    r"yesterday|today|again|soon|eventually|finally|\d|a (?:year|month|week|few|couple)\b|"
    rf"(?:on )?{WEEKDAY}|(?:in )?{MONTH}|it\b|there\b|them\b|work\b|"
    r"(?:my|the|that|this) (?:job|company|firm|position|role|post|team|place|city|town|country|area)\b)))",
    re.IGNORECASE)
_ENDED_STOP = re.compile(r"[,;.]")


class _Surroundings:
    """Where the words that qualify a statement stand in one sentence, found in one pass each, so
    that judging a match costs a few bisections rather than a rescan of the sentence (a sentence
    may hold many matches: "I love cats and I love dogs and I ...")."""

    def __init__(self, sentence: str):
        self._sentence = sentence
        self._make_believe = bool(_MAKE_BELIEVE.match(sentence))
        breaks = [mark.end() for mark in _CLAUSE_MARKS.finditer(sentence)]
        unsure = [negation.span() for negation in _NEGATED.finditer(sentence)]
        # Where each ending starts: at its own comma, if it has one.
        self._ended = [ended.start() for ended in _ENDED.finditer(sentence)]
        for word in WORDS.finditer(sentence):
            lowered = word.group().lower()
            if lowered in _CLAUSE_WORDS:
                breaks.append(word.end())
            if lowered in _UNSURE_WORDS:
                unsure.append(word.span())
        self._breaks = sorted(breaks)
        # Spans that never nest, so sorted by start they are sorted by end too.
        unsure.sort()
        self._unsure_starts = [start for start, _ in unsure]
        self._unsure_ends = [end for _, end in unsure]
        self._stops = [stop.start() for stop in _ENDED_STOP.finditer(sentence)]
        self._quoted = [quote.span() for quote in _QUOTED.finditer(sentence)]

    def plain(self, match: re.Match[str]) -> bool:
        """Whether the words around a match leave its statement plain (not negated, hedged,
        hypothetical, reported or over)."""
        if self._make_believe:
            return False
        start, end = match.span()
        quoted = bisect_right(self._quoted, (start, len(self._sentence))) - 1
        if quoted >= 0 and self._quoted[quoted][1] > start:
            return False
        # The clause of the match starts after the last break before it.
        last_break = bisect_right(self._breaks, start) - 1
        clause = self._breaks[last_break] if last_break >= 0 else 0
        # The first unsure word of the clause, if it ends before the match, qualifies it.
        first = bisect_left(self._unsure_starts, clause)
        if first < len(self._unsure_starts) and self._unsure_ends[first] <= start:
            return False
        if _TAKEN_BACK.match(self._sentence, end):
            return False
        ended = bisect_left(self._ended, end)
        stop = bisect_left(self._stops, end)
        return not (ended < len(self._ended) and (stop == len(self._stops) or self._ended[ended] <= self._stops[stop]))


def plainly(sentence: str, match: re.Match[str]) -> bool:
    """Whether a match of a pattern outside the table (corrections.ROLE_AGAIN) is a plain statement."""
    return _Surroundings(sentence).plain(match)


class _Sieve:
    """The patterns of a table a sentence may match, in the table's order: those whose rule's cues and
    whose own required words (required.py) the sentence holds. Each pattern is filed under the words of
    one of those sets, the one a sentence most likely lacks, so that a sentence meets only the patterns
    filed under its own words; each set is a bit, and a pattern is kept when the sentence's words set
    every bit it needs. A pattern is compiled the first time a sentence may match it (Rule.patterns)."""

    def __init__(self, rules: list[Rule], readings: dict[str, list[frozenset[str]]]):
        self._patterns: list[tuple[Rule, str]] = []
        # Two threads may both compile a source: either's pattern is the same.
        self._compile = functools.cache(re.compile)
        self._needs: list[tuple[int, int]] = []  # the bits of its required words' sets, and of its cues
        # Each word's bits (of the sets it is one of) and the patterns filed under it.
        self._words: dict[str, tuple[int, list[int]]] = {}
        bit_of: dict[frozenset[str], int] = {}

        def bit(words: frozenset[str]) -> int:
            if words not in bit_of:
                bit_of[words] = 1 << len(bit_of)
                for word in words:
                    bits, filed = self._words.get(word, (0, []))
                    self._words[word] = bits | bit_of[words], filed
            return bit_of[words]

        for rule in rules:
            for source in rule.patterns:
                sets = requires(source, readings)
                self._needs.append((sum({bit(words) for words in sets}), bit(rule.cues)))
                for word in min([*sets, rule.cues], key=_likely):
                    self._words[word][1].append(len(self._patterns))
                self._patterns.append((rule, source))
        self._known = frozenset(self._words)  # a set: intersecting it walks the smaller side

    def patterns(self, sentence: str) -> list[tuple[Rule, re.Pattern[str]]]:
        held = words(sentence)
        # The cues are compared as they always were, in str.lower's case (words() folds four letters more).
        cued = held if sentence.isascii() else set(WORDS.findall(sentence.lower()))
        has = cues = 0
        numbers: set[int] = set()
        for word in held & self._known:
            bits, filed = self._words[word]
            has |= bits
            numbers.update(filed)
        if cued is held:
            cues = has
        else:
            for word in cued & self._known:
                bits, filed = self._words[word]
                cues |= bits
                numbers.update(filed)
        return [(self._patterns[number][0], self._compile(self._patterns[number][1])) for number in sorted(numbers)
                if not self._needs[number][0] & ~has and self._needs[number][1] & cues]


def _likely(words: frozenset[str]) -> float:
    """About how likely a sentence is to hold one of `words`: a short function word ("i", "my", "to") is
    in most sentences, a longer one ("went", "have") in many, any other word in few."""
    absent = 1.0
    for word in words:
        absent *= 1 - (0.0005 if word not in FUNCTION_WORDS else 0.5 if len(word) <= 2 else 0.1)
    return 1 - absent


_READINGS = shipped()
_RULES = _Sieve(RULES, _READINGS)
_ASKED_RULES = _Sieve(ASKED_RULES, _READINGS)


def matches(sentence: str) -> list[tuple[int, Rule, Fields]]:
    patterns = _RULES.patterns(sentence)
    if not patterns:
        return []
    surroundings = _Surroundings(sentence)
    found = []
    for rule, pattern in patterns:
        for match in pattern.finditer(sentence):
            if surroundings.plain(match):
                when = own_time(sentence, match)
                found.extend((match.start(), rule, {"happened": when, **fields} if when else fields)
                             for fields in rule.clean(match))
    return sorted(found, key=lambda item: item[0])


def asked_matches(question: str) -> list[tuple[Rule, Fields]]:
    """The names a question takes for granted (ASKED_RULES)."""
    if _ASKED_GONE.search(question):
        return []
    found = []
    for rule, pattern in _ASKED_RULES.patterns(question):
        for match in pattern.finditer(question):
            if _ASKED_UNSURE.isdisjoint(WORDS.findall(question[:match.start()].lower())):
                found.extend((rule, fields) for fields in rule.clean(match))
    return found
