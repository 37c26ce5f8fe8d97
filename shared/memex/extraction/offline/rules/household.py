"""Rules of whom the user lives with: each one named in "I live with my mom and dad", a partner not
named, living alone, someone moved in or out."""

from __future__ import annotations

import re

from memex.extraction import vocabulary
from memex.extraction.offline.patterns import (ADVERBS, KIN_ADJECTIVE, MONTH, MY, NOT_NAMES, NO_ONE, NUMBER,
    PARTNER_WORD, PROPER, UPPER, WEEKDAY, alternation)
from memex.extraction.offline.rule import rule
from memex.extraction.offline.values import Fields, a_name
from memex.literal import caseless


# Living somewhere, after "I" or "We": a contraction takes no space before it ("I'm living"), and the
# adverbs come after it ("I'm now living").
_LIVING = (rf"(?: {ADVERBS}(?:live|am living|are living|have been living)|(?:'m|'re) {ADVERBS}living"
           rf"|'ve {ADVERBS}been living)")
# Who the user lives with: "My mom lives with us now", "My sister moved in with me", "I live with my
# parents", "I live with my mom and dad" (each one a value); and who no longer does ("My brother moved
# out").
_HOUSEHOLD_ONE = rf"(?i:{alternation(vocabulary.HOUSEHOLD)})(?![\w'-])"
_HOUSEHOLD = (rf"(?P<who>{_HOUSEHOLD_ONE}(?:(?:,|,? and) (?:(?i:my|our) )?{KIN_ADJECTIVE}{_HOUSEHOLD_ONE}){{0,3}})")
_HOUSEHOLD_WORD = re.compile(rf"{_HOUSEHOLD_ONE}$")
_HOME_END = (rf"(?=\s*(?:[^\w\s'-]|$)|\s+(?:now|again|full[- ]time|last|this|since|for|and|but|so|because|after|when|"
             rf"recently|yesterday|in (?:\d{{4}}|{UPPER}\w*)|a (?:few|couple)|(?:{NUMBER}) (?:days?|weeks?|months?|years?) ago)\b)")
_HOUSEHOLD_NAMED = rf"{MY} {KIN_ADJECTIVE}{_HOUSEHOLD}(?:,? (?P<name>{PROPER}),?)?"


def _household_partner(m: re.Match[str]) -> list[Fields]:
    return [{"value": caseless(m.group("value"))}]


def _household(m: re.Match[str]) -> list[Fields]:
    """Each one lived with, by the word said ("mom", "dad"); a name only when one is ("my sister Ana")."""
    name = m.group("name")
    if name and caseless(name) in NOT_NAMES:
        return []
    said = re.split(r",? and |, ", m.group("who"))
    named = f" {name}" if name and len(said) == 1 else ""
    return [{"value": caseless(_HOUSEHOLD_WORD.search(who).group()), "named": named} for who in said]


RULES = [
    # who the user lives with (_household)
    rule("fact", "lives_with", "lives living live moved", [
        rf"{_HOUSEHOLD_NAMED} {ADVERBS}(?:lives|live|is living|'s living|are living|has been living|'s been living|"
        rf"have been living) with (?:me|us){_HOME_END}",
        # "moved in", not "is moving in", which is ahead
        rf"{_HOUSEHOLD_NAMED} (?:has |have |'s )?{ADVERBS}moved (?:back )?in with (?:me|us){_HOME_END}",
        rf"\b(?:I|[Ww]e)(?:{_LIVING}| {ADVERBS}moved (?:back )?in) with (?:my|our) (?:(?:{NUMBER}) )?{KIN_ADJECTIVE}{_HOUSEHOLD}(?:,? (?P<name>{PROPER}))?"
        rf"{_HOME_END}",
        # those one shares a home with, said without "my": "I live with two roommates in a tiny apartment"
        rf"\b(?:I|[Ww]e){_LIVING} with (?:(?:{NUMBER}|a few|a couple of) |an? )(?P<who>(?i:roommates?|flatmates?|housemates?))(?P<name>)"
        rf"(?:{_HOME_END}|(?= in (?:an?|the) ))",
    ], "The user lives with their {value}{named}.", _household, confidence=0.7, importance=0.6),
    # a partner not named ("I live with my boyfriend"); one named is the partner's name rule's, and "I
    # moved in with my boyfriend" stays unfiled (test_who_the_user_lives_with)
    rule("fact", "lives_with", "live living together", [
        rf"\b(?:I|[Ww]e){_LIVING} with (?i:my) (?P<value>(?i:{PARTNER_WORD})){_HOME_END}(?!,? {PROPER})",
        # "My girlfriend and I moved in together", "My husband and I live together"
        rf"{MY} (?P<value>(?i:{PARTNER_WORD})) and I {ADVERBS}(?:moved in together|(?:live|are living|'re living) "
        rf"together){_HOME_END}",
    ], "The user lives with their {value}.", _household_partner, confidence=0.7, importance=0.6),
    # living alone: "I live alone now.", "I've been living on my own since May" (supersession ends those
    # lived with; one moving in ends it)
    rule("fact", "lives_with", "live living alone own myself", [
        rf"\bI(?: {ADVERBS}(?:live|am living|have been living)|'m {ADVERBS}living|'ve {ADVERBS}been living) "
        rf"(?:alone|on my own|by myself)"
        rf"{_HOME_END}",
    ], "The user lives alone.", lambda m: [{"value": "alone"}], confidence=0.7, importance=0.6),
    # Someone by name alone, opening the sentence: "Sam moved in with me." (a partner's name among them:
    # who it is the session may not say)
    rule("fact", "lives_with", "moved", [
        rf"^(?P<value>(?!I\b|{MONTH}|{WEEKDAY}|{NO_ONE}\b){UPPER}[a-z'-]+) (?:has |'s )?{ADVERBS}moved (?:back )?in with (?:me|us)"
        rf"{_HOME_END}",
    ], "The user lives with {value}.", a_name, confidence=0.65, importance=0.6),
    rule("fact", "lives_with", "moved", [
        rf"{_HOUSEHOLD_NAMED} (?:has |'s )?{ADVERBS}moved out{_HOME_END}",
    ], "The user no longer lives with their {value}{named}.", _household, confidence=0.7, importance=0.5,
         historical=True),
]
