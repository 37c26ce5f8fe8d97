"""Rules of languages spoken, nationality and schooling: a field of study, a degree, a school, the
year of graduation. Each holds several values (families.py), and a later school ends no earlier degree."""

from __future__ import annotations

import re

from memex.extraction import vocabulary
from memex.extraction.offline.patterns import (ADVERBS, DEGREE, DEGREE_SAID, FIELDS_SAID, INTRODUCED, MONTH, MY,
    NOT_TEMPORARY, ORG, PROPER, SCHOOL_END, SCHOOL_WORDS, UNTIL_SAID, alternation, strict_end)
from memex.extraction.offline.rule import rule
from memex.extraction.offline.values import Fields, a_year, school, unless_a_stay
from memex.literal import caseless


_LANGUAGE_NAMES = {caseless(name): name for name in vocabulary.LANGUAGES}
# How well a language is spoken, said before it ("fluent Spanish", "a little English"): kept in the
# sentence, not in the value.
_HOW_SPOKEN = r"(?:fluent|basic|conversational|decent|good|broken|some|a little|a bit of)"
# A language spoken, in any case: after "I speak" or "fluent in" nothing else is meant by "french".
_SPOKEN = rf"(?:{_HOW_SPOKEN} )?(?i:{alternation(vocabulary.LANGUAGES)})(?![\w'-])"
# Where or to whom a language is spoken, or how well, said after it: "English at work and Polish at
# home", "Spanish with my mom and English with my dad". Never a language itself ("with my French
# in-laws" is no qualifier: the list ends before it).
_NOT_A_LANGUAGE = rf"(?!(?i:{alternation(vocabulary.LANGUAGES)})(?![\w'-]))"
_WHERE_SPOKEN = (rf"(?:at (?:work|home|school|the office)|(?:with|to) (?:my|our) {_NOT_A_LANGUAGE}[a-z]+(?:-in-law)?|"
                 r"with (?:friends|family|colleagues|clients|customers|patients)|fluently|natively|(?:fairly |pretty )?well|"
                 r"a (?:bit|little))")
_SPOKEN_ITEM = rf"{_SPOKEN}(?: {_WHERE_SPOKEN})?"
_SPOKEN_LIST = rf"{_SPOKEN_ITEM}(?:(?:,|,? and|,? or) {_SPOKEN_ITEM}){{0,5}}"
_ONE_SPOKEN = re.compile(rf"(?:(?P<how>{_HOW_SPOKEN}) )?(?P<language>(?i:{alternation(vocabulary.LANGUAGES)}))(?![\w'-])")
_SPOKEN_END = (r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:fluently|natively|well|fairly|pretty|quite|very|really|a bit|a little|"
               r"at|with|to|and|but|so|too|as|since|because|every|daily|now|though|in|growing up)\b)")
_NATIONALITY = rf"(?:{alternation(vocabulary.NATIONALITIES)})(?![\w'-])"
_NATIONALITIES_SAID = rf"{_NATIONALITY}(?:(?:,|,? and) {_NATIONALITY})?"
# "I'm Irish on my mother's side", "I'm Italian-American", "I'm French-speaking": no citizenship said.
_NATIONALITY_END = strict_end("and", "by birth", "by nationality", "too", "myself", "originally", "though", "btw",
                              punctuation=r"[^\w\s'-]")
_FIELD_END = (r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:at|in|from|and|but|so|because|for|since|as|with|when|while|before|"
              rf"after|now|too|then|last|this|{UNTIL_SAID})\b)")
_DEGREE_END = (r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:from|at|and|but|so|because|in \d{4}|last|this|since|too|now|when|"
               r"while|before|after|with)\b)")
_HAS_DEGREE = r"\bI(?: have|'ve got| have got| hold| earned| got| received| completed| finished| did| graduated with)"
_DOING_DEGREE = r"\bI(?:'m| am) (?:currently |now |still )?(?:doing|working on|studying for|pursuing|finishing|completing)"
# What one goes to a school for, which makes "I went to Harvard" schooling and not a visit.
_FOR_SCHOOLING = (r"(?=\s+for (?:undergrad|college|uni|university|grad school|graduate school|law school|med school|"
                  r"medical school|business school|my (?:degree|undergrad|master's|masters|PhD|MBA|bachelor's)))")
_GRADUATED_WHEN = (rf"(?: (?P<when>in \d{{4}}|in {MONTH}|last (?:year|spring|summer|month|week)|"
                   r"this (?:year|spring|summer)))?")


def _spoken(m: re.Match[str]) -> list[Fields]:
    """Each language of a list ("English, Hindi and Tamil", "English at work and Polish at home"), by
    its name, with how well it is spoken when said before it."""
    return [{"value": _LANGUAGE_NAMES[caseless(one.group("language"))],
             "how": f"{one.group('how')} " if one.group("how") else ""}
            for one in _ONE_SPOKEN.finditer(m.group("value"))]


def _nationalities(m: re.Match[str]) -> list[Fields]:
    return [{"value": n} for n in re.split(r",? and |, ", m.group("value"))]


_FIELD_NAMES = frozenset(vocabulary.FIELDS_OF_STUDY)


def _fields(m: re.Match[str]) -> list[Fields]:
    """Each field of "history and economics"; "design and technology" is one."""
    value = m.group("value")
    return [{"value": f} for f in ([value] if caseless(value) in _FIELD_NAMES else value.split(" and "))]


# What a school named by its subject teaches ("med school": medicine).
_SCHOOL_OF = {"nursing": "nursing", "law": "law", "med": "medicine", "medical": "medicine", "dental": "dentistry",
              "vet": "veterinary medicine", "veterinary": "veterinary medicine", "art": "art", "drama": "drama",
              "film": "film", "business": "business", "architecture": "architecture"}


def _degree(m: re.Match[str]) -> list[Fields]:
    value = m.group("value")
    acronym = value[:2].isupper() and value[0] in "AEFHILMNORSX"
    return [{"value": value, "a": "an" if acronym else vocabulary.article(value)}]


def _school_named(m: re.Match[str]) -> list[Fields]:
    """A school gone to, when its name says it is one ("Lincoln High School"): "I went to Oxford" may
    be a visit."""
    if not SCHOOL_WORDS.intersection(caseless(w) for w in m.group("value").split()):
        return []
    return school(m)


RULES = [
    # languages, nationality and schooling: each holds several values (families.py),
    # and a later school ends no earlier degree
    rule("fact", "language", "speak speaking fluent bilingual trilingual conversational proficient speaker", [
        rf"\bI {ADVERBS}(?:can )?speak (?P<value>{_SPOKEN_LIST}){_SPOKEN_END}",
        rf"\bI grew up speaking (?P<value>{_SPOKEN_LIST}){_SPOKEN_END}",
        rf"\bI(?:'m| am) (?:(?:completely|totally|fully|pretty|quite|almost|also) )?(?:fluent|bilingual|trilingual|"
        rf"conversational|proficient) in (?P<value>{_SPOKEN_LIST}){_SPOKEN_END}",
        rf"\bI(?:'m| am) an? (?:fluent )?(?P<value>{_SPOKEN}) speaker(?![\w'-])",
    ], "The user speaks {how}{value}.", _spoken, importance=0.6),
    rule("fact", "language", "native first mother", [
        rf"{MY} (?:native|first|mother) (?:language|tongue)(?: is|'s) (?P<value>{_SPOKEN}){_SPOKEN_END}",
        rf"(?:^|[,;:]\s*|\b(?i:and|but|so) )(?P<value>{_SPOKEN}) is my (?:native|first|mother) (?:language|tongue)\b",
        rf"\bI(?:'m| am) an? native (?P<value>{_SPOKEN}) speaker(?![\w'-])",
    ], "The user's native language is {value}.", _spoken, importance=0.6),
    rule("fact", "nationality", "m am citizen national citizenship nationality passport passports", [
        rf"\bI(?:'m| am) (?:also |both )?(?P<value>{_NATIONALITIES_SAID}){_NATIONALITY_END}",
        rf"\bI(?:'m| am|'ve become| have become| became| just became) (?:also |now )?an? (?P<value>{_NATIONALITY}) "
        r"(?:citizen|national)(?![\w'-])",
        rf"\bI(?: have|'ve got| have got| hold| got| just got| recently got) (?:an? |my |dual |both )?"
        rf"(?P<value>{_NATIONALITIES_SAID}) (?:citizenship|nationality|passports?)(?![\w'-])",
        rf"{MY} nationality is (?P<value>{_NATIONALITIES_SAID}){_NATIONALITY_END}",
    ], "The user's nationality is {value}.", _nationalities, importance=0.6),
    rule("fact", "field_of_study", "studied majored minored undergrad undergraduate", [
        rf"\bI {ADVERBS}(?:studied|majored in|minored in) (?P<value>{FIELDS_SAID}){_FIELD_END}",
        # a first degree said without its name: "I did my undergrad in history at Yale"
        rf"\bI did my (?:undergrad|undergraduate|undergraduate degree|bachelor's|bachelors|BA|BSc|BS) in "
        rf"(?P<value>{FIELDS_SAID}){_FIELD_END}",
    ], "The user studied {value}.", _fields, confidence=0.75, importance=0.6),
    rule("fact", "field_of_study", "studying study majoring major", [
        rf"\bI(?:'m| am|'ve been| have been) {ADVERBS}(?:studying|majoring in) (?P<value>{FIELDS_SAID}){_FIELD_END}",
        rf"\bI {ADVERBS}study (?P<value>{FIELDS_SAID}){_FIELD_END}",
        rf"{MY} major is (?P<value>{FIELDS_SAID}){_FIELD_END}",
    ], "The user is studying {value}.", _fields, confidence=0.75, importance=0.6),
    # a school named by what it teaches: "I'm in my final year of nursing school", "I go to art school"
    rule("fact", "field_of_study", "school", [
        rf"\bI(?:(?:'m| am) {ADVERBS}(?:in|at) (?:my (?:first|second|third|fourth|fifth|final|last) year (?:of|at) )?|"
        rf" {ADVERBS}go to )(?P<value>(?i:{alternation(_SCHOOL_OF)})) school(?![\w'-])",
    ], "The user is studying {value}.", lambda m: [{"value": _SCHOOL_OF[caseless(m.group("value"))]}],
         confidence=0.75, importance=0.6),
    rule("fact", "degree", "have got hold earned received completed finished did graduated", [
        rf"{_HAS_DEGREE} (?:an?|my) (?P<value>{DEGREE_SAID}){_DEGREE_END}",
    ], "The user has {a} {value}.", _degree, confidence=0.75, importance=0.6),
    rule("fact", "degree", "doing working studying pursuing finishing completing year", [
        rf"{_DOING_DEGREE} (?:an?|my) (?P<value>{DEGREE_SAID}){_DEGREE_END}",
        rf"\bI(?:'m| am) (?:now )?in (?:the |my )?(?:first|second|third|fourth|fifth|final|last) year of (?:an?|my) "
        rf"(?P<value>{DEGREE_SAID}){_DEGREE_END}",
    ], "The user is doing {a} {value}.", _degree, confidence=0.75, importance=0.6),
    rule("fact", "school", "studied went did have got hold earned received completed finished grad graduate "
         "alum alumnus alumna majored minored", [
        rf"\bI {ADVERBS}(?:studied (?:{FIELDS_SAID} )?|(?:majored|minored) in {FIELDS_SAID} )at (?:the )?(?P<value>{ORG})"
        rf"{NOT_TEMPORARY}{SCHOOL_END}",
        r"\bI went to (?:college|university|uni|school|grad school|graduate school|law school|med school|"
        rf"medical school|business school|high school) at (?:the )?(?P<value>{ORG}){SCHOOL_END}",
        rf"\bI went to (?:the )?(?P<value>{ORG}){_FOR_SCHOOLING}",
        rf"\bI did my (?:{DEGREE}|undergrad|undergraduate|undergraduate degree)(?: in {FIELDS_SAID})? at (?:the )?"
        rf"(?P<value>{ORG}){SCHOOL_END}",
        rf"{_HAS_DEGREE} (?:an?|my) {DEGREE_SAID} from (?:the )?(?P<value>{ORG}){SCHOOL_END}",
        rf"\bI(?:'m| am) an? (?P<value>{PROPER}) (?:grad|graduate|alum|alumnus|alumna)(?![\w'-])",
    ], "The user studied at {value}.", school, confidence=0.75, importance=0.6),
    rule("fact", "school", "went", [
        rf"\bI went to (?:the )?(?P<value>{ORG})(?=\s*(?:[^\w\s'&-]|$)|\s+(?:and|but|where|in \d{{4}})\b)",
    ], "The user studied at {value}.", _school_named, confidence=0.75, importance=0.6),
    rule("fact", "school", "graduated", [
        rf"\bI(?:'ve| have)? {ADVERBS}graduated (?:with (?:an?|my|the) [^,.;]{{1,40}}? )?from (?:the )?(?P<value>{ORG})"
        rf"{_GRADUATED_WHEN}",
    ], "The user graduated from {value}{when}.", school, confidence=0.75, importance=0.6),
    rule("fact", "school", "class", [
        rf"^(?i:class) of (?:19|20)\d\d (?:at|from) (?:the )?(?P<value>{ORG})",
    ], "The user studied at {value}.", school, confidence=0.7, importance=0.6),
    # The year the user graduated: "I graduated in 2012", "I graduated from Leeds in 2012", "I finished uni
    # in 2008", "Class of 2019!" (opening the sentence: "the class of 2019 was huge" is not the user's).
    rule("fact", "graduation_year", "graduated finished class", [
        rf"\bI(?:'ve| have)? {ADVERBS}graduated (?:(?:with (?:an?|my|the) [^,.;]{{1,40}}? )?from (?:the )?{ORG} |"
        rf"(?:from )?(?:high school|college|uni|university|school|law school|med school|grad school) )?"
        r"in (?P<value>(?:19|20)\d\d)(?![\w'-])",
        r"\bI (?:only |just )?finished (?:uni|university|college|school|high school|grad school|law school|med school|"
        r"my (?:degree|studies|PhD|masters?|master's)) in (?P<value>(?:19|20)\d\d)(?![\w'-])",
        r"(?:^|\bI(?:'m| am|'m in the| am in the) )(?i:class) of (?P<value>(?:19|20)\d\d|'\d\d)(?![\w'-])",
    ], "The user graduated in {value}.", a_year, confidence=0.75, importance=0.6),
    # where the user studies now, unless for a while ("I'm studying at MIT for a semester": values.unless_a_stay)
    rule("fact", "school", "student undergrad undergraduate postgrad postgraduate studying study doing working "
         "pursuing", [
        rf"\bI(?:'m| am) {INTRODUCED}(?:now |currently |also )?(?:an?|the) (?:[A-Za-z][\w-]* ){{0,3}}?"
        rf"(?:student|undergrad|undergraduate|postgrad|postgraduate) (?:at|of) (?:the )?(?P<value>{ORG}){SCHOOL_END}",
        rf"\bI(?:'m| am|'ve been| have been) {ADVERBS}studying (?:{FIELDS_SAID} )?at (?:the )?(?P<value>{ORG})"
        rf"{NOT_TEMPORARY}{SCHOOL_END}",
        rf"\bI {ADVERBS}study (?:{FIELDS_SAID} )?at (?:the )?(?P<value>{ORG}){NOT_TEMPORARY}{SCHOOL_END}",
        rf"{_DOING_DEGREE} (?:an?|my) {DEGREE_SAID} at (?:the )?(?P<value>{ORG}){SCHOOL_END}",
    ], "The user is a student at {value}.", unless_a_stay(school), confidence=0.75, importance=0.6),
]
