"""Rules of work: the employer (joined, left or moved between; a job still to start is plans.py's
`next_job`), the role, and the employment status (out of work, retired, on leave, a student)."""

from __future__ import annotations

import re
from typing import Callable

from memex.extraction import vocabulary
from memex.extraction.offline.patterns import (ADVERBS, AHEAD_WHEN, AS_ROLE, CURRENT_JOB, DATE, FIRST_SPAN, HEAD_OF,
    HEDGES, INTRODUCED, JOB_NOUN, JOB_TAKEN, LEFT_END, MONTH, NOT_ROLE_MODIFIERS, NOT_TEMPORARY, NUMBER, ORG, ORG_END,
    ORG_INTRO, PLATFORMS, PROPER, RECALLED, RELATIONS, ROLE, ROLE_ABBREVIATIONS, ROLE_END, SCHOOL_WORDS, SINCE_WHEN,
    SPAN, STARTED_AT, STARTS_LATER, START_WHEN, UNTIL_SAID, UPPER, WEEKDAY, WORKS_AT, WORK_HOURS, WORK_SAID, alternation, strict_end)
from memex.extraction.offline.rule import rule
from memex.extraction.offline.values import (Fields, a_job_move, a_name, a_place, an_organisation, as_said,
    not_a_job_move, organisation, role, teacher, unless_a_stay)
from memex.literal import caseless
from memex.time_phrases import MONTHS


# A time of day, which is not where a job was ("I left my job at 5pm today").
_CLOCK = r"\d{1,2}(?:[:.]\d{2})?\s*(?i:[ap]\.?m\b\.?)"
# When one joined: "I joined Acme last month" is a job as surely as "I joined Acme." ("in March": a month's whole
# name, capitalised).
_JOINED_WHEN = (r"(?=\s+(?:last (?:week|month|year|spring|summer|fall|autumn|winter)|this (?:week|month|year)|"
                rf"recently|yesterday|in (?:\d{{4}}|{'|'.join(month.capitalize() for month in MONTHS)}))\b)")
# Teaching somewhere, which makes the school the employer and the job a teacher's: "I switched to
# teaching at Denver East High School"; a school is named, not "at a workshop" or "at 9".
_TEACHES_AT = (rf"\bI(?:'ve| have)? {ADVERBS}(?:teach|'m teaching|am teaching|(?:(?:switched|moved|went|gone|gotten|got) "
               rf"back |(?:switched|moved|went|gone|returned) )to teaching|(?:started|began) teaching)"
               rf"(?P<subject> (?i:{alternation(vocabulary.SCHOOL_SUBJECTS)}))? at (?:the )?(?={UPPER})")
# How long a job in the past lasted, or the year it ended, said after the employer: "for five years", "until 2020";
# not a day's work ("for a few hours", "all morning", "since 8am", "today").
_HELD_FOR = rf"{UNTIL_SAID} (?:19|20)\d\d\b|for (?:{SPAN}|years|decades)(?![\w'-])"
# A time within one day, which makes what was done at a place that day a visit or a day's work, not a job: "I worked
# at Google all morning when the alarm went off", "I worked at Starbucks yesterday"; not a day said again ("on
# Saturdays" is a job's).
_ONE_DAY = (rf"(?:today|tonight|yesterday|last night|(?:this|that|yesterday) (?:morning|afternoon|evening)"
            rf"|all (?:day|morning|afternoon|evening|night)|(?:on|last) {WEEKDAY}|for the (?:day|morning|afternoon|evening))"
            # not a day said again ("on Sunday mornings"), nor one the job's length follows ("on Saturdays and Sundays
            # for two years")
            rf"(?![\w'-]| (?:mornings|afternoons|evenings|nights)\b)(?![^.;!?]*?\b(?:{_HELD_FOR}))")
_PAST_JOB = (rf"\bI (?:used to work|previously worked|formerly worked) {WORK_HOURS}(?:at|for)"
             rf"|\bI worked {WORK_HOURS}(?:at|for)"
             # a day's time said after a comma is the job's unless a clause of its own opens there ("I worked at
             # Google, today I'm at Meta")
             rf"(?! (?:the )?{ORG}(?: {AS_ROLE})?(?: {_ONE_DAY}|, {_ONE_DAY}(?!,? (?:I|we|was|is)\b)))"
             # the past perfect with how long, or said alone or "before": "I'd been working at Google until 2020", "I
             # had worked at Google as an engineer for years", "I'd worked at Google.", "I'd worked at Google before.";
             # not a day's work, as the past progressive below ("I'd been working at Google all morning when the
             # fire alarm went off")
             rf"|\bI(?:'d| had) (?:been working|worked) {WORK_HOURS}(?:at|for)(?= (?:the )?{ORG}(?: {AS_ROLE})?"
             rf"(?: (?:{_HELD_FOR})|(?: before(?: that| then)?)?\s*(?:[.!?]|$)))"
             r"|\bI(?: have|'ve)? (?:resigned|retired) from|\bI (?:was|got) (?:laid off|let go|fired) (?:from|by)"
             r"|\bI no longer work (?:at|for)")
_LEFT_JOB = (rf"{_PAST_JOB}|\bI {ADVERBS}(?:left|quit)\b|\b(?:years?|yrs?|months?) at|\bI (?:changed|switched) jobs?\b"
             # "I'm no longer at Google", "I'm not at Google anymore", "I don't work at Deloitte anymore"
             rf"|\bI(?:'m| am) no longer (?:at|with) (?:the )?{UPPER}"
             rf"|\bI(?:(?:'m| am) not (?:at|with)| (?:don't|do not) work (?:at|for)) (?:the )?{UPPER}[^,.;]*?"
             r"\b(?:anymore|any more)\b")
_AHEAD_BEFORE = re.compile(rf"{AHEAD_WHEN}$")


def _job_move(part: str) -> Callable[[re.Match[str]], list[Fields]]:
    """The old or the new employer of a move between two names, when it is a job change."""
    return lambda m: [{"value": m.group(part)}] if a_job_move(m) else []


def _maybe_job_move(part: str) -> Callable[[re.Match[str]], list[Fields]]:
    """The old or the new employer of a move between two names that may be a job change or not
    ("I switched from Adobe to Figma"): filed only if the old one is the current employer
    (`Candidate.ends_only`, `Candidate.only_replacing`)."""
    return lambda m: [] if a_job_move(m) or not_a_job_move(m) else [{"value": m.group(part), "old": m.group("old")}]


def _been_at(m: re.Match[str]) -> list[Fields]:
    """Where the user has been for years (_stayed_at); someone the user has been with ("I've been with
    Tom for three years") is no employer: "with" takes an organisation's name or a word of work."""
    if m.group("with") == "with" and not (an_organisation(m.group("value")) or WORK_SAID.search(m.string)):
        return []
    return _stayed_at(m)


def _stayed_at(m: re.Match[str]) -> list[Fields]:
    """A former employer, where the user was for years or months ("Before that I was at Zalando for
    four years"); not a school, nor a known place."""
    if SCHOOL_WORDS.intersection(caseless(w) for w in m.group("value").split()):
        return []
    return organisation(m)

_STARTS_LATER_AFTER = re.compile(STARTS_LATER)
_LEFT_ALONE = re.compile(rf"I {ADVERBS}(?:left|quit) |(?P<last_day>[^.;]*\b(?i:last day) at )")
_LEFT_NAME = rf"\bI {ADVERBS}(?:left|quit) (?:the )?(?!{PLATFORMS})(?P<value>{ORG}){LEFT_END}"
# A last day that is today or gone, which ends the job as leaving it does: "My last day at the Guardian is
# today", "Today is my last day at Google", "Friday was my last day at Acme". One ahead is a plan (plans.py).
# Said sure, not "today or tomorrow".
_SURE = r"(?! or\b)"
_GONE = (rf"(?:today|yesterday|this (?:morning|afternoon|week)|last (?:week|month|year|{WEEKDAY})|(?:on )?{WEEKDAY}"
         rf"|(?:on )?(?:the )?{DATE}|in {MONTH}|in (?:19|20)\d\d"
         rf"|(?:a|one|two|three|a few|a couple of|\d+) (?:days?|weeks?|months?|years?) ago)(?![\w'-]){_SURE}")
_OPENS = r"(?:^|[,;:]\s*|\b(?i:and|so) )"
_LAST_DAY_GONE = [
    rf"\b(?i:my) last day at (?:the )?(?P<value>{ORG}),? (?:is (?:today|now)\b{_SURE}|was {_GONE})",
    rf"{_OPENS}(?:(?i:today)(?: is|'s)|(?:(?i:yesterday|last (?:week|{WEEKDAY}))|{WEEKDAY}) was) (?i:my) last day at "
    rf"(?:the )?(?P<value>{ORG})",
    rf"{_OPENS}(?i:it)(?:'s| is| was) (?i:my) last day at (?:the )?(?P<value>{ORG}) (?=(?:today|yesterday)\b{_SURE})",
]


def _left_alone(m: re.Match[str]) -> bool:
    """Whether a name is left or quit alone, or its last day said alone, with nothing that says it is a job: not an
    organisation ("Acme Inc", a well-known employer) and no word of work in the sentence ("I left Tom", "My last
    day at Yosemite is today", a visit's). A last day is a student's too: an acronym alone is no organisation there
    ("Today's my last day at MIT")."""
    said = _LEFT_ALONE.match(m.group())
    return bool(said) and not an_organisation(m.group("value"), acronyms=not said.group("last_day")) \
        and not WORK_SAID.search(m.string)


def _left_employer(m: re.Match[str]) -> list[Fields]:
    """A former employer (organisation), unless the name is left alone."""
    return [] if _left_alone(m) else organisation(m)


def _left_name(m: re.Match[str]) -> list[Fields]:
    """A name left alone that is no known place ("I left Feedzai."): a former employer only if it
    is the current one, which the judge tells (`Candidate.ends_only`)."""
    return a_name(m) if _left_alone(m) and not a_place(m.group("value")) else []


def _employer_now(m: re.Match[str]) -> list[Fields]:
    """An employer (organisation), unless the job is said to start later, wherever in the sentence:
    then it is the job to come (the job-ahead rule), which becomes the employer on its day (pipeline.start_jobs)."""
    if _STARTS_LATER_AFTER.match(m.string, m.end()) or _AHEAD_BEFORE.search(m.string, 0, m.start()):
        return []
    return organisation(m)

# A move between two names, either way round ("from Google to Meta", "to Meta from Google").
_MOVES_BETWEEN = [
    rf"\bI(?:'ve| have)? {ADVERBS}(?P<verb>moved|switched|went|jumped|transferred) (?:over )?from (?:the )?"
    rf"(?P<old>{ORG}) to (?:the )?(?P<new>{ORG})",
    # "I changed jobs from Zendesk to Intercom": the verb says it is a job change.
    rf"\bI(?:'ve| have)? {ADVERBS}(?P<verb>moved|switched|changed) (?P<jobs>jobs|employers|companies) from (?:the )?"
    rf"(?P<old>{ORG}) to (?:the )?(?P<new>{ORG})",
    rf"\bI(?:'ve| have)? {ADVERBS}(?P<verb>moved|switched|went|jumped|transferred) (?:over )?to (?:the )?"
    rf"(?P<new>{ORG}) from (?:the )?(?P<old>{ORG})",
]


# A job left or lost without its employer's name, and where that leaves the user: "I got laid off",
# "I quit my job", "I'm between jobs" (out of work), "I retired last year" (retired). Only the user's
# (not "my dad retired"), only as said (not "if I get laid off", "I'm afraid I'll lose my job"), and
# the clause ending there or with when it happened: "I left my job at 5pm today" left the office,
# "I quit my job to start a company" says what came next, "I'm retired from competitive chess" and
# "I got fired up" are no job left. Nor a clause said as the background of another ("since I lost my
# job, I've been building my business", "I was a firefighter before I retired"): what came after may
# be a job again.
_NOT_BACKGROUND = "".join(f"(?<![{word[0].upper()}{word[0]}]{word[1:]} )"
                          for word in ("because", "cause", "since", "after", "before", "when", "until", "till", "once"))
_WORK_STATUS_END = strict_end("last", "this", "yesterday", "today", "recently", "early", "in", "since", "ago",
                              "again", "after", "earlier", "on", "right now", "at the moment", "for now", "a (?:year|month|"
                              "week|while|few|couple)", r"\d+", "two", "three", "four", "five", "six", "several",
                              rf"for (?:(?:almost|nearly|over|about|the (?:past|last)) )?(?:{NUMBER}|an?|a few|"
                              r"a couple of|several|many) (?:days?|weeks?|months?|years?)", "and", "when", "because")
_OUT_OF_WORK = ("out of work", "between jobs", "out of a job", "unemployed", "jobless")
# The user among those who lost their jobs: "We both got laid off", "My husband and I both got let
# go", "We lost our jobs". Not "They both got laid off", "My team got laid off", "We laid off ten
# people".
_WE_BOTH = (rf"\b(?:[Ww]e|(?i:my) (?:{alternation(RELATIONS)}) and I|(?i:me and my) (?:{alternation(RELATIONS)}))"
            r"(?: both| all)?")
# What one retires from that is a working life: a trade said as its work ("teaching"), a service, or
# work itself. "I retired from competitive chess", "from social media", "from the race" are none.
_RETIRED_FROM = ("teaching|nursing|medicine|law|dentistry|banking|accounting|journalism|politics|coaching|farming|"
                 "engineering|academia|acting|modelling|modeling|lecturing|practice|work|full-time work|my job|"
                 "the workforce|the army|the navy|the air force|the military|the marines|the police|the police force|"
                 "the force|the fire service|the fire department|the civil service|public service|the classroom|"
                 "the nhs|the NHS").split("|")
_LEAVES = r"(?:parental|maternity|paternity) leave"


def _status(value: str) -> Callable[[re.Match[str]], list[Fields]]:
    """What a rule's match says of the user's work, whatever its words: "out of work", "retired"."""
    return lambda m: [{"value": value}]


def _retired(m: re.Match[str]) -> list[Fields]:
    """Retired, with what from when said ("The user is retired from teaching."): an employer by its
    name is one unless it is a known place."""
    where = m.groupdict().get("from") or ""
    if where[:1].isupper() and a_place(where):
        return []
    return [{"value": "retired", "from": f" from {where}" if where else ""}]


# Being retired taken back: "I'm no longer retired", "I'm not retired anymore, I went back to work", "I came out of
# retirement"; the past, which ends being retired if it is current (supersession.ending), and files no one
# retired who never said so. corrections.denied files it too, for "I'm not retired." said while the user is.
RETIREMENT_ENDED = rule("fact", "employment_status", "retired retirement", [
    rf"{_NOT_BACKGROUND}\bI(?:'m| am) (?:{HEDGES} )*(?:no longer retired{_WORK_STATUS_END}"
    r"|not retired (?=any ?more\b))",
    rf"{_NOT_BACKGROUND}\bI(?:'ve| have)? (?:just |recently |finally )?(?:came|come) out of retirement(?![\w'-])",
], "The user used to be retired.", _status("retired"), confidence=0.7, importance=0.6, historical=True)


# "I'm a student", "As a grad student, I...": a student is what the user is, not a job title. Up to
# three words before it ("PhD", "full-time", "second-year law"), none a judgement ("a good student").
_STUDENT = r"(?:student|undergrad|undergraduate|postgrad|postgraduate)"
_STUDENT_SAID = rf"(?:[A-Za-z][\w-]* ){{0,3}}?{_STUDENT}"


def _student(m: re.Match[str]) -> list[Fields]:
    said = m.group("said")
    if any(caseless(w) in NOT_ROLE_MODIFIERS for w in said.split()[:-1]):
        return []
    words = " ".join(ROLE_ABBREVIATIONS.get(w, w) for w in said.split())
    return [{"value": "student", "said": words, "a": vocabulary.article(words)}]


RULES = [
    rule("fact", "employer", "work working employed started began got hired at for joined landed accepted signed "
         "employer left quit switched moved went jumped changed first promoted teach teaching", [
        rf"(?:{WORKS_AT}) {ORG_INTRO}(?P<value>{ORG}){NOT_TEMPORARY}",
        rf"{_TEACHES_AT}(?P<value>{ORG}){NOT_TEMPORARY}",
        # "my first day at Notion is Monday" is a plan (below), not a job yet
        rf"(?:{STARTED_AT}) {ORG_INTRO}(?P<value>{ORG})(?!,?\s+(?:is|will be) {START_WHEN})",
        # a student's school is no employer (the school rule files it)
        rf"\bI(?:'m| am) {INTRODUCED}(?:now |currently )?(?:an?|the) {ROLE}(?<!student)(?: now| currently)? (?:at|for) (?:the )?"
        rf"(?P<value>{ORG}){NOT_TEMPORARY}",
        rf"\bI(?: {ADVERBS}work|'m {ADVERBS}working| am {ADVERBS}working) {WORK_HOURS}{AS_ROLE} "
        rf"(?:at|for) (?:the )?(?P<value>{ORG}){NOT_TEMPORARY}",
        rf"\bI (?:just |recently |finally )?(?:got|was|have been|'ve been) promoted to (?:an? |the )?"
        rf"(?:{ROLE}|{HEAD_OF}) (?:at|with) (?:the )?(?P<value>{ORG}){NOT_TEMPORARY}",
        # "I moved to Lisbon for my job at Feedzai", "I relocated here to work at Stripe": the job a move was
        # made for ("we" only with "my job": "We moved here for a job at Dell" may be anyone's)
        rf"\bI(?:'ve| have)? {ADVERBS}(?:moved|relocated) (?:back |over )?(?:here|there|to {PROPER}) (?:for (?:an?|my) "
        rf"(?:new )?{JOB_NOUN} (?:at|with)|to work (?:at|for)) (?:the )?(?P<value>{ORG}){NOT_TEMPORARY}",
        rf"\b[Ww]e(?:'ve| have)? {ADVERBS}(?:moved|relocated) (?:back |over )?(?:here|there|to {PROPER}) for my "
        rf"(?:new )?{JOB_NOUN} (?:at|with) (?:the )?(?P<value>{ORG}){NOT_TEMPORARY}",
        # "I left Monzo for a job at Wise": a job left for one named as such.
        rf"\bI {ADVERBS}(?:left|quit) (?:my job at )?(?:the )?{ORG} for (?:an?|my) (?:new )?{JOB_NOUN} (?:at|with) "
        rf"(?:the )?(?P<value>{ORG})",
        rf"\bI(?:'ve| have)? (?:just |recently )?joined (?:the )?(?P<value>{ORG}) {AS_ROLE}{ROLE_END}",
        rf"\bI(?:'ve| have)? (?:just |recently |finally )?joined (?:the )?(?!{PLATFORMS})(?P<value>{ORG})"
        rf"(?:{ORG_END}|{_JOINED_WHEN})",
        rf"\bI (?:left|quit) (?:my job at )?(?:the )?{ORG},? (?:and|to) (?:I {ADVERBS})?(?:join|joined|start at|started at) "
        rf"(?:the )?(?P<value>{ORG})",
        rf"\b(?:years?|yrs?|months?) at (?:the )?{ORG},? I {ADVERBS}(?:switched|moved|went|jumped) (?:over )?to "
        rf"(?:the )?(?P<value>{ORG})",
        # The first stretch of a job behind the user, its "my" dropped: "First week at Notion done",
        # "survived the first month at Deloitte"; not "First day at Yosemite!".
        rf"(?<![\w'])(?i:first) {FIRST_SPAN} at (?:the )?(?P<value>{ORG}),? (?:(?:is|was|are|were|now|officially) )?"
        rf"(?:done|over|complete|completed|finished|in the books|behind me)(?![\w'-])",
        rf"\b(?i:finished|survived|completed|wrapped up|got through) (?:the )?first {FIRST_SPAN} at (?:the )?"
        rf"(?P<value>{ORG})",
        # "I quit Nokia, and now I'm with Ericsson": where the user is, said after a job they left.
        rf"(?:{_LEFT_JOB})[^.;]*?\b(?:now,? I(?:'m| am)|I(?:'m| am) now|I(?:'m| am)) (?:at|with) (?:the )?"
        rf"(?!{PLATFORMS})(?P<value>{ORG})",
    ], "The user's employer is {value}.", unless_a_stay(_employer_now, contracts=True), importance=0.8),
    rule("fact", "employer", "moved switched went jumped transferred changed", [
        *_MOVES_BETWEEN,
    ], "The user's employer is {value}.", _job_move("new"), importance=0.8),
    rule("fact", "employer", "moved switched went jumped transferred changed", [
        *_MOVES_BETWEEN,
    ], "The user used to work at {value}.", _job_move("old"), confidence=0.7, importance=0.6, historical=True),
    rule("fact", "employer", "moved switched went jumped transferred", [
        *_MOVES_BETWEEN,
    ], "The user's employer is {value}.", _maybe_job_move("new"), importance=0.8, only_replacing=True),
    rule("fact", "employer", "moved switched went jumped transferred", [
        *_MOVES_BETWEEN,
    ], "The user used to work at {value}.", _maybe_job_move("old"), confidence=0.7, importance=0.6, historical=True,
         ends_only=True),
    rule("fact", "employer", "work worked working job resigned retired laid let fired left quit longer years months "
         "anymore more goodbye bye farewell last", [
        rf"(?:{_PAST_JOB}) (?:the )?(?P<value>{ORG})",
        # the past progressive with how long or until a year, on a contract or not: "I was working at Google until
        # 2020", "I was working at Acme on a contract until 2020"; not a day's shift ("I was working at Starbucks
        # yesterday")
        rf"\bI was {ADVERBS}working (?:at|for) (?:the )?(?P<value>{ORG}) (?:on an? (?:[\w-]+ )?contract,? )?"
        rf"(?={_HELD_FOR})",
        rf"\bI (?:left|quit) my job at (?:the )?(?!{_CLOCK})(?P<value>{ORG})",
        rf"\bI {ADVERBS}(?:left|quit) (?:the )?(?!{PLATFORMS})(?P<value>{ORG}) (?=for (?:an?|my) (?:new )?{JOB_NOUN} "
        rf"(?:at|with) )",
        rf"\bI (?:left|quit) (?:the )?(?!{PLATFORMS})(?P<value>{ORG}),? "
        rf"(?=(?:and|to) (?:I {ADVERBS})?(?:join|joined|start at|started at) )",
        # "I left Deutsche Bank last year and now I work at Revolut": a job left for another.
        rf"\bI {ADVERBS}(?:left|quit) (?:the )?(?!{PLATFORMS})(?P<value>{ORG})(?=[^.;]*?(?:{CURRENT_JOB}|"
        rf"\b(?:now,? I(?:'m| am)|I(?:'m| am) now) (?:at|with) (?:{UPPER}|[0-9])))",
        rf"\bI (?:don't|do not) work (?:at|for) (?:the )?(?P<value>{ORG}) (?=any ?more\b)",
        rf"\b(?:years?|yrs?|months?) at (?:the )?(?P<value>{ORG}),? (?=I {ADVERBS}(?:(?:switched|moved|went|jumped) "
        rf"(?:over )?to |left\b|quit\b))",
        # A job left, said alone: "I quit Stripe", "I'm no longer at Stripe", "My last day at Stripe was Friday"
        # (_left_employer)
        _LEFT_NAME,
        *_LAST_DAY_GONE,
        rf"\bI(?:'m| am) no longer (?:at|working (?:at|for)|employed (?:at|by)) (?:the )?(?P<value>{ORG})",
        # a goodbye to the people of a job: "Said goodbye to my team at Canva", or to everyone there when the
        # sentence starts the next job ("First day at Twilio tomorrow, said goodbye to everyone at Canva")
        rf"\b(?i:said|say|saying) (?i:goodbye|bye|farewell) to (?:my|all my|the) (?:team|colleagues|coworkers|co-workers|"
        rf"workmates) at (?:the )?(?P<value>{ORG})",
        rf"^[^.;]*?\b(?i:first day|start|starting)\b[^.;]*?\b(?i:said|saying) (?i:goodbye|bye|farewell) to everyone at "
        rf"(?:the )?(?P<value>{ORG})",
        rf"\bI(?:'m| am) not (?:at|working (?:at|for)|employed (?:at|by)) (?:the )?(?P<value>{ORG}) (?=any ?more\b)",
        # "with" may be a partner's: a job only when the next job is said
        rf"\bI(?:'m| am) (?:not|no longer) with (?:the )?(?P<value>{ORG}) (?=(?:any ?more)?,? (?:(?:and|now|so) )?"
        rf"(?:{CURRENT_JOB}|\bI(?:'ve| have)? {ADVERBS}joined)\b)",
    ], "The user used to work at {value}.", _left_employer, confidence=0.7, importance=0.6, historical=True),
    rule("fact", "employer", "was retired", [
        rf"\bI was at (?:the )?(?P<value>{ORG}) for {SPAN}(?![\w'-])",
        # "I retired in 2020 after 40 years with IBM": the retirement the work-status rule files
        rf"\bI {ADVERBS}retired\b[^.;]*? after {SPAN} (?:at|with|for) (?:the )?(?P<value>{ORG})",
    ], "The user used to work at {value}.", _stayed_at, confidence=0.7, importance=0.6, historical=True),
    # "I've been at Unilever for three years", "I've been with Siemens since 2015": where the user still is
    rule("fact", "employer", "been worked", [
        rf"\bI(?:'ve| have) (?:now |still )?been (?P<with>at|with) (?:the )?(?P<value>{ORG}) (?:for {SPAN}|{SINCE_WHEN})",
        # "I've worked at Deloitte since 2016"; not "for five years" ("I've worked at Google for five
        # years, then left" is a job done)
        rf"\bI(?:'ve| have) (?:now |still )?worked (?P<with>at|for) (?:the )?(?P<value>{ORG}) {SINCE_WHEN}",
    ], "The user's employer is {value}.", _been_at, importance=0.8),
    rule("fact", "employer", "left quit last", [_LEFT_NAME, *_LAST_DAY_GONE], "The user used to work at {value}.",
         _left_name, confidence=0.7, importance=0.6, historical=True, ends_only=True),
    rule("fact", "role", "a an the promoted became title job role position head as", [
        rf"\bI(?:'m| am) {INTRODUCED}(?:now |currently |also )?(?:an?|the) (?P<value>{ROLE}){ROLE_END}",
        rf"\bI(?:'ve| have)? {ADVERBS}{JOB_TAKEN} as (?:an? |the )?(?P<value>{ROLE})(?= (?:at|with)\b)",
        # "As a nurse, I see this a lot": who the user is, said in passing
        # not a reminiscence ("As a nurse, I saw a lot"): it says nothing of the job now
        rf"^(?i:as) an? (?!(?:former|ex-?|retired|future|wannabe|aspiring|would-be)\b)(?P<value>{ROLE})"
        rf"(?: (?:working|based|in|at) [^,]*)?(?:,\s*I\b(?! (?:{RECALLED})\b)|$)",
        rf"(?:{CURRENT_JOB}|\bI(?:'ve| have)? (?:just |recently )?joined) {PROPER} as (?:an?|the) "
        rf"(?P<value>{ROLE}){ROLE_END}",
        rf"\bI(?: (?:now |currently )?work|'m (?:now |currently )?working| am (?:now |currently )?working) "
        rf"{WORK_HOURS}as (?:an?|the) (?P<value>{ROLE}){ROLE_END}",
        rf"\bI(?:'m| am) an? (?:{NUMBER})[- ]years?[- ]old (?P<value>{ROLE}){ROLE_END}",
        # "the CTO of a startup"; not "a student of life"
        rf"\bI(?:'m| am) (?:now |currently |also )?the (?P<value>(?:{alternation(ROLE_ABBREVIATIONS)})|founder|"
        rf"co-?founder) (?=of\b)",
        rf"\bI (?:just |recently |finally )?(?:got|was|have been|'ve been) promoted to (?:an? |the )?"
        rf"(?P<value>{ROLE}|{HEAD_OF}){ROLE_END}",
        rf"\bI (?:just |recently |finally )?became (?:an?|the) (?P<value>{ROLE}){ROLE_END}",
        # "I've been an electrician for 15 years", "for a while", "for years": how long, so the job still held
        rf"\bI(?:'ve| have) been (?:an?) (?P<value>{ROLE}) (?=for (?:(?:about|over|almost|nearly|more than) )?"
        rf"(?:(?:{NUMBER}|a few|a couple of|several|many) (?:years?|months?|decades?)|(?:quite )?a (?:long |good |little )?"
        rf"while|a long time|some time|years|decades|ages)\b|since\b)",
        rf"\b(?i:my) (?:job title|title|job|role|position) is (?:an? |the )?(?P<value>{ROLE}|{HEAD_OF}){ROLE_END}",
        rf"\bI(?:'m| am) (?:now |currently |also )?(?:the )?(?P<value>{HEAD_OF}){ROLE_END}",
    ], "The user's job title is {value}.", unless_a_stay(role, contracts=True), confidence=0.75,
         importance=0.75),
    # "I teach chemistry at a secondary school": a subject that makes the role
    rule("fact", "role", "teach", [
        rf"\bI {ADVERBS}teach (?P<value>(?i:{alternation(vocabulary.SCHOOL_SUBJECTS)}))(?= at\b|\s*[.,;!]|\s*$)",
    ], "The user's job title is {value}.", unless_a_stay(teacher, contracts=True), confidence=0.75,
         importance=0.75),
    # "I teach at Lincoln High School" (a subject said: the rule above)
    rule("fact", "role", "teach teaching", [
        rf"{_TEACHES_AT}(?P<school>{ORG}){NOT_TEMPORARY}",
    ], "The user's job title is {value}.", unless_a_stay(lambda m: [] if m.group("subject") else [{"value": "teacher"}],
                                                         after="school", contracts=True),
         confidence=0.75, importance=0.75),
    rule("fact", "role", "a an the retired", [
        rf"\bI (?:used to be|was) (?:an?|the) (?P<value>{ROLE}){ROLE_END}",
        rf"\bI (?:used to work|worked) as (?:an?|the) (?P<value>{ROLE}){ROLE_END}",
        rf"\bI(?:'m| am) (?:an?|the) (?:former |retired |ex-?)(?P<value>{ROLE}){ROLE_END}",
        # a job retracted: "I'm not a teacher anymore", "I'm no longer a nurse"
        rf"\bI(?:'m| am) no longer (?:an?|the) (?P<value>{ROLE}){ROLE_END}",
        rf"\bI(?:'m| am) not (?:an?|the) (?P<value>{ROLE}) (?=any ?more\b)",
        rf"(?:{_PAST_JOB}) {PROPER} as (?:an?|the) (?P<value>{ROLE}){ROLE_END}",
    ], "The user's job title used to be {value}.", role, confidence=0.7, importance=0.6, historical=True),
    # A work status. Out of work or retired ends the current employer and job title, and a job named
    # later ends it in turn (supersession.related_keys); a leave is beside the job and ends nothing.
    rule("fact", "employment_status", "job jobs work laid let fired sacked redundant unemployed jobless resigned", [
        rf"{_NOT_BACKGROUND}\bI(?:'ve| have)? (?:just |recently |finally )?(?:quit|lost|left) my job{_WORK_STATUS_END}",
        rf"{_NOT_BACKGROUND}\bI (?:just |recently )?(?:got|was|have been|'ve been) (?:laid off|let go|fired|sacked|"
        rf"made redundant){_WORK_STATUS_END}",
        rf"{_NOT_BACKGROUND}\bI (?:just |recently |finally )?resigned{_WORK_STATUS_END}",
        rf"{_NOT_BACKGROUND}\bI(?:'m| am|'ve been| have been) (?:now |currently |still )?"
        rf"(?:{alternation(_OUT_OF_WORK)}){_WORK_STATUS_END}",
        rf"{_NOT_BACKGROUND}{_WE_BOTH} (?:just |recently )?(?:got|were|have been|'ve been)(?: both| all)? (?:laid off|"
        rf"let go|made redundant){_WORK_STATUS_END}",
        rf"{_NOT_BACKGROUND}{_WE_BOTH} (?:just |recently )?lost our jobs{_WORK_STATUS_END}",
    ], "The user is out of work.", _status("out of work"), confidence=0.75, importance=0.8),
    rule("fact", "employment_status", "retired", [
        rf"{_NOT_BACKGROUND}\bI(?:'m| am)? (?:now |just |recently |finally |happily |officially )?retired(?: now)?"
        rf"{_WORK_STATUS_END}",
        rf"{_NOT_BACKGROUND}\bI(?:'ve| have) (?:just |recently |finally |officially )?retired{_WORK_STATUS_END}",
        # "I'm a retired teacher": retired, and the job is the past's (the past role rule)
        rf"{_NOT_BACKGROUND}\bI(?:'m| am) (?:now )?an? retired (?={ROLE}{ROLE_END})",
        # what from: a working life ("from teaching", "from the army"), or an employer by its name
        rf"{_NOT_BACKGROUND}\bI(?:'m| am|'ve| have)? (?:now |just |recently |finally |happily |officially )?retired "
        rf"from (?P<from>(?:{alternation(_RETIRED_FROM)})(?![\w'-])|(?:the )?(?!{PLATFORMS}){ORG}){_WORK_STATUS_END}",
    ], "The user is retired{from}.", _retired, confidence=0.75, importance=0.8),
    RETIREMENT_ENDED,
    rule("fact", "employment_status", "leave", [
        rf"\bI(?:'m| am) (?:now |currently |still )?(?P<value>on {_LEAVES})(?=\s*(?:[^\w\s'-]|$)|\s+(?:until|till|for|"
        rf"since|now|right now|at the moment|and|but|so)\b)",
    ], "The user is {value}.", as_said, confidence=0.75, importance=0.8),
    rule("fact", "employment_status", "student undergrad undergraduate postgrad postgraduate", [
        rf"\bI(?:'m| am) {INTRODUCED}(?:now |currently |also |still )?an? (?P<said>{_STUDENT_SAID}){ROLE_END}",
        rf"^(?i:as) an? (?!(?:former|ex-?|future|would-be)\b)(?P<said>{_STUDENT_SAID}),\s*I\b",
    ], "The user is {a} {said}.", _student, confidence=0.75, importance=0.8),
    rule("fact", "employment_status", "student undergrad undergraduate postgrad postgraduate", [
        rf"\bI (?:used to be|was) an? (?P<said>{_STUDENT_SAID}){ROLE_END}",
    ], "The user used to be {a} {said}.", _student, confidence=0.7, importance=0.6, historical=True),
]
