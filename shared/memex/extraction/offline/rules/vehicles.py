"""Rules of what the user drives or rides: a car (one at a time, the past one once sold), whether they
drive, a bicycle or a motorbike, a boat."""

from __future__ import annotations

import re

from memex.extraction import vocabulary
from memex.extraction.offline.patterns import ADVERBS, MONTH, MY, NO_ONE, NUMBER, PROPER, WEEKDAY, alternation
from memex.extraction.offline.rule import rule
from memex.extraction.offline.values import Fields, as_said
from memex.literal import caseless


# A car: its maker, and the capitalised words or numbers of its model ("Tesla Model 3", "Ford F-150",
# "Volvo XC90"), with its year when one comes first ("2015 Honda Civic"). What follows ends the clause or says when: "a
# Tesla charger", "Tesla stock" and "a Honda Civic for my daughter" are no car of the user's.
_CAR_MODEL = rf"(?!(?:I|{WEEKDAY}|{MONTH})(?![\w-]))[A-Z0-9][\w-]*"
_CAR = (rf"(?P<value>(?:(?:19[5-9]\d|20[0-4]\d) )?(?:{alternation(vocabulary.CAR_MAKES)})(?:\s+{_CAR_MODEL}){{0,3}})"
        r"(?![\w'&-])")
_A_CAR = r"(?:an?|my|our) (?:(?:new|brand new|used|second-hand|secondhand|old|electric|little) )*"
# A new car named after its kind: "I bought a new car, a Kia Niro", "got a new car: a Tesla".
_A_NEW_CAR = rf"{_A_CAR}(?:car(?:,|:| -) {_A_CAR})?"
# The car sold, the one both know of: "We sold the Skoda".
_THE_CAR = rf"(?:{_A_CAR}|the (?:old )?)"
_CAR_END = (rf"(?=\s*(?:[^\w\s'&-]|$)|\s+(?:and|but|so|because|since|last|this|yesterday|today|recently|now|these days|"
            rf"every|to work|for (?:years|months|ages|a (?:while|year|few|couple)|(?:{NUMBER}) (?:years?|months?)))\b)")
# A vehicle ridden that is no car, by its kind, one word for each (vehicle).
_RIDDEN = {"bicycle": "bicycle", "bike": "bicycle", "push bike": "bicycle", "e-bike": "e-bike", "ebike": "e-bike",
           "motorbike": "motorbike", "motorcycle": "motorbike", "scooter": "scooter", "moped": "moped"}
_A_MAKE = re.compile(rf"(?<![\w-])(?:{alternation(vocabulary.CAR_MAKES)})(?![\w-])")


def _car(m: re.Match[str]) -> list[Fields]:
    value = m.group("value")
    return [{"value": value, "a": "an" if value[0] in "AEIOU" else "a"}]


_BOAT = r"(?:sail|speed|motor|narrow|house|fishing )?boat|yacht|dinghy|canoe|kayak"
_NO_CAR_END = (r"(?=\s*(?:[.,;!)]|$)|\s+(?:anymore|any more|now|right now|at the moment|these days|yet|either|at all|"
               r"and|but|so|because|since)\b)")


def _no_car(m: re.Match[str]) -> list[Fields]:
    """"I sold my car": no car now, unless the sentence names one ("I sold my car and bought a
    Tesla"), which is then the car."""
    return [] if _A_MAKE.search(m.string) else [{"value": "none"}]


RULES = [
    # the user's car, one at a time
    rule("fact", "car", "drive driving bought got own have leased car", [
        rf"\b(?:I|[Ww]e)(?:'ve| have)? {ADVERBS}(?:drive|bought|got|own|have|leased) {_A_NEW_CAR}{_CAR}{_CAR_END}",
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are|'ve been| have been) {ADVERBS}driving {_A_CAR}{_CAR}{_CAR_END}",
        rf"{MY} (?:new |current )?car(?:'s| is) (?:an? )?{_CAR}{_CAR_END}",
    ], "The user drives {a} {value}.", _car, confidence=0.75, importance=0.6),
    rule("fact", "car", "used previously sold traded rid scrapped", [
        rf"\b(?:I|[Ww]e) (?:used to (?:drive|have|own)|previously (?:drove|owned)) {_A_CAR}{_CAR}{_CAR_END}",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? {ADVERBS}(?:{alternation(vocabulary.CARS_PARTED_WITH)}) {_THE_CAR}{_CAR}"
        rf"(?:{_CAR_END}|(?= to\b))",
    ], "The user used to drive {a} {value}.", _car, confidence=0.7, importance=0.5, historical=True),
    rule("fact", "car", "sold rid scrapped car written totalled totaled stolen", [
        rf"\b(?:I|[Ww]e)(?:'ve| have)? {ADVERBS}(?:sold|got rid of|scrapped) (?:my|our) (?:old )?car(?![\w'-])"
        rf"(?:{_CAR_END}|(?= to\b))",
        # "I don't have a car", "We don't own a car anymore"; not "a car seat", nor "a car today"
        rf"\b(?:I|[Ww]e) (?:(?:don't|do not|no longer)(?: even)? (?:have|own)|(?:haven't|have not) got) (?:an? )?"
        rf"car(?![\w'-]){_NO_CAR_END}",
        # "My car was written off in a crash", "our car got stolen": gone, as a car sold is
        rf"{MY} (?:old )?car (?:was|got|has been|'s been) {ADVERBS}(?:written off|totall?ed|stolen|scrapped)(?![\w'-])",
    ], "The user has no car now.", _no_car, confidence=0.7, importance=0.6),
    # Whether the user drives: "I can't drive", "I never learned to drive"; "I passed my driving test"
    rule("fact", "drives", "drive", [
        r"\bI (?:can't|cannot|can not|don't|do not|never learned to|never learnt to) drive"
        r"(?=\s*(?:[.,;!)]|$)|\s+(?:and|but|so|because|yet|at all|either)\b)",
    ], "The user does not drive.", lambda m: [{"value": "no"}], confidence=0.7, importance=0.6),
    rule("fact", "drives", "passed", [
        rf"\bI(?:'ve| have)? {ADVERBS}passed my driving test(?![\w'-])",
    ], "The user drives.", lambda m: [{"value": "yes"}], confidence=0.7, importance=0.6),
    # A vehicle ridden that is no car, by its name: "I ride a Vespa to work", "I cycle to work on a Brompton"
    rule("fact", "vehicle", "ride riding cycle commute", [
        rf"\bI(?:'m| am)? {ADVERBS}(?:ride|riding|cycle(?: to work)? on|commute on) an? (?:(?:new|old|used|vintage) )*"
        rf"(?P<value>(?!{NO_ONE}\b|Peloton\b){PROPER})"
        r"(?=\s*(?:[^\w\s'&-]|$)|\s+(?:to|on|at|in|every|and|but|around|most|for|these days|now)\b)",
    ], "The user rides a {value}.", as_said, confidence=0.65, importance=0.5),
    # one bought or owned, by its kind when no name is said: "I bought a bicycle." (not "a bike for my son")
    rule("fact", "vehicle", "bought got own have", [
        rf"\bI(?:'ve| have)? {ADVERBS}(?:bought|got|own|have) an? (?:(?:new|used|second-hand|old|electric) )*"
        rf"(?P<kind>{alternation(_RIDDEN)}){_CAR_END}",
    ], "The user has a {value}.", lambda m: [{"value": _RIDDEN[caseless(m.group("kind"))]}], confidence=0.65,
         importance=0.5),
    # the user's boat, as the car: what kind, the past once sold, "none" when sold without its kind
    rule("fact", "boat", "have own bought got", [
        rf"\b(?:I|[Ww]e)(?:'ve| have)? {ADVERBS}(?:have|own|bought|got) (?:an?|our|my) (?:(?:new|used|old|little) )?"
        rf"(?P<value>{_BOAT}){_CAR_END}",
    ], "The user has a {value}.", as_said, confidence=0.7, importance=0.6),
    rule("fact", "boat", "sold rid", [
        rf"\b(?:I|[Ww]e)(?:'ve| have)? {ADVERBS}(?:sold|got rid of) (?:my|our|the) (?:old )?(?!boat\b)(?P<value>{_BOAT})"
        rf"(?:{_CAR_END}|(?= to\b))",
    ], "The user used to have a {value}.", as_said, confidence=0.7, importance=0.5, historical=True),
    rule("fact", "boat", "sold rid", [
        rf"\b(?:I|[Ww]e)(?:'ve| have)? {ADVERBS}(?:sold|got rid of) (?:my|our|the) (?:old )?boat(?:{_CAR_END}|(?= to\b))",
    ], "The user has no boat now.", lambda m: [{"value": "none"}], confidence=0.7, importance=0.6),
]
