"""Rules of pastimes: a hobby taken up or given up, something being learnt, things done, trips, books
read and games played (RULES); a gym membership ended (GYM_RULES)."""

from __future__ import annotations

import re

from memex.extraction import vocabulary
from memex.extraction.offline.patterns import (ADVERBS, MONTH, MY, NOT_NAMES, NOT_OBJECT, PHRASE_END, PLATFORMS,
    PROPER, QUIT_END, RACE, RECALLED, RELATIONS, TRIP_FOR, UPPER, WEEKDAY, WORD, alternation, phrase)
from memex.extraction.offline.rule import rule
from memex.extraction.offline.values import Fields, as_said, listed_items
from memex.literal import caseless
from memex.time_phrases import WEEKDAYS


# A pastime said as such ends there, or goes on with when or how often: "I started reading the
# report" is one errand, not a hobby.
_PASTIME_END = (r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:again|recently|lately|last|this|every|on|at|in|with|and|but|"
                r"a lot|most|more|now|too|twice|once|daily|weekly|regularly)\b)")


def _items(m: re.Match[str]) -> list[Fields]:
    """Each of a short list ("painting and hiking"; "arts and crafts" is one, values.listed_items), or the one
    value."""
    return [{"value": item} for item in listed_items(m.group("value"))]


def _gerund(verb: str) -> str:
    """"paint" -> "painting", "bake" -> "baking", "swim" -> "swimming": what the pastime is called."""
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith("ee"):
        return verb[:-1] + "ing"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", verb):
        return verb + verb[-1] + "ing"
    return verb + "ing"


def _pastime_verb(m: re.Match[str]) -> list[Fields]:
    value = _gerund(caseless(m.group("verb")))
    return [{"value": value}] if value in _HOBBY_SET else []


_HOBBY_SET = frozenset(vocabulary.HOBBIES)
# One outing of a pastime, as a noun, and the pastime.
_ROUTINES = {"run": "running", "jog": "jogging", "swim": "swimming", "hike": "hiking", "bike ride": "cycling",
             "climb": "climbing", "surf": "surfing", "row": "rowing", "yoga": "yoga", "pilates": "pilates"}


# How often a pastime is done: "every morning", "three times a week", "most weekends", "daily".
_HOW_OFTEN = (rf"(?:(?:every|each) (?:(?:single|other|second) )?(?:day|morning|evening|night|lunchtime|week|weekend|{WEEKDAY}"
              rf"(?: (?:morning|afternoon|evening|night))?)|on {WEEKDAY}s"
              # a count said roughly: "about 3 times a week", "like 3 times a week"
              r"|(?:(?:about|around|roughly|maybe|like) )?(?:once|twice|(?:two|three|four|five|six|\d) times) a "
              r"(?:day|week|month)|on (?:the )?weekends|at (?:the )?weekends|most (?:days|mornings|evenings|nights|"
              r"weekends|nights)|daily|regularly|a lot(?! for (?:work|my job))"
              # a routine around the working day: "I usually run 5 km before work"
              r"|(?:before|after) work(?! (?:today|tonight|tomorrow)))")
# How much of a pastime one outing is, between it and how often: "I cycle 50 miles every weekend", "I swim
# a few laps every lunchtime"; a distance or a time, never an object ("I run errands every morning").
_HOW_MUCH = (r"(?:(?:a few|a couple of|about|around|\d+(?:\.\d+)?|one|two|three|four|five|six|ten|twenty) ?"
             r"(?:k|km|kilometres|kilometers|miles?|laps|lengths|hours?|minutes|mins)(?![\w'-]) )?")
# Who does a pastime, and the pastime: "a keen cyclist". Not "a baker" or "a painter", which are jobs.
_PASTIME_NOUNS = {"runner": "running", "jogger": "jogging", "swimmer": "swimming", "cyclist": "cycling",
                  "climber": "climbing", "hiker": "hiking", "surfer": "surfing", "skier": "skiing",
                  "snowboarder": "snowboarding", "golfer": "golfing", "skater": "skating", "kayaker": "kayaking",
                  "rower": "rowing", "knitter": "knitting", "triathlete": "triathlon"}


# "What activities has she done with her family?", "What books has he read?": the items' lines seldom
# say the list's noun ("We went camping", "I'm reading The Hobbit"), so each item is filed under its
# kind when it is said, and topics.py maps the noun to the kind.

# Where an outing said by its activity ends: punctuation, or when, where or with whom it was.
_OUTING_END = (r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:again|last|this|yesterday|today|on|at|in|with|and|but|for|"
               r"together|over|near|by|around|twice|once|every|all)\b)")
# Whom one takes on an outing: "took the kids", "took my daughter", "took our two boys"; people, as a
# dog taken to the beach is walked rather than given a day out.
_PEOPLE_TAKEN = alternation({*RELATIONS, *vocabulary.CHILDREN, *vocabulary.CHILDREN.values(), *vocabulary.HOUSEHOLD,
                             "kid", "family", "grandkids", "grandchildren", "nephews", "nieces", "class", "students"})
_TAKEN = rf"(?:the (?:kids|children|family|boys|girls|grandkids)|them|everyone|(?:my|our) (?:[\w-]+ ){{0,2}}?(?:{_PEOPLE_TAKEN}))"
# A title as written: in quotes, or capitalised words with the small words between them ("The Name
# of the Wind"); never a possessive ("Sam's email"), a weekday or a platform one reads ("Reddit").
_TITLE_WORD = rf"(?!I\b)(?:{UPPER}|[0-9])[\w:-]*(?!['\w])"
_TITLE = (rf"\"(?P<quoted>[^\"]{{1,60}})\""
          rf"|(?!{WEEKDAY}\b|{PLATFORMS})(?P<value>{_TITLE_WORD}(?:\s+(?:(?:of|the|a|an|and|in|on|to|for|at|with)\s+)*"
          rf"{_TITLE_WORD}){{0,6}})(?![\w'-])(?!\s+{UPPER})")
# What a capitalised title ends on: punctuation or a word that is not the title's.
_TITLE_END = (r"(?:(?<=\")|(?=\s*(?:[^\w\s'-]|$)|\s+(?:by|and|last|this|yesterday|today|tonight|now|right|again|"
              r"for|on|in|at|with|to|every|lately|recently|over|twice|once|all|a lot|so far|but|because)\b))")
# Where a video game is played: "on my Switch", "on the PS5".
_CONSOLE = r"(?:PS[2-5]|PlayStation(?: [2-5])?|Xbox(?: One| Series [XS])?|(?:Nintendo )?Switch|PC|computer|laptop|phone|console|Steam|iPad)"


def _outing(m: re.Match[str]) -> list[Fields]:
    """An outing: its activity ("camping"), where one went for it ("zoo"), or the class or retreat of a
    pastime ("pottery class")."""
    value = caseless(m.group("value"))
    said = f"to the {value}" if m.groupdict().get("place") else f"to a {value}" if m.groupdict().get("course") else value
    return [{"value": value, "said": said}]


# A trip is told from an errand by where it went: a country, state or city of vocabulary.PLACES ("I went to
# Tesco yesterday" is no trip), and, for "went to" and "was in", by when it was ("I went to Oxford for the
# weekend" says neither when nor, on its own, more than a day out).
_PLACE_VISITED = rf"(?P<place>(?i:{alternation(vocabulary.PLACES)}))(?![\w'&-])"
_TRIP_PAST = (rf"(?:last (?:week|weekend|month|year|summer|spring|fall|autumn|winter|{WEEKDAY}|{MONTH})|yesterday|"
              rf"in (?:{MONTH}|\d{{4}}|the (?:spring|summer|fall|autumn|winter))|(?:at|over) (?:the )?(?:Easter|"
              r"Christmas|New Year|Thanksgiving|holidays|half[- ]term)|this (?:past )?(?:summer|spring|winter|"
              r"fall|autumn)|(?:a|one|two|three|four|five|six|a few|a couple of) (?:days|weeks|months|years) ago)(?![\w'-])")
_TRIP_SPAN = (r"(?:a|one|two|three|four|five|six|seven|ten|a few|a couple of|\d{1,2}) (?:long )?"
              r"(?:days?|nights?|weeks?|weekends?|months?)")
_SPENT = (rf"(?:{_TRIP_SPAN}|{MONTH}|the (?:(?:whole|entire) )?(?:summer|spring|winter|fall|autumn|weekend|"
          r"holidays|long weekend))")
_PLACE_SPENT_IN = (rf"(?P<place>(?i:{alternation(vocabulary.PLACES)})(?![\w'&-])|(?!{MONTH}|{WEEKDAY}|(?i:hospital|jail|prison|rehab|quarantine|isolation|lockdown|court|"
                   rf"hell|heaven|bed|A&E|ICU|ER)(?![\w'&-])){PROPER}"
                   r"(?=\s*(?:[^\w\s'&-]|$)|\s+(?:last|this|with|and|for|over|in|on|at|so|but|because|before|after|"
                   r"during|when|while|lol|haha)\b))")
_TRIPPED = (r"(?:flew|travell?ed|drove (?:down|up|over|out)|took a (?:trip|holiday|vacation)|went on "
            r"(?:a |an |our |my )?(?:trip|holiday|vacation|honeymoon))")


def _trip(m: re.Match[str]) -> list[Fields]:
    when = m.groupdict().get("when")
    return [{"value": f"trip to {m.group('place')}", "said": f" {when[0].lower()}{when[1:]}" if when else ""}]


def _stay(m: re.Match[str]) -> list[Fields]:
    return [{**f, "value": f"stay in {m.group('place')}", "place": m.group("place")} for f in _trip(m)]


def _title(m: re.Match[str]) -> list[Fields]:
    value = (m.group("quoted") or m.group("value") or "").strip(" ,.!?")
    return [{"value": value}] if value and caseless(value) not in NOT_NAMES else []


GYM_RULES = [
    # a gym left: "I quit the gym", "I cancelled my gym membership" (not "I quit the gym for a month")
    rule("fact", "gym_membership", "quit cancelled canceled gym", [
        rf"\bI(?:'ve| have)? {ADVERBS}(?:quit|cancelled|canceled) (?:the|my) gym(?: membership)?{QUIT_END}",
    ], "The user no longer goes to a gym.", lambda m: [{"value": "none"}], confidence=0.7, importance=0.5),
]


RULES = [
    rule("preference", "hobby", "hobby hobbies play playing taken took picked got gotten getting started go do pastime "
         "time practice practise", [
        rf"\b(?i:my) (?:favou?rite )?(?:hobby|hobbies|pastime|pastimes) (?:is|are|include) "
        rf"(?P<value>{NOT_OBJECT}{WORD}(?:\s+{WORD}){{0,2}}?(?:(?:,| and) {WORD}(?:\s+{WORD}){{0,2}}?){{0,3}})"
        rf"{PHRASE_END}",
        rf"\b(?:I|[Ww]e) {ADVERBS}(?:play|practice|practise) (?:the )?"
        rf"(?P<value>(?i:{alternation(vocabulary.PLAYED)}))(?![\w'-])",
        rf"\bI(?:'ve| have)? {ADVERBS}(?:taken up|took up|picked up|got (?:really )?into|gotten (?:really )?into|started) "
        rf"(?P<value>(?i:{alternation(vocabulary.HOBBIES)})){_PASTIME_END}",
        # "I've been getting into climbing" (and "Been getting into ...", read with its "I've")
        rf"\bI(?:'m| am|'ve been| have been) getting (?:really |more |properly )?into "
        rf"(?P<value>(?i:{alternation(vocabulary.HOBBIES)})){_PASTIME_END}",
        rf"\b(?:I|[Ww]e) {ADVERBS}(?:go|do|practice|practise) (?P<value>(?i:{alternation(vocabulary.HOBBIES)}))"
        rf"{_PASTIME_END}",
    ], "The user's hobby is {value}.", _items, confidence=0.7, importance=0.5),
    # A pastime given up: "I stopped playing tennis", "I gave up climbing", "I don't play chess anymore"; the
    # past, which ends it if it is a current hobby. Not a break ("I quit running for a month").
    rule("preference", "hobby", "stopped quit gave given play longer", [
        rf"\bI(?:'ve| have)? {ADVERBS}(?:stopped|quit|gave up|given up) (?:playing (?:the )?)?"
        rf"(?P<value>(?i:{alternation(vocabulary.PLAYED)}|{alternation(vocabulary.HOBBIES)})){QUIT_END}",
        rf"\bI (?:don't|do not) play (?:the )?(?P<value>(?i:{alternation(vocabulary.PLAYED)})) (?=any ?more\b)",
        rf"\bI no longer play (?:the )?(?P<value>(?i:{alternation(vocabulary.PLAYED)})){QUIT_END}",
    ], "The user's hobby used to be {value}.", as_said, confidence=0.7, importance=0.5, historical=True),
    # A pastime said as the user's routine: "back from my Saturday run", "my morning swim"; not "my
    # first run in months", nor "my weekly run to the shops".
    rule("preference", "hobby", "my our", [
        rf"{MY} (?:(?:usual|regular|daily|weekly|nightly|early|long) )?(?:{WEEKDAY}|weekend|morning|evening|lunchtime|"
        rf"sunrise|daily|weekly|nightly|usual|regular|long) (?P<verb>{alternation(_ROUTINES)})(?: (?:class|session))?"
        r"(?![\w'-])(?!\s+to\b)",
    ], "The user's hobby is {value}.", lambda m: [{"value": _ROUTINES[m.group("verb")]}], confidence=0.7,
         importance=0.5),
    rule("preference", "hobby", "free spare time", [
        r"\bI (?P<verb>[a-z]+)(?: [a-z]+)?? in my (?:free|spare) time\b",
    ], "The user's hobby is {value}.", _pastime_verb, confidence=0.7, importance=0.5),
    # A pastime said with how often ("I swim three times a week"; not "I cycle to work every day"), or
    # as what the user is ("a keen cyclist") or does ("I run marathons").
    rule("preference", "hobby", " ".join(["every each once twice times weekends most daily regularly lot",
                                          *(f"{day}s" for day in WEEKDAYS), "work"]), [
        rf"\b(?:I|[Ww]e) {ADVERBS}(?P<verb>[a-z]+) {_HOW_MUCH}{_HOW_OFTEN}(?![\w'-])",
    ], "The user's hobby is {value}.", _pastime_verb, confidence=0.7, importance=0.5),
    rule("preference", "hobby", "run ran do did training m am as", [
        # "I ran the Lisbon half marathon last weekend"
        rf"\bI(?:'ve| have)? {ADVERBS}(?:run|ran|do|did) (?:an? |my (?:first |second |third |\w+th )?|the (?:{PROPER} )?)?"
        rf"{RACE}",
        rf"\bI(?:'m| am) {ADVERBS}training for (?:an? |my (?:first |second |third |\w+th )?)?{RACE}",
        rf"\bI(?:'m| am) {ADVERBS}training for (?:an? |my (?:first |second |third |\w+th )?)?(?:triathlons?|(?i:ironman))"
        rf"(?P<triathlon>)(?![\w'-])",
        rf"\bI(?:'m| am) an? (?:(?:keen|avid|passionate|big|huge|regular|serious|amateur|casual|weekend|lifelong|"
        rf"competitive) )?(?P<noun>{alternation(_PASTIME_NOUNS)})"
        r"(?=\s*(?:[.,;:!?)]|$)|\s+(?:and|but|so|too|myself|now|these|since)\b)",
        # who the user is, said in passing: "As a keen cyclist, I ...", before a question (_APPOSITIVE)
        rf"^(?i:as) an? (?:(?:keen|avid|passionate|big|huge|regular|serious|amateur|casual|weekend|lifelong|"
        rf"competitive) )?(?P<noun>{alternation(_PASTIME_NOUNS)})(?:,\s*I\b(?! (?:{RECALLED})\b)|$)",
    ], "The user's hobby is {value}.", lambda m: [{"value": "triathlon" if m.groupdict().get("triathlon") is not None
                                                   else _PASTIME_NOUNS.get(m.groupdict().get("noun") or "", "running")}],
         confidence=0.7, importance=0.5),
    rule("fact", "learning", "learning learn teaching", [
        rf"\bI(?:'m| am|'ve been| have been|(?:'ve| have)? (?:just |recently )?(?:started|begun|began)) "
        rf"(?:currently |now )?(?:learning|trying to learn|teaching myself) (?:how )?(?:to )?"
        # ending before when, where or how ("learning to surf this summer", "learning Welsh online"), or as a phrase
        rf"(?!(?:a lot|so much|more|from|about|what|lots)\b)(?P<value>{NOT_OBJECT}{WORD}(?:\s+{WORD}){{0,4}}?"
        rf"(?=\s+(?:this|last|since|every|online|on|at the|with|for (?:a|two|three|a few|a couple of|several|"
        rf"the (?:past|last)) (?:days?|weeks?|months?|years?))\b)|{phrase(5)})",
    ], "The user is learning {value}.", as_said, confidence=0.7, importance=0.5),
    # things done, read and played, each under its kind (the items of a list, above)
    rule("event", "activity", "went took visited been did tried", [
        rf"\b(?:I|[Ww]e)(?: all| both)? went (?P<value>(?i:{alternation(vocabulary.HOBBIES)})){_OUTING_END}",
        rf"\b(?:I|[Ww]e)(?: all| both)? (?:went to|visited|(?:'ve|have) been to|took {_TAKEN} to) (?:the |a |an )?"
        rf"(?P<place>(?P<value>(?i:{alternation(vocabulary.OUTINGS)})))(?![\w'-])",
        # a pastime tried once, as a class or a retreat: "I did a pottery class yesterday"
        rf"\b(?:I|[Ww]e)(?: all| both)? (?:went to|did|took|tried) (?:a|an|my first|our first) "
        rf"(?P<course>(?P<value>(?i:{alternation(vocabulary.HOBBIES)}) (?:class|lesson|workshop|course|retreat))){_OUTING_END}",
    ], "The user went {said}.", _outing, confidence=0.7, importance=0.5),
    # a trip done: "We went to Japan in May", "Just got back from two weeks in Peru", "I flew to Toronto"
    rule("event", "activity", "went flew traveled travelled drove took visited spent back was were", [
        rf"\b(?:I|[Ww]e)(?: all| both)? went (?:back )?to {_PLACE_VISITED}{TRIP_FOR} (?P<when>{_TRIP_PAST})",
        rf"(?:^|[,;:]\s*)(?P<when>(?i:{_TRIP_PAST})),? (?:I|[Ww]e)(?: all| both)? went (?:back )?to {_PLACE_VISITED}",
        # being somewhere is a trip when it was lately ("I was in Berlin last week"); "I was in London in
        # 2015" may be a year lived there
        rf"\b(?:I|[Ww]e)(?: all| both)? (?:was|were) in {_PLACE_VISITED}{TRIP_FOR} "
        rf"(?P<when>(?!in \d|last year|\w+ years ago){_TRIP_PAST})",
        rf"\b(?:I|[Ww]e)(?: all| both)? (?:{_TRIPPED} to|visited) {_PLACE_VISITED}(?:{TRIP_FOR} (?P<when>{_TRIP_PAST}))?",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? {ADVERBS}spent {_SPENT} (?:in|on|touring|exploring|travell?ing) {_PLACE_SPENT_IN}",
        # back from it, said now, with how long or what it was: "Just got back from two weeks in Peru", "Back
        # from a long weekend in Rome!" ("I'm back from Paris" may be from a day's work there)
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are| have| 've)? {ADVERBS}(?:got |came |flew |arrived )?back from "
        rf"(?:(?:{_TRIP_SPAN}|(?:a|an|our|my) (?:[\w-]+ ){{0,2}}?(?:trip|holiday|vacation|weekend|week|honeymoon)) "
        rf"(?:in|to|around|through) ){_PLACE_SPENT_IN}",
    ], "The user went on a {value}{said}.", _trip, confidence=0.7, importance=0.5),
    # Being somewhere a year or more ago ("I was in London in 2015", "We were in Tokyo two years ago") is a
    # stay there, a visit or a year lived: filed as what it is sure to be, a stay then, never the current city.
    rule("event", "activity", "was were", [
        rf"\b(?:I|[Ww]e)(?: all| both)? (?:was|were) in {_PLACE_VISITED}{TRIP_FOR} "
        rf"(?P<when>in (?:19|20)\d\d|last year|(?:a|one|two|three|four|five|six|a few|a couple of) years ago)(?![\w'-])",
    ], "The user was in {place}{said}.", _stay, confidence=0.7, importance=0.5),
    rule("fact", "book", "reading read finished reread", [
        rf"\bI(?:'m| am|'ve been| have been|(?:'ve| have)? (?:just |recently )?(?:started|finished)) {ADVERBS}"
        rf"(?:re-?)?reading (?:the (?:book|novel) )?(?:{_TITLE}){_TITLE_END}",
        rf"\bI(?:'ve| have)? {ADVERBS}(?:read|re-?read|finished) (?:the (?:book|novel) )?(?:{_TITLE}){_TITLE_END}",
        # the next book after the one finished, its "I" shared: "I finished Dune, now reading Project Hail Mary."
        rf"\bI(?:'ve| have)? {ADVERBS}(?:read|finished) [^,;.!?]{{1,60}}[,;] (?:and )?(?:I'm )?(?:now|currently) "
        rf"(?:re-?)?reading (?:the (?:book|novel) )?(?:{_TITLE}){_TITLE_END}",
    ], "The user read {value}.", _title, confidence=0.7, importance=0.5),
    rule("fact", "game", "play playing played game", [
        rf"\b(?:I|[Ww]e)(?:'ve been|'m| am| have been|'re| are)? {ADVERBS}(?:play|playing|played) "
        rf"(?:{_TITLE}) on (?:my|the|our) {_CONSOLE}(?![\w'-])",
        rf"\b(?:I|[Ww]e|me)\b[^,.;:!?]{{0,40}}?\b(?:a|the) (?:(?:video|computer|mobile|online|new) )?game "
        rf"(?:called|named) (?:{_TITLE}){_TITLE_END}",
    ], "The user plays {value}.", _title, confidence=0.7, importance=0.5),
]
