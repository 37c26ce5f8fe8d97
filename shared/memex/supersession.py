"""Decide how a candidate memory relates to the user's active memories it may contradict.

Actions: supersede (the old ones become history), coexist (both stay current), keep_old (the
candidate is history itself, the current value stays), end (the candidate says the current value is
over: it ends, and the candidate is kept as its history) and noop (nothing new).

The rules judge (no LLM): an exact duplicate changes nothing; a statement about the past is
kept as history, and ends the current value when it names it ("I left Stripe" while Stripe is the
employer: the user has no current employer, none is invented); a key that holds one value at a
time (employer, city) replaces the old value; a key that can hold several (a second dog) adds a
value beside the others; a reversal takes back what it contradicts (a like by a dislike of the
same thing, a liking for coffee by "I stopped drinking coffee"), being single or separated (or a
divorce or a spouse's death, said as an event) takes back the current partner, as a partner named
later takes back being single, and being out of work or retired takes back the current employer and
job title, as an employer (or a job title said in another message) named later takes back the work
status, and an employer the job to come, as the city moved to the plan to move there. A pet's kind
alone ("I have a dog.") says less than a name, breed or count of that kind, and a pet said over without
its name ("We had to give our cat away.") ends that kind and its only current name.

Both judges decide by rule what the rules say of partners, jobs, corrections and values said
together: a status without a partner (or without work) and a partner (or an employer) take each other
back, a correction replaces the wrong value it names, and values of a key that holds several said in
one message stay together (`taken_back`, `corrected`, `said_together`).

Whichever judge decided, a role said with the employer it was held at ("I'm a support lead at
Zendesk.") ends when that employer is replaced or ended, unless the turn says a new role
(`ends_with_employer`): it was that job's title, not the next one's. A role said alone ("I'm a
nurse.") stays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Protocol

from memex import literal
from memex.config import Settings
from memex.extraction import families, vocabulary
from memex.jobs import Candidate, subject_key, subject_prefix
from memex.metrics import NoMetrics
from memex.ports import Metrics

# Which keys hold several values at once is each family's to say (extraction/families.py: a second
# dog does not replace the first, nor a second hamster, nor a cat the dog; a later school ends no
# earlier degree). Every other key, opinion_about_<topic> included, holds one value: the latest
# replaces the earlier, kept as history (a pet's count, "pet_rabbit_count", is one of those: "we have
# three rabbits now" replaces two). Keys of no family that memories stored before the families were
# declared may hold, and that held several then:
STORED_MULTI_VALUED_KEYS = frozenset({"pet_name", "sibling_name"})
# Keys that end so hold several values too: what a named person started ("child_leo_started":
# school, then swimming lessons) is an event each time, none the end of another; a named person's
# schools, as the user's.
MULTI_VALUED_SUFFIXES = ("_started", "_school")
# dietary_restriction holds one diet beside any number of conditions and rules of faith: "vegan"
# replaces "vegetarian", but "lactose intolerant", "gluten-free" or "halal" replace nothing and are
# replaced by nothing but their own end (trial 12: "I'm lactose intolerant" had filed a vegetarian
# as no longer one).
DIETS = frozenset(vocabulary.DIETS)


def holds_several(base_key: str) -> bool:
    """Whether a key (without its subject's prefix) holds several values at once: as its family says
    (families.py; a key the LLM extractor files too, "pet_rabbit_breed"), or as listed here."""
    if base_key in STORED_MULTI_VALUED_KEYS or base_key.endswith(MULTI_VALUED_SUFFIXES):
        return True
    family = families.family_of(base_key)
    return family is not None and family.several


@dataclass(frozen=True)
class Decision:
    action: str  # "supersede", "coexist", "keep_old", "end" or "noop"
    reason: str
    replaces: list[dict[str, Any]] = field(default_factory=list)


class Judge(Protocol):
    name: str

    def decide(self, candidate: Candidate, related: list[dict[str, Any]]) -> Decision:
        """`related`: the user's active memories (wire dicts) with the candidate's key or a
        semantically close one. `replaces` must only name memories from `related`."""
        ...


# A value under one of these keys takes back the same value under the other ("I love sushi"
# after "I can't stand sushi").
OPPOSITE_KEYS = {"likes": "dislikes", "dislikes": "likes"}


# A habit given up ("drinks_coffee" = "no", "eats_meat" = "no") takes back a liking or preference
# for what it names: after "I stopped drinking coffee", "likes coffee" is no longer current.
_GIVEN_UP_KEY = re.compile(r"(?:drinks|eats)_(?P<thing>[a-z0-9_]+)")
TAKEN_BACK_BY_GIVING_UP = ("likes", "prefers")


def given_up(candidate: Candidate) -> str | None:
    """What the candidate says the user no longer drinks or eats ("coffee"), if it says that."""
    match = _GIVEN_UP_KEY.fullmatch(candidate.base_key)
    return match.group("thing").replace("_", " ") if match and _normal(candidate.value) == "no" else None


# The key of a fact held at an employer, said in the same message as it: it ends with that job.
HELD_AT_EMPLOYER = "role"

# Being without a partner and having one take each other back: "I'm single" (or "We broke up") ends
# the current partner, and a partner named later ends "single". "Divorced" and "widowed" said as what
# the user is ("I'm divorced", "my late husband") say what happened once, which a partner named since
# does not undo: they end nothing, and a new partner leaves them. Said as an event ("We got divorced",
# "My husband passed away", type "event"), they end the current partner, unless that partner was named
# as one the user never married (a girlfriend, a boyfriend, a fiancé: the divorce or the death was of
# an earlier spouse). The extractor files the event as a fact when its message names a current partner
# (offline/extractor.py's _said_beside_a_partner): that partner came after.
PARTNER_KEY, STATUS_KEY = "partner_name", "relationship_status"
WITHOUT_PARTNER = frozenset({"single", "separated"})
ENDED_BY_EVENT = frozenset({"divorced", "widowed"})
_NEVER_MARRIED = re.compile(r"\b(?:girlfriend|boyfriend|fianc[ée]e?)\b", re.IGNORECASE)


def ends_partnership(candidate: Candidate) -> bool:
    """Whether the candidate is a divorce or a spouse's death said as an event."""
    return (candidate.base_key == STATUS_KEY and candidate.type == "event" and not candidate.historical
            and _normal(candidate.value) in ENDED_BY_EVENT)


def parts(candidate: Candidate) -> bool:
    """Whether the candidate is a partnership's end said as an event: a divorce, a spouse's death, a break-up."""
    return (candidate.base_key == STATUS_KEY and candidate.type == "event"
            and _normal(candidate.value) in ENDED_BY_EVENT | WITHOUT_PARTNER)


# Being without work and having a job take each other back the same way: "I got laid off" or "I'm
# retired" ends the current employer and the job title ("The user is out of work." answers "where
# does she work?", not Acme), and an employer named later ends the work status, whatever it is ("I
# just started at Globex" after "I'm on parental leave" too), but a student's: one studies beside a
# job. A leave ends nothing: it is beside the job. A job title named later ends being without work
# ("I got laid off." then "I'm a nurse now at St Mary's."), unless said in the message that said the
# status ("I got laid off. I'm a nurse.": the trade, not a new job).
# A new employer ends the job to come too ("I start at Google next month", then "I just started at
# Google", or at another): it has started, or it is not the next job any more. The employer said again
# (a noop) ends nothing.
EMPLOYER_KEY, WORK_STATUS_KEY, NEXT_JOB_KEY = "employer", "employment_status", "next_job"
WITHOUT_WORK = frozenset({"out of work", "retired"})
BESIDE_A_JOB = frozenset({"student"})

# A move made ends the plan to make it ("We're moving to New York next month", then "We moved to New
# York"): it is done, as the job to come is once its employer is named. Left current, it stayed first
# for "what are my upcoming plans?" and among recall's standing facts (the first-hour trial,
# docs/measurements/quality.md). A plan to move elsewhere, out of that city, or for something else in
# it (a trip), is no plan this move carried out: it stays.
CITY_KEY, PLAN_KEY = "city", "plan"

# A child said born ends the baby on the way ("We're expecting!", then "Our daughter Ivy was born on
# Tuesday!"): left current, "is she expecting?" was still answered yes. Only a birth: an older child
# named while expecting ("My daughter Sara is 5.") leaves the baby to come. What says the birth is the
# candidate's quote or its content (an LLM's "The user's son Leo was born."), whichever judge decides.
CHILD_NAME_KEY, EXPECTING_KEY = "child_name", "expecting_baby"
_BIRTH = re.compile(r"\b(?:(?:was|were|been|is|just|newly) born|arrived|welcomed|delivered|gave birth"
                    r"|had (?:a|our|the) (?:(?:first|second|third|fourth|little|new) )*(?:baby|son|daughter|boy|girl))\b",
                    re.IGNORECASE)


def _born(candidate: Candidate) -> bool:
    return any(_BIRTH.search(said) for said in (candidate.raw_quote, candidate.content))

# Living alone and living with someone take each other back, as being single and a partner do: "I
# live alone now." ends everyone lived with (history kept), and someone lived with later ends "alone".
LIVES_WITH_KEY, ALONE = "lives_with", "alone"

# A car the user says they drive ("I drive a Tesla.") ends "I don't drive." (drives no); a car bought or
# owned does not (one may own a car one does not drive), nor does "I can't drive" end the car. The
# quote says it, not the content ("The user drives a Tesla." for a car bought too).
CAR_KEY, DRIVES_KEY = "car", "drives"
_DRIVES = re.compile(r"\bdriv(?:e|es|ing)\b", re.IGNORECASE)


_MOVE_TO = re.compile(r"\b(?:mov(?:e|es|ing)|relocat(?:e|es|ing))\s+(?:back\s+|over\s+)?to\s+")


def _move_to(plan: str, city: str) -> bool:
    r"""Whether a plan is to move to that city ("moving to New York next month" of "New York"): the city
    read as data after the words (literal.py says why), where `to\s+{city}\b` would find it (a
    normalised plan has one space between words, so each of those words ends in one place)."""
    plan, city = _normal(plan), _normal(city)
    return bool(city) and any(plan.startswith(city, at.end()) and literal.boundary(plan, at.end() + len(city))
                              for at in _MOVE_TO.finditer(plan))


def _takes_back(candidate: Candidate) -> dict[str, frozenset[str] | None]:
    """The keys (the candidate's subject's) whose current values the candidate takes back, each with
    the values it takes back (None: any): a partner or a job against being without one."""
    if candidate.historical:
        return {}
    value, key = _normal(candidate.value), candidate.base_key
    if key == STATUS_KEY and (value in WITHOUT_PARTNER or ends_partnership(candidate)):
        taken: dict[str, frozenset[str] | None] = {PARTNER_KEY: None}
    elif key == PARTNER_KEY:
        taken = {STATUS_KEY: WITHOUT_PARTNER}
    elif key == WORK_STATUS_KEY and value in WITHOUT_WORK:
        taken = {EMPLOYER_KEY: None, HELD_AT_EMPLOYER: None}
    elif key == EMPLOYER_KEY:
        taken = {WORK_STATUS_KEY: None, NEXT_JOB_KEY: None}
    elif key == HELD_AT_EMPLOYER:
        taken = {WORK_STATUS_KEY: WITHOUT_WORK}
    elif key == CITY_KEY:
        taken = {PLAN_KEY: None}  # those that move there (taken_back)
    elif key == CHILD_NAME_KEY and _born(candidate):
        taken = {EXPECTING_KEY: None}
    elif key == CAR_KEY and _DRIVES.search(candidate.raw_quote):
        taken = {DRIVES_KEY: frozenset({"no"})}
    elif key == LIVES_WITH_KEY:
        taken = {LIVES_WITH_KEY: None if value == ALONE else frozenset({ALONE})}
    else:
        return {}
    return {subject_key(candidate.subject, base): values for base, values in taken.items()}


# A pet over, said without its name ("We had to give our cat away.": `pet_kind` cat, historical): it
# ends that kind, and the name of that kind when only one is current (of two cats, "our cat" says
# not which). A pet named ("Our dog Rex died.") ends its name only (`ending`). Only a pet's end said as
# what happened (type "event") ends a name: "I used to have a dog." (a fact of the past) may be a
# childhood dog, and says nothing of Rex, the dog the user has now; it ends an unnamed dog only. A pet
# taken back (`ends_only`: "Scratch that, I don't have a cat.") says there is none of that kind: every
# current name of it ends, as "I have a cat called Miso." files the name alone (trial 20).
PET_KIND = "pet_kind"


def _pet_names_key(candidate: Candidate) -> str | None:
    """The key of the names of the kind of pet the candidate says is over ("pet_cat_name"), if it
    says that."""
    if not candidate.historical or candidate.base_key != PET_KIND:
        return None
    return subject_key(candidate.subject, f"pet_{'_'.join(_normal(candidate.value).split())}_name")


def pet_ending(candidate: Candidate, related: list[dict[str, Any]]) -> Decision | None:
    """For a pet said over without its name: the end of that kind and of its only current name, or
    None when neither is current (or the candidate is no such pet). Both judges decide this by rule."""
    names_key = _pet_names_key(candidate)
    if names_key is None:
        return None
    kind = [m for m in related if m["key"] == candidate.key and same_value(m["value"] or "", candidate.value)]
    names = [m for m in related if m["key"] == names_key] if candidate.type == "event" or candidate.ends_only else []
    ended = kind + (names if len(names) == 1 or candidate.ends_only else [])
    if not ended:
        return None
    said = ", ".join(f"{m['key']} {m['value']!r}" for m in ended)
    return Decision("end", f"{candidate.key} {candidate.value!r} is over: {said} ends", ended)


# A pet's kind alone ("I have a dog.": `pet_kind` dog) says less than a name, a breed or a count of
# that kind ("pet_dog_name" Rex): said after one of them it is nothing new, and one of them said after
# it takes it back, as a more precise value of one key does ("What is my dog called?" is then answered
# by Rex, not by "The user has a dog.").
_PET_FACT = re.compile(r"pet_(?P<kind>[a-z_]+)_(?:name|breed|count)")
_PET_FACTS = ("name", "breed", "count")


def _pet_kind_of(candidate: Candidate) -> str:
    """The kind of pet a `pet_<kind>_<fact>` candidate is about ("guinea pig"), or ""."""
    match = _PET_FACT.fullmatch(candidate.base_key)
    return match.group("kind").replace("_", " ") if match else ""


def _pet_kind_said_more(candidate: Candidate) -> str | None:
    """The `pet_kind` key a current name, breed or count of a kind of pet says more than."""
    match = _PET_FACT.fullmatch(candidate.base_key)
    return subject_key(candidate.subject, PET_KIND) if match and not candidate.historical else None


def _pet_facts_saying_more(candidate: Candidate) -> list[str]:
    """The keys of the names, breeds and counts of the kind a current `pet_kind` candidate says."""
    if candidate.historical or candidate.base_key != PET_KIND:
        return []
    kind = "_".join(_normal(candidate.value).split())
    return [subject_key(candidate.subject, f"pet_{kind}_{fact}") for fact in _PET_FACTS]


def related_keys(candidate: Candidate) -> list[str]:
    """The keys whose active memories the candidate may replace (its subject's: "melanie_dislikes"
    for "melanie_likes")."""
    opposite = OPPOSITE_KEYS.get(candidate.base_key)
    if opposite:
        return [candidate.key, subject_key(candidate.subject, opposite)]
    if given_up(candidate):
        return [candidate.key] + [subject_key(candidate.subject, key) for key in TAKEN_BACK_BY_GIVING_UP]
    # a key that takes back values of its own (lives_with "alone") is the candidate's key already
    taken = [key for key in _takes_back(candidate) if key != candidate.key]
    if taken:
        return [candidate.key, *taken]
    names_key = _pet_names_key(candidate) or _pet_kind_said_more(candidate)
    if names_key:
        return [candidate.key, names_key]
    return [candidate.key, *_pet_facts_saying_more(candidate)]


def taken_back(candidate: Candidate, related: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the candidate takes back of `related`: the current partner a status without one (or a
    divorce, a death) ends, the status without one a partner ends, the employer and job title a
    status without work ends, the work status (a student's excepted) and the job to come an employer
    ends, being without work a job title said in another message ends, the plan to move there a city
    ends, the baby on the way a child born ends, those lived with living alone ends (and the reverse), not driving a car driven ends. Both judges decide such a candidate by rule (the LLM judge would take a status and a name
    for two unrelated facts)."""
    taken = _takes_back(candidate)
    return [m for m in related if m["key"] in taken
            and (taken[m["key"]] is None or _normal(m["value"] or "") in taken[m["key"]])
            and not (ends_partnership(candidate) and _NEVER_MARRIED.search(m["content"] or ""))
            and not (candidate.base_key == EMPLOYER_KEY and _normal(m["value"] or "") in BESIDE_A_JOB)
            and not (candidate.base_key == HELD_AT_EMPLOYER and _said_in(m, candidate.source_message_id))
            and not (candidate.base_key == CITY_KEY and not _move_to(m["value"] or "", candidate.value))]


def _said_in(memory: dict[str, Any], message_id: str) -> bool:
    return message_id in {s["message_id"] for s in memory.get("sources") or []}


def corrected(candidate: Candidate, related: list[dict[str, Any]]) -> Decision | None:
    """A correction ("Rollo, not Rolo") replaces the wrong value it names, even under a key that holds
    several, whichever judge decides; None when it names no current value."""
    if candidate.historical or candidate.corrects is None:
        return None
    wrong = [m for m in related if m["key"] == candidate.key and same_value(m["value"] or "", candidate.corrects)]
    if not wrong:
        return None
    return Decision("supersede", f"{candidate.key}: {candidate.value!r} corrects {candidate.corrects!r}", wrong)


def said_together(candidate: Candidate, related: list[dict[str, Any]]) -> Decision | None:
    """A value of a key that holds several, said in the message its other current values were said in
    ("We have two cats, Miso and Tofu."): it stays beside them, whichever judge decides; None when
    the key holds one value, or a current value of it was said elsewhere, or it is no new value."""
    same_key = [m for m in related if m["key"] == candidate.key]
    if candidate.historical or not same_key or not holds_several(candidate.base_key):
        return None
    if any(same_value(m["value"] or "", candidate.value) for m in same_key):
        return None
    if not all(_said_in(m, candidate.source_message_id) for m in same_key):
        return None
    return Decision("coexist", f"{candidate.key} holds several values: {candidate.value!r} was said with the "
                               "others in one message")


def _names(value: str, thing: str) -> bool:
    """Whether a liked value is the thing given up, or a kind of it ("iced coffee" of "coffee")."""
    value_words, thing_words = re.findall(r"[a-z0-9]+", value.casefold()), thing.split()
    return bool(value_words) and value_words[-len(thing_words):] == thing_words


class RulesJudge:
    name = "rules"

    def decide(self, candidate: Candidate, related: list[dict[str, Any]]) -> Decision:
        alone = left_alone(candidate, related) or pet_ending(candidate, related)
        if alone:
            return alone
        more = [m for m in related if m["key"] in _pet_facts_saying_more(candidate)]
        if more:
            return Decision("noop", f"{candidate.key} {candidate.value!r} says less than {more[0]['key']} "
                                    f"{more[0]['value']!r} (memory {more[0]['id']})")
        fixed = corrected(candidate, related)
        if fixed:
            return fixed
        if not candidate.historical:
            opposite = related_keys(candidate)[1:]
            reversed_ = [m for m in related if m["key"] in opposite and same_value(m["value"] or "", candidate.value)]
            if reversed_:
                return Decision("supersede", f"{candidate.key} {candidate.value!r} takes back {opposite[0]}", reversed_)
        same_key = [m for m in related if m["key"] == candidate.key]
        thing = given_up(candidate)
        liked = [m for m in related if m["key"] != candidate.key and m["key"] in related_keys(candidate)
                 and _names(m["value"] or "", thing)] if thing and not candidate.historical else []
        if liked and not any(same_value(m["value"] or "", candidate.value) for m in same_key):
            over = ", ".join(f"{m['key']} {m['value']!r}" for m in liked)
            return Decision("supersede", f"{candidate.key} {candidate.value!r} takes back {over}",
                            liked + same_key)
        decision = decide(candidate, same_key)
        kind_key = _pet_kind_said_more(candidate)
        kinds = [m for m in related if m["key"] == kind_key and same_value(m["value"] or "", _pet_kind_of(candidate))]
        if kinds and decision.action in ("coexist", "supersede"):
            return Decision("supersede", f"{decision.reason}; {kind_key} {kinds[0]['value']!r} says less: it ends",
                            decision.replaces + kinds)
        taken = taken_back(candidate, related)
        if taken and decision.action == "noop" and ends_partnership(candidate):
            # "We got divorced" after "I'm divorced" (an earlier marriage) and a spouse named since:
            # the status is known, the spouse still ends, the status said again in their place.
            decision = Decision("supersede", f"{candidate.key} {candidate.value!r} is said again as an event",
                                [m for m in same_key if same_value(m["value"] or "", candidate.value)])
        if taken and decision.action in ("coexist", "supersede"):
            over = ", ".join(f"{m['key']} {m['value']!r}" for m in taken)
            return Decision("supersede", f"{decision.reason}; {over} is no longer current", decision.replaces + taken)
        return decision


def make_judge(settings: Settings, metrics: Metrics | None = None) -> Judge:
    """The LLM judge when a chat endpoint is configured, else the rules; its LLM calls and its
    fallbacks to the rules recorded in `metrics`."""
    if settings.llm_configured:
        from memex.llm import ChatJSON
        from memex.supersession_llm import LLMJudge

        metrics = metrics or NoMetrics()
        return LLMJudge(ChatJSON.from_settings(settings, metrics=metrics, purpose="judge"), metrics)
    return RulesJudge()


# A year said before a thing ("2015 Honda Civic"): "I sold my Honda Civic" ends it all the same.
_YEAR_FIRST = re.compile(r"^(?:19|20)\d\d\s+(?=\S)")


def ending(candidate: Candidate, active_same_key: list[dict[str, Any]]) -> Decision | None:
    """A statement about the past that names a current value ends it ("I quit Stripe", "I used to
    live in Paris", "I used to have a dog named Rex"), whatever the key; None otherwise. Both judges
    decide this by rule: a statement that something is over is never a duplicate of it."""
    if not candidate.historical:
        return None
    if candidate.base_key == NEXT_JOB_KEY:
        # A job to come is called off by its employer's name ("The Twilio offer fell through." of
        # "starting at Twilio next Monday"), or as the new job when it is the only one (job_start.py).
        from memex import job_start  # only a job to come called off reads it: not every importer's start

        current = [active_same_key[i] for i in job_start.called_off(
            candidate.value, [m["value"] or "" for m in active_same_key])]
        if not current:
            return None
        return Decision("end", f"{candidate.key} {candidate.value!r} is called off: the job to come ends", current)
    current = [m for m in active_same_key if named_by_make(candidate, m["value"] or "") or any(
        same_value(said, candidate.value) for said in (m["value"] or "", _YEAR_FIRST.sub("", m["value"] or "")))]
    if not current:
        return None
    return Decision("end", f"{candidate.key} {candidate.value!r} is over: the current value ends", current)


def named_by_make(candidate: Candidate, value: str) -> bool:
    """Whether `candidate` is a car named by the first words of the car `value` ("I sold the Skoda" of the
    "Skoda Octavia"), which decide() would otherwise take for a value that says less. A car only: its make
    names the one the user has, where "nurse" of a "nurse practitioner" names another role."""
    return candidate.base_key == CAR_KEY and any(
        _less_precise(candidate.value, said) for said in (value, _YEAR_FIRST.sub("", value)))


def left_alone(candidate: Candidate, related: list[dict[str, Any]]) -> Decision | None:
    """For a candidate that is a fact only if it names the current value (`ends_only`: "I left
    Feedzai." may be a job or a person): the end of that value, or a noop when it names none ("I
    left Tom." while the employer is Notion). For one that is a fact only if the value it follows is
    current (`only_replacing`: "I switched from Adobe to Figma" while the employer is Adobe): that
    value replaced, or a noop. None for any other candidate. Both judges decide this by rule,
    before anything else."""
    same_key = [m for m in related if m["key"] == candidate.key]
    if candidate.only_replacing is not None:
        current = [m for m in same_key if same_value(m["value"] or "", candidate.only_replacing)]
        if not current:
            return Decision("noop", f"{candidate.key} {candidate.value!r}: {candidate.only_replacing!r}, which it "
                                    "follows, is no current value")
        return Decision("supersede", f"{candidate.key} {candidate.value!r} follows the current "
                                     f"{candidate.only_replacing!r}", current)
    if not candidate.ends_only:
        return None
    return ending(candidate, same_key) or pet_ending(candidate, related) or Decision(
        "noop", f"{candidate.key} {candidate.value!r}: a name left alone that is no current value")


def decide(candidate: Candidate, active_same_key: list[dict[str, Any]]) -> Decision:
    """The rules: a statement that the current value is over ends it, nothing new is a noop, the
    past is history, a first value or another value of a multi-valued key coexists, a new value of
    a single-valued key supersedes the old ones."""
    key, value = candidate.key, candidate.value
    ended = ending(candidate, active_same_key)
    if ended:
        return ended
    for memory in active_same_key:
        if same_value(memory["value"] or "", value):
            return Decision("noop", f"{key} {value!r} is already known (memory {memory['id']})")
    for memory in active_same_key:
        if _less_precise(value, memory["value"] or ""):
            return Decision("noop", f"{key} {value!r} says less than {memory['value']!r} (memory {memory['id']})")
    if candidate.historical:
        return Decision("keep_old", f"{key} {value!r} is a statement about the past: kept as history")
    if not active_same_key:
        return Decision("coexist", f"first value of {key}: {value!r}")
    towns = _towns_within(candidate, active_same_key)
    if towns:
        regions = [m for m in active_same_key if m not in towns]
        kept = ", ".join(repr(m["value"]) for m in towns)
        if not regions:
            return Decision("coexist", f"{key} {value!r} is a region, which {kept} may lie within: both kept")
        old = ", ".join(repr(m["value"]) for m in regions)
        return Decision("supersede", f"{key} {value!r} replaces the region {old}; {kept} may lie within it", regions)
    # A participant's keys carry their name first ("melanie_likes"): the kind of fact is the rest.
    if holds_several(candidate.base_key):
        return Decision("coexist", f"{key} holds several values: {value!r} is added")
    if candidate.base_key == "dietary_restriction":
        active_same_key = [m for m in active_same_key if {folded_value(value), folded_value(m["value"] or "")} <= DIETS]
        if not active_same_key:
            return Decision("coexist", f"{key} {value!r} is no diet that replaces another: it is added")
    old = ", ".join(repr(m["value"]) for m in active_same_key)
    if candidate.base_key.startswith("opinion_about_"):
        return Decision("supersede", f"the {_whose(candidate)} opinion changed: {value!r} replaces {old}", active_same_key)
    return Decision("supersede", f"{key} holds one value: {value!r} replaces {old}", active_same_key)


def ends_with_employer(candidate: Candidate, action: str, turn_candidates: Iterable[Candidate]) -> str | None:
    """The key of the facts said with an employer that end when `candidate`, deciding `action`,
    replaces or ends that employer ("role" for the user, "melanie_role" for Melanie); None when
    nothing ends with it: the candidate is no employer, or its turn says a new role, which replaces
    the old one itself ("I moved to Intercom as a product manager")."""
    if candidate.base_key != "employer" or action not in ("supersede", "end"):
        return None
    key = subject_key(candidate.subject, HELD_AT_EMPLOYER)
    if any(c.key == key and not c.historical for c in turn_candidates):
        return None
    return key


# What is said of a partner by name ("partner_sam_role": "The user's partner Sam is a nurse.") says
# Sam is the partner: it ends when Sam stops being one, and is kept as what was true of them then.
# What Sam started (an event) stays.
ABOUT_PARTNER = {"role": "was {a} {value}", "employer": "worked at {value}", "city": "lived in {value}"}


def about_partner_keys(subject: str, partner: str) -> dict[str, str]:
    """The keys of what is said of the partner named `partner` (the offline rules' and the LLM
    prompt's `partner_{name}_role`, the name as a key writes it), each with how its end is said."""
    return {subject_key(subject, f"partner_{subject_prefix(partner)}_{what}"): said
            for what, said in ABOUT_PARTNER.items()}


def about_former_partner(whose: str, partner: str, said: str, value: str) -> str:
    """A fact about a partner as it stood when the partnership ended: "The user's former partner Sam
    was a nurse."."""
    return f"{whose} former partner {partner} {said.format(a=vocabulary.article(value), value=value)}."


def partner_ended_reason(fact: dict[str, Any], partner: str, candidate: Candidate, action: str) -> str:
    """Why a fact about a partner ended when `candidate` replaced or ended that partner."""
    change = f"{candidate.key} {candidate.value!r} replaced them" if action == "supersede" else "that partnership ended"
    return f"{fact['key']} {fact['value']!r} was said of the partner {partner!r}, and {change}: it ends with it"


def held_at_reason(role: dict[str, Any], employer: str, candidate: Candidate, action: str) -> str:
    """Why a role said with `employer` ended when `candidate` replaced or ended it."""
    change = f"{candidate.value!r} replaced it" if action == "supersede" else "that job ended"
    return f"{role['key']} {role['value']!r} was said with the employer {employer!r}, and {change}: the role ends with it"


def _whose(candidate: Candidate) -> str:
    return "user's" if candidate.subject == "user" else f"{candidate.subject}'s"


def _normal(text: str) -> str:
    return " ".join(text.casefold().split()).strip(" .!")


_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


def folded_value(value: str) -> str:
    """The value as same_value compares it: two values are the same exactly when these are equal
    (an erasure's tombstone keeps a digest of it: db/erasure.py)."""
    normal = _normal(value)
    return repr(float(normal) + 0.0) if _NUMBER.fullmatch(normal) else normal


# Keys of where the user comes from, which no move changes: a country or state said after a town ("I grew
# up in Naples." then "im from italy originally") says less of the same place, not another one.
ORIGIN_KEYS = frozenset({"hometown", "birthplace"})


def _towns_within(candidate: Candidate, active_same_key: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The current values of an origin key that a region (`vocabulary.REGIONS`) said as its new value may
    hold: those that name no region (a town, listed or not). memex has no map of which town lies in which
    country, so the town is kept beside the region whichever it is: a contradiction would be said as a
    correction, which replaces it."""
    if candidate.base_key not in ORIGIN_KEYS or _normal(candidate.value) not in vocabulary.REGIONS:
        return []
    return [m for m in active_same_key if _normal(m["value"] or "") not in vocabulary.REGIONS]


def same_value(a: str, b: str) -> bool:
    """Equal up to case and spacing, or the same number ("3" and "3.0")."""
    a, b = _normal(a), _normal(b)
    if a == b:
        return True
    return bool(_NUMBER.fullmatch(a) and _NUMBER.fullmatch(b)) and float(a) == float(b)


def _less_precise(new: str, old: str) -> bool:
    """Whether `new` is the first words of `old` ("Lisbon" of "Lisbon, Portugal"). Only a prefix:
    "York" is not a vaguer "New York"."""
    new_words, old_words = re.findall(r"\w+", new.casefold()), re.findall(r"\w+", old.casefold())
    return 0 < len(new_words) < len(old_words) and old_words[:len(new_words)] == new_words
