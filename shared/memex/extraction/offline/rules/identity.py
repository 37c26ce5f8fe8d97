"""Rules of who the user is: their name, phone number, age, handedness and how many children they have."""

from __future__ import annotations

import re

from memex.extraction.offline.patterns import AGE_END, HAVE, MY, NUMBER, PROPER, ROLE, ROLE_END, TURNED_END, TURNING
from memex.extraction.offline.rule import rule
from memex.extraction.offline.values import Fields, a_name, an_age, to_number
from memex.literal import caseless


# What a user may type capitalised after "I'm" that names nobody.
_TITLE_CASED = frozenset(
    "ok okay fine good great back done here home ready sorry tired single married pregnant retired vegan "
    "vegetarian autistic dyslexic diabetic epileptic coeliac celiac bipolar deaf blind gay straight bi trans "
    "queer millennial boomer".split()) | {"gen x", "gen y", "gen z"}


def _own_name(m: re.Match[str]) -> list[Fields]:
    value = m.group("value")
    # "I'm INFJ.", "I'm Pro-choice."
    if value.isupper() or re.search(r"-[a-z]", value) or caseless(value) in _TITLE_CASED:
        return []
    return a_name(m)


_SONS_DAUGHTERS = r"(?:sons?|daughters?|boys?|girls?)"


def _children(m: re.Match[str]) -> list[Fields]:
    value = m.group("value")
    count = (1 if caseless(value) in ("a", "an") else to_number(value)) if value else 0
    more = m.groupdict().get("more")
    if count is not None and more:  # "two daughters and a son"
        added = 1 if more in ("a", "an") else to_number(more)
        count = None if added is None else count + added
    if count is None or count > 20:
        return []
    said = {0: "no children", 1: "1 child"}.get(count, f"{count} children")
    return [{"value": str(count), "said": said}]


# A phone number, whole as said ("+44 7700 900123", "(415) 555-0199"): 7 to 15 digits.
_PHONE = r"(?P<value>\+?\(?\d[\d ().-]{5,22}\d)(?![\w-])"
_PHONE_KIND = r"(?:phone|mobile|cell|cellphone|cell phone|telephone)"
# "my phone number", "my number", "my mobile", "my cell"; not "my order number".
_PHONE_NAME = rf"(?:(?:{_PHONE_KIND}|contact) )?number|{_PHONE_KIND}"


def _phone(m: re.Match[str]) -> list[Fields]:
    return [{"value": m.group("value")}] if 7 <= sum(c.isdigit() for c in m.group("value")) <= 15 else []


def _handedness(m: re.Match[str]) -> list[Fields]:
    """"left handed", "Left-handed", "a lefty": one spelling, "left-handed"."""
    said = caseless(m.group("value"))
    return [{"value": "ambidextrous" if said == "ambidextrous" else
             "left-handed" if said.startswith(("left", "a left")) else "right-handed"}]


RULES = [
    # Which hand the user writes with: "I'm left-handed.", "I am a lefty", "Not sure if I mentioned it, I'm
    # ambidextrous." Only said of the user, the clause closing there or going on ("I'm right-handed but I bat left" too).
    rule("fact", "handedness", "handed ambidextrous lefty leftie righty", [
        r"\bI(?:'m| am) (?:(?:also|actually|naturally|totally|fully) )?"
        r"(?P<value>(?i:left|right)[- ]handed|ambidextrous|a (?:lefty|leftie|righty))(?=\s*(?:[.!,;]|$)|\s+(?:but|and|like|too|though)\b)",
    ], "The user is {value}.", _handedness, importance=0.5),
    rule("fact", "name", "name by hi hello hey call m am", [
        rf"\b(?i:my) (?:first )?name(?:'s| is) (?P<value>{PROPER})",
        rf"\bI go by (?P<value>{PROPER})",
        rf"^(?i:hi|hello|hey)(?: there)?[,!]? I(?:'m| am) (?P<value>{PROPER})",
        rf"\bI(?:'m| am) (?P<value>{PROPER}), (?:an?|the) {ROLE}{ROLE_END}",
        rf"\b(?i:you can|please|just) call me (?P<value>{PROPER})",
    ], "The user's name is {value}.", importance=0.9),
    # A sentence that is only an introduction ("I'm Marco.", "I'm Marco, Anna's husband.", "Call me
    # Marco."): what else follows "I'm" capitalised is a nationality or faith (NOT_NAMES), a type
    # or an acronym in capitals ("I'm INFJ."), or a word typed in title case (_TITLE_CASED).
    rule("fact", "name", "m am call", [
        rf"^I(?:'m| am) (?P<value>{PROPER})(?:[.!]*$|(?=, ))",
        rf"^(?i:call) me (?P<value>{PROPER})[.!]*$",
    ], "The user's name is {value}.", _own_name, importance=0.9),
    rule("fact", "phone_number", "number phone mobile cell cellphone telephone reach call text ring contact "
         "message whatsapp", [
        rf"{MY} (?:new |current |own )?(?:{_PHONE_NAME})(?:(?:'s| is)(?: now)?|:) "
        rf"{_PHONE}",
        # "I got a new phone number: 555-0177", "I've got a new mobile number, it's 555-0190"
        rf"\bI(?:(?:'ve| have)? (?:just )?got| have) (?:a )?new (?:{_PHONE_NAME})(?::|,? (?:it's|it is|which is)|,? -|,)? "
        rf"{_PHONE}",
        # How to reach the user, said to whoever may: "You can reach me at +1 617 555 0123", "Call me on 07700 900321"
        rf"(?:(?:^|(?<=[,;:] ))(?:(?i:please|pls|just|so|also|and|or) )?|\b(?i:you can|feel free to) )"
        rf"(?i:reach|call|text|ring|phone|contact|message|whatsapp) me (?:at|on) {_PHONE}",
    ], "The user's phone number is {value}.", _phone, importance=0.7),
    rule("fact", "phone_number", "number phone mobile cell cellphone telephone", [
        rf"{MY} (?:old|previous|former) (?:{_PHONE_NAME})(?: (?:was|is)|:) "
        rf"{_PHONE}",
    ], "The user's phone number used to be {value}.", _phone, confidence=0.7, importance=0.5, historical=True),
    rule("fact", "age", "m am turned turn turning", [
        rf"\bI(?:'m| am) (?P<value>{NUMBER})(?: (?:years?|yrs?) old| years of age| ?y/?o)?{AGE_END}",
        rf"\bI (?:just |recently )?turned (?P<value>{NUMBER}){TURNED_END}",
        rf"\bI(?:'m| am) an? (?P<value>{NUMBER})[- ]years?[- ]old (?=[a-z])",
        rf"\bI(?:'m| am)? {TURNING}",
        # "I turn 30 today!": the birthday is today, so the age is the new one (not one less)
        rf"\bI(?:'m| am)? (?:turn|turning) (?P<value>{NUMBER}) today(?=\s*(?:[.!,;]|$))",
    ], "The user is {value} years old.", an_age, importance=0.6),
    rule("fact", "number_of_children", "have got m am as", [
        rf"{HAVE} (?P<value>{NUMBER}) (?:kids|children|kid|child)(?![\w'])",
        # "two daughters" counts them; "no sons" says nothing of daughters, "two girls coming over" nothing of children
        rf"{HAVE} (?!no\b)(?P<value>{NUMBER}) {_SONS_DAUGHTERS}(?: and (?P<more>an?|{NUMBER}) {_SONS_DAUGHTERS})?"
        r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:and|but|who|aged|named|called)\b)",
        # "a son and a daughter" counts them too; "a son" alone does not say he is the only child
        rf"{HAVE} (?P<value>an?) {_SONS_DAUGHTERS} and (?P<more>an?|{NUMBER}) {_SONS_DAUGHTERS}"
        r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:and|but|who|aged|named|called)\b)",
        rf"\bI(?:'m| am) a (?:mother|mom|mum|father|dad|parent) of (?P<value>{NUMBER})(?![\w'])",
        # "as a mom of three, I ...": who the user is, said in passing
        rf"\b(?i:as) a (?:mother|mom|mum|father|dad|parent) of (?P<value>{NUMBER}),? I\b",
        r"\b(?:I|[Ww]e) (?:don't|do not) have (?:any )?(?:kids|children)(?P<value>)(?![\w'])",
        # said after what the user is, as a fragment: "I'm divorced, no kids."
        rf"\bI(?:'m| am) (?:(?:now |happily )?(?:single|married|divorced|widowed|separated|engaged|retired)|"
        rf"(?:{NUMBER})|an? [^,.;!?]{{1,30}}), (?:and )?no (?:kids|children)(?P<value>)(?: yet)?(?=\s*(?:[.!;,]|$))",
    ], "The user has {said}.", _children, importance=0.6),
]
