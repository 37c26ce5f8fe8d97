"""The clean functions several domains share: each takes a rule's match and returns the fields it files
(`Fields`: the value, and what the rule's key and sentence are formatted with), or none when what was
captured is not what it looks like (a name that is a weekday, an employer that is a known place)."""

from __future__ import annotations

import datetime
import re
from typing import Callable

from memex.extraction import vocabulary
from memex.extraction.offline.patterns import (ABBREVIATION, A_TEAM, BREED_KIND, FOR_A_WHILE, FOR_THEIR_OWN, HERS, HIS,
    HOURS, INNER_CAPITAL, JOB_WORDS, KIN_CALLED, NOT_NAMES, PERIOD, NOT_ROLE_MODIFIERS, ORG_SUFFIXES, PARTNER_DIED, PARTNER_VERBS,
    NUMBER, PERSON_PARTS, PETS, PLACE_ACRONYMS, ROLE_ABBREVIATIONS, SMALL_NUMBERS, TENS, UNTIL_SAID, WORK_SAID)
from memex.jobs import key_words
from memex.literal import caseless


Fields = dict[str, str]


def a_name(m: re.Match[str]) -> list[Fields]:
    value = re.sub(r"'s?$", "", m.group("value"))
    return [] if caseless(value) in NOT_NAMES else [{"value": value}]


def as_said(m: re.Match[str]) -> list[Fields]:
    return [{"value": m.group("value")}]


def role(m: re.Match[str]) -> list[Fields]:
    words = m.group("value").split()
    # A student is what the user is, not a job title: the work-status rule files it.
    if any(caseless(w) in NOT_ROLE_MODIFIERS for w in words[:-1]) or caseless(words[-1]) == "student":
        return []
    return [{"value": " ".join(ROLE_ABBREVIATIONS.get(w, w) for w in words)}]


def teacher(m: re.Match[str]) -> list[Fields]:
    return [{"value": f"{m.group('value')} teacher"}]


def relation(m: re.Match[str]) -> list[Fields]:
    kind = caseless(m.group("kind"))
    pronoun = caseless(m.groupdict().get("pronoun") or "")
    if kind in (HERS if pronoun == "his" else HIS if pronoun == "her" else ()):
        return []  # "My sister is so happy. His name is Tom.": whose name, then?
    if kind in PARTNER_VERBS:
        if kind == "seeing" and a_place(m.group("value")):
            return []  # "I'm seeing Rome for a week" is a visit
        if kind in ("seeing", "dating") and caseless(m.group("value")) in KIN_CALLED:
            return []  # "I'm seeing Mum." is a visit
        if kind == "with" and (an_organisation(m.group("value")) or WORK_SAID.search(m.string)):
            return []  # "I've been with Siemens for three years" is a job (_been_at)
        return [{**f, "kind": "partner", "part": "partner"} for f in a_name(m)]
    if PERSON_PARTS[kind] == "partner" and PARTNER_DIED.match(m.string, m.end()):
        return []  # "My husband Tom passed away": a late partner (below), not the current one
    return [{**f, "kind": kind, "part": PERSON_PARTS[kind]} for f in a_name(m)]


def listed_names(names: str) -> list[str]:
    """The names of a list (NAMES), or none when one is no name (a weekday, a breed: "my cats are
    Siamese and Persian")."""
    listed = [re.sub(r"'s?$", "", n) for n in re.split(r",? and |, ", names)]
    if any(not n or caseless(n) in NOT_NAMES or caseless(n) in BREED_KIND for n in listed):
        return []
    return listed


def pet(m: re.Match[str]) -> list[Fields]:
    kind = caseless(m.group("kind"))
    return [{**f, "kind": kind, "part": PETS[kind]} for f in a_name(m)]


def a_year(m: re.Match[str]) -> list[Fields]:
    """A year gone by (of birth, of graduation), four digits: "'85" is the latest year ending in 85 that is
    not in the future."""
    said = m.group("value")
    if said[0].isdigit():
        return [{"value": said}]
    year = datetime.date.today().year
    year -= (year - int(said[1:])) % 100
    return [{"value": str(year)}]


def a_birthday(m: re.Match[str]) -> list[Fields]:
    """The day of a birth (patterns.BIRTH_DAY's `day`, "March 4"); none for a month alone ("in May")."""
    return [{"value": m.group("day")}] if m.group("day") else []


def snake(text: str) -> str:
    words = [w for w in key_words(text) if w not in ("the", "a", "an")]
    return "_".join(words)


def to_number(text: str) -> int | None:
    text = caseless(text)
    if text.isdigit():
        return int(text)
    tens, _, unit = re.sub(r"[- ]+", " ", text).partition(" ")
    if tens in TENS:
        return TENS[tens] + SMALL_NUMBERS.get(unit, 0)
    return SMALL_NUMBERS.get(text)


def an_age(m: re.Match[str]) -> list[Fields]:
    age = to_number(m.group("value"))
    if age is not None and m.groupdict().get("ahead"):
        age -= 1  # "I turn 40 next week": 39 until then, and the birthday's age replaces it once said
    return [{"value": str(age)}] if age is not None and 1 <= age <= 120 else []


# Two things said as one, which the "and" of a list does not part ("I love rock and roll", "My hobby is arts and
# crafts"): a few such pairs, read by the last word before the "and" and the first after it.
_ONE_THING = frozenset({
    "rock and roll", "rhythm and blues", "drum and bass", "mac and cheese", "fish and chips", "salt and pepper",
    "bread and butter", "sweet and sour", "gin and tonic", "rum and coke", "strawberries and cream", "black and white",
    "arts and crafts", "pros and cons", "peace and quiet", "hide and seek", "trial and error", "bed and breakfast",
    "snakes and ladders", "cops and robbers", "surf and turf"})
# Where a list parts: a comma (with its "and" or "or", if one follows), or an "and" or "or" between spaces.
_LIST_BREAK = re.compile(r"(\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+)")


def listed_items(said: str, names: bool = True) -> list[str]:
    """The items of a list ("peanuts, shellfish and eggs", "jazz and hiking"), each as said; an "and" or "or" parts
    no pair said as one thing (_ONE_THING), nor, with `names` and no comma, two capitalised words (a name or a title:
    "Simon and Garfunkel", "Pride and Prejudice"; an allergy's "Advil and Tylenol" are two, and so are a list's last
    two, "Lisbon, Porto and Rome")."""
    names = names and "," not in said
    pieces = _LIST_BREAK.split(said)
    items = [pieces[0]]
    for joint, item in zip(pieces[1::2], pieces[2::2]):
        before, after = items[-1].rsplit(" ", 1)[-1], item.split(" ", 1)[0]
        one_thing = caseless(f"{before} {joint.strip()} {after}") in _ONE_THING \
            or names and before[:1].isupper() and after[:1].isupper()
        if "," not in joint and one_thing:
            items[-1] += joint + item
        else:
            items.append(item)
    return [item for item in items if item]


def allergies(m: re.Match[str]) -> list[Fields]:
    # "penicillin and to cats": each item without the preposition repeated
    items = [re.sub(r"^to ", "", item) for item in listed_items(m.group("value"), names=False)]
    return [{"value": item} for item in items if item and caseless(item) not in ("something", "everything")]


def _org_shaped(name: str, acronyms: bool = True) -> bool:
    words = name.split()
    return (any(c.isdigit() or c == "&" for c in name)
            or caseless(words[-1].rstrip(".")) in ORG_SUFFIXES
            or any(INNER_CAPITAL.search(w) for w in words)
            or acronyms and any(len(w) >= 3 and w.isupper() and w not in PLACE_ACRONYMS for w in words))


def a_place(name: str) -> bool:
    return caseless(name) in vocabulary.PLACES


def _well_known_employer(name: str) -> bool:
    return caseless(name) in vocabulary.WELL_KNOWN_EMPLOYERS


def an_organisation(name: str, acronyms: bool = True) -> bool:
    """Whether a name is an organisation's by its shape or as a well-known employer; `acronyms`: whether an
    acronym alone says so (a school's may be one: "MIT", "UCL")."""
    return _org_shaped(name, acronyms) or _well_known_employer(name)


def a_department(name: str) -> bool:
    return caseless(name) in vocabulary.DEPARTMENTS


def not_a_job_move(m: re.Match[str]) -> bool:
    """Whether a move between two names is surely no job change: a customer's, a move between
    teams or departments, or a move between places."""
    if FOR_THEIR_OWN.match(m.string, m.end()) and not JOB_WORDS.search(m.string):
        return True
    if A_TEAM.match(m.string, m.end("old")) or A_TEAM.match(m.string, m.end("new")):
        return True
    if any(a_department(n) for n in (m.group("old"), m.group("new"))):
        return True
    return not any(_org_shaped(n) for n in (m.group("old"), m.group("new"))) \
        and any(a_place(n) for n in (m.group("old"), m.group("new")))


def a_job_move(m: re.Match[str]) -> bool:
    names = (m.group("old"), m.group("new"))
    if not_a_job_move(m):
        return False
    if m.groupdict().get("jobs"):
        return True
    if any(_org_shaped(n) for n in names):
        return True
    if any(a_place(n) for n in names):
        return False
    if m.group("verb") in ("moved", "went", "jumped") and all(_well_known_employer(n) for n in names):
        return True
    return m.group("verb") in ("switched", "jumped") and bool(JOB_WORDS.search(m.string))


# After when or where one works, "for" says for how long or for whom as often as where one is employed: "I'm
# working from home for August", "remotely for Ramadan", "part-time for Mum".
_HOURS_FOR = re.compile(rf"\b{HOURS} for (?:the )?$")


def an_employer(name: str) -> bool:
    """Whether a name said where one works may be an employer's: not a known place ("I left London for a job at
    Google"), a holiday or another name of a time ("I start at Easter", "working from home for Q3"), nor someone of
    the user's life ("at Dad's", "for Grandpa")."""
    bare = caseless(re.sub(r"'s?$", "", name))
    return not (a_place(name) or bare in NOT_NAMES or PERIOD.fullmatch(name) or bare in PERSON_PARTS)


def organisation(m: re.Match[str]) -> list[Fields]:
    """An employer (an_employer), whole with its possessive ("McDonald's", "St Mary's"); after when or where one
    works and "for" (_HOURS_FOR), only a name an organisation's by its shape or as a well-known employer."""
    value = m.group("value")
    if not an_employer(value):
        return []
    if _HOURS_FOR.search(m.string, m.start(), m.start("value")) and not an_organisation(value, acronyms=False):
        return []
    return [{"value": value}]


def named_person(part: str, name: str) -> str:
    """Whose fact it is when the person is named (_whose): a parent's under the relation alone, anyone
    else's under the relation and their name (`sister_ana`)."""
    return part if part in ("mother", "father") else f"{part}_{snake(name)}"


def not_an_organisation(m: re.Match[str]) -> list[Fields]:
    """A place someone else moved to, unless it is an organisation or a department ("My brother moved
    to Google", "My sister Jo moved to Marketing")."""
    value = m.group("value")
    return [] if an_organisation(value) or a_department(value) else a_name(m)


# A stay for a while (FOR_A_WHILE), said after the place or after what the move was for, in the clause: "I
# moved to Oslo for the summer", "I moved to Oslo to work at Equinor for the summer", "I moved from Bergen to
# Oslo for a year", "My sister moved to Paris for the summer", "I'm based in Dublin until March"; not "I moved
# to Madrid because my wife has lived there for years". A job, a role or a school for a while is one too: "I'm
# working at Google for the summer", "I work as a barista at Starbucks for the summer", "I'm studying at MIT for
# a semester". After "lived", "been living" or "used to live" the same words say how long it was home ("I've
# lived in Denver for ten years", "I used to live in Bergen for a while"), and after "been working", "been
# studying" or "been a" how long the job, the school or the role has been the user's ("I've been working at
# Google for three years", "I've been an electrician for 15 years"). "Until" a time after them says when it ends:
# after the past ("I lived in Dublin until 2020") a past home's end, but after the present perfect (_SO_FAR) one
# ahead, which makes it a stay as "I live in Dublin until March" is ("I've lived in Dublin until March", "I've
# been working at Google until March"). The clause runs on past an abbreviation's dot, as a sentence does
# ("I'm a nurse at St. Mary's for the summer").
_STAY = re.compile(
    r"(?:(?!\b(?:and|but|then|so|because|since|as|who|which|where|after|before|when|while|though|although)\b)"
    # "that" opens a clause of its own ("a school that closes for the summer"), but not one about the
    # user's own arrangement ("a flat that I rent for the summer", "a clinic that hired me for the summer")
    r"(?!\bthat\b(?!\s+(?:I|we)\b)(?![^.;:!?,]*\b(?:me|us)\b))"
    rf"(?:{ABBREVIATION}|[^.;:!?,]))*?{FOR_A_WHILE}")
_HOW_LONG = re.compile(
    r"\b(?:lived|(?:been|was|were) living|used to live|been (?:working|employed|studying|teaching|an?))\b")
_SO_FAR = re.compile(r"(?:'ve|\bhave|\bhas) lived\b|\bbeen (?:living|working|employed|studying|teaching|an?)\b")
# Years counted after the present simple say how long so far too, a non-native "have worked": "I work at Google
# for 3 years", "I live in Berlin for 5 years" (where "I'm working in Oslo for two years" and "I moved to Oslo for
# two years" are stints), unless what comes after them follows, in the sentence ("I work at Google for two years,
# then I'm off", "... but then I'm off", "...; after that I'll leave", "..., until 2028"; not "since then"), or the
# present simple opens a clause of time, where it says the future ("After I work at Google for 2 years, I'll move").
_PRESENT = re.compile("".join(f"(?<!\\b{w} )(?<!\\b{w.capitalize()} )" for w in
                              ("after", "before", "when", "whenever", "once", "until", "till", "if", "unless"))
                      + r"\b(?:I|[Ww]e) (?:[a-z]+ly )?(?:work|live)\b")
_YEARS = re.compile(rf"\bfor (?:(?:about|over|almost|nearly|more than) )?(?:{NUMBER}|a few|several|many|a couple of) "
                    r"years$")
_THEN = re.compile(r",?\s+(?:and )?(?:before|after)\b|[^.!?]*?(?:(?<!\bsince )\bthen|\bafter (?:that|which)|"
                   rf"\bafterwards|(?<![\w']){UNTIL_SAID})\b")
# A job until a time on a contract is the user's job, the contract's end said (rules/plans.py files it as a
# plan): "I work at Acme on a contract until March" is no stint, and "I'm a teacher on a contract until June" is a
# teacher. A home so is a stay still: "I'm living in Berlin on a work contract until March" keeps the home elsewhere.
_CONTRACT_UNTIL = re.compile(rf"\bcontract,?\s+{UNTIL_SAID}\b")


def _held(m: re.Match[str], stay: re.Match[str], contracts: bool) -> bool:
    """Whether what a stay's words say after a home, a job, a role or a school (the match `m`) is how long it has
    been held, or (`contracts`, a job's rule) the end of a job on a contract, rather than a stay for a while."""
    said = m.group(0)
    if stay.group("until"):
        return bool((_HOW_LONG.search(said) and not _SO_FAR.search(said))
                    or (contracts and _CONTRACT_UNTIL.search(stay.group())))
    return bool(_HOW_LONG.search(said) or (_PRESENT.search(m.string, m.start(), m.end()) and _YEARS.search(stay.group())
                                            and not _THEN.match(stay.string, stay.end())))


def unless_a_stay(clean: Callable[[re.Match[str]], list[Fields]], after: str = "value",
                  contracts: bool = False) -> Callable[[re.Match[str]], list[Fields]]:
    """A place of a home, an employer, a role or a school, the user's or someone's, cleaned by `clean`,
    unless what is said after it (the group `after`) makes it a stay for a while (_STAY): nothing is filed
    then, neither the stay as a home nor the place left as one left, since the home kept is elsewhere; nor a
    summer job as the employer or the job title, which would end the one the user keeps. A job's rules say
    `contracts`: a contract's end is then no stay (_CONTRACT_UNTIL)."""
    def home(m: re.Match[str]) -> list[Fields]:
        stay = _STAY.match(m.string, m.end(after))
        if stay and not _held(m, stay, contracts):
            return []
        return clean(m)
    return home


def school(m: re.Match[str]) -> list[Fields]:
    """A school by its name, not someone's house ("I studied at Sam's")."""
    if re.search(r"'s?$", m.group("value")):
        return []
    when = m.groupdict().get("when")
    return [{**f, "when": f" {when}" if when else ""} for f in a_name(m)]
