"""The keys memories are filed under, declared once for both extractors: the offline rules file facts
under these families and the LLM extractor's prompt lists them, with what each holds and how its end
is said, so that one fact gets one key whichever extracted it. Supersession, history, topics and
current-first work on keys: a key the other path does not know is a fact they cannot follow (a
"parent_name" a mother and a father replace each other under; a break-up filed under a key no rule
ends the partner by)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from memex.extraction import vocabulary


@dataclass(frozen=True)
class Family:
    # The key, with what varies in angle brackets: "pet_<kind>_name".
    key: str
    # What a value under it is, as the LLM prompt says it.
    holds: str
    # What a current fact of it is worth in ranking: the offline rules' figure (tests check they agree).
    importance: float
    # True when the key holds several values at once, each its own memory (supersession.holds_several).
    several: bool = False


# What the placeholders of a family's key stand for, as the prompt explains them.
PLACEHOLDERS = {
    "relation": "who the person is to the user: " + ", ".join(dict.fromkeys([*vocabulary.RELATIONS.values(),
                                                                            *vocabulary.PEOPLE.values()])),
    "name": "a person's name in snake_case, left out with its underscore when the user gives none (sister_city) "
            "but for a son or daughter (child_son_age)",
    "kind": "the kind of pet: " + ", ".join(dict.fromkeys(vocabulary.PETS.values())),
    "thing": "what it is about, in snake_case",
}
# The relations whose names the offline rules file (`{part}_name`), partner first.
RELATION_PARTS = tuple(dict.fromkeys([*vocabulary.RELATIONS.values(), *vocabulary.PEOPLE.values()]))
# What a statement about the past is worth, a current fact's importance at most: the offline rules'
# "used to" figure.
HISTORICAL_IMPORTANCE = 0.6

FAMILIES = (
    Family("name", "the user's name", 0.9),
    Family("age", "the user's age in years, in digits", 0.6),
    Family("handedness", "left-handed, right-handed or ambidextrous", 0.5),
    Family("employer", "where the user works", 0.8),
    Family("role", "the user's job title", 0.75),
    Family("city", "where the user lives now", 0.75),
    Family("hometown", "where the user is from or grew up", 0.6),
    Family("birthplace", "where the user was born", 0.6),
    Family("birth_year", "the year the user was born, four digits", 0.6),
    Family("nationality", "the user's nationality, one memory each (dual citizenship: two)", 0.6, several=True),
    Family("language", "a language the user speaks, one memory each", 0.6, several=True),
    Family("school", "a school or university the user studied at, one memory each", 0.6, several=True),
    Family("graduation_year", "the year the user graduated, four digits", 0.6),
    Family("degree", "a degree the user holds or is doing (\"PhD in physics\", \"MBA\"), one memory each", 0.6,
           several=True),
    Family("field_of_study", "a subject the user studied or studies, one memory each", 0.6, several=True),
    Family("employment_status", "out of work, retired, student or on parental leave, said without the employer's "
           "name (\"I got laid off\", \"I'm a student\": a student is no job title); out of work or retired ends the "
           "current employer and job title, and an employer (or a job title) named later ends it", 0.8),
    Family("phone_number", "the user's phone number", 0.7),
    Family("relationship_status", "single, married, engaged, separated, divorced or widowed; \"We broke up\" is "
           "single, and single or separated ends the current partner; a divorce or a spouse's death said as what "
           "happened (type event: \"We got divorced\", \"My husband passed away\") ends the current spouse", 0.7),
    Family("partner_name", "the name of the user's partner (wife, husband, girlfriend, boyfriend, fiancé); a "
           "partner the user broke up with, divorced or calls an ex is partner_name with historical true, which "
           "ends them as the current partner", 0.8),
    # One mother, one father and one boss; siblings, children, friends and colleagues come several at a time.
    Family("mother_name", "the name of the user's mother", 0.8),
    Family("father_name", "the name of the user's father", 0.8),
    Family("boss_name", "the name of the user's boss", 0.8),
    *(Family(f"{part}_name", f"the name of the user's {part}, one memory each", 0.8, several=True)
      for part in RELATION_PARTS if part not in ("partner", "mother", "father", "boss")),
    Family("number_of_children", "how many children the user has, in digits", 0.6),
    # A person in the user's life: a mother's or father's facts without the name, named or not
    # (mother_city), anyone else's with it (sister_ana_city) or without when none is said (sister_city).
    Family("<relation>_<name>_role", "the job of a person in the user's life (\"partner_sam_role\", \"brother_role\"); "
           "said of the partner, it ends when they stop being the partner", 0.6),
    Family("<relation>_<name>_employer", "where a person in the user's life works", 0.6),
    Family("<relation>_<name>_employment_status", "retired, when a person in the user's life is", 0.6),
    Family("<relation>_<name>_city", "where a person in the user's life lives", 0.6),
    Family("<relation>_<name>_age", "the age in digits of a person in the user's life (child_max_age, brother_age, "
           "mother_age; a son not named: child_son_age); a baby's in months (\"6 months\")", 0.6),
    Family("<relation>_<name>_birth_year", "the year a person in the user's life was born, four digits "
           "(child_ava_birth_year; a daughter not named: child_daughter_birth_year)", 0.6),
    Family("<relation>_<name>_birthday", "the day a person in the user's life was born on (\"3 March\")", 0.6),
    Family("<relation>_<name>_school", "a school or university a person in the user's life studies at, one memory "
           "each", 0.6, several=True),
    Family("<relation>_<name>_started", "what a person in the user's life started (school, swimming lessons), one "
           "memory each", 0.6, several=True),
    Family("<relation>_<name>_allergy", "what a person in the user's life is allergic to, one memory each", 0.8,
           several=True),
    Family("<relation>_<name>_health_condition", "a lasting condition of a person in the user's life, one memory "
           "each", 0.7, several=True),
    Family("<relation>_<name>_plan", "a move a person in the user's life is about to make, with when", 0.5,
           several=True),
    Family("<relation>_<name>_pet_<kind>_name", "the name of a pet of a person in the user's life "
           "(sister_pet_dog_name), one memory per name", 0.5, several=True),
    Family("<relation>_<name>_pet_<kind>_breed", "the breed of a pet of a person in the user's life", 0.5,
           several=True),
    Family("pet_<kind>_name", "the name of a pet of that kind, one memory per name (\"two cats, Miso and Tofu\": "
           "two memories)", 0.6, several=True),
    Family("pet_<kind>_count", "how many pets of that kind the user has, in digits", 0.6),
    Family("pet_kind", "a kind of pet the user has, said without its name (\"I have a dog\": dog), one memory "
           "each; one that died or was given away is historical with type event (it ends the only pet of that "
           "kind), \"I used to have a dog\" historical with type fact (it ends no named pet)", 0.6, several=True),
    Family("pet_<kind>_breed", "the breed of the user's pet of that kind", 0.6, several=True),
    Family("pet_<kind>_<name>_age", "the age in years, in digits, of the user's pet of that kind, under its name "
           "when given (pet_cat_pixel_age, pet_dog_age)", 0.5),
    Family("car", "the user's car, make and model whole (\"Tesla Model 3\"); \"none\" once they have none", 0.6),
    Family("vehicle", "a vehicle the user rides that is no car (a motorbike, scooter or bicycle), by its name (\"Vespa\") or, "
           "bought or owned with none said, its kind (\"bicycle\"), "
           "one memory each", 0.5, several=True),
    Family("drives", "\"no\" when the user cannot or does not drive, \"yes\" once they passed their driving test", 0.6),
    Family("housing", "\"renting\" or \"homeowner\": whether the user rents or owns their home", 0.6),
    Family("bank", "the bank the user banks with", 0.5),
    Family("saving_for", "what the user is saving money for (\"deposit on a flat\"), one memory each", 0.5,
           several=True),
    Family("boat", "the user's boat, its kind (\"sailboat\"); historical once sold, \"none\" when sold without its kind",
           0.6),
    Family("gym_membership", "\"none\" once the user has quit their gym", 0.5),
    Family("lives_with", "who the user lives with (mom, sister), one memory each; a partner not named is the word "
           "said (boyfriend), a named one is partner_name; \"alone\" when the user lives alone",
           0.6, several=True),
    Family("expecting_baby", "\"yes\" while the user or their partner is expecting a baby (\"We're expecting\", \"my "
           "wife is pregnant\"); someone else's pregnancy is not it", 0.7),
    Family("dietary_restriction", "vegetarian, vegan, halal, gluten-free...", 0.85),
    Family("allergy", "what the user is allergic to, one memory each", 0.9, several=True),
    Family("health_condition", "a lasting condition the user has, one memory each", 0.85, several=True),
    Family("surgery", "an operation the user had (\"knee surgery\", \"hip replacement\"), one memory each", 0.6,
           several=True),
    Family("injury", "an injury the user had (\"broken wrist\", \"torn ACL\"), one memory each", 0.6, several=True),
    Family("smokes", "\"no\" when the user does not smoke or quit", 0.6),
    Family("vapes", "\"no\" when the user does not vape or quit", 0.6),
    Family("drinks_<thing>", "\"no\" when the user no longer drinks it (drinks_coffee, drinks_alcohol); it takes "
           "back a liking for it", 0.6),
    Family("eats_<thing>", "\"no\" when the user no longer eats it (eats_meat, eats_sugar)", 0.6),
    Family("hobby", "a pastime, the pastime alone (\"swimming\", not how often), one memory each", 0.5,
           several=True),
    Family("learning", "what the user is learning", 0.5, several=True),
    Family("activity", "an outing the user went on, the activity alone (\"We went camping\": camping; \"took the "
           "kids to the zoo\": zoo), one memory each", 0.5, several=True),
    Family("book", "a book the user reads or has read, its title, one memory each", 0.5, several=True),
    Family("game", "a video game the user plays, its title, one memory each", 0.5, several=True),
    Family("plan", "what the user plans or is about to do (a job to start is next_job)", 0.6, several=True),
    Family("next_job", "a job the user is to start, said before it starts, with when (\"starting at Notion in "
           "April\"); the employer named once it starts ends it. Called off (\"The Twilio offer fell through\", "
           "\"I turned down the Twilio job\", \"Decided to stay at Canva\"): historical, its employer as the "
           "value (Twilio), or \"the new job\" when none is named", 0.6),
    Family("birthday", "the user's birthday", 0.7),
    Family("anniversary", "the user's wedding anniversary", 0.7),
    Family("event_<thing>_appointment", "the day of the user's appointment (event_dentist_appointment)", 0.6),
    Family("preference_answer_length", "short or detailed: how long the user wants answers", 0.7),
    Family("preference_answer_language", "the language the user wants answers in", 0.7),
    Family("preference_emojis", "yes or no: whether the user wants emojis in answers", 0.7),
    Family("likes", "something the user likes, one memory each", 0.5, several=True),
    Family("dislikes", "something the user dislikes, one memory each", 0.5, several=True),
    Family("prefers", "something the user prefers, one memory each", 0.5, several=True),
    Family("favorite_<thing>", "the user's favourite of a kind (favorite_band)", 0.5),
    Family("opinion_about_<thing>", "what the user thinks of it", 0.4),
)

_PLACEHOLDER = re.compile(r"<(\w+)>")
# A word of a key is what stands between its underscores: letters of any script (jobs.key_words).
_ANY = r"[^_]+(?:_[^_]+)*?"
# A person's name is left out, with its underscore, when none is said ("sister_city").
_PATTERNS = {"relation": f"(?P<relation>{'|'.join(RELATION_PARTS)})", "name": f"(?:_(?P<name>{_ANY}))?", "kind": _ANY,
             "thing": _ANY}


def _pattern(family: Family) -> re.Pattern[str]:
    parts = _PLACEHOLDER.split(family.key.replace("_<name>", "<name>"))
    return re.compile("".join(f"(?:{_PATTERNS[p]})" if i % 2 else re.escape(p) for i, p in enumerate(parts)))


_MATCHERS = [(family, _pattern(family)) for family in FAMILIES]


def family_of(key: str) -> Family | None:
    """The family a key (without its subject's prefix) belongs to; None for a key of neither path's
    vocabulary (a model may file one: it keeps it, with its type's importance)."""
    return next((family for family, pattern in _MATCHERS if pattern.fullmatch(key)), None)


def relation_naming(key: str) -> str | None:
    """The relation a key of a family names a person by, when their name follows it ("sister" of
    "sister_act_city", the user's sister Act); None for a key that names no one by name ("sister_city")."""
    found = next((match for _, pattern in _MATCHERS if (match := pattern.fullmatch(key))), None)
    named = found.groupdict() if found else {}
    # a pet's name ("pet_cat_tofu_age") names no person
    return named.get("relation") if named.get("name") else None
