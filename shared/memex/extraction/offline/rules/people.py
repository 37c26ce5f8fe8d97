"""Rules of the people in the user's life: their names (a partner, children, relatives, friends), the
facts filed under them (city, job, school, age, pets), the relationship status (dating, engaged,
married, parted, widowed), and a baby on the way (EXPECTING_RULES)."""

from __future__ import annotations

import re
from typing import Callable

from memex.extraction import vocabulary
from memex.extraction.offline.patterns import (ADVERBS, AGE_END, AGED, BIRTH_DAY, BIRTH_YEAR, BORN_WHERE, BREED,
    BREED_KIND, CAPWORD, DATE, DEGREE,
    DEGREE_SAID, DIED, FIELDS_SAID, HAVE, HEAD_OF, HOLIDAYS, INTENSIFIERS, KIN_ADJECTIVE, LEFT_END, MONTH, MY, NAMED, NAMES,
    NOT_AFTER_PARTING, NOT_NAMES, NOT_TEMPORARY, NUMBER, ORG, PARTNER_WORD, PERSON_PARTS, PETS, PET_ADJECTIVE,
    PLATFORMS, PROPER, ROLE, ROLE_END, SCHOOL_END, SCHOOL_WORDS, SINCE_WHEN, TRIP_WHEN, TURNED_END, TURNING, UPPER,
    WEEKDAY, WORK_HOURS, alternation, list_or_phrase, phrase, strict_end)
from memex.extraction.offline.rule import rule
from memex.extraction.offline.values import (Fields, a_birthday, a_department, a_job_move, a_name, a_place, a_year, allergies, an_age,
    an_organisation, as_said, listed_names, named_person, not_an_organisation, organisation, relation, role, school,
    snake, teacher, to_number, unless_a_stay)
from memex.literal import caseless


_WHO = rf"(?P<kind>(?i:{alternation(PERSON_PARTS)}))"
# Someone in the user's life after what they are to the user, named or not: "my sister Ana", "my
# husband, Raj,", "my boss", "our son".
# A name never ends in "'s", which says "is" or whose: "My sister Ana's retired" is Ana's, "My sister Ana's
# dog is called Bruno" is hers, "My friend Ana's husband works at Google" nobody's the rules know.
_PERSON = rf"{MY} {KIN_ADJECTIVE}{_WHO}(?:,? (?P<name>{PROPER}(?<!'s)|(?!I\b){UPPER}[\w-]*(?='s(?![\w'-]))),?)?"
# Who is known without a name: one has one mother, one boss, and says "my sister" of the one sister
# one speaks of. A friend, a colleague, a cousin said with no name may be any of them: nothing is filed.
_KNOWN_UNNAMED = frozenset("partner sister brother mother father child boss grandmother grandfather".split())


# Someone described and nothing more, so that "his name" in the next sentence can be no one else's:
# "My boss is awful.", "My husband is a chef.", "My grandpa is 90.", not "My sister is dating someone."
# nor "My boss has a dog." nor "My sister is pregnant."
_ONLY_DESCRIBED = (r"(?:is|'s|was|has been|can be) (?:(?:an?|the) )?(?:(?!(?:a|an|the|my|our|his|her|their|your|"
                   r"someone|somebody|married|engaged|dating|seeing|pregnant|expecting|having|getting|with|to|and|"
                   r"but|or|got|met|of|friends?)\b)[a-z0-9][\w'-]*(?: |(?=[.!]))){1,4}")
_CHILD_KINDS = vocabulary.CHILDREN


def _children_named(m: re.Match[str]) -> list[Fields]:
    """Each child of a list ("two daughters, Ava and Mia"; "a son and a daughter, Jack and Lily", which
    names no one kind): a name each."""
    kind = _CHILD_KINDS.get(caseless(m.group("kind")), "child")
    return [{"value": n, "kind": kind} for n in listed_names(m.group("value"))]


# Children named with their ages: "Emma (8) and Liam (5)", or the names and then the ages in the same
# order, "Noah and Ava, are 10 and 7".
_AGED_NAME = rf"(?!I\b){CAPWORD} \((?:{NUMBER})\)"
_AGED_NAMES = rf"{_AGED_NAME}(?:(?:,| and|, and) {_AGED_NAME})+"
_AGES = rf"(?:{NUMBER})(?:(?:,| and|, and) (?:{NUMBER}))+"
_CHILDREN_AGED = [
    rf"{MY} (?P<kind>sons|daughters|kids|children|boys|girls)(?: are|:) (?P<value>{_AGED_NAMES})(?![\w'])",
    rf"{MY} (?P<kind>sons|daughters|kids|children|boys|girls),? (?P<value>{NAMES}),? are (?P<ages>{_AGES})"
    rf"(?: (?:years old|respectively))?(?=\s*(?:[.!;]|$))",
]


def _names_and_ages(m: re.Match[str]) -> list[tuple[str, int]]:
    """The children of _CHILDREN_AGED, each with their age; none when the names and ages do not pair."""
    if m.groupdict().get("ages") is None:
        pairs = re.findall(r"(\S+) \(([^)]+)\)", m.group("value"))
    else:
        ages = re.split(r",? and |, ", m.group("ages"))
        pairs = list(zip(listed_names(m.group("value")), ages))
        if len(pairs) != len(ages):
            return []
    aged = [(name, to_number(age)) for name, age in pairs]
    if any(caseless(name) in NOT_NAMES or age is None or not 0 <= age <= 60 for name, age in aged):
        return []
    return aged


def _children_aged_names(m: re.Match[str]) -> list[Fields]:
    kind = _CHILD_KINDS[caseless(m.group("kind"))]
    return [{"value": name, "kind": kind} for name, _ in _names_and_ages(m)]


def _children_ages(m: re.Match[str]) -> list[Fields]:
    kind = _CHILD_KINDS[caseless(m.group("kind"))]
    return [{"value": str(age), "kind": kind, "who": snake(name), "named": f" {name}"}
            for name, age in _names_and_ages(m)]


def _child_born(m: re.Match[str]) -> list[Fields]:
    said = m.group("kind").removeprefix("baby ")
    kind = {"boy": "son", "girl": "daughter", "baby": "child"}.get(said, said)
    return [{**f, "kind": kind} for f in a_name(m)]


def _child_by_order(m: re.Match[str]) -> list[Fields]:
    return [{**f, "kind": caseless(m.group("kind"))} for f in a_name(m)]


def _someones_job_move(part: str) -> Callable[[re.Match[str]], list[Fields]]:
    """_job_move for someone in the user's life, whose current employer no rule sees (the user's is the
    judge's: _maybe_job_move): a switch between two well-known employers is a job change too, unless a
    customer switches between the two ("My husband switched from Google to Stripe", not "from Apple to
    Samsung")."""
    def move(m: re.Match[str]) -> list[Fields]:
        names = {caseless(m.group("old")), caseless(m.group("new"))}
        switched = m.group("verb") == "switched" and names <= vocabulary.WELL_KNOWN_EMPLOYERS \
            and len(names) == 2 and not any(names <= kind for kind in vocabulary.SWITCHED_AS_A_CUSTOMER)
        return [{"value": m.group(part)}] if switched or a_job_move(m) else []
    return move


def _whose(kind: str, name: str | None) -> str | None:
    """Whose fact it is, as its key begins: a named person's under what they are and their name
    (`sister_ana`, so that it is found by their name and never replaces another sister's), a parent's
    under the relation, named or not (`mother`: one has one mother), an unnamed relative's under the
    relation (`sister`, `child_son`); None for a name that is no name, or someone unnamed who may be
    anyone (_KNOWN_UNNAMED)."""
    part = PERSON_PARTS[kind]
    if name:
        if caseless(name) in NOT_NAMES:
            return None
        return named_person(part, name)
    if part == "child":
        return f"child_{kind}"
    return part if part in _KNOWN_UNNAMED else None


def _kin_fact(clean: Callable[[re.Match[str]], list[Fields]]) -> Callable[[re.Match[str]], list[Fields]]:
    """A fact about someone in the user's life (_PERSON: "my sister Ana lives in Porto", "my brother is
    a nurse"), its value cleaned by `clean`: the user's, under a key and in a sentence that say whose
    it is (`{person}_city`, _whose), so that it never replaces the user's own fact of that kind."""
    def fact(m: re.Match[str]) -> list[Fields]:
        kind = caseless(m.group("kind"))
        name = m.groupdict().get("name")
        person = _whose(kind, name)
        if person is None:
            return []
        said = {"kind": kind, "part": PERSON_PARTS[kind], "person": person, "named": f" {name}" if name else ""}
        return [{**f, **said, "a": vocabulary.article(f["value"])} for f in clean(m)]
    return fact


def _kin_unless_a_stay(clean: Callable[[re.Match[str]], list[Fields]], after: str = "value",
                       contracts: bool = False) -> Callable[[re.Match[str]], list[Fields]]:
    """Someone's home, employer, role or school (`_kin_fact`), unless what is said after it (the group
    `after`) makes it a stay for a while ("My sister works at Google for the summer": values.unless_a_stay)."""
    return _kin_fact(unless_a_stay(clean, after, contracts))


def _person_left(m: re.Match[str]) -> list[Fields]:
    """An employer someone left: said as their job ("quit her job at Deloitte") or an organisation
    ("left Google"); "My wife left Tom" is no job."""
    if m.group("job") or an_organisation(m.group("value")):
        return organisation(m)
    return []


def _place_move(part: str) -> Callable[[re.Match[str]], list[Fields]]:
    """The old or the new city of someone's move between two names, when a name is a known place and
    neither is an organisation or a department ("My sister moved from Braga to Porto")."""
    def clean(m: re.Match[str]) -> list[Fields]:
        names = (m.group("old"), m.group("new"))
        if any(an_organisation(n) or a_department(n) for n in names) or not any(a_place(n) for n in names):
            return []
        return [{"value": m.group(part)}]
    return clean


# A school a child goes to, by a name that says it is one ("Lincoln Elementary", "Hillside Primary").
_SCHOOL_NAMED = SCHOOL_WORDS | frozenset("elementary primary high middle prep montessori".split())


def _school_gone_to(m: re.Match[str]) -> list[Fields]:
    if not _SCHOOL_NAMED.intersection(caseless(w) for w in m.group("value").split()):
        return []
    return school(m)


def _person_pet(m: re.Match[str]) -> list[Fields]:
    """A pet of someone in the user's life ("my sister's dog is called Bruno", "my friend Sara has a
    golden retriever named Max"): its name, and its breed when said."""
    breed = m.groupdict().get("breed")
    animal = PETS[caseless(m.group("pet"))] if m.group("pet") else BREED_KIND[caseless(breed)]
    if (breed and animal != BREED_KIND[caseless(breed)]) or not a_name(m):
        return []
    said = animal.replace("_", " ")
    found = [{"value": m.group("value"), "animal": animal, "fact": "name", "said": f"a {said} named {m.group('value')}"}]
    if breed:
        found.append({"value": breed, "animal": animal, "fact": "breed", "said": f"a {said}, a {breed}"})
    return found


# When an event of someone's life happened, said with it ("started school last week").
_PAST_WHEN = (r"(?: (?P<when>(?:last|this) (?:week|month|year|spring|summer|fall|autumn|winter|term|semester)|today|"
              rf"yesterday|recently|in (?:{MONTH}|\d{{4}})))?")
_STARTED = (rf"(?P<value>(?i:{alternation(vocabulary.SCHOOLING)})"
            rf"|(?i:{alternation(vocabulary.HOBBIES + vocabulary.PLAYED)})"
            r"(?: (?:lessons|classes|practice|club|camp))?)")


def _started(m: re.Match[str]) -> list[Fields]:
    when = m.group("when")
    return [{"value": m.group("value"), "when": f" {when}" if when else ""}]

# Parting from a partner: "broke up", "split up", "separated", "got divorced".
_PARTED = r"(?:broke up|split up|split|separated|got divorced|divorced)"
# When a parting happened, and the clause ending there: not "we broke up the meeting", "we split the bill".
# A month may carry its year ("in June 2019") and be the last one ("last June"); a day its year ("on June
# 3rd 2019").
_PARTING_WHEN = (rf"(?:(?:last|this) (?:week|month|year|spring|summer|fall|autumn|winter|weekend|{WEEKDAY})|"
                 rf"last {MONTH}|last night|yesterday|today|recently|on (?:the )?(?:{DATE})(?:,? \d{{4}})?(?![\w'-])|"
                 rf"(?:(?:way )?back )?in (?:\d{{4}}|"
                 rf"{MONTH}(?:,? \d{{4}})?)(?![\w'-])|"
                 r"(?:a|two|three|four|five|six|a few|a couple of) (?:days?|weeks?|months?|years?) ago)")
# A proposal's time may be a holiday too: "on Valentine's Day", "at Christmas", "last New Year's Eve".
_PROPOSED = (rf"(?:just |finally |officially )?(?:proposed(?: to me)?|popped the question)"
             rf"(?: (?:on {WEEKDAY}|{_PARTING_WHEN}|(?:on|at|over|last|this) (?i:{alternation(HOLIDAYS)})))?"
             r"(?=\s*(?:[.!,;]|$))")
# Where one got engaged or married, before or after when: "We got engaged in Paris last night",
# "got married at the beach"; a month is when, not where ("in June").
_WED_PLACE = rf"(?: (?:in|at|on) (?!{MONTH}(?![\w'-]))(?:the |a )?(?:{PROPER}|[a-z]+))?"
# The same, kept as when the parting happened (`Candidate.happened`): the clause's time, not another the
# sentence names; read against the turn's time, it dates the event (timeline.times).
_PARTED_WHEN = rf"(?: (?P<when>{_PARTING_WHEN}))?"


def _proposed_to(m: re.Match[str]) -> list[Fields]:
    """The user engaged, unless who proposed is no name ("Labor Day proposed.")."""
    who = m.group("who")
    return [] if who and caseless(who) in NOT_NAMES else [{"value": "engaged"}]


def _happened(m: re.Match[str]) -> Fields:
    when = m.groupdict().get("when")
    return {"happened": when} if when else {}


# Where seeing or dating someone ends its clause: punctuation, since when or for how long, or another
# clause ("I'm seeing Lena tomorrow" is a meeting).
# Nor "I'm seeing Lena and Tom tomorrow" (a second name after "and"); a comma ends it only before what
# the user thinks of them, ending there ("I'm seeing Lena, she's great"; "Lena, she's my therapist" and
# "Lena, she's great at tennis" are none).
_LIKED = ("great amazing wonderful lovely awesome sweet kind funny nice perfect incredible fantastic brilliant "
          "gorgeous beautiful cute smart fun the best").split()
_GOING_OUT_END = (rf"(?=\s*(?:[.!;)]|$)|\s+(?:now|these days|at the moment|right now|since\b|and\b(?!\s+(?!I\b){UPPER})|"
                  r"but\b|so\b|for (?:(?:about|over|almost|nearly|more than) )?(?:a|an|\d+|two|three|four|five|six|several|"
                  r"a few|a couple of) (?:days?|weeks?|months?|years?)\b|for (?:a while|ages|years|months)\b)"
                  rf"|,\s*(?:she|he|they)(?:'s| is|'re| are) (?:(?:{alternation(INTENSIFIERS)}) )?"
                  rf"(?:{alternation(_LIKED)})(?=\s*(?:[^\w\s'-]|$)|\s+(?:and|but|so|too|lol)\b))")
# A partner named after what they are: "I'm dating a guy called Ben", "seeing this girl named Mia".
# Or someone named after: "I started dating someone, her name is Julia."
_SOMEONE_NAMED = (r"(?:(?:a|this) (?:guy|girl|man|woman|boy|lady|gal|dude|bloke|chap|fella|fellow) "
                  rf"(?:named|called) |(?:someone|somebody)(?: new)?{NAMED} )?")
_PARTING_END = strict_end("and", "but", "so", "after", "because")


def _status_after_parting(m: re.Match[str]) -> list[Fields]:
    """"We broke up" leaves the user single; "we separated" separated; "My wife and I divorced"
    divorced, and so does any parting from an ex-wife or ex-husband ("My ex-wife and I split up"),
    whom only a divorce makes one; "got married" (or "tied the knot") married."""
    verb, happened = m.groupdict().get("verb"), _happened(m)
    if verb is None:
        return [{"value": m.group("value") or "married", **happened}]
    if re.search(r"wife|husband|spouse", m.groupdict().get("ex") or ""):
        return [{"value": "divorced", **happened}]
    return [{"value": "separated" if verb == "separated" else "divorced" if "divorced" in verb else "single",
             **happened}]


# A spouse's death: "My husband passed away in March", "My wife died of cancer in 2020", "I lost my
# husband to cancer". "Passed" alone only when the clause ends there ("my husband passed his exam").
_SPOUSE = r"(?P<kind>(?i:wife|husband|spouse|partner))"
_DIED_OF = r"(?: (?:of|from|after) (?:an? )?[a-z]+(?: [a-z]+)?)?"
# What one loses a spouse to; without it "I lost my wife" ends there or says when ("I lost my wife
# in the crowd" is no death).
_LOST_TO = (r"(?: to (?:cancer|covid|covid-19|dementia|suicide|a heart attack|a stroke|an? (?:accident|illness|"
            r"overdose|car crash|long illness)))?")


def _widowed(m: re.Match[str]) -> list[Fields]:
    return [{"value": "widowed", "kind": caseless(m.group("kind")), **_happened(m)}]


def _late_partner(m: re.Match[str]) -> list[Fields]:
    """A partner named as dead ("My husband Tom passed away", "my late wife Anna"): their name, as
    history."""
    return [{**f, "kind": caseless(m.group("kind"))} for f in a_name(m)]


# A child's age: "My son Max is 7.", "Our daughter just turned 12." Filed under the child's name as
# a named relative's facts are (`child_max_age`), or under "son" or "daughter" when none is said.
_CHILD = r"(?P<kind>(?i:son|daughter|eldest|oldest|youngest))"
# A child said by where they come among the user's children ("my eldest", "our youngest").
_BIRTH_ORDER = r"(?P<kind>(?i:eldest|oldest|youngest))"


# A one-word name and its "'s" for "is" ("My daughter Ava's 9."), which a PROPER name does not end on.
_NAME_IS = rf"(?P<name>(?!I\b){UPPER}[\w-]*)'s"


def _whose_child(m: re.Match[str]) -> Fields | None:
    """The child a fact is filed under: their name, else "son" or "daughter"; None when the name is none."""
    name = m.group("name")
    if name and caseless(name) in NOT_NAMES:
        return None
    kind = caseless(m.group("kind"))
    return {"kind": kind, "who": snake(name) if name else kind, "named": f" {name}" if name else ""}


def _child_age(m: re.Match[str]) -> list[Fields]:
    whose = _whose_child(m)
    return [] if whose is None else [{**f, **whose} for f in an_age(m)]


def _child_birth(m: re.Match[str]) -> list[Fields]:
    """A child's birth year and day, as the user's own birth files them (places.py: "2020", "3 March"; a month
    alone files none), under the child's name or "son" or "daughter" as the child's age is (_child_age); and
    each other child's said after it without the verb, as a list goes on ("My son was born in 2019, my daughter in
    2021 and my youngest in 2023"). One said as a child already filed is none: "my older son ..., and my younger son
    in 2021" is keyed as "son" twice, and its year would replace the first's. A name alone is no child's ("My son Tom
    was born in 2015, Anna in 2018": Anna may be a niece)."""
    found = _born(m)
    more = _BORN_TOO.match(m.string, m.end())
    while more:
        born = _born(more)
        if not {f["who"] for f in born} & {f["who"] for f in found}:
            found += born
        more = _BORN_TOO.match(m.string, more.end())
    return found


def _born(m: re.Match[str]) -> list[Fields]:
    whose = _whose_child(m)
    if whose is None:
        return []
    years = a_year(m) if m.groupdict().get("value") else []
    return ([{**whose, **year, "fact": "birth_year", "said": f" was born in {year['value']}"} for year in years]
            + [{**whose, **day, "fact": "birthday", "said": f"'s birthday is {day['value']}"} for day in a_birthday(m)])


# Another child's birth after one's, its "was born" left out, as a list goes on: ", and my daughter in 2021", "and
# our son Leo on 3 March 2019", ", my daughter in 2021"; a year, or a day and a year, as the clause said first, and
# the clause ends there.
_BORN_TOO = re.compile(
    rf"(?:,? and|,) {MY} {KIN_ADJECTIVE}{_CHILD}(?:,? (?P<name>{PROPER}),?)? (?:in|on) (?:{BIRTH_DAY},? )?(?P<value>{BIRTH_YEAR})"
    r"(?=\s*(?:[.!;,)]|$|and\b))")


def _child_age_in_months(m: re.Match[str]) -> list[Fields]:
    return [{**f, "value": f"{f['value']} months"} for f in _child_age(m)]


# The age of someone in the user's life but a partner or a child: "My brother is 34.", "My mom just
# turned 60.", "My sister Ana is 19.", "My aunt Rosa is 70." Keyed as their other facts are (_whose:
# `sister_ana_age`, `brother_age`, `mother_age` for "My mom Linda is 61" too, so that "my mom just
# turned 62" said later replaces it). One value, so a later age replaces the earlier. Not a partner's
# (it would outlive the partnership), as a child's age is filed apart (_child_age).
_AGED_KIN = rf"(?P<kind>(?i:{alternation(w for w, part in PERSON_PARTS.items() if part not in ('partner', 'child'))}))"


RULES = [
    rule("relation", "{part}_name", "my our named called married engaged dating seeing with", [
        # not the partner just left: "broke up with my boyfriend Marco", "My partner Sam and I split up"
        rf"{NOT_AFTER_PARTING}{MY} {KIN_ADJECTIVE}{_WHO}(?:'s name is| is called| is named| is|,? (?i:her|his|their) "
        rf"name(?:'s| is)|,)? "
        rf"(?P<value>{PROPER})(?!,? and I {ADVERBS}{_PARTED})",
        # a boss said with the workplace between: "My manager at Talkdesk is Carla."
        rf"{MY} {KIN_ADJECTIVE}(?P<kind>(?i:boss|manager)) at (?:the )?{ORG} is (?P<value>{PROPER})",
        rf"(?P<value>{PROPER}) \((?i:my|our) {_WHO}\)",
        # named in the next sentence, when nobody else was said in between: "My boss is awful. His name is Greg."
        rf"{NOT_AFTER_PARTING}{MY} {KIN_ADJECTIVE}{_WHO} {_ONLY_DESCRIBED}[.!]+ (?P<pronoun>(?i:his|her|their)) "
        rf"name(?:'s| is) (?P<value>{PROPER})",
        rf"{HAVE} an? {KIN_ADJECTIVE}{_WHO},? (?:named|called) (?P<value>{PROPER})",
        rf"\bI(?:'m| am| got| just got|'ve been| have been) (?P<kind>married|engaged) to (?P<value>{PROPER})",
        rf"\bI(?:'ve| have) been (?P<kind>dating|seeing|with) {_SOMEONE_NAMED}(?P<value>{PROPER}) (?=for\b|{SINCE_WHEN})",
        # seeing or dating someone, the clause ending there or saying since when: not "I'm seeing Lena
        # tomorrow", "I'm seeing Dr. Patel on Monday"
        rf"\bI(?:'m| am|'ve been| have been) (?:now |currently |still )?(?P<kind>dating|seeing) {_SOMEONE_NAMED}"
        rf"(?P<value>{PROPER})"
        rf"{_GOING_OUT_END}",
        rf"\bI (?:just |recently |finally )?(?:started|began) (?P<kind>dating|seeing) {_SOMEONE_NAMED}(?P<value>{PROPER})"
        rf"(?= {_PARTING_WHEN}\b|{_GOING_OUT_END})",
        # "Lena and I have been dating": a first name opening its clause ("Yesterday Tom and I ..." is none)
        rf"(?:^(?:(?i:so|and|well|oh|yeah|btw),? )?|(?<=[,;:] ))(?P<value>(?!I\b){CAPWORD}) and I (?:have been |'ve been |are |(?:just |recently )?"
        rf"(?:started|began) )(?P<kind>dating|seeing)(?: each other)?(?= {_PARTING_WHEN}\b|{_GOING_OUT_END})",
        rf"(?:^(?:(?i:so|and|well|oh|yeah|btw),? )?|(?<=[,;:] ))(?P<value>(?!I\b){CAPWORD}) and I {ADVERBS}got "
        rf"(?P<kind>engaged|married)(?={_WED_PLACE}(?: {_PARTING_WHEN}\b|{_WED_PLACE}{_GOING_OUT_END}))",
        rf"\bI(?:'m| am|'ve been| have been) (?:now |currently )?in a (?:serious |committed |new |long-distance )?"
        rf"relationship (?P<kind>with) (?P<value>{PROPER}){_GOING_OUT_END}",
    ], "The user's {kind} is named {value}.", relation, confidence=0.75, importance=0.8),
    # What someone in the user's life does, where they work or live (_kin_fact).
    rule("fact", "{person}_role", "my our", [
        rf"{_PERSON}(?: is|'s) (?:now |currently |also |still )?(?:an?|the) (?P<value>{ROLE}){ROLE_END}",
        rf"{_PERSON} (?:now |currently |also |still )?works {WORK_HOURS}as (?:an?|the) (?P<value>{ROLE}){ROLE_END}",
        # "My husband Ken works at Ford as a mechanic": the employer first (the employer rule files it)
        rf"{_PERSON} (?:now |currently |also |still )?works {WORK_HOURS}(?:at|for) (?:the )?{ORG} as (?:an?|the) "
        rf"(?P<value>{ROLE}){ROLE_END}",
    ], "The user's {kind}{named} is {a} {value}.", _kin_unless_a_stay(role, contracts=True), confidence=0.7,
         importance=0.6),
    # What a named relative teaches is their role, as "I teach chemistry" is the user's.
    rule("fact", "{person}_role", "teaches", [
        rf"{_PERSON} (?:now |currently |also |still )?teaches (?P<value>(?i:{alternation(vocabulary.SCHOOL_SUBJECTS)}))"
        r"(?= at\b|\s*[.,;!]|\s*$)",
    ], "The user's {kind}{named} is {a} {value}.", _kin_unless_a_stay(teacher, contracts=True), confidence=0.7,
         importance=0.6),
    rule("fact", "{person}_employer", "my our", [
        rf"{_PERSON}(?: (?:(?:now |currently |also |still )?works {WORK_HOURS}(?:at|for)|(?:just |recently |finally )?got (?:hired|"
        rf"a (?:new )?job) (?:at|by|with)|is (?:now |currently |still )?"
        rf"(?:working {WORK_HOURS}(?:at|for)|employed (?:at|by))|(?:now |currently |also |still )?works {WORK_HOURS}as "
        rf"(?:an?|the) {ROLE} "
        rf"(?:at|for))|(?: is|'s) (?:now |currently |also |still )?(?:an?|the) {ROLE}(?<!student) (?:at|for)) (?:the )?"
        rf"(?P<value>{ORG}){NOT_TEMPORARY}",
    ], "The user's {kind}{named} works at {value}.", _kin_unless_a_stay(organisation, contracts=True),
         confidence=0.7, importance=0.6),
    # Where a named relative studies: their school, as "I'm a student at UCL" is the user's (not their employer)
    rule("fact", "{person}_school", "student undergrad undergraduate postgrad postgraduate studies studying", [
        rf"{_PERSON}(?: is|'s) (?:now |currently |still )?(?:an?|the) (?:[A-Za-z][\w-]* ){{0,2}}?(?:student|undergrad|"
        rf"undergraduate|postgrad|postgraduate) (?:at|of) (?:the )?(?P<value>{ORG}){SCHOOL_END}",
        rf"{_PERSON} (?:now |currently |still )?(?:studies|is studying) (?:{FIELDS_SAID} )?at (?:the )?"
        rf"(?P<value>{ORG}){NOT_TEMPORARY}{SCHOOL_END}",
    ], "The user's {kind}{named} studies at {value}.", _kin_unless_a_stay(school), confidence=0.7,
         importance=0.6),
    # where they live, and their move, read as the user's own are ("My friend Kate just moved to Berlin"; not
    # "moved to Google", nor a stay: "My sister moved to Paris for the summer", "My brother is living in Rome
    # until May")
    rule("fact", "{person}_city", "my our", [
        rf"{_PERSON} (?:(?:now |currently |also |still )?lives|is (?:now |currently |still )?(?:based|living)) in "
        rf"(?P<value>{PROPER})",
    ], "The user's {kind}{named} lives in {value}.", _kin_unless_a_stay(not_an_organisation), confidence=0.7,
         importance=0.6),
    rule("fact", "{person}_city", "moved relocated", [
        rf"{_PERSON} (?:has |'s )?(?:just |recently |finally )?(?:moved|relocated) (?:back |over )?to "
        rf"(?P<value>{PROPER})",
    ], "The user's {kind}{named} lives in {value}.", _kin_unless_a_stay(not_an_organisation), confidence=0.7,
         importance=0.6),
    # What a named child, relative or friend started: an event of their life, the user's to keep.
    rule("event", "{person}_started", "started began", [
        rf"{_PERSON} (?:just |finally |recently )?(?:started|began) {_STARTED}{_PAST_WHEN}"
        r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:in|at|and|but|so|with|on)\b)",
    ], "The user's {kind}{named} started {value}{when}.", _kin_fact(_started), confidence=0.7, importance=0.6),
    # what someone in the user's life did before, or no longer does
    rule("fact", "{person}_role", "used retired former ex", [
        rf"{_PERSON} used to (?:be (?:an?|the)|work as (?:an?|the)) (?P<value>{ROLE}){ROLE_END}",
        # "My dad is a retired pilot", "My aunt Rosa is a former nurse"
        rf"{_PERSON}(?: is|'s) (?:an?|the) (?:(?:retired|former) |ex-?)(?P<value>{ROLE}){ROLE_END}",
    ], "The user's {kind}{named} used to be {a} {value}.", _kin_fact(role), confidence=0.7, importance=0.5,
         historical=True),
    rule("fact", "{person}_role", "promoted became", [
        rf"{_PERSON} (?:just |recently |finally )?(?:got |was |has been |'s been )?(?:promoted to|became) (?:an? |the )?"
        rf"(?P<value>{ROLE}|{HEAD_OF}){ROLE_END}",
    ], "The user's {kind}{named} is {a} {value}.", _kin_unless_a_stay(role, contracts=True), confidence=0.7,
         importance=0.6),
    rule("fact", "{person}_employment_status", "retired", [
        rf"{_PERSON}(?:'s| has)?(?: (?:has|just|recently|finally))* (?P<value>retired)(?=\s*(?:[.,;!]|$)|\s+(?:last|this|in|"
        rf"from|after|early|recently|a (?:year|few|couple)|(?:{NUMBER}) (?:years?|months?))\b)",
        # "My dad is retired now", "My mom is a retired nurse" (the job is the past's: the rule above)
        rf"{_PERSON} is (?:now |happily |also )?(?:an? )?(?P<value>retired)(?=\s*(?:[.,;!]|$)|\s+now\b|\s+{ROLE}{ROLE_END})",
        # "My dad's retired now", "My mom's a retired nurse"; not "My dad's retired friend", whose "'s" is whose
        rf"{_PERSON}'s (?:now |happily |also )?(?:an? (?=retired\s+{ROLE}{ROLE_END})|(?=retired(?:\s*(?:[.,;!]|$)|\s+now\b)))"
        rf"(?P<value>retired)",
    ], "The user's {kind}{named} is retired.", _kin_fact(as_said), confidence=0.7, importance=0.6),
    # a job left, the one taken after it, a move between employers (_job_move) or places (_place_move)
    rule("fact", "{person}_employer", "left quit longer", [
        rf"{_PERSON} (?:has |'s )?(?:just |recently |finally )?(?:left|quit) (?P<job>(?:her|his|their) (?:job|position|role) "
        rf"(?:at|with) )?(?:the )?(?!{PLATFORMS})(?P<value>{ORG}){LEFT_END}",
        rf"{_PERSON}(?: is|'s) no longer (?P<job>at|with|working (?:at|for)) (?:the )?(?P<value>{ORG})",
    ], "The user's {kind}{named} used to work at {value}.", _kin_fact(_person_left), confidence=0.7,
         importance=0.5, historical=True),
    rule("fact", "{person}_employer", "joined", [
        rf"{_PERSON} (?:has |'s )?(?:just |recently |finally )?(?:left|quit) (?:(?:her|his|their) job at )?(?:the )?{ORG},? "
        rf"(?:and|to) (?:join|joined|has joined) (?:the )?(?P<value>{ORG}){NOT_TEMPORARY}",
        rf"{_PERSON}(?: is|'s) no longer (?:at|with) (?:the )?{ORG},? (?:and )?(?:she|he|they)(?:'s| has| have)? "
        rf"(?:just |recently )?joined (?:the )?(?P<value>{ORG}){NOT_TEMPORARY}",
    ], "The user's {kind}{named} works at {value}.", _kin_fact(organisation), confidence=0.7, importance=0.6),
    rule("fact", "{person}_employer", "moved switched went jumped transferred", [
        rf"{_PERSON} (?:has |'s )?{ADVERBS}(?P<verb>moved|switched|went|jumped|transferred) (?:over )?from (?:the )?"
        rf"(?P<old>{ORG}) to (?:the )?(?P<new>{ORG})",
    ], "The user's {kind}{named} works at {value}.", _kin_fact(_someones_job_move("new")), confidence=0.7,
         importance=0.6),
    rule("fact", "{person}_employer", "moved switched went jumped transferred", [
        rf"{_PERSON} (?:has |'s )?{ADVERBS}(?P<verb>moved|switched|went|jumped|transferred) (?:over )?from (?:the )?"
        rf"(?P<old>{ORG}) to (?:the )?(?P<new>{ORG})",
    ], "The user's {kind}{named} used to work at {value}.", _kin_fact(_someones_job_move("old")), confidence=0.7,
         importance=0.5, historical=True),
    rule("fact", "{person}_city", "moved relocated", [
        rf"{_PERSON} (?:has |'s )?{ADVERBS}(?P<verb>moved|relocated) (?:back )?from (?P<old>{PROPER}) to "
        rf"(?P<new>{PROPER})",
    ], "The user's {kind}{named} lives in {value}.", _kin_unless_a_stay(_place_move("new"), after="new"),
         confidence=0.7, importance=0.6),
    rule("fact", "{person}_city", "moved relocated used", [
        rf"{_PERSON} (?:has |'s )?{ADVERBS}(?P<verb>moved|relocated) (?:back )?from (?P<old>{PROPER}) to "
        rf"(?P<new>{PROPER})",
    ], "The user's {kind}{named} used to live in {value}.", _kin_unless_a_stay(_place_move("old"), after="new"),
         confidence=0.7, importance=0.5, historical=True),
    # "My mom used to live in Cork but now she lives in Dublin": where they live now, said of them
    rule("fact", "{person}_city", "used", [
        rf"{_PERSON} used to live in {PROPER},? but (?:now )?(?:she|he|they) (?:now )?lives? in (?P<value>{PROPER})",
    ], "The user's {kind}{named} lives in {value}.", _kin_fact(not_an_organisation), confidence=0.7, importance=0.6),
    rule("fact", "{person}_city", "used", [
        rf"{_PERSON} used to live in (?P<value>{PROPER})",
    ], "The user's {kind}{named} used to live in {value}.", _kin_fact(not_an_organisation), confidence=0.7,
         importance=0.5, historical=True),
    # where a child or a relative goes to school, or is in a year of it
    rule("fact", "{person}_school", "goes attends year", [
        rf"{_PERSON} (?:now |currently |still )?(?:goes to|attends) (?:the )?(?P<value>{ORG}){NOT_TEMPORARY}",
        rf"{_PERSON}(?: is|'s) (?:now )?in (?:her|his|their) (?:first|second|third|fourth|final|last) year (?:at|of) "
        rf"(?:the )?(?P<value>{ORG})",
    ], "The user's {kind}{named} studies at {value}.", _kin_fact(_school_gone_to), confidence=0.7, importance=0.6),
    rule("fact", "{person}_school", "started began", [
        rf"{_PERSON} (?:just |finally |recently )?(?:started|began) (?:an?|her|his|their) {DEGREE_SAID} at (?:the )?"
        rf"(?P<value>{ORG}){SCHOOL_END}",
    ], "The user's {kind}{named} studies at {value}.", _kin_unless_a_stay(school), confidence=0.7,
         importance=0.6),
    rule("event", "{person}_started", "started began", [
        rf"{_PERSON} (?:just |finally |recently )?(?:started|began) (?:an?|her|his|their) (?P<value>{DEGREE})"
        rf"(?: in {FIELDS_SAID})?{_PAST_WHEN}(?=\s*(?:[^\w\s'-]|$)|\s+(?:in|at|and|but|so|with|on)\b)",
    ], "The user's {kind}{named} started {value}{when}.", _kin_fact(_started), confidence=0.7, importance=0.6),
    # their health, an allergy, a plan, a pet
    rule("fact", "{person}_health_condition", "has got suffers lives diagnosed", [
        rf"{_PERSON} (?:has|'s got|has got|suffers from|lives with|(?:was|got|has been|'s been) diagnosed with) "
        rf"(?:(?:a|mild|severe|chronic|bad) )?(?P<value>(?i:{alternation(vocabulary.HEALTH_CONDITIONS)}))"
        rf"(?![\w'-])(?!\s+(?:about|over|attacks?|before|when)\b)",
    ], "The user's {kind}{named} has {value}.", _kin_fact(as_said), confidence=0.7, importance=0.7),
    rule("fact", "{person}_allergy", "allergic", [
        rf"{_PERSON}(?: is|'s)(?: (?:very|severely|deathly|highly|really|quite|mildly|slightly|super|so))? allergic to "
        rf"(?P<value>{list_or_phrase(5)})",
        rf"{_PERSON}(?: is|'s) (?:{NUMBER})(?: (?:years?|yrs?) old)? and (?:is )?allergic to (?P<value>{phrase(5)})",
    ], "The user's {kind}{named} is allergic to {value}.", _kin_fact(allergies), confidence=0.7, importance=0.8),
    # a move ahead, which will change where they live (a trip or a visit is theirs, not a fact of the user's)
    rule("event", "{person}_plan", "moving relocating", [
        rf"{_PERSON}(?: is|'s) (?P<value>(?:moving|relocating)(?: to| back to)?(?: {PROPER})? {TRIP_WHEN})"
        r"(?=\s*(?:[.,;!?]|$)|\s+(?:for|with|because|to)\b)",
    ], "The user's {kind}{named} plans: {value}.", _kin_fact(as_said), confidence=0.7, importance=0.5),
    rule("fact", "{person}_pet_{animal}_{fact}", "named called name", [
        rf"{_PERSON}'s {PET_ADJECTIVE}(?P<pet>(?i:{alternation(PETS)}))(?:'s name is| is called| is named) "
        rf"(?P<value>{PROPER})",
        rf"{_PERSON} (?:has|'s got|has got|(?:just )?(?:got|adopted)) (?:an?|another) {PET_ADJECTIVE}"
        rf"(?P<pet>(?i:{alternation(PETS)})){NAMED} (?P<value>{PROPER})",
        rf"{_PERSON} (?:has|'s got|has got|(?:just )?(?:got|adopted)) (?:an?|another) {PET_ADJECTIVE}"
        rf"(?P<breed>{BREED})(?: (?P<pet>(?i:{alternation(PETS)})))?{NAMED} (?P<value>{PROPER})",
        # a second pet named in the same breath: "My sister has a pug named Otis and a cat named Bean."
        rf"{_PERSON} (?:has|'s got|has got|(?:just )?(?:got|adopted)) (?:an?|another) {PET_ADJECTIVE}"
        rf"(?:{BREED}|(?i:{alternation(PETS)}))(?: (?i:{alternation(PETS)}))?{NAMED} {PROPER},? and (?:an?|another) "
        rf"{PET_ADJECTIVE}(?P<pet>(?i:{alternation(PETS)})){NAMED} (?P<value>{PROPER})",
    ], "The user's {kind}{named} has {said}.", _kin_fact(_person_pet), confidence=0.7, importance=0.5),
    rule("relation", "child_name", "have got are", [
        rf"{HAVE} (?:(?:{NUMBER}) )?(?:twin )?(?P<kind>sons|daughters|kids|children|boys|girls)[,:]? "
        rf"(?:(?:named|called) )?(?P<value>{NAMES})",
        rf"{HAVE} an? (?:son|boy|daughter|girl) and an? (?:son|boy|daughter|girl)(?P<kind>)[,:] (?:(?:named|called) )?"
        rf"(?P<value>{NAMES})",
        rf"{MY} (?P<kind>sons|daughters|kids|children|boys|girls) are (?:(?:named|called) )?(?P<value>{NAMES})",
    ], "The user's {kind} is named {value}.", _children_named, confidence=0.75, importance=0.8),
    rule("relation", "child_name", "my our", _CHILDREN_AGED, "The user's {kind} is named {value}.",
         _children_aged_names, confidence=0.75, importance=0.8),
    rule("fact", "child_{who}_age", "my our", _CHILDREN_AGED, "The user's {kind}{named} is {value} years old.",
         _children_ages, confidence=0.75, importance=0.6),
    # a child born: "My husband and I just had a baby boy, Leo.", "We welcomed a baby girl named Ella"
    rule("relation", "child_name", "had welcomed", [
        rf"(?:\b(?:I|[Ww]e)|\b(?i:my) (?:{PARTNER_WORD}) and I|(?<![\w'])(?i:me) and my (?:{PARTNER_WORD})) "
        rf"(?:just |recently |finally )?(?:had|welcomed) (?:(?:a|our (?:first|second|third|fourth)) )?(?:(?:little|new) )?"
        rf"(?P<kind>baby (?:boy|girl|son|daughter)|son|daughter|baby),?(?: (?:named|called))? (?P<value>{PROPER})",
    ], "The user's {kind} is named {value}.", _child_born, confidence=0.75, importance=0.8),
    # a child named by where they come among the children: "My eldest, Sam, just turned 18."
    rule("relation", "child_name", "eldest oldest youngest", [
        rf"{MY} {_BIRTH_ORDER},? (?P<value>{PROPER}),",
    ], "The user's {kind} child is named {value}.", _child_by_order, confidence=0.75, importance=0.8),
    rule("fact", "relationship_status", "m am", [
        r"\bI(?:'m| am) (?:now |currently |happily )?(?P<value>single|married|divorced|widowed|engaged|separated)"
        + strict_end("now", "again", "right now", "at the moment", "for now"),
    ], "The user is {value}.", as_said, confidence=0.75, importance=0.7),
    # "Since my divorce I've been cooking for one": still divorced (not "after my divorce", which may
    # have been followed by anything)
    rule("fact", "relationship_status", "divorce", [
        r"(?:^|(?<=[,;:] ))(?:(?i:ever) )?(?i:since) my divorce\b",
    ], "The user is divorced.", lambda m: [{"value": "divorced"}], confidence=0.7, importance=0.7),
    # A proposal to the user: "Sam proposed last night!", "My boyfriend popped the question" (engaged; the
    # partner's name the rule below files); not "Tom proposed a toast", "Harry proposed to Meghan".
    rule("fact", "relationship_status", "proposed popped", [
        rf"(?:^|(?<=[,;:] ))(?:(?i:my) (?:{PARTNER_WORD})(?:,? {PROPER},?)?|(?!I\b)(?P<who>{PROPER})|(?i:he|she)) "
        rf"{_PROPOSED}",
    ], "The user is engaged.", _proposed_to, confidence=0.7, importance=0.7),
    rule("relation", "partner_name", "proposed popped", [
        rf"(?:^|(?<=[,;:] ))(?P<value>(?!(?:I|He|She)\b){PROPER}) {_PROPOSED}",
    ], "The user's partner is named {value}.", confidence=0.7, importance=0.8),
    # A partnership begun or ended, said of the user and no name: "I got married in June!", "We broke up",
    # "My wife and I divorced last year". An event: a divorce said so ends the current partner
    # (supersession.ENDED_BY_EVENT), where "I'm divorced" says only what the user is.
    rule("event", "relationship_status", "got tied broke split separated divorced", [
        rf"\b(?:I|[Ww]e) {ADVERBS}(?:got (?P<value>married|divorced|engaged)|tied the knot){_WED_PLACE}{_PARTED_WHEN}"
        rf"{_WED_PLACE}{_PARTING_END}",
        # "Daniel and I got engaged!", "My boyfriend and I got married", "Me and my girlfriend got engaged"
        rf"(?:^|(?<=[,;:] ))(?:(?!I\b){CAPWORD} and I|(?i:my) (?:{PARTNER_WORD}) and I|(?i:me) and my "
        rf"(?:{PARTNER_WORD})) {ADVERBS}(?:got (?P<value>married|engaged)|tied the knot){_WED_PLACE}{_PARTED_WHEN}"
        rf"{_WED_PLACE}{_PARTING_END}",
        rf"\b[Ww]e {ADVERBS}(?P<verb>broke up|split up|split|separated){_PARTED_WHEN}{_PARTING_END}",
        rf"\b(?i:my) (?:{PARTNER_WORD}) and I {ADVERBS}(?P<verb>{_PARTED}){_PARTED_WHEN}{_PARTING_END}",
        # "Me and my husband got divorced", as people say it
        rf"(?<![\w'])(?i:me) and my (?:{PARTNER_WORD}) {ADVERBS}(?P<verb>{_PARTED}){_PARTED_WHEN}{_PARTING_END}",
        # a parting from an ex: "My ex-wife and I split up last year", "Me and my ex split up"
        rf"\b(?i:my) (?P<ex>ex(?:-?(?:{PARTNER_WORD}))?) and I {ADVERBS}(?P<verb>{_PARTED}){_PARTED_WHEN}{_PARTING_END}",
        rf"(?<![\w'])(?i:me) and my (?P<ex>ex(?:-?(?:{PARTNER_WORD}))?) {ADVERBS}(?P<verb>{_PARTED}){_PARTED_WHEN}"
        rf"{_PARTING_END}",
    ], "The user is {value}.", _status_after_parting, confidence=0.7, importance=0.7),
    # The day of a wedding, said with it, is the anniversary: "We got married on June 3rd 2019."
    rule("fact", "anniversary", "married tied", [
        rf"\b(?:I|[Ww]e|(?i:my) (?:{PARTNER_WORD}) and I) {ADVERBS}(?:got married|tied the knot){_WED_PLACE} on (?:the )?"
        rf"(?P<value>(?:{DATE})(?:,? (?:19|20)\d\d)?)(?![\w'-]){_WED_PLACE}{_PARTING_END}",
    ], "The user's wedding anniversary is {value}.", lambda m: [{"value": m.group("value")}], importance=0.7),
    # A spouse's death, an event that leaves the user widowed and ends the partner; "I'm a widow" and
    # "my late husband" say what the user is.
    rule("event", "relationship_status", "passed died lost", [
        rf"\b(?i:my) {_SPOUSE}(?:,? {PROPER},?)? {DIED}{_DIED_OF}{_PARTED_WHEN}{_PARTING_END}",
        rf"\bI(?:'ve| have)? {ADVERBS}lost (?i:my) {_SPOUSE}{_LOST_TO}{_PARTED_WHEN}{_PARTING_END}",
    ], "The user is widowed: their {kind} died.", _widowed, confidence=0.7, importance=0.7),
    rule("fact", "relationship_status", "widow widower late", [
        r"\bI(?:'m| am) (?:now )?an? (?:young )?(?:widow|widower)(?![\w'-])",
        rf"\b(?i:my) late (?:{PARTNER_WORD})\b",
    ], "The user is widowed.", lambda m: [{"value": "widowed"}], confidence=0.7, importance=0.7),
    rule("relation", "partner_name", "passed died late", [
        rf"\b(?i:my) {KIN_ADJECTIVE}(?P<kind>{PARTNER_WORD}),? (?P<value>{PROPER}),? {DIED}",
        rf"\b(?i:my) late (?P<kind>{PARTNER_WORD}),? (?P<value>{PROPER})",
    ], "The user's late {kind} is {value}.", _late_partner, confidence=0.7, importance=0.6, historical=True),
    # A partner the user left or was left by, or an ex named as such: history, which ends them as the
    # current partner (supersession.ending).
    rule("relation", "partner_name", "broke split separated divorced longer ex used was", [
        rf"\bI {ADVERBS}(?:broke up|split up|split|separated) (?:with|from) (?:{MY} (?:{PARTNER_WORD}),? )?"
        rf"(?P<value>{PROPER})",
        rf"(?:{MY} (?:{PARTNER_WORD}),? )?(?<![\w'])(?P<value>{PROPER}),? and I {ADVERBS}{_PARTED}"
        rf"(?: {_PARTING_WHEN})?{_PARTING_END}",
        rf"\bI(?:'m| am) no longer (?:dating|seeing|married to|engaged to) (?P<value>{PROPER})",
        rf"\bI {ADVERBS}divorced (?P<value>{PROPER})",
        rf"\bI(?:'m| am| got) divorced from (?P<value>{PROPER})",
        rf"\bI (?:used to be (?:married|engaged) to|used to (?:date|be with)|was (?:married|engaged) to) "
        rf"(?P<value>{PROPER})",
        rf"{MY} ex(?:-?(?:{PARTNER_WORD}))?,? (?P<value>{PROPER})",
    ], "The user's former partner is {value}.", a_name, confidence=0.7, importance=0.6, historical=True),
    # "I'm no longer with Sam." may be a partner or a firm: it ends the partner only if Sam is the
    # current one (`ends_only`), as "I left Tom." ends only a current employer.
    rule("relation", "partner_name", "longer", [
        rf"\bI(?:'m| am) no longer (?:with|together with) (?P<value>{PROPER})",
    ], "The user's former partner is {value}.", a_name, confidence=0.7, importance=0.6, historical=True,
         ends_only=True),
    # a child's age (_child_age)
    rule("fact", "child_{who}_age", "son daughter eldest oldest youngest", [
        rf"{MY} {KIN_ADJECTIVE}{_CHILD}(?:,? (?P<name>{PROPER}),?)?(?: is|'s) {AGED}",
        rf"{MY} {KIN_ADJECTIVE}{_CHILD},? {_NAME_IS} {AGED}",
        rf"{MY} {KIN_ADJECTIVE}{_CHILD}(?:,? (?P<name>{PROPER}),?)? (?:just |recently )?turned (?P<value>{NUMBER})"
        rf"{TURNED_END}",
        rf"{MY} {KIN_ADJECTIVE}{_CHILD}(?:,? (?P<name>{PROPER}),?)?(?: is|'s)? {TURNING}",
    ], "The user's {kind}{named} is {value} years old.", _child_age, confidence=0.75, importance=0.6),
    # a child's birth (_child_birth): "My daughter was born in May 2020.", "Our son Leo was born on 3 March 2019."
    rule("fact", "child_{who}_{fact}", "born", [
        rf"{MY} {KIN_ADJECTIVE}{_CHILD}(?:,? (?P<name>{PROPER}),?)? was born {BORN_WHERE}(?:in|on) (?:{BIRTH_DAY},? )?"
        rf"(?P<value>{BIRTH_YEAR})",
        rf"{MY} {KIN_ADJECTIVE}{_CHILD}(?:,? (?P<name>{PROPER}),?)? was born {BORN_WHERE}(?:on|in) {BIRTH_DAY}"
        rf"(?!,? {BIRTH_YEAR})",
    ], "The user's {kind}{named}{said}.", _child_birth, confidence=0.75, importance=0.6),
    # a baby's age in months, said with the relation ("My daughter Maya is 5 months old."): the unit kept,
    # as when said by the name alone (_aged_again), which then replaces it ("Maya is 6 months old now.")
    rule("fact", "child_{who}_age", "months", [
        rf"{MY} {KIN_ADJECTIVE}{_CHILD}(?:,? (?P<name>{PROPER}),?)?(?: is|'s) (?P<value>{NUMBER}) months? old"
        rf"(?: now)?{AGE_END}",
    ], "The user's {kind}{named} is {value} old.", _child_age_in_months, confidence=0.75, importance=0.6),
    # a relative's, a friend's or a colleague's age (_AGED_KIN)
    rule("fact", "{person}_age", "is s turned turns turning", [
        rf"{MY} {KIN_ADJECTIVE}{_AGED_KIN}(?:,? (?P<name>{PROPER}),?)?(?: is|'s) {AGED}",
        rf"{MY} {KIN_ADJECTIVE}{_AGED_KIN},? {_NAME_IS} {AGED}",
        rf"{MY} {KIN_ADJECTIVE}{_AGED_KIN}(?:,? (?P<name>{PROPER}),?)? (?:just |recently )?turned (?P<value>{NUMBER})"
        rf"{TURNED_END}",
        rf"{MY} {KIN_ADJECTIVE}{_AGED_KIN}(?:,? (?P<name>{PROPER}),?)?(?: is|'s)? {TURNING}",
    ], "The user's {kind}{named} is {value} years old.", _kin_fact(an_age), confidence=0.75, importance=0.6),
]


EXPECTING_RULES = [
    # A baby on the way, the user's or their partner's: "We're expecting our second baby in May!", "I'm 20
    # weeks pregnant", "My wife is pregnant" (a partner named alone, "Sam is pregnant!", is pregnant_again's).
    # Not "I'm expecting a call", nor someone else's pregnancy ("My sister is pregnant").
    rule("fact", "expecting_baby", "expecting pregnant", [
        rf"\b(?:I|[Ww]e)(?:'re| are|'m| am) {ADVERBS}expecting (?:(?:a|our|my) (?:(?:first|second|third|fourth|"
        rf"fifth|new|little|baby) )*(?:baby|child|kid)|twins|a (?:baby )?(?:boy|girl))(?![\w'-])",
        rf"\bI(?:'m| am) {ADVERBS}(?:(?:{NUMBER}|a few) (?:weeks?|months?) )?pregnant(?![\w'-])",
        rf"{MY} (?P<who>(?i:{PARTNER_WORD})) is {ADVERBS}(?:(?:{NUMBER}|a few) (?:weeks?|months?) )?pregnant"
        rf"(?![\w'-])",
        # "My wife's pregnant!", not "My wife's pregnant sister is visiting", whose "'s" is whose
        rf"{MY} (?P<who>(?i:{PARTNER_WORD}))'s {ADVERBS}(?:(?:{NUMBER}|a few) (?:weeks?|months?) )?pregnant"
        rf"(?![\w'-])(?!\s+(?!(?:again|now|and|but|so|with|at|by|already|finally)\b)[a-z])",
    ], "The user is expecting a baby.", lambda m: [{"value": "yes"}], confidence=0.7, importance=0.7),
]
