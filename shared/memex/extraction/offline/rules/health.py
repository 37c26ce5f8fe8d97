"""Rules of food and health: a diet, an allergy, a habit given up (DIET_RULES); an operation, an
injury, a lasting condition (RULES)."""

from __future__ import annotations

import re

from memex.extraction import vocabulary
from memex.extraction.offline.patterns import (ADVERBS, HEDGES, NUMBER, QUIT_END, RECALLED, SINCE_WHEN, SPAN,
    alternation, list_or_phrase, strict_end)
from memex.extraction.offline.rule import rule
from memex.extraction.offline.values import Fields, allergies, as_said, snake
from memex.literal import caseless


_ALLERGENS = ("peanut nut tree-nut shellfish fish egg milk dairy gluten wheat soy sesame penicillin latex "
              "pollen bee cat dog").split()


def _condition(m: re.Match[str]) -> list[Fields]:
    value = m.group("value")
    return [{"value": vocabulary.CONDITION_ADJECTIVES.get(caseless(value), value)}]


def _given_up(m: re.Match[str]) -> list[Fields]:
    thing = caseless(m.group("value"))
    verb = vocabulary.GIVEN_UP[thing]
    if verb == "smoke":
        return [{"value": "no", "part": "smokes", "what": "smoke"}]
    return [{"value": "no", "part": f"{verb}s_{snake(thing)}", "what": f"{verb} {thing}"}]


_HABITS = {"smoking": "smoke", "vaping": "vape", "drinking": "drink", "eating": "eat", "smoked": "smoke",
           "vaped": "vape", "sober": "drink"}


def _habit(m: re.Match[str]) -> list[Fields]:
    verb = _HABITS.get(m.group("verb"), m.group("verb"))
    thing = m.group("value") or None
    if verb in ("smoke", "vape"):
        return [] if thing else [{"value": "no", "part": f"{verb}s", "what": verb}]
    if verb == "drink" and not thing:
        thing = "alcohol"  # "I don't drink"
    if not thing:
        return []
    return [{"value": "no", "part": f"{verb}s_{snake(thing)}", "what": f"{verb} {thing}"}]


# What an operation was on, or what it was: "knee surgery", "a hip replacement", "gallbladder removal".
_BODY_PARTS = ("knee hip shoulder back spine spinal wrist ankle foot hand elbow eye heart brain gallbladder appendix "
               "hernia ACL cataract jaw nose neck stomach gastric bariatric cardiac thumb finger toe bunion "
               "tonsils sinus lung liver kidney bowel breast").split()
_OPERATED = rf"(?:(?i:left|right|double|keyhole|laser|minor|major) )?(?:{alternation(_BODY_PARTS)})"
_PROCEDURE = "(?:replacement|transplant|reconstruction|removal|bypass)"
# What an injury is to: "broke my wrist", "tore my ACL", "sprained my ankle".
_INJURED = alternation("wrist arm leg ankle knee hip shoulder back neck collarbone rib ribs finger toe foot hand "
                       "elbow nose jaw hamstring ACL MCL meniscus achilles Achilles calf groin thumb pelvis "
                       "kneecap shin".split())
# The injury named by what was done: "broke" is a broken wrist, "tore" a torn ACL.
_INJURY_WORDS = {"broke": "broken", "broken": "broken", "fractured": "fractured", "tore": "torn", "torn": "torn",
                 "sprained": "sprained", "dislocated": "dislocated", "ruptured": "ruptured"}


# What is taken out ("I had my appendix out"), named by the removal: "appendix removal", "tonsil removal".
_REMOVED = "appendix|tonsils|gallbladder|wisdom teeth|adenoids|spleen|thyroid|ovaries|womb|uterus"


def _surgery(m: re.Match[str]) -> list[Fields]:
    # "hip replacement" names the operation; "knee" alone needs its "surgery"; what was taken out its removal
    value = m.group("value")
    if re.fullmatch(_REMOVED, value):
        return [{"value": f"{value.removesuffix('s') if value == 'tonsils' else value} removal"}]
    if not re.search(f"{_PROCEDURE}$", value):
        value += " surgery"
    return [{"value": value}]


def _injury(m: re.Match[str]) -> list[Fields]:
    return [{"value": f"{_INJURY_WORDS[caseless(m.group('verb'))]} {m.group('value')}"}]
# What is no longer drunk or eaten: one or two plain words ("coffee", "red meat").
# A word of when ("I quit drinking last year") is not what was given up.
_HABIT_OBJECT = (r"(?: (?P<value>(?!(?:and|or|but|with|at|in|on|for|to|much|any|anything|enough|a|the|last|this|"
                 r"since|ago|back|years?|months?|weeks?|anymore|completely|altogether|entirely|cold|when|after|"
                 rf"few|several|couple|{NUMBER})\b)"
                 r"[a-z][\w'-]*(?: [a-z][\w'-]*)??))?")
_NO_LONGER_END = strict_end("anymore", "any more", "at all", "these days", "either")

# The diets (vocabulary.DIETS, one list with supersession's), in the order the rules have always named them.
_DIETS = "|".join(vocabulary.DIETS)


# A diet retracted: "I'm no longer vegan", "I'm not vegetarian anymore", "I stopped being vegan"; the
# past, which ends the diet if it is the current one (supersession.ending). corrections.denied files
# it too, for "I'm not vegan." said when the user holds that diet.
DIET_ENDED = rule("fact", "dietary_restriction", "longer not stopped quit gave given dropped off", [
    rf"\bI(?:'m| am) (?:{HEDGES} )*no longer (?:an? )?(?P<value>{_DIETS})"
    + strict_end("and", "since", "after", "because", "these days"),
    rf"\bI(?:'m| am) (?:{HEDGES} )*not (?:an? )?(?P<value>{_DIETS}) (?=any ?more\b)",
    rf"\bI(?:'ve| have)? (?:stopped|quit|gave up|given up) being (?:an? )?(?P<value>{_DIETS})" + QUIT_END,
    # the diet said as one (trial 20): "I quit the vegan diet", "I'm off the vegetarian diet"
    rf"\bI(?:'ve| have|'m| am)? (?:stopped|quit|gave up|given up|dropped|off) (?:the|my) (?P<value>{_DIETS}) diet"
    + QUIT_END,
], "The user used to be {value}.", as_said, confidence=0.7, importance=0.6, historical=True)


DIET_RULES = [
    rule("fact", "dietary_restriction", "m am been keep eat went gone turned became become as started on", [
        # "as the only vegetarian at the barbecue, I ...": who the user is, said in passing
        rf"\b(?i:as) (?:an?|the only|a strict|a lifelong) (?P<value>{_DIETS}|coeliac|"
        r"celiac)(?: (?:at|in|on|among|of|for) [^,.;!?]{1,50})?,\s*I\b",
        rf"\bI(?:'m| am|'ve been| have been)(?: now| strictly| fully)? (?:an? )?(?P<value>{_DIETS}|"
        r"gluten[- ]free|dairy[- ]free|lactose[- ]intolerant|coeliac|celiac|kosher|halal)"
        + strict_end("and", "for", "these", "too", "as", "though", "myself", "since", "ever", "again", "already",
                     "(?:most of|all) my (?:life|adult life)", "my (?:whole|entire) life"),
        r"\bI (?:keep|eat) (?:only )?(?P<value>kosher|halal)\b",
        rf"\bI(?:'ve| have)? (?:went|gone|turned|became|become) (?:fully )?(?P<value>{_DIETS}|"
        r"gluten[- ]free|dairy[- ]free)"
        + strict_end("and", "in", "last", "this", "after", "when", "about", "over", "recently", r"\d+",
                     "a (?:year|few|couple)", "years", "months"),
        # the diet said as one, taken up (trial 20): "I started a vegan diet this week", "I'm on a
        # vegetarian diet now"; not one to come ("I'm starting a vegan diet next month")
        rf"\bI(?:(?:'ve| have)? (?:just |recently )?started|(?:'m| am) (?:now )?on) (?:an? |(?:a )?strict )?"
        rf"(?P<value>{_DIETS}) diet"
        + strict_end("and", "in", "last", "this", "after", "when", "about", "over", "recently", "now", r"\d+",
                     "a (?:year|few|couple)", "years", "months"),
    ], "The user is {value}.", as_said, importance=0.85),
    DIET_ENDED,
    rule("fact", "allergy", "allergic allergy", [
        r"\bI(?:'m| am)(?: (?:very|severely|deathly|highly|really|quite|mildly|slightly|super|so))? allergic to "
        rf"(?P<value>{list_or_phrase(5)})",
        # after something else the user is: "I'm lactose intolerant and allergic to shellfish"
        r"\bI(?:'m| am) (?:(?!not\b|allergic\b)[\w'-]+ ){1,3}and (?:also )?(?:(?:very|severely|deathly|highly|mildly) )?"
        rf"allergic to (?P<value>{list_or_phrase(5)})",
        rf"\bI have an? (?:severe |mild |bad )?(?P<value>(?i:{alternation(_ALLERGENS)})) allergy\b",
    ], "The user is allergic to {value}.", allergies, importance=0.9),
    rule("fact", "{part}", "stopped quit given gave longer don not never smoked vaped sober", [
        rf"\bI(?: have|'ve)? (?:stopped|quit|given up|gave up) (?P<verb>smoking|vaping|drinking|eating)"
        rf"{_HABIT_OBJECT}{QUIT_END}",
        rf"\bI (?:no longer|don't|do not|never) (?P<verb>smoke|vape|drink|eat){_HABIT_OBJECT}{_NO_LONGER_END}",
        # two said together: "I don't smoke or drink", each its own fact
        rf"\bI (?:no longer|don't|do not|never) (?P<verb>smoke|vape|drink)(?P<value>) (?:or|and|nor) (?:smoke|vape|drink)"
        rf"{_NO_LONGER_END}",
        rf"\bI (?:no longer|don't|do not|never) (?:smoke|vape|drink) (?:or|and|nor) (?P<verb>smoke|vape|drink)(?P<value>)"
        rf"{_NO_LONGER_END}",
        r"\bI (?:never) (?P<verb>smoked|vaped)(?P<value>)" + _NO_LONGER_END,
        # sober for good, not for tonight: "I've been sober since 2017", "I'm sober now"
        rf"\bI(?:'m| am|'ve been| have been) (?:now |still |completely )?(?P<verb>sober)(?P<value>)"
        rf"(?= {SINCE_WHEN}| for {SPAN}|\s+now\s*(?:[.!;]|$)|{_NO_LONGER_END})",
    ], "The user does not {what}.", _habit, confidence=0.75, importance=0.6),
    rule("fact", "{part}", "gave given quit cut", [
        rf"\bI(?: have|'ve)? (?:gave up|given up|quit|cut out) (?P<value>(?i:{alternation(vocabulary.GIVEN_UP)}))"
        rf"{QUIT_END}",
    ], "The user does not {what}.", _given_up, confidence=0.75, importance=0.6),
]


RULES = [
    # An operation the user had ("I had knee surgery in March", "I'm recovering from hip replacement
    # surgery") and an injury ("I broke my wrist skiing", "tore my ACL"): events of the user's health, one
    # memory each, apart from the lasting conditions of health_condition. Only a body part or a named
    # procedure is read ("I had a big surgery" says nothing of what), and only the user's own ("my
    # brother broke his arm" is not).
    rule("event", "surgery", "had underwent recovering surgery operation replacement transplant out removed", [
        rf"{had} (?:an? |my |some )?(?P<value>{_OPERATED}(?: {_PROCEDURE})?) (?:surgery|operation|op)(?![\w'-])"
        for had in (rf"\bI(?:'ve| have)? {ADVERBS}(?:had|underwent|got)", rf"\bI(?:'m| am) {ADVERBS}recovering from")
    ] + [
        rf"{had} (?:an? |my |some )?(?P<value>{_OPERATED} {_PROCEDURE})(?![\w'-])"
        for had in (rf"\bI(?:'ve| have)? {ADVERBS}(?:had|underwent|got)", rf"\bI(?:'m| am) {ADVERBS}recovering from")
    ] + [
        # "I had my appendix out", "had my tonsils removed": the removal
        rf"{had} (?:my |an? )?(?P<value>{_REMOVED}) (?:out|removed|taken out)(?![\w'-])"
        for had in (rf"\bI(?:'ve| have)? {ADVERBS}(?:had|got)", )
    ], "The user had {value}.", _surgery, confidence=0.7, importance=0.6),
    rule("event", "injury", "broke fractured tore sprained dislocated ruptured torn broken", [
        rf"\bI(?:'ve| have)? {ADVERBS}(?P<verb>broke|broken|fractured|tore|torn|sprained|dislocated|ruptured) my "
        rf"(?:(?:left|right) )?(?P<value>{_INJURED})(?![\w'-])",
    ], "The user had a {value}.", _injury, confidence=0.7, importance=0.6),
    rule("fact", "health_condition", "have got had suffer live diagnosed m am struggle deal suffering living "
         "struggling dealing get as", [
        rf"\bI(?: have|'ve got| have got|'ve had| have had| suffer from| live with| struggle with| deal with"
        rf"|(?:'ve| have) been (?:suffering from|living with|struggling with|dealing with)"
        rf"| (?:was|got|have been|'ve been) diagnosed with)"
        rf" (?:(?:a|mild|severe|chronic|bad) )?(?P<value>(?i:{alternation(vocabulary.HEALTH_CONDITIONS)}))"
        rf"(?![\w'-])(?!\s+(?:about|over|attacks?|before|when)\b)",
        rf"^(?i:as) (?:someone|somebody|a person) (?:with|who has|living with) (?:(?:a|mild|severe|chronic|bad) )?"
        rf"(?P<value>(?i:{alternation(vocabulary.HEALTH_CONDITIONS)}))(?:,\s*I\b(?! (?:{RECALLED})\b)|$)",
        # a diagnosis says when it was made ("diagnosed with asthma when I was a kid"), where "I had
        # anxiety when I flew" says when it came
        rf"\bI (?:was|got|have been|'ve been) diagnosed with (?:(?:a|mild|severe|chronic|bad) )?"
        rf"(?P<value>(?i:{alternation(vocabulary.HEALTH_CONDITIONS)}))(?![\w'-])(?= (?:when|as|at|in)\b)",
        # what comes back again and again: "I get really bad migraines"
        rf"\bI {ADVERBS}get (?:(?:really|very|quite|pretty|such) )?(?:(?:bad|terrible|awful|severe|horrible|chronic) )?"
        rf"(?P<value>(?i:migraines|eczema|vertigo|sciatica|gout))(?![\w'-])(?!\s+(?:about|over|attacks?|before|when)\b)",
        rf"\bI(?:'m| am) (?P<value>(?i:{alternation(vocabulary.CONDITION_ADJECTIVES)}))(?![\w'-])",
    ], "The user has {value}.", _condition, confidence=0.75, importance=0.85),
]
