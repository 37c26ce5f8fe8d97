"""Rules of the user's pets: their names, breeds and ages, how many of a kind, a kind said with "a", and a
pet that died, was put down or rehomed (history, or an event that ends it)."""

from __future__ import annotations

import re

from memex.extraction import vocabulary
from memex.extraction.offline.patterns import (AGED, BREED, BREED_KIND, CAPWORD, ENDED_AFTER, ENDED_BEFORE, HAVE,
    MONTH, MY, NAMED, NAMES, NOT_NAMES, NUMBER, PET, PETS, PET_ADJECTIVE, PET_ADJECTIVES, PET_GONE, PROPER, RELATIONS,
    TURNED_END, UPPER, WEEKDAY, alternation)
from memex.extraction.plurals import plural
from memex.extraction.offline.rule import rule
from memex.extraction.offline.values import Fields, an_age, listed_names, pet, snake, to_number
from memex.literal import caseless


_GOT_PET = r"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?(?:got|adopted|rescued|bought)"
# A name set beside what it names ("Biscuit, my beagle"): one word, the object of a verb ("walked
# Biscuit, my beagle") or the subject, closed by a comma ("Luna, our lab, ate my charger"), never a
# word said to someone ("Thanks, my dog ...", "I called Mom, my dog was barking").
_NAME_BESIDE = (rf"(?:(?<=[a-z] )|^(?={UPPER}[\w'-]*, (?i:my|our) [^,]*,))(?!I\b)"
                rf"(?!(?i:{alternation(RELATIONS)}|mum|mama|papa|thanks|yes|yeah|no|ok|okay|sorry|well|oh|hey|hi|hello)\b)")
_APPOSITION_END = r"(?![\w'-])(?=\s*(?:[,.;:!)]|$))"


# Pets said in the plural ("two cats", "our kittens"), and the word each is the plural of.
_PET_PLURALS = {plural(word): word for word in PETS}
_PETS_SAID = rf"(?P<kind>(?i:{alternation(_PET_PLURALS)}))"
# What one has, counted or not ("two cats", "a dog", "three kids"), as one item of a list: "We have
# two kids and two cats."
_OWNED_WORDS = (*_PET_PLURALS, *PETS, *vocabulary.CHILDREN, "kid", "child", "son", "daughter", "boy", "girl")
_OWNED = rf"(?:an?|{NUMBER}) {PET_ADJECTIVE}(?i:{alternation(_OWNED_WORDS)})(?![\w'-])"
_PETS_COUNTED = re.compile(rf"(?P<value>an?|{NUMBER}) {PET_ADJECTIVE}(?P<kind>(?i:{alternation([*_PET_PLURALS, *PETS])}))")
# What follows a pet said with "a" that leaves it to another rule or to nothing: its name ("a dog
# named Rex", "a dog, his name is Rex"), or a comma ("I have a cat, Tom said it was fine").
_NAMED_NEXT = re.compile(r",|\s+(?:named|called)\b")
# Where a pet got or adopted ends its clause: "We adopted a puppy last week"; not "a dog bed", "a dog
# of a day", "a fish for dinner".
_GOT_PET_END = (r"(?=\s*(?:[.!;)]|$)|\s+(?:last|this|yesterday|today|recently|and|but|so|from|too|"
                r"(?:a|two|three|a few|a couple of) (?:days|weeks?|months?) ago)\b)")
# A pet named by the user, after it is said: "a goldfish, I named him Bubbles", "a cat. We called her Mo."
_NAMED_HIM = r"(?:[,;] (?:and )?|[.!] | and )(?:I|[Ww]e) (?:named|called) (?:him|her|it|them) "
# When a pet was got, between it and its name in the next sentence or clause: "I rescued a dog last
# month. Her name's Biscuit.", "we adopted a puppy last week, his name is Biscuit".
_GOT_WHEN = (rf"(?: (?:(?:last|this) (?:night|week|weekend|month|year|spring|summer|fall|autumn|winter|{WEEKDAY})|"
             r"yesterday|today|recently|(?:a|two|three|a few|a couple of) (?:days|weeks?|months?) ago))?")
_HAD_TO = r"(?:(?:had|have had|'ve had) to |finally |recently |sadly )?"
_PUT_DOWN = rf"\b(?:I|[Ww]e) {_HAD_TO}(?:give|gave|given|put) (?:my|our) {PET_ADJECTIVE}{PET}"
_GAVE_AWAY = rf"\b(?:I|[Ww]e) {_HAD_TO}(?:(?:give|gave|given) away|rehome|rehomed|lost) (?:my|our) {PET_ADJECTIVE}{PET}"
# Where a pet lost ends its clause ("We lost our dog last year"; not "lost our dog in the park").
_LOST_END = (rf"(?=\s*(?:[.!;]|$)|\s+(?:last|this|yesterday|recently|earlier|to|a few|a couple|in (?:\d{{4}}|{MONTH}))"
             r"(?![\w'-]))")
# A pet said to have been the user's: "I used to have a dog", "We used to have a cat when I was a
# kid"; the clause ends there or says when ("a dog walker", "a cat allergy" are none).
_USED_TO_END = (r"(?=\s*(?:[.!;,)]|$)|\s+(?:when|as a (?:kid|child|teenager)|growing up|back (?:home|then|in)|"
                r"years ago|in (?:college|school|\d{4})|too|and|but|once|for)\b)")


def _pets_named(m: re.Match[str]) -> list[Fields]:
    """Each pet of a list ("two cats, Miso and Tofu"): a name each, under its kind's key."""
    kind = _PET_PLURALS[caseless(m.group("kind"))]
    return [{"value": n, "kind": kind, "part": PETS[kind]} for n in listed_names(m.group("value"))]


def _pets_owned(m: re.Match[str]) -> list[Fields]:
    """The pets the user has, for each item of a list ("two kids, two cats and a dog"): how many of a
    kind counted ("two cats": `pet_cat_count` 2; not "no dogs"), and the kind of one said with "a"
    (`pet_kind` dog: "a dog" does not say it is the only dog, as a count of 1 would), unless the list
    ends there on its name or a comma (_NAMED_NEXT)."""
    items = re.split(r",? and |, ", m.group("value"))
    found = []
    for n, item in enumerate(items):
        owned = _PETS_COUNTED.fullmatch(item)
        if owned is None:
            continue
        said = caseless(owned.group("kind"))
        if caseless(owned.group("value")) in ("a", "an"):
            if said in PETS and not (n == len(items) - 1 and _NAMED_NEXT.match(m.string, m.end())):
                found.append(_a_pet(said, caseless(owned.group("value"))))
            continue
        number = to_number(owned.group("value"))
        if number:
            part = PETS[_PET_PLURALS.get(said, said)]
            found.append({"value": str(number), "part": f"pet_{part}_count", "said": f"{number} {said}"})
    return found


def _a_pet(said: str, article: str) -> Fields:
    """A pet of a kind, said with "a" ("a puppy"): its kind ("dog") under `pet_kind`."""
    return {"value": PETS[said].replace("_", " "), "part": "pet_kind", "said": f"{article} {said}"}


def _pet_kind(m: re.Match[str]) -> list[Fields]:
    said = caseless(m.group("kind"))
    return [_a_pet(said, vocabulary.article(said))]


def _breed_of(m: re.Match[str]) -> Fields:
    breed = m.group("breed")
    kind = PETS[caseless(m.group("kind"))] if m.groupdict().get("kind") else BREED_KIND[caseless(breed)]
    return {"breed": breed, "kind": kind, "part": kind}


def _pet_breed(m: re.Match[str]) -> list[Fields]:
    """A pet named with its breed ("a beagle called Pepper") gives its name and its breed; a breed
    alone ("my dog is a labrador") its breed."""
    fields = _breed_of(m)
    if fields["part"] != BREED_KIND[caseless(fields["breed"])]:
        return []  # "my cat is a beagle" is no breed of a cat
    found = [{**fields, "value": fields["breed"], "fact": "breed", "said": "breed is"}]
    if m.groupdict().get("name"):
        name = re.sub(r"'s?$", "", m.group("name"))
        if caseless(name) not in NOT_NAMES:
            found.insert(0, {**fields, "value": name, "fact": "name", "said": "is named"})
    return found


# One pet of a list, said by its kind or its breed ("a cat", "a beagle", "a Siamese cat").
_ONE_PET = rf"(?:{BREED}(?: (?i:{alternation(PETS)}))?|(?i:{alternation(PETS)}))(?![\w'-])"
# A breed, and the pet word that may follow it ("our beagle", "our beagle puppy").
_BREED_SAID = rf"(?P<breed>{BREED})(?: (?P<kind>(?i:{alternation(PETS)})))?"


def _pet_gone_by_breed(m: re.Match[str]) -> list[Fields]:
    """A pet of a breed that is over: its name when said, else its kind (`pet_kind`, as "My rabbit
    died." files), and its breed, each as history ("The user used to have a dog named Pepper.", "...
    a beagle.")."""
    fields = _breed_of(m)
    kind, breed = fields["kind"], fields["breed"]
    if kind != BREED_KIND[caseless(breed)]:
        return []
    said = kind.replace("_", " ")
    found = [{"value": breed, "part": f"pet_{kind}_breed", "said": f"{vocabulary.article(breed)} {breed}"}]
    name = re.sub(r"'s?$", "", m.group("name") or "")
    if name and caseless(name) not in NOT_NAMES:
        return [{"value": name, "part": f"pet_{kind}_name", "said": f"a {said} named {name}"}, *found]
    if name:
        return []
    return [{**_a_pet(kind, vocabulary.article(said)), "said": f"{vocabulary.article(said)} {said}"}, *found]


def pet_age_fields(filed: str, said: str, name: str | None) -> Fields:
    """What PET_AGE files a pet's age under but its value: its kind as a key writes it (`filed`) and its
    name when said (`pet_cat_pixel_age`, so that it never replaces another cat's), its kind alone when
    not (`pet_dog_age`); its kind said as `said`."""
    return {"whose": f"{filed}_{snake(name)}" if name else filed, "kind": said, "named": f" {name}" if name else ""}


def _pet_age(m: re.Match[str]) -> list[Fields]:
    """A pet's age in years (pet_age_fields)."""
    kind = caseless(m.group("kind"))
    name = m.group("name")
    if name and caseless(name) in NOT_NAMES:
        return []
    return [{**f, **pet_age_fields(PETS[kind], kind, name)} for f in an_age(m)]


# A pet's age: "My cat Pixel is 4 years old.", "Our dog is 3.", "My dog, Rex, just turned 5". In years
# only, the clause closing on it ("My dog is 3 months old", "our cat is 9 kilos" file nothing).
PET_AGE = rule("fact", "pet_{whose}_age", "is s turned", [
    rf"{MY} {PET_ADJECTIVE}{PET}(?:,? (?P<name>{PROPER}),?)?(?: is|'s) {AGED}",
    rf"{MY} {PET_ADJECTIVE}{PET}(?:,? (?P<name>{PROPER}),?)? (?:just |recently )?turned (?P<value>{NUMBER})"
    rf"(?: today| yesterday)?{TURNED_END}",
], "The user's {kind}{named} is {value} years old.", _pet_age, confidence=0.75, importance=0.5)

RULES = [
    PET_AGE,
    rule("fact", "pet_{part}_name", "my our named called name have has got adopted rescued bought", [
        # not a pet whose end is said ("Our dog Rex died", "We lost our dog Rex"): the rule below
        rf"(?<!lost )(?<!rehomed )(?<!rehome )(?<!away ){MY} {PET}(?:'s name is| is called| is named| is|,)? "
        rf"(?P<value>{PROPER}){ENDED_AFTER}",
        rf"(?P<value>{PROPER}) \((?i:my|our) {PET}\)",
        rf"(?:{HAVE}|{_GOT_PET}) (?:an?|another) {PET_ADJECTIVE}{PET}{NAMED} (?P<value>{PROPER})",
        rf"{_GOT_PET} (?:an?|another) {PET_ADJECTIVE}{PET}{_GOT_WHEN}(?:[.!]|,(?: and)?) "
        rf"(?i:her|his|its|their) name(?:'s| is) (?P<value>{PROPER})",
        # named by the user in the same breath: "I just got a goldfish, I named him Bubbles."
        rf"(?:{HAVE}|{_GOT_PET}) (?:an?|another) {PET_ADJECTIVE}{PET}{_GOT_WHEN}{_NAMED_HIM}(?P<value>{PROPER})",
        # a second pet named in the same breath: "We have a dog called Bolt and a cat named Pixel.", "a
        # beagle named Pepper and a cat named Luna" (one said by its breed: the breed rule below)
        rf"(?:{HAVE}|{_GOT_PET}) (?:an?|another) {PET_ADJECTIVE}{_ONE_PET}{NAMED} {PROPER},? "
        rf"and (?:an?|another) {PET_ADJECTIVE}{PET}{NAMED} (?P<value>{PROPER})",
        # the name set after the pet, closing the sentence: "We adopted a second cat, Tofu."
        rf"(?:{HAVE}|{_GOT_PET}) (?:an?|another) {PET_ADJECTIVE}{PET}, (?P<value>{CAPWORD})(?=\s*(?:[.!]|$))",
        rf"{_NAME_BESIDE}(?P<value>{CAPWORD}), (?i:my|our) {PET_ADJECTIVE}{PET}{_APPOSITION_END}{ENDED_AFTER}",
    ], "The user's {kind} is named {value}.", pet, confidence=0.75, importance=0.6),
    # a pet named after a counted list: "We have two cats and a dog named Rex."
    rule("fact", "pet_{part}_name", "named called", [
        rf"(?:{HAVE}|{_GOT_PET}) (?!no\b)(?:{NUMBER}) {PET_ADJECTIVE}(?i:{alternation(_PET_PLURALS)}),? "
        rf"and (?:an?|another) {PET_ADJECTIVE}{PET}{NAMED} (?P<value>{PROPER})",
    ], "The user's {kind} is named {value}.", pet, confidence=0.75, importance=0.6),
    # pets said in the plural, named as a list: "We have two cats, Miso and Tofu.", "Our dogs are called Pip and Max."
    rule("fact", "pet_{part}_name", "have got adopted rescued bought my our", [
        rf"(?:{HAVE}|{_GOT_PET}) (?:(?!no\b)(?:{NUMBER}) )?{PET_ADJECTIVE}{_PETS_SAID}(?:,? (?:named|called)|[,:])? "
        rf"(?P<value>{NAMES})",
        rf"{MY} (?:(?:{NUMBER}) )?{PET_ADJECTIVE}{_PETS_SAID}(?:,? (?:are )?(?:named|called)|,| are)? (?P<value>{NAMES})",
    ], "The user's {kind} is named {value}.", _pets_named, confidence=0.75, importance=0.6),
    # how many of a kind the user has, named or not, and a kind said with "a": "we have two rabbits",
    # "I have a dog." (_pets_owned); not two dogs to walk, nor two cats staying for the week, nor "a dog
    # in this fight"
    rule("fact", "{part}", "have got", [
        rf"{HAVE} (?P<value>{_OWNED}(?:(?:,|,? and) {_OWNED}){{0,4}})"
        r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:and|but|so|named|called|too|now|at home)\b)",
    ], "The user has {said}.", _pets_owned, confidence=0.75, importance=0.6),
    # how many of a kind, said with "my" or "our" ("I live with my girlfriend and our two cats"), or after
    # a pet named ("I have a beagle called Louie and two cats"); not pets whose end is said ("our two
    # cats died")
    rule("fact", "{part}", "my our named called", [
        rf"{ENDED_BEFORE}{MY} (?P<value>(?!one\b)(?:{NUMBER}) {PET_ADJECTIVE}{_PETS_SAID})(?![\w'-])"
        rf"(?!,? (?:are |were )?(?:{PET_GONE}|down|away)\b)",
        rf"{HAVE} an? {PET_ADJECTIVE}{_ONE_PET}{NAMED} {PROPER},? and (?P<value>(?:{NUMBER}) {PET_ADJECTIVE}"
        rf"{_PETS_SAID})(?=\s*(?:[^\w\s'-]|$))",
    ], "The user has {said}.", _pets_owned, confidence=0.75, importance=0.6),
    # a pet got, without its name: "We adopted a puppy last week." ("We adopted two kittens" is what
    # was added, not how many there are: no count)
    rule("fact", "pet_kind", "got adopted rescued", [
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?(?:got|adopted|rescued) (?:an?|another) "
        rf"{PET_ADJECTIVE}{PET}{_GOT_PET_END}(?![^.;!?]*?, an? [^.;!?,]*?{NAMED} {CAPWORD})"
        rf"(?!{_GOT_WHEN}(?:{NAMED} |{_NAMED_HIM}){CAPWORD})",
    ], "The user has {said}.", _pet_kind, confidence=0.7, importance=0.6),
    rule("fact", "pet_{part}_{fact}", "have got adopted rescued bought my our mine", [
        rf"(?:{HAVE}|{_GOT_PET}) an? {PET_ADJECTIVE}(?P<breed>{BREED})(?: (?P<kind>(?i:{alternation(PETS)})))?"
        rf"{NAMED} (?P<name>{PROPER})",
        # after someone else's pet or a question about pets: "Mine is a Maine Coon called Oscar" (the
        # breed says the kind; a breed alone, "Mine is a Persian", may be a rug)
        rf"^(?i:mine)(?: is|'s) an? {PET_ADJECTIVE}(?!lab\b)(?P<breed>{BREED})"
        rf"(?: (?P<kind>(?i:{alternation(PETS)})))?{NAMED} (?P<name>{PROPER})",
        # the breed and name set after the pet got: "We adopted a kitten last month, a ragdoll named Pixel"
        rf"{_GOT_PET} (?:an?|another) {PET_ADJECTIVE}{_ONE_PET}(?: [a-z]+){{0,3}}?, an? {PET_ADJECTIVE}"
        rf"(?P<breed>{BREED})(?: (?P<kind>(?i:{alternation(PETS)})))?{NAMED} (?P<name>{PROPER})",
        # a second pet named in the same breath, said by its breed: "a cat named Luna and a corgi called Waffles"
        rf"(?:{HAVE}|{_GOT_PET}) (?:an?|another) {PET_ADJECTIVE}{_ONE_PET}{NAMED} {PROPER},? and (?:an?|another) "
        rf"{PET_ADJECTIVE}(?P<breed>{BREED})(?: (?P<kind>(?i:{alternation(PETS)})))?{NAMED} (?P<name>{PROPER})",
        # A breed alone ends its clause ("I have a lab meeting" is no dog), and "a lab" may be a laboratory.
        rf"(?:{HAVE}|{_GOT_PET}) an? {PET_ADJECTIVE}(?!lab\b)(?P<breed>{BREED})"
        rf"(?: (?P<kind>(?i:{alternation(PETS)})))?(?=\s*(?:[^\w\s'&-]|$)|\s+(?:and|but|who|that|so)\b)",
        rf"{MY} (?P<kind>(?i:{alternation(PETS)}))(?: (?P<name>{PROPER}))? is an? (?P<breed>{BREED})(?![\w-])",
        # A pet named beside its breed: "walked Biscuit, my beagle, this morning", "my beagle Biscuit";
        # not one whose end is said ("Bella, our beagle, passed away": the rule of a pet over, below)
        rf"{_NAME_BESIDE}(?P<name>{CAPWORD}), (?i:my|our) {PET_ADJECTIVE}(?P<breed>{BREED})"
        rf"(?: (?P<kind>(?i:{alternation(PETS)})))?{_APPOSITION_END}{ENDED_AFTER}",
        rf"{ENDED_BEFORE}{MY} {PET_ADJECTIVE}(?!lab\b)(?P<breed>{BREED}),? (?P<name>(?!I\b){CAPWORD})(?![\w'&-])"
        rf"(?!\s+{UPPER}){ENDED_AFTER}",
        # A breed said with "my" and a word of a pet ("my rescue greyhound", "my beagle puppy"); alone, "my
        # Persian rug" or "my boxer shorts" may be no pet.
        rf"{ENDED_BEFORE}{MY} (?:{PET_ADJECTIVES} ){{1,2}}(?!lab\b)(?P<breed>{BREED})(?: (?P<kind>(?i:{alternation(PETS)})))?"
        rf"(?![\w'-])(?!,? {CAPWORD}){ENDED_AFTER}",
        rf"{ENDED_BEFORE}{MY} (?!lab\b)(?P<breed>{BREED}) (?P<kind>(?i:{alternation(PETS)}))(?![\w'-]){ENDED_AFTER}",
    ], "The user's {kind} {said} {value}.", _pet_breed, confidence=0.75, importance=0.6),
    rule("fact", "pet_{part}_name", "used had", [
        rf"\b(?:I|[Ww]e) (?:used to have|had) an? {PET_ADJECTIVE}{PET}{NAMED} (?P<value>{PROPER})",
    ], "The user used to have a {kind} named {value}.", pet, confidence=0.7, importance=0.5, historical=True),
    # A pet that died or was given away: history, which ends that pet's name (supersession.ending)
    # and nothing else (another pet of its kind, a count, stay as they were).
    rule("fact", "pet_{part}_name", "died passed put give gave given rehome rehomed lost", [
        rf"{MY} {PET_ADJECTIVE}{PET},? (?P<value>{PROPER}),? {PET_GONE}(?![\w'-])",
        rf"{_NAME_BESIDE}(?P<value>{CAPWORD}), (?i:my|our) {PET_ADJECTIVE}{PET},? {PET_GONE}(?![\w'-])",
        rf"{_PUT_DOWN},? (?P<value>{PROPER}),? (?:down|away)\b",
        rf"{_GAVE_AWAY},? (?P<value>{PROPER})",
    ], "The user used to have a {kind} named {value}.", pet, confidence=0.7, importance=0.5, historical=True),
    # The same, of a pet not named: its kind ("My rabbit died.", "We had to give our cat away."), an
    # event, which ends the only pet of that kind; or said as the user's once ("I used to have a dog."),
    # a fact of the past, which ends no named pet (supersession.pet_ending)
    rule("event", "pet_kind", "died passed put give gave given rehome rehomed lost", [
        rf"{MY} {PET_ADJECTIVE}{PET} {PET_GONE}(?![\w'-])",
        rf"{_PUT_DOWN} (?:down|away)\b",
        rf"{_GAVE_AWAY}{_LOST_END}",
    ], "The user used to have {said}.", _pet_kind, confidence=0.7, importance=0.5, historical=True),
    rule("fact", "pet_kind", "used", [
        rf"\b(?:I|[Ww]e) used to (?:have|own) an? {PET_ADJECTIVE}{PET}{_USED_TO_END}",
    ], "The user used to have {said}.", _pet_kind, confidence=0.7, importance=0.5, historical=True),
    # A pet of a breed that died or was given away, named or not: "We had to put our beagle Pepper down",
    # "Bella, our beagle, passed away", "Our labrador died". Its name (or its kind) and its breed, as
    # history (_pet_gone_by_breed); an event, as the end of a pet of no breed is.
    rule("event", "{part}", "died passed put give gave given rehome rehomed lost", [
        rf"{MY} {PET_ADJECTIVE}(?!lab\b){_BREED_SAID}(?:,? (?P<name>{PROPER}),?)? {PET_GONE}(?![\w'-])",
        rf"{_NAME_BESIDE}(?P<name>{CAPWORD}), (?i:my|our) {PET_ADJECTIVE}{_BREED_SAID},? {PET_GONE}(?![\w'-])",
        rf"\b(?:I|[Ww]e) {_HAD_TO}(?:give|gave|given|put) (?:my|our) {PET_ADJECTIVE}(?!lab\b){_BREED_SAID}"
        rf"(?:,? (?P<name>{PROPER}),?)? (?:down|away)\b",
        rf"\b(?:I|[Ww]e) {_HAD_TO}(?:(?:give|gave|given) away|rehome|rehomed|lost) (?:my|our) {PET_ADJECTIVE}(?!lab\b)"
        rf"{_BREED_SAID}(?:,? (?P<name>{PROPER})|{_LOST_END})",
    ], "The user used to have {said}.", _pet_gone_by_breed, confidence=0.7, importance=0.5, historical=True),
]
