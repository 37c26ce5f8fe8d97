"""What a later sentence takes back or restates: a correction ("actually I meant Lisbon, not Porto",
"Sorry, her name is Anna."), a retraction ("Please forget that I'm allergic to peanuts"), and someone's
new age, role, a pregnancy or a pet's death said by a name alone, each read against the facts the turn and
the session filed before (`Facts`, an index of them)."""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import chain
from typing import Callable, Iterator

from memex import literal
from memex.first_person import OFTEN, as_i_say_it
from memex.extraction import plain, vocabulary
from memex.extraction.offline.patterns import (CAPWORD, DATE, HEDGES, HERS, HIS, MONTH, NOT_NAMES, NUMBER, PERSON_PARTS,
    PETS, ROLE, ROLE_END, UPPER, WEEKDAY, WORDS)
from memex.extraction.offline.rule import Rule, candidate_of, own_time, rule
from memex.extraction.offline.rules.health import DIET_ENDED
from memex.extraction.offline.rules.pets import PET_AGE, pet_age_fields
from memex.extraction.offline.rules.work import RETIREMENT_ENDED
from memex.extraction.offline.statements import statements
from memex.extraction.offline.values import named_person, role, to_number
from memex.jobs import Candidate


_TERM_WORD = r"(?!(?i:not|but|and|or)\b)[\w'&+-]+"
# The value on either side of "not": one to three words, never a pronoun or the correction's own words.
_TERM = (r"(?!(?i:I|it|that|this|you|we|he|she|they|a|an|the|actually|sorry|oops|correction|no|my)\b)"
         rf"{_TERM_WORD}(?:\s+{_TERM_WORD}){{0,2}}?")
# A verb said with "not" ("I'm not vegan", "It's really not vegan", "My sister is not vegan", "We do not eat
# meat", "I'm not giving up"): a negation, not a correction; the word before "not" is no value (read as one,
# "I'm vegan." then "I'm not vegan." filed "The user is I'm.").
_NEGATION = (rf"(?:{_TERM_WORD}\s+)*?(?i:am|is|are|was|were|be|been|do|does|did|have|has|had|can|could|will|would|"
             rf"should|may|might|must|\w+'(?:m|re|s|ve|d|ll))(?:\s+(?i:{HEDGES}))*,?\s+not\b")
# Hedges alone before "not", their verb taken as a correction's opening "it's": "It's really not vegan" is no
# correction to "really".
_HEDGED = rf"(?i:{HEDGES})(?:\s+(?i:{HEDGES}))*,?\s+not\b"
# A correction: "actually I meant Lisbon, not Porto", "Sorry, not Porto but Lisbon", or the statement
# said again with the right value ("Actually my sister lives in Porto, not Braga"). What comes
# before "not" (`said`) ends with the right value; the words before that must be words of the fact
# corrected (correct). "Not" opening it says the right value after a comma, a dash or "but" ("It's not
# just about the signing" corrects no "just").
CORRECTION = re.compile(
    r"(?:^|\b(?i:actually|sorry|oops|correction|my bad|no|I meant|I mean)\b[,:!]?)\s*"
    r"(?:(?i:I meant|I mean|it's|it is)\s+)?"
    rf"(?:(?!{_NEGATION}|{_HEDGED})(?P<said>{_TERM_WORD}(?:\s+{_TERM_WORD}){{0,7}}?),?\s+not\s+"
    rf"(?P<old>{_TERM})"
    rf"|(?i:not)\s+(?P<old2>{_TERM})(?:,|\s+[—–-]{{1,2}}|(?=\s+(?i:but)\b))\s+(?:(?i:but)\s+)?(?P<new2>{_TERM}))"
    r"(?=\s*(?:[^\w\s'&+-]|$))")
# A correction that names the wrong value as said: "I said Tuesday but I meant Thursday", "When I wrote
# Porto I meant Lisbon" (said_instead).
_SAID_BUT_MEANT = re.compile(
    rf"(?:(?i:sorry|oops|actually|no|wait|my bad)[,:!]?\s+)?(?:(?i:when)\s+)?[Ii]\s+(?i:said|wrote|typed|put)\s+(?P<old>{_TERM})"
    rf",?\s+(?:(?i:but|when|and)\s+)?(?:[Ii]\s+)?(?i:meant|mean)\s+(?P<new>{_TERM})[.!]?")
# A correction that says only the right name, of the one name the message before filed: "Sorry, I
# meant Initrode." (correct_meant).
# A correction said as the statement again, with no "not": "Correction: my dog's name is Biscuit.",
# "Sorry, my wife's name is Anna." (correct_restated).
RESTATED = re.compile(r"(?i:actually|sorry|oops|correction|my bad|no wait|wait|typo|scratch that)\b[,:!]?\s+(?i:(?:I|my|it)\b)")
MEANT = re.compile(rf"(?i:sorry|oops|actually|no|correction|my bad)[,:!]?\s+(?i:I meant|I mean)\s+"
                   rf"(?P<new>(?!I\b){CAPWORD}(?:\s+{CAPWORD}){{0,3}})[.!]?")
# A correction of a name said with the person's pronoun: "Sorry, her name is Anna." (correct_named).
# Someone's new age said by their name alone, opening the sentence: "Mia turned 8 today!", "Leo is 5
# now.", "Leo's now 5" (age_again); "Leo is 5" alone may be said of anyone's Leo, and is not read.
AGED_AGAIN = re.compile(rf"(?:(?i:so|and|oh|well|yay|omg|wow),? )?(?P<name>(?!I\b){UPPER}[\w-]*)(?: (?:(?:just|finally|"
                        rf"officially) )?turned (?P<value>{NUMBER})(?= (?:today|yesterday|on|last|this)\b|\s*(?:[.!,;]|$))|"
                        rf"(?: is|'s) (?:now (?P<now>{NUMBER})|(?P<then>{NUMBER})(?: (?:years?|yrs?) old| (?P<months>months?) old)? now)"
                        rf"(?: (?:years?|yrs?) old| (?P<months_now>months?) old)?(?=\s*(?:[.!,;]|$)))")
# The same age said after the person's birthday, by pronoun: "It was Oscar's birthday on Sunday, he's 3 now."
BIRTHDAY_AGE = re.compile(rf"(?:(?i:it was|yesterday was|today is|today was|so|and|oh|well|yay) )?(?P<name>(?!I\b){UPPER}[\w-]*)'s "
                          rf"birthday\b[^.!?]*?[,;] (?:and |so )?(?:he|she)(?:'s| is) (?:now (?P<now>{NUMBER})|"
                          rf"(?P<then>{NUMBER})(?: (?:years?|yrs?) old)?(?: now| today)?)(?=\s*(?:[.!,;]|$))")
_PERSON_NAME_KEYS = frozenset(f"{part}_name" for part in PERSON_PARTS.values())
# The partner's pregnancy said by their name alone: "Sam is pregnant!" (pregnant_again).
PREGNANT_AGAIN = re.compile(rf"(?:(?i:so|and|oh|well|yay|omg|wow|guess what),? )?(?P<name>(?!I\b){UPPER}[\w-]*)"
                            rf"(?: is|'s) (?:(?:{NUMBER}|a few) (?:weeks?|months?) )?pregnant(?=\s*(?:[.!,;]|$))")
_PREGNANT_AGAIN_RULE = rule("fact", "expecting_baby", "pregnant", [], "The user is expecting a baby.",
                            confidence=0.7, importance=0.7)
_AGED_AGAIN_RULE = rule("fact", "{person}_age", "turned", [], "The user's {part} {name} is {value} {old}.",
                        confidence=0.75, importance=0.6)
# A diet or being retired said with "not", the whole sentence: "I'm not vegan.", "Honestly, I am not a
# vegetarian!", "I'm honestly not retired." (denied). A "but" after it, a comma, a question or an "if" before
# it is no such sentence.
DENIED = re.compile(rf"(?:(?i:well|no|honestly|actually|so|and|ok|okay),? )?I(?:'m| am) (?:{HEDGES} )*not "
                    rf"(?!an? retired)(?:an? )?(?P<value>(?i:{'|'.join(vocabulary.DIETS)}|retired))\s*[.!]*")
# What someone does said by their name alone, opening the sentence: "Tiago works as a teacher.", "Ana is an
# architect." (role_again), as rules/people.py reads "My friend Ana is an architect."
ROLE_AGAIN = re.compile(rf"(?:(?i:so|and|oh|well|btw),? )?(?P<name>(?!I\b){UPPER}[\w-]*)(?: (?:now |currently |also |still )?"
                        rf"works as |(?: is|'s) (?:now |currently |also |still )?)(?:an?|the) (?P<value>{ROLE}){ROLE_END}")
_ROLE_AGAIN_RULE = rule("fact", "{person}_role", "works", [], "The user's {kind} {name} is {a} {value}.",
                        confidence=0.7, importance=0.6)
# A pet's death said by its name alone, opening the sentence: "Pickle passed away last week", "Sadly Miso
# was put to sleep" (pet_gone_again); "passed" alone is not read ("Pickle passed the vet check").
GONE_AGAIN = re.compile(rf"(?:(?i:so|and|oh|well|sadly|unfortunately),? )?(?P<name>(?!I\b){UPPER}[\w-]*) "
                        r"(?:(?:just|sadly|finally|recently) )?(?:died|passed away|passed on|was put down|"
                        r"was put to sleep|had to be put down|was rehomed|had to be rehomed)(?![\w'-])")
PET_NAME_KEYS = frozenset(f"pet_{part}_name" for part in PETS.values())
_GONE_AGAIN_RULE = rule("fact", "pet_{part}_name", "died passed put rehomed", [],
                        "The user used to have a {kind} named {value}.", confidence=0.7, importance=0.5, historical=True)
NAMED_AGAIN = re.compile(rf"(?i:actually|sorry|oops|correction|my bad|no wait|wait)[,:!]?\s+(?P<pronoun>(?i:her|his|its))"
                         rf"\s+name(?:'s|\s+is)\s+(?P<new>(?!I\b){CAPWORD}(?:\s+{CAPWORD}){{0,3}})[.!]?")
# Words of a corrected statement that need not be words of the fact it corrects: a correction's own, and the
# hedges a negation takes ("Actually it's really Lisbon, not Porto.").
_CORRECTION_WORDS = frozenset(
    "actually sorry oops correction my bad no i meant mean said it it's is i'm im a an the our we i'd".split())
_HEDGE = re.compile(rf"(?i:{HEDGES})")


def _no_fact_word(word: str) -> bool:
    return literal.caseless(word) in _CORRECTION_WORDS or bool(_HEDGE.fullmatch(word))
# The right value at the end of what is said before "not", by the wrong value's shape: a number
# (maybe with its noun: "3 kids"), a date, a name (capitalised words), or as many words as the wrong one.
_SAID_NUMBER = re.compile(rf"(?:^|\s)(?!(?i:no)\b)(?P<new>(?i:{NUMBER}))(?:\s+[\w'-]+)?$")
_SAID_DATE = re.compile(rf"(?:^|\s)(?P<new>{DATE})$")
_A_DATE = re.compile(DATE)
_SAID_NAME = re.compile(rf"(?:^|\s)(?P<new>{CAPWORD}(?:\s+{CAPWORD}){{0,3}})$")


# The user taking back a statement of their own: "Please forget that I'm allergic to peanuts", "Forget
# what I said about moving to Berlin", "Don't remember that I'm vegan"; and a denial said as one
# ("Scratch that, I don't have a cat", "That's not true, I never worked at Acme"). Only at the start
# of the sentence and naming a statement: not "I always forget my keys", "Don't forget to buy milk",
# "Forget it, let's talk about something else", "My brother wants me to forget about the peanuts".
FORGET = re.compile(
    r"^(?:(?:please|oh|and|also|actually|sorry),? )*(?:please )?(?:(?:forget|disregard|ignore) (?:that (?:I (?:said|told "
    r"you) (?:that )?)?(?P<said>\S.*)|what I (?:said|told you) about (?P<topic>\S.*))|(?:don't|do not) (?:remember|keep) "
    r"that (?P<kept>\S.*))", re.IGNORECASE)
_DENIED = re.compile(
    r"^(?:(?:scratch|strike) that|(?:that's|that is) (?:not true|wrong|false)),?\s+"
    r"(?P<said>I(?: (?:don't|do not|didn't|did not|never)|'m not| am not)) (?P<rest>\S.*)", re.IGNORECASE)
# A fact the user said of themselves handed to someone else: "Actually no, it's my sister who's vegan,
# not me", "It's my brother who works at Google, not me." The "not me" is what makes it a denial: "It's
# my sister who's vegan" alone may be news of the sister. A word before the verb is kept, the verb read
# as the user says it ("who always runs marathons": "I always run marathons").
_SOMEONE_ELSE = re.compile(
    r"^(?:(?:actually|no|nope|sorry|oops|wait),? )*(?:it's|it is|that's|that is) (?:my|our) [\w' -]+? who"
    rf"(?:(?P<is>'s| is)| (?P<often>(?:{OFTEN} )?)(?P<does>(?!was\b|were\b|had\b|used\b)\w+s)) (?P<rest>\S.*?),? "
    r"not me[.!]*$", re.IGNORECASE)
# Words of a topic that name no fact ("what I said about my job at Acme": "job at Acme").
_TOPIC_FILLER = frozenset("my the a an that this it about me I at in of to".casefold().split())


def statement_retracted(forget: re.Match[str] | None, sentence: str) -> str | None:
    """The statement a retraction takes back ("I'm allergic to peanuts"; a topic as a statement with
    its dropped "I'm": "moving to Berlin next month"; a denial's without its "not": "I have a cat"),
    or None for no retraction."""
    if forget:
        return forget["said"] or forget["topic"] or forget["kept"]
    denied = _DENIED.match(sentence)
    if denied:
        return ("I'm " if "m" in denied["said"][1:3] else "I ") + denied["rest"]
    handed = _SOMEONE_ELSE.match(sentence)
    if handed:
        if handed["is"]:
            return f"I'm {handed['rest']}"
        return f"I {handed['often']}{as_i_say_it(handed['does'])} {handed['rest']}"
    return None


def _words(text: str) -> frozenset[str]:
    return frozenset(WORDS.findall(text.casefold())) - _TOPIC_FILLER


def about_topic(facts: list[Candidate], topic: str) -> list[Candidate]:
    """The user's current facts, said before, that a topic names ("moving to Berlin": the plan "moving
    to Berlin next month"; "my job at Acme": the employer "Acme"): those whose value says all the
    topic's words, else those whose value's words the topic says all of."""
    words = _words(topic)
    if not words:
        return []
    own = [fact for fact in facts if fact.subject == "user" and not fact.historical and _words(fact.value)]
    return [f for f in own if words <= _words(f.value)] or [f for f in own if _words(f.value) <= words]


def taken_back(candidate: Candidate) -> Candidate:
    """A fact the user took back: it ends the current fact it names, kept in its history as taken
    back (supersession.left_alone), and files nothing when it names none."""
    return replace(candidate, historical=True, ends_only=True, only_replacing=None, happened=None,
                   content=f"The user took this back: {candidate.content}")


def _value_mark(value: str) -> tuple[str, str | int]:
    """Two values are the same when they are the same words ("new  york", "New York", "retıred" and "retired":
    a look-alike letter is its letter, as the rules' patterns read it) or the same number ("3", "three")."""
    words = " ".join(literal.caseless(value).casefold().split())
    number = to_number(words)
    return ("number", number) if number is not None else ("words", words)


class Facts:
    """Candidates in the order found, indexed by value, so that a correction finds the latest facts
    it may correct, and drops the one it corrects, without rescanning every fact found before (a message may hold
    thousands of facts and of corrections)."""

    def __init__(self, candidates: list[Candidate] = ()):
        self._order: dict[int, Candidate] = {}  # a dict keeps insertion order and deletes in O(1)
        # Built at the first correction: most messages have none.
        self._by_value: dict[tuple[str, str | int], list[int]] | None = None
        # The facts of each message by the words of their values, a dict as an ordered set (a fact
        # dropped is deleted when met): built at the first correction of one word of a longer value.
        self._by_word: dict[tuple[str, str], dict[int, None]] | None = None
        self._next = 0
        for candidate in candidates:
            self.add(candidate)

    def add(self, candidate: Candidate) -> None:
        number = self._next
        self._next += 1
        self._order[number] = candidate
        if self._by_value is not None:
            self._index(number, candidate)
        if self._by_word is not None:
            self._index_words(number, candidate)

    def _index(self, number: int, candidate: Candidate) -> None:
        # Only a value its content states can be corrected: the content is rewritten around it.
        if candidate.value in candidate.content:
            self._by_value.setdefault(_value_mark(candidate.value), []).append(number)

    def _index_words(self, number: int, candidate: Candidate) -> None:
        for word in set(_VALUE_WORD.findall(candidate.value.casefold())):
            self._by_word.setdefault((candidate.source_message_id, word), {})[number] = None

    def saying(self, message_id: str, word: str, fits: Callable[[Candidate], bool],
               most: int = 2) -> list[tuple[int, Candidate]]:
        """The last `most` facts of a message that fit and whose value says `word` (case ignored), the
        latest first: the wrong word of a correction, found without rescanning every fact."""
        if self._by_word is None:
            self._by_word = {}
            for number, candidate in self._order.items():
                self._index_words(number, candidate)
        numbers = self._by_word.get((message_id, word.casefold()), {})
        found, dropped = [], []
        for number in reversed(numbers):
            if number not in self._order:
                dropped.append(number)
            elif fits(self._order[number]):
                found.append((number, self._order[number]))
                if len(found) == most:
                    break
        for number in dropped:
            del numbers[number]
        return found

    def latest(self, value: str, most: int = 3) -> list[tuple[int, Candidate]]:
        """The last `most` facts with this value, the latest first."""
        if self._by_value is None:
            self._by_value = {}
            for number, candidate in self._order.items():
                self._index(number, candidate)
        numbers = self._by_value.get(_value_mark(value), [])
        while numbers and numbers[-1] not in self._order:
            numbers.pop()  # dropped by an earlier correction
        return [(n, self._order[n]) for n in reversed(numbers[-most:]) if n in self._order]

    def of_message(self, message_id: str) -> list[tuple[int, Candidate]]:
        return [(n, c) for n, c in self._order.items() if c.source_message_id == message_id]

    def drop(self, number: int) -> None:
        del self._order[number]

    def size(self) -> int:
        """The number the next fact added gets: `since` it, the facts added after."""
        return self._next

    def since(self, number: int) -> list[tuple[int, Candidate]]:
        return [(n, c) for n, c in self._order.items() if n >= number]

    def swap(self, number: int, candidate: Candidate) -> None:
        """The fact numbered `number`, re-stated; its value unchanged (the index is by value)."""
        self._order[number] = candidate

    def in_order(self) -> list[Candidate]:
        return list(self._order.values())

    def latest_first(self) -> Iterator[Candidate]:
        return reversed(self._order.values())


def said_instead(sentence: str) -> str:
    """The sentence as CORRECTION reads a correction: "I said Tuesday but I meant Thursday" is "I meant
    Thursday, not Tuesday" (correct then re-states the fact said with Tuesday); any other, unchanged."""
    said = _SAID_BUT_MEANT.fullmatch(sentence)
    return f"I meant {said['new']}, not {said['old']}" if said else sentence


def wrong_values_and_denials(text: str) -> tuple[list[str], frozenset[str]]:
    """The wrong values a message's corrections name ("I said Tuesday but I meant Thursday.": Tuesday)
    and the keys of the facts its denials may end ("I'm not vegan.": the diet's), read sentence by sentence
    as the extractor reads them: the current facts holding one, or that diet, may have been said in an
    earlier session, which the extractor never sees (pipeline._known reads them)."""
    wrong: list[str] = []
    denied: set[str] = set()
    for sentence, _ in statements(text):
        read = plain.plain(sentence)
        wrong += [match.group("old") or match.group("old2") for match in CORRECTION.finditer(said_instead(read))]
        if said := DENIED.fullmatch(read):
            denied.add(_ended_by_denial(said.group("value")).key)
    return wrong, frozenset(denied)


def correct(found: Facts, earlier: Facts, match: re.Match[str], message_id: str, quote: str,
            subject: str) -> bool:
    """Re-state the fact whose value was the wrong one with the right value; the wrong one, if
    stated in this turn, is dropped. Nothing happens when no fact of the speaker's had the wrong
    value, when the right value has not the wrong one's shape, or when the words said around it are
    not the fact's ("The meeting is on Tuesday, not Monday" corrects no appointment on Monday)."""
    old = match.group("old") or match.group("old2")
    for pool in (found, earlier):
        for number, wrong in pool.latest(old):
            if wrong.subject != subject:
                continue
            right = _right_value(match, wrong)
            if right is None:
                continue
            same = [n for n, c in found.latest(right) if _same_fact(c.key, wrong.key) and c.source_message_id == message_id]
            for n in same:  # the rules read the statement said again: the correction replaces it
                found.drop(n)
            if pool is found and number not in same:
                found.drop(number)
            found.add(replace(wrong, value=right, content=wrong.content.replace(wrong.value, right, 1),
                              source_message_id=message_id, raw_quote=quote, corrects=wrong.value))
            return True
    return False


# The shapes a word of a longer value is corrected in: a day for a day, a month for a month, a number
# for a number, a name for a name.
_VALUE_WORD = re.compile(r"[\w'-]+")
_WORD_SHAPES = tuple(re.compile(rf"{shape}$") for shape in (WEEKDAY, MONTH, r"\d+(?:st|nd|rd|th)?", CAPWORD))


def correct_within(pool: Facts, found: Facts, said_in: str, match: re.Match[str], message_id: str,
                   quote: str, subject: str) -> bool:
    """"Sorry, I meant Wednesday, not Tuesday.", said right after "I'm flying to Berlin next Tuesday." (or
    in the same message, `said_in`): the wrong value one word of a longer one (the plan "flying to Berlin
    next Tuesday"), that fact re-stated with the right word. Nothing unless one fact of that message says
    that word, once, and the right word is of its shape, said with no words but a correction's."""
    old = match.group("old") or match.group("old2")
    said = (match.group("new2") or match.group("said")).split()
    if len(old.split()) != 1 or not said or not all(_no_fact_word(word.strip(",")) for word in said[:-1]):
        return False
    right = said[-1]
    shape = next((s for s in _WORD_SHAPES if s.match(old)), None)
    if shape is None or not shape.match(right) or right.casefold() == old.casefold():
        return False
    # the wrong word found as data, not compiled into a pattern (literal.py says why)
    said_it = pool.saying(said_in, old, lambda c: c.subject == subject and not c.historical
                          and len(_said(old, c.value)) == 1 and c.value in c.content)
    if len(said_it) != 1:
        return False
    number, wrong = said_it[0]
    (start, end), = _said(old, wrong.value)
    value = wrong.value[:start] + right + wrong.value[end:]
    if pool is found:  # said in this turn: only the right one is filed
        found.drop(number)
    found.add(replace(wrong, value=value, content=wrong.content.replace(wrong.value, value, 1),
                      source_message_id=message_id, raw_quote=quote, corrects=wrong.value))
    return True


def _said(word: str, text: str) -> list[tuple[int, int]]:
    """Where `text` says `word`, whatever its case, as a word of a value ("-" and "'" join one)."""
    return list(literal.spans(word, text, ignore_case=True, joins=_joins_value))


def _joins_value(char: str) -> bool:
    return literal.word_character(char) or char in ("'", "-")


def correct_meant(pool: Facts, found: Facts, before_id: str, right: str, message_id: str, quote: str,
                  subject: str) -> None:
    """"Sorry, I meant Initrode.", said right after a message that filed one name: that name's fact
    re-stated with the right one. Nothing when the message before filed no name or more than one
    (which was meant?)."""
    named = [(n, c) for n, c in pool.of_message(before_id) if c.subject == subject
             and c.value[:1].isupper() and c.value in c.content and not c.historical]
    if len(named) != 1:
        return
    number, wrong = named[0]
    if pool is found:  # said in this turn: only the right one is filed
        found.drop(number)
    found.add(replace(wrong, value=right, content=wrong.content.replace(wrong.value, right, 1),
                      source_message_id=message_id, raw_quote=quote, corrects=wrong.value))


def _gender(fact: Candidate) -> str | None:
    """"her" or "his", when the fact's person says which: by its key ("sister_name"), else by its words
    ("My husband is called Jon." files `partner_name`)."""
    words = set(fact.key.split("_"))
    if words.isdisjoint(HIS | HERS):
        words = set(re.findall(r"[\w'-]+", fact.raw_quote.casefold()))
    his, hers = not words.isdisjoint(HIS), not words.isdisjoint(HERS)
    return "his" if his and not hers else "her" if hers and not his else None


def age_again(earlier: Facts, found: Facts, aged: re.Match[str], message_id: str, quote: str,
              subject: str) -> None:
    """"Mia turned 8 today!" (or "Maya is 6 months old now", "It was Oscar's birthday on Sunday, he's 3 now"),
    said of someone by their name alone: their age, filed as the session said who
    they are ("My daughter Mia is 7." earlier: child_mia_age, which the new age replaces), under the key
    _kin_fact gives their other facts; else a current pet's as rules/pets.py files it ("My cat Pixel is 4
    years old." earlier: pet_cat_pixel_age), in years only. Nothing when the session does not say who they are (a
    name alone may be a firm's or a town's), nor for a partner, whose age the rules never file (it would
    outlive the partnership)."""
    said = aged.groupdict()
    name = said["name"]
    age = to_number(said.get("value") or said["now"] or said["then"])
    if age is None or not 1 <= age <= 120 or literal.caseless(name) in NOT_NAMES:
        return
    # a baby's age in months ("Maya is 6 months old now") keeps its unit
    value = f"{age} months" if said.get("months") or said.get("months_now") else str(age)
    # a person before a pet: "Max turned 8" after "My daughter Max is 7." and "We got a dog named Max." is hers
    named = _filed_last(earlier, found, name, subject, lambda key: key in _PERSON_NAME_KEYS) \
        or _filed_last(earlier, found, name, subject, lambda key: key in PET_NAME_KEYS)
    part = named.base_key.removesuffix("_name") if named is not None else None
    if part is None or part == "partner":
        return
    if named.base_key in PET_NAME_KEYS:
        if not value.endswith("months"):
            kind = part.removeprefix("pet_")
            found.add(candidate_of(PET_AGE, {"value": value, **pet_age_fields(kind, kind.replace("_", " "), name)},
                                   message_id, quote, subject))
        return
    person = named_person(part, name)
    found.add(candidate_of(_AGED_AGAIN_RULE, {"value": value, "old": "old" if value.endswith("months") else "years old",
                                              "person": person, "part": part, "name": name}, message_id,
                           quote, subject))


def role_again(earlier: Facts, found: Facts, said: re.Match[str], message_id: str, quote: str, subject: str) -> None:
    """"Tiago works as a teacher.", said of someone by their name alone: their role, under the key the
    rules give a named relative's ("My brother Tiago ..." earlier: brother_tiago_role), as age_again files
    an age. Nothing when the session does not say who they are (a named friend or a stranger has no key
    of their own), nor for a partner, whose role the name alone would keep past the partnership."""
    name = said.group("name")
    if literal.caseless(name) in NOT_NAMES:
        return
    named = _filed_last(earlier, found, name, subject, lambda key: key in _PERSON_NAME_KEYS)
    part = named.base_key.removesuffix("_name") if named is not None else None
    if part is None or part == "partner":
        return
    for fields in role(said):
        value = fields["value"]
        found.add(candidate_of(_ROLE_AGAIN_RULE, {"value": value, "person": named_person(part, name), "name": name,
                                                  "kind": part.replace("_", " "),
                                                  "a": vocabulary.article(value)},
                               message_id, quote, subject))


def pregnant_again(earlier: Facts, found: Facts, name: str, message_id: str, quote: str, subject: str) -> None:
    """"Sam is pregnant!", said of the partner by name alone: the user is expecting a baby. Nothing when the
    name the session gives last is not the current partner's (a sister or a friend is pregnant: not the
    user's baby)."""
    # the past too: a partner named last as left ("I broke up with Sam") is no longer the user's
    named = _filed_last(earlier, found, name, subject, lambda key: key.endswith("_name"), past_too=True)
    if named is not None and named.base_key == "partner_name" and not named.historical:
        found.add(candidate_of(_PREGNANT_AGAIN_RULE, {"value": "yes"}, message_id, quote, subject))


def _ended_by_denial(value: str) -> Rule:
    """The rule that files a denied diet or retirement as the past."""
    return RETIREMENT_ENDED if literal.caseless(value) == "retired" else DIET_ENDED


def denied(earlier: Facts, found: Facts, value: str, message_id: str, quote: str, subject: str) -> None:
    """"I'm not vegan.", "I'm not retired.", said when the diet (or being retired) the session (or the
    memories) last filed of that name is the user's and current: it ends, filed as the past as "I'm not
    vegan anymore" is. Nothing when it was never said, or already ended: "not" alone says nothing was
    ever so."""
    ended = _ended_by_denial(value)
    held = _filed_last(earlier, found, value, subject, lambda key: key == ended.key, past_too=True)
    if held is not None and not held.historical:
        found.add(candidate_of(ended, {"value": held.value}, message_id, quote, subject))


def pet_gone_again(earlier: Facts, found: Facts, gone: re.Match[str], message_id: str, quote: str, subject: str) -> None:
    """"Pickle passed away last week", said of a pet by its name alone: that pet's name as history, under
    the key the session filed it ("My dog Pickle..." earlier: pet_dog_name, which this ends), as "My dog
    Pickle died" files it. Nothing when the name the session says last is no current pet's (a person's
    death has no key; a name alone may be anyone's). When it happened, said in its clause, is kept."""
    name = gone.group("name")
    if literal.caseless(name) in NOT_NAMES:
        return
    named = _filed_last(earlier, found, name, subject, lambda key: key.endswith("_name"))
    if named is None or named.base_key not in PET_NAME_KEYS:
        return
    part = named.base_key.removeprefix("pet_").removesuffix("_name")
    when = own_time(gone.string, gone)
    found.add(candidate_of(_GONE_AGAIN_RULE, {"value": named.value, "part": part, "kind": part.replace("_", " "),
                                              **({"happened": when} if when else {})}, message_id, quote, subject))


def _filed_last(earlier: Facts, found: Facts, name: str, subject: str, filed: Callable[[str], bool],
                past_too: bool = False) -> Candidate | None:
    """The last current fact of the speaker's (or, `past_too`, the last fact, current or of the past)
    that files `name` under a key `filed` takes (its base key), this turn's before the history's: who
    the session last said they are."""
    mark = _value_mark(name)
    return next((c for c in chain(found.latest_first(), earlier.latest_first()) if c.subject == subject
                 and (past_too or not c.historical) and filed(c.base_key) and _value_mark(c.value) == mark), None)


def correct_named(pool: Facts, found: Facts, before_id: str, named: re.Match[str], message_id: str, quote: str,
                  subject: str) -> None:
    """"Sorry, her name is Anna.", said right after a message that filed a name: the last name that
    message filed, of a person (or pet) the pronoun may stand for, re-stated with the right one ("My
    sister is Ana and my brother is Tom." then "Sorry, his name is Thomas": Tom). Nothing when the message
    before filed no name the pronoun fits."""
    pronoun = literal.caseless(named.group("pronoun"))
    fits = [(n, c) for n, c in pool.of_message(before_id) if c.subject == subject and c.key.endswith("name")
            and c.value[:1].isupper() and c.value in c.content and not c.historical
            and _gender(c) in (None, pronoun)]
    if not fits:
        return
    number, wrong = fits[-1]
    right = named.group("new")
    if _value_mark(right) == _value_mark(wrong.value):
        return
    if pool is found:  # said in this turn: only the right one is filed
        found.drop(number)
    found.add(replace(wrong, value=right, content=wrong.content.replace(wrong.value, right, 1),
                      source_message_id=message_id, raw_quote=quote, corrects=wrong.value))


def correct_restated(pool: Facts, found: Facts, stated: int, before_id: str) -> None:
    """"Correction: my dog's name is Biscuit.", said right after "My dog's name is Buddy.": each fact
    the correction states re-states the one fact of its key the message before filed with another
    value, and replaces it (`corrects`) rather than adding a second dog. Nothing when the message before
    filed no fact of that key, or more than one (which was meant?)."""
    for number, fact in found.since(stated):
        if fact.historical:
            continue
        wrong = [(n, c) for n, c in pool.of_message(before_id) if c.key == fact.key and c.subject == fact.subject
                 and not c.historical]
        if len(wrong) != 1 or _value_mark(wrong[0][1].value) == _value_mark(fact.value):
            continue
        if pool is found:  # said in this turn: only the right one is filed
            found.drop(wrong[0][0])
        found.swap(number, replace(fact, corrects=wrong[0][1].value))


def _same_fact(key: str, corrected: str) -> bool:
    """Whether a fact read in a correction is the corrected one: its key, or its key without the name
    ("Actually my sister lives in Porto, not Braga" reads `sister_city`, of the sister Ana whose
    `sister_ana_city` it corrects)."""
    head, _, tail = key.partition("_")
    return key == corrected or (bool(tail) and len(corrected) > len(key) + 1
                                and corrected.startswith(f"{head}_") and corrected.endswith(f"_{tail}"))


def _right_value(match: re.Match[str], wrong: Candidate) -> str | None:
    """The right value a correction gives for `wrong`, in its shape (a number for a number, a name
    for a name), when the other words said before "not" are words of the wrong fact."""
    said = match.group("new2") or match.group("said")
    if wrong.value.isdigit():
        right = _SAID_NUMBER.search(said)
    elif _A_DATE.fullmatch(wrong.value):
        right = _SAID_DATE.search(said)
    elif wrong.value[0].isupper():
        right = _SAID_NAME.search(said)
        while right and _no_fact_word(right.group("new").split()[0]):
            right = _SAID_NAME.search(said, right.start("new") + len(right.group("new").split()[0]))
    else:
        words = len(wrong.value.split())
        right = re.search(rf"(?:^|\s)(?P<new>\S+(?:\s+\S+){{{words - 1}}})$", said)
    if right is None:
        return None
    new = right.group("new")
    around = (said[:right.start("new")] + " " + said[right.end("new"):]).casefold()
    known = set(re.findall(r"[\w']+", plain.plain(f"{wrong.raw_quote} {wrong.content}").casefold()))
    if any(word not in known and not _no_fact_word(word) for word in re.findall(r"[\w']+", around)):
        return None
    return str(to_number(new)) if wrong.value.isdigit() else new
