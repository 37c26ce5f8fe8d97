"""Rules of plans and dates: what the user plans, a job to start (`next_job`) and one called off, a
birthday or an anniversary, an appointment."""

from __future__ import annotations

import re

from memex import job_start
from memex.extraction import vocabulary
from memex.extraction.offline.patterns import (ADVERBS, AHEAD_WHEN, AS_ROLE, CURRENT_JOB, DATE, HOME, JOB_NOUN, MONTH,
    NUMBER, ORG, ORG_INTRO, PERSON_PARTS, PLATFORMS, PROPER, RACE, RELATIONS, ROLE, STARTS_LATER, START_WHEN, TRIP_FOR,
    TRIP_WHEN, UNTIL, UPPER, WEEKDAY, WORD, WORK_HOURS, alternation, phrase)
from memex.extraction.offline.rule import rule
from memex.extraction.offline.values import Fields, a_place, an_employer, an_organisation, snake
from memex.literal import caseless


_LATER = (rf"(?:next (?:month|year|summer|spring|fall|autumn|winter|{MONTH})|this (?:summer|spring|fall|autumn|winter|year)|"
          rf"in (?:{MONTH}|the (?:spring|summer|fall|autumn|winter)|\d{{4}}))")
_NOT_PLANS = ("(?:planning|going|flying|driving|heading|moving|travelling|traveling|visiting|feeling|being|"
              "thinking|looking|trying|hoping|wondering|considering|doing|working|staying|sitting|waiting|watching|"
              "reading|eating|sleeping|relaxing|chilling|getting (?:tired|better|worse|sick|old|bored|used)|"
              # "I'm turning 50 next month" is an age (TURNING), not a plan; "we're expecting a baby in May"
              # a baby on the way (expecting_baby)
              rf"turning (?:{NUMBER})(?![\w'-])|expecting)")


# A home left ahead, the place or the home it is after: "I'm moving out of Dublin in March", "moving away next
# year", "We're moving out of our apartment next month".
_MOVING_OUT = r"(?:moving|relocating) (?:out|away)"
_LEFT = rf"(?:(?:my|our|the) {HOME}|{PROPER})"


# A journey said by its booking ("My flight to Tokyo is on June 14"), read as the user says it going:
# "flying to Tokyo on June 14", the plan of "I'm flying to Tokyo on June 14".
_GOING_BY = {"flight": "flying", "drive": "driving", "road trip": "driving"}


def _plan(m: re.Match[str]) -> list[Fields]:
    """What the user plans, with when it is when that was said first ("Next month I'm moving to
    Leeds": moving to Leeds next month), or the journey booked as going ("My train to Leeds leaves
    on Monday": going to Leeds on Monday; "is booked for June 14": on June 14)."""
    value, when = m.group("value").rstrip("."), m.groupdict().get("when")
    if "journey" in m.re.groupindex and m.group("journey"):
        day = m.group("day").rstrip(".")  # MONTH takes the dot of "Sept.", and so a full stop
        day = day if re.match(r"(?i:next|this|in|on|over|at|tomorrow|tonight)\b", day) else f"on {day}"
        return [{"value": f"{_GOING_BY.get(caseless(m.group('journey')), 'going')} {value} {day}"}]
    return [{"value": f"{value} {when[0].lower()}{when[1:]}" if when else value}]


def _called_off(m: re.Match[str]) -> list[Fields]:
    """The job to come called off: the employer named ("Twilio"), else "the new job", which ends the
    only current one (supersession.ending)."""
    named = next((m.group(g) for g in ("value", "value2", "value3") if g in m.re.groupindex and m.group(g)), "")
    stay = {"stay": m.group("stay")} if "stay" in m.re.groupindex else {}
    if stay and (a_place(stay["stay"]) or caseless(stay["stay"]) in PERSON_PARTS or vocabulary.a_hotel(stay["stay"])):
        return []  # "Decided to stay at Paris", "at Grandma", "at Marriott": a stay, no job kept
    return [{"value": named or job_start.UNNAMED, **stay}]


_NEW_JOB = rf"(?:(?:a|an|my|the) (?:new )?{JOB_NOUN} )?"
_AHEAD = {"start": "starting at", "starting": "starting at", "starts": "starting at", "begin": "starting at",
          "beginning": "starting at", "begins": "starting at", "join": "joining", "joining": "joining",
          "first day": "first day at", "start date": "start date at"}


# Where a last day is: the job said as such ("at work", "at my job": no employer's name), or the employer.
_AT_WORK = r"(?:work|my (?:current |old )?job)(?![\w'-])"
_LAST_DAY_AT = rf"last day at (?:(?P<work>{_AT_WORK})|(?P<the>the )?(?P<org>{ORG}))"
# A last day said before the start of the next job, which starts the day after it: "My last day at work is Friday,
# then I start at Meta". A day, which job_start.starts reads "after"; or a week or a month ("My last day at work is
# next week, then I start at Meta"), which names no day: the job to come stands without one.
_LAST_DAY_THEN = (rf"\b(?i:my) last day(?: at (?:(?P<at_work>{_AT_WORK})|(?:the )?(?P<left>{ORG})))?,? "
                  rf"(?:is|will be) (?:on )?(?P<last>(?i:tomorrow)|(?:(?i:next|this) )?{WEEKDAY}"
                  rf"|(?:the )?\d{{1,2}}(?:st|nd|rd|th)(?: of {MONTH})?|\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{MONTH}"
                  rf"|(?i:next) (?:week|month)),? (?:and )?then ")
_THEN_I = rf"I(?:'ll| will|'m| am)?(?: be)? {ADVERBS}"
_LAST_DAY_BEFORE = re.compile(rf"{_LAST_DAY_THEN}{_THEN_I}$")
# What may follow the employer of a start after a last day, and nothing else but the sentence's end: its team
# ("Meta's AI team"), a role ("as an engineer"), when it starts ("on Monday"), or a time after the last day, which
# names no day job_start reads ("two weeks later").
_SOME_TIME_LATER = rf"(?:{NUMBER}|an?|a few|a couple of) (?:days?|weeks?|months?) (?:later|after(?:wards)?)"
_AFTER_THE_NAME = (rf"(?P<team> (?:[a-z][\w-]* ){{0,2}}team)?(?: as (?:an?|the) (?P<role>{ROLE}))?"
                   rf"(?:,? (?:(?P<when>{START_WHEN})|(?P<later>{_SOME_TIME_LATER})))?(?=\s*(?:[.!?;]|$))")


def _no_employer(name: str) -> bool:
    """Whether a name said where a job is to start is surely none: someone's house ("I'm starting at Sam's on Monday"),
    or no employer's name (values.an_employer: "I start at Easter", "joining Mom")."""
    return bool(re.search(r"'s?$", name)) or not an_employer(name)


# A start said after something the user finishes: "I finish at Google on Friday, then I start at Harvard in the fall".
_THEN_START = re.compile(rf"\b(?i:then),? {_THEN_I}$")
_A_JOB = re.compile(rf"\b{JOB_NOUN}\b")
_AS_ROLE = re.compile(rf",? {AS_ROLE}")


# What one starts at after "then" that is no job (_not_a_job_after_then): a pastime, a subject, a school by its name.
_NO_JOB = re.compile(rf"(?i:{alternation(vocabulary.HOBBIES + vocabulary.SCHOOL_SUBJECTS)})"
                     rf"|{alternation(vocabulary.UNIVERSITIES)}|.+ (?:School|College|University|Academy)")


def _not_a_job_after_then(m: re.Match[str], org: str) -> bool:
    """Whether a start said after "then" (_THEN_START) names no job: one starts at a class or a school after a job as
    often as at the next job ("then I start at Yoga", "then I start at Harvard in the fall"), so a pastime, a subject
    or a school by its name is none, unless the start says it is a job ("then I start my new job at …", "as a
    lecturer") or a team's. Any other name is the next job's, a well-known employer or not ("then I start at Figma")."""
    if not _THEN_START.search(m.string, 0, m.start("verb")) or not _NO_JOB.fullmatch(org):
        return False
    return not (_A_JOB.search(m.string, m.end("verb"), m.start("org")) or _AS_ROLE.match(m.string, m.end("org"))
                or m.groupdict().get("team"))


def _job_ahead(m: re.Match[str]) -> list[Fields]:
    """A job to start, as the job to come: "starting at Notion in April", "first day at Notion on Monday". Said
    after a last day without its own time ("My last day at work is Friday, then I'll start at Meta"), it is
    _job_after_last_day's."""
    org, when = m.group("org"), _when_said(m)
    if _no_employer(org) or (not when and _LAST_DAY_BEFORE.search(m.string, 0, m.start("verb"))) \
            or _not_a_job_after_then(m, org):
        return []
    return _job_to_come(m, org, when)


def _job_after_last_day(m: re.Match[str]) -> list[Fields]:
    """A job to start said after a last day, starting after it: "My last day at work is Friday, then I start at Meta":
    starting at Meta after Friday, the day after it (job_start.starts). A job's only when the last day is at work (at
    an employer, not at Lisbon nor at Grandma's) or the start says it is one (a new job, a role, a team): "My last day
    is tomorrow" may be a trip's. One joins an organisation or as a role, as in the other join patterns ("then I'm
    joining Tom" is an errand); a team is its organisation's ("Meta's AI team": Meta), and one a person's is no
    employer ("Sarah's team"). Its own time ("then I start at
    Meta on Monday") is its start, and one after the last day ("two weeks later") leaves the job to come without a
    day."""
    org, team, role = m.group("org"), m.group("team"), m.group("role")
    if team:
        org, possessive, _ = org.partition("'s")
        if possessive and not an_organisation(org):
            return []
    at_work = m.group("at_work") or (m.group("left") and not _no_employer(m.group("left")))
    organisation = an_organisation(org) or role or not m.group("verb").startswith("join")
    if _no_employer(org) or not (at_work or m.groupdict().get("job") or team or role) or not organisation \
            or _not_a_job_after_then(m, org):
        return []
    return _job_to_come(m, org, _when_said(m) or ("" if m.group("later") else f"after {m.group('last').rstrip('.')}"))


def _job_to_come(m: re.Match[str], org: str, when: str) -> list[Fields]:
    return [{"value": " ".join(filter(None, (_AHEAD[caseless(m.group("verb"))], org, when)))}]


def _when_said(m: re.Match[str]) -> str:
    """When a job starts or ends, as said after it: "in April", "next month", "on Monday", "on the 15th"."""
    when = (m.groupdict().get("when") or "").rstrip(".")  # MONTH takes the dot of "Apr.", and so a full stop
    if not re.match(rf"{WEEKDAY}|{MONTH}", when):
        when = when[:1].lower() + when[1:]  # "Next month I start at Canva"
    if re.match(rf"{WEEKDAY}|\d|{MONTH}|the \d", when) and not re.match(r"(?i:next|this|in|on)\b", when):
        when = f"on {when}"
    return when


def _last_day(m: re.Match[str]) -> list[Fields]:
    """A last day ahead, as a plan: "last day at Google in March", "last day at work on Friday" (at "my job" too).
    A visit's ("at Yosemite") is a plan of leaving too, so no name is refused, as a job to come refuses a place. Its
    article is kept as said ("last day at the Guardian"): a plan is the user's words, not an employer's name (which
    every employer rule files without it)."""
    where = "work" if m.group("work") else f"{m.group('the') or ''}{m.group('org')}"
    return [{"value": f"last day at {where} {_when_said(m)}"}]


_ON_CONTRACT = (rf"\bI(?: {ADVERBS}work {WORK_HOURS}|(?:'m| am) {ADVERBS}(?:working {WORK_HOURS}|employed ))"
                rf"(?P<at>at|for|by) (?:the )?(?P<org>{ORG}) on (?P<contract>an? (?:[\w-]+ ){{0,2}}?contract)")


def _contract_end(m: re.Match[str]) -> list[Fields]:
    """A job on a contract and when the contract ends, as said: "working at Acme on a contract until March",
    "working for Acme on a six-month contract ending in June". Not until a year: the rules do not see when it was
    said, and a year may be gone by then ("I work at Acme on a contract until 2020" said in 2026 is no plan), as a
    last day or a contract that "ends in 2027" (START_WHEN) is filed only by a time ahead of whenever it is said."""
    until = m.groupdict().get("until")
    if until and until.isdigit():
        return []
    end = f"until {until}" if until else f"ending {_when_said(m)}"
    return [{"value": f"working {'at' if m.group('at') == 'at' else 'for'} {m.group('org')} on {m.group('contract')} "
                      f"{end}"}]


def _moving_on(m: re.Match[str]) -> list[Fields]:
    """A home until a time and then a move, as said: "living in Dublin until March, then moving to Cork"."""
    stay = "living" if m.group("stay") == "live" else m.group("stay")
    return [{"value": f"{stay} in {m.group('place')} until {m.group('until')}, then {m.group('going')}"}]


# An appointment of the user's and its day: "my dentist appointment is on Monday". Not another
# person's ("my sister's appointment").
_APPOINTMENT_OF = (rf"(?!(?:{alternation(RELATIONS)}|{alternation(vocabulary.OTHER_PEOPLE)}|kids?|children)"
                   r"(?:'s)?\b)")
_DAY = rf"(?P<value>(?:(?i:next|this) )?{WEEKDAY}|{DATE})(?![\w'-])"


def _appointment(m: re.Match[str]) -> list[Fields]:
    thing = re.sub(r"'s$", "", (m.group("thing") or "").strip())
    day = m.group("value").rstrip(".")  # MONTH takes the dot of "Sept.", and so a full stop
    return [{"value": day, "part": "_".join(filter(None, ("event", snake(thing), "appointment"))),
             "thing": f"{thing} " if thing else ""}]


RULES = [
    rule("event", "plan", "planning plan intend next tomorrow tonight this in on decided booked over at goal aim target "
         "flight train trip drive bus coach ferry cruise holiday vacation", [
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are) planning (?:to|on) (?P<value>{phrase(8)})",
        # a decision taken, not yet done: "I've decided to quit my job in March"
        rf"\b(?:I|[Ww]e)(?:'ve| have) (?:just |finally |now )?decided to (?P<value>{phrase(8)})",
        rf"\b(?i:my|our) (?:plan|intention) is to (?P<value>{phrase(8)})",
        # a race aimed at with its time: "My goal is a half marathon in March", "my target this year is to run a 10k in May"
        rf"\b(?i:my|our) (?:(?:main|big|next|new) )?(?:goal|aim|target)(?: (?:for|this|next) (?:this |next )?(?:year|season))? is "
        rf"(?:to )?(?P<value>(?:(?:run|do|finish|complete|race) )?(?:an?|the|my first) (?:{WORD} ){{0,3}}?"
        rf"(?:{RACE}|triathlons?|ironman) {TRIP_WHEN})(?=\s*(?:[.,;!?]|$))",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |finally )?booked (?P<value>an? (?:trip|holiday|vacation|cruise|"
        rf"weekend away) to {phrase(6)})",
        # what the user is going to do, with when, a week or more ahead: "I'm going to sell my car in June"
        # (not "I'm going to cry", which says no time, nor the errand of "I'm going to study the contract tonight"),
        # or to someone's occasion: "I'm going to Jo's wedding in August"
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are) going to (?P<value>(?!be\b|go\b|have to\b)(?:[a-z]+|{UPPER}[\w-]*'s"
        r"(?= (?!(?:in|on|at|next|this|for|over|during|before|after)\b)[a-z]))"
        rf"(?: {WORD}){{0,5}}? "
        rf"(?!tonight|tomorrow|this (?:weekend|month)|on {WEEKDAY}){TRIP_WHEN})(?=\s*(?:[.,;!?]|$))",
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are) planning (?P<value>an? (?:trip|holiday|vacation|visit) to {phrase(6)})",
        rf"\b(?:I|[Ww]e) (?:plan|intend) (?:to|on) (?P<value>{phrase(8)})",
        # something to learn wanted with a time ahead is a plan ("I want to learn Japanese this year"), where
        # "I want to learn Japanese" alone may be a wish
        rf"\bI {ADVERBS}(?:want|hope|aim) to (?P<value>learn (?:how to )?(?:{WORD} ){{0,3}}?{WORD} (?:this|next) "
        rf"(?:year|summer|autumn|fall|winter|spring))(?=\s*(?:[.,;!?]|$))",
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are) (?P<value>(?:{_MOVING_OUT}(?: (?:of|from) {_LEFT})?|(?:going|flying|"
        rf"driving|heading|moving|relocating|travelling|traveling|getting married|visiting)(?: to| back to)?"
        rf"(?: {PROPER}{TRIP_FOR}| (?<=visiting )(?:my|our) [a-z]+(?:-in-law)?s?(?: in {PROPER})?)?) {TRIP_WHEN})"
        # what the trip is for may follow: "relocating to Copenhagen next year for my husband's job"
        r"(?=\s*(?:[.,;!?]|$)|\s+(?:for|with|because|to)\b)",
        # a race ahead: "I'm doing the London half marathon in April" ("doing" is no plan by itself)
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are) (?P<value>(?:doing|running|racing) (?:the|a|my first) (?:{WORD} ){{0,3}}?"
        rf"(?:{RACE}|triathlons?|ironman) {TRIP_WHEN})(?=\s*(?:[.,;!?]|$))",
        # Anything else the user is doing weeks or months ahead: "we're hosting Thanksgiving this
        # year"; not an errand of tonight ("I'm cooking dinner tonight") nor how they feel or what
        # they think ("I'm feeling better next week").
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are) (?P<value>(?!{_NOT_PLANS}\b)[a-z]+ing(?: {WORD}){{0,5}}? {_LATER})"
        r"(?=\s*(?:[.,;!?]|$))",
        # where the user will be: "I'll be in Tokyo next week"
        rf"\b(?:I|[Ww]e)(?:'ll| will) be (?P<value>in {PROPER} {TRIP_WHEN})(?=\s*(?:[.,;!?]|$)|\s+(?:for|with)\b)",
        # a journey of the user's said by its booking: "My flight to Tokyo is on June 14", "our train to
        # Leeds leaves on Monday", "my trip to Lisbon is booked for next month" (not another's: "Her flight
        # to Tokyo is on June 14", "my sister's flight", as "She's flying to Tokyo" files nothing)
        rf"\b(?i:my|our) (?P<journey>(?i:flight|train|trip|road trip|drive|bus|coach|ferry|cruise|holiday|vacation)) "
        rf"(?P<value>(?:back )?to {PROPER}) (?:is|leaves|departs|goes)(?: (?:booked|scheduled|planned|set))?"
        rf"(?: for| on)? (?P<day>{TRIP_WHEN}|(?:the )?{DATE}|(?:the )?\d{{1,2}}(?:st|nd|rd|th)(?: of {MONTH})?"
        rf"|{WEEKDAY})(?=\s*(?:[.,;!?]|$))",
        # the time said first: "Next month I'm moving to Leeds"
        rf"(?:^|[,;:]\s*)(?P<when>(?i:{TRIP_WHEN})),? (?:I|[Ww]e)(?:'m|'re| am| are) (?P<value>(?:{_MOVING_OUT} "
        rf"(?:of|from) {_LEFT}|(?:going|flying|driving|heading|moving|relocating|travelling|traveling|visiting)"
        rf"(?: to| back to)? {PROPER}){TRIP_FOR})"
        r"(?=\s*(?:[.,;!?]|$)|\s+(?:for|with|because)\b)",
    ], "The user's plan: {value}.", _plan, confidence=0.7, importance=0.6),
    # A plan of leaving a job, by its last day ahead: "My last day at Google is in March", "Friday is my last
    # day at Google", "My last day at work is Friday". A plan, not the job's end: the employer is the current one
    # until the user says it ended.
    rule("event", "plan", "last", [
        rf"\b(?i:my) {_LAST_DAY_AT},? (?:is|will be) (?P<when>{START_WHEN})",
        rf"{AHEAD_WHEN}(?i:my) {_LAST_DAY_AT}",
    ], "The user's plan: {value}.", _last_day, confidence=0.7, importance=0.6),
    # A job on a contract, with the contract's end: "I work at Acme on a contract that runs until March". A plan,
    # as a last day is; the employer is Acme and stays current (values.unless_a_stay: no stint) until the user says
    # the job ended.
    rule("event", "plan", "contract", [
        rf"{_ON_CONTRACT},? (?:(?:that|which) (?:runs|lasts|goes|is) )?{UNTIL}",
        rf"{_ON_CONTRACT},? (?:that|which) (?:ends|expires|finishes|runs out) (?P<when>{START_WHEN})",
    ], "The user's plan: {value}.", _contract_end, confidence=0.7, importance=0.6),
    # A home until a time and then a move, the move's own time unsaid: "I live in Dublin until March, then I'm
    # moving to Cork". Filed as said, a plan: the home until then is a stay (values.unless_a_stay), not a city,
    # and the move is no city yet. With its own time ("then I'm moving to Cork in April") the plan is the move's.
    rule("event", "plan", "until till til", [
        rf"\b(?:I|[Ww]e)(?: |'m |'re | am | are )(?P<stay>live|living|based|staying) in (?P<place>{PROPER}) {UNTIL},? "
        rf"(?:and )?then (?:(?:I|[Ww]e)(?:'m|'re| am| are|'ll| will) )?(?:be )?(?P<going>(?:moving|relocating|heading|"
        rf"going) (?:back )?to {PROPER})(?=\s*(?:[.,;!?]|$)|\s+(?:for|with|because)\b)",
    ], "The user's plan: {value}.", _moving_on, confidence=0.7, importance=0.6),
    # A job said before it starts: "Starting at Notion in April", "I start at Notion next month", "my
    # first day at Notion is Monday". A plan, not the employer: until it starts, the employer is still
    # the old one; on the day it names it becomes the employer (job_start.py, pipeline.start_jobs), unless
    # the employer named before then ends it (supersession.py). Filed as the job to come (`next_job`),
    # not among the other plans, so that a question about work finds it after the current job
    # (retrieval/topics.py). Joining takes a time months ahead or a role ("I'm joining Sam
    # tomorrow" is an errand); one starts "at" a job ("I'm starting with React next week" is a tool).
    rule("event", "next_job", "start starting starts begin beginning begins join joining first date", [
        rf"\bI(?:'m| am) {ADVERBS}(?P<verb>starting) {_NEW_JOB}at (?:the )?(?P<org>{ORG}),? "
        rf"(?P<when>{START_WHEN})",
        rf"\bI(?:'m| am) {ADVERBS}(?P<verb>starting) (?P<when>{START_WHEN}) at (?:the )?(?P<org>{ORG})",
        rf"\bI {ADVERBS}(?P<verb>start) {_NEW_JOB}at (?:the )?(?P<org>{ORG}),? (?P<when>{START_WHEN})",
        rf"\bI(?:'ll| will)(?: be)? {ADVERBS}(?P<verb>start|starting) {_NEW_JOB}at (?:the )?(?P<org>{ORG})"
        rf"(?:,? (?P<when>{START_WHEN}))?",
        rf"\bI(?:'m| am) (?:going|due|set|about) to (?P<verb>start) {_NEW_JOB}at (?:the )?(?P<org>{ORG})"
        rf"(?:,? (?P<when>{START_WHEN}))?",
        rf"\bI(?:'m| am| will be|'ll be) {ADVERBS}(?P<verb>joining) (?:the )?(?!{PLATFORMS})(?P<org>{ORG}),? "
        rf"(?:(?P<when>{_LATER})|(?={AS_ROLE}))",
        rf"\bI(?:'ll| will) {ADVERBS}(?P<verb>join) (?:the )?(?!{PLATFORMS})(?P<org>{ORG}),? "
        rf"(?:(?P<when>{_LATER})|(?={AS_ROLE}))",
        rf"\b(?i:my) (?P<verb>first day|start date) at (?:the )?(?P<org>{ORG}),? (?:is|will be|starts|begins) "
        rf"(?P<when>{START_WHEN})",
        # The start said after a job taken ("I signed with Netflix, starting Monday"), or first
        # ("Tomorrow is my first day at Notion", "Next month I start at Canva").
        rf"(?:{CURRENT_JOB}) {ORG_INTRO}(?P<org>{ORG}){STARTS_LATER}",
        rf"{AHEAD_WHEN}(?i:my) (?P<verb>first day) at (?:the )?(?P<org>{ORG})",
        # said without "my", opening the sentence, with when and a word of work or of the job left: "First day
        # at Twilio tomorrow, said goodbye to everyone at Canva" ("First day at Yosemite tomorrow!" is a visit)
        rf"^(?=[^.;]*?\b(?i:jobs?|role|team|colleagues|co-?workers|goodbye|farewell)\b)"
        rf"(?:(?i:so|and|oh|ok|okay),? )?(?P<verb>(?i:first day)) at (?:the )?(?P<org>{ORG}),? (?P<when>{START_WHEN})",
        rf"(?:^|[,;:]\s*)(?P<when>(?i:{START_WHEN})),? I(?:'m| am|'ll| will)?(?: be)? {ADVERBS}(?P<verb>start|starting) "
        rf"{_NEW_JOB}at (?:the )?(?P<org>{ORG})",
        rf"(?:^|[,;:]\s*)(?P<when>(?i:{_LATER})),? I(?:'m| am|'ll| will)?(?: be)? {ADVERBS}(?P<verb>join|joining) "
        rf"(?:the )?(?!{PLATFORMS})(?P<org>{ORG})",
    ], "The user's plan: {value}.", _job_ahead, confidence=0.7, importance=0.6),
    # A job to start after a last day: "My last day at work is Friday, then I start at Meta."
    rule("event", "next_job", "start starting join joining", [
        rf"{_LAST_DAY_THEN}{_THEN_I}(?P<verb>start|starting) (?P<job>{_NEW_JOB})at (?:the )?(?P<org>{ORG})"
        rf"{_AFTER_THE_NAME}",
        rf"{_LAST_DAY_THEN}{_THEN_I}(?P<verb>join|joining) (?:the )?(?!{PLATFORMS})(?P<org>{ORG})"
        rf"{_AFTER_THE_NAME}",
    ], "The user's plan: {value}.", _job_after_last_day, confidence=0.7, importance=0.6),
    # A job to come called off, by the user or the employer: "The Twilio offer fell through.", "I turned
    # down the Twilio job.", "I'm not taking the job at Twilio after all.", "Twilio rescinded my offer."
    # Said as the job to come over (historical), kept only when it names a current one, which it ends
    # (supersession.ending), so that its day makes nothing of it (pipeline.start_jobs). Only the user's
    # ("my sister turned down a job at Twilio" is hers); nervous about the job or a contract sent is no end.
    rule("fact", "next_job", "fell through turned down declined not rescinded withdrew withdrawn pulled", [
        rf"\b(?:[Tt]he|[Mm]y) (?P<value>{ORG}) (?:job )?offer (?:fell through|was (?:withdrawn|rescinded|pulled))",
        rf"\b(?:[Tt]he|[Mm]y) (?:job )?offer (?:from|at) (?P<value>{ORG}) (?:fell through|was (?:withdrawn|rescinded|pulled))",
        rf"\bI {ADVERBS}(?:turned down|declined) (?:the |my )?(?P<value>{ORG}) (?:job|offer|role|position)\b",
        rf"\bI {ADVERBS}(?:turned down|declined) (?:the |my |their )?(?:job |role |position )?(?:offer )?"
        rf"(?:at|from|with) (?P<value>{ORG})",
        rf"\bI(?:'m| am) not (?:taking|accepting|joining) (?:the (?:job|offer|role|position) (?:at|from|with) "
        rf"(?P<value>{ORG})|the (?P<value2>{ORG}) (?:job|offer|role|position)|(?P<value3>{ORG}))(?:,)? after all",
        rf"(?:^|[,;:]\s*)(?P<value>{ORG}) (?:rescinded|withdrew|pulled) (?:my|the) (?:job )?offer",
    ], "The user's job to come at {value} was called off.", _called_off, confidence=0.7, importance=0.6,
         historical=True, ends_only=True),
    # The job to come called off without its name ("The new job got cancelled.": the one current), or by
    # staying at the job the user has ("Decided to stay at Canva."): it ends the only job to come.
    rule("fact", "next_job", "cancelled canceled fell called", [
        r"\b(?:[Tt]he|[Mm]y) new (?:job|role|position)(?: offer)? (?:got|was|has been) (?:cancell?ed|called off|withdrawn|"
        r"rescinded|pulled)(?P<value>)",
        r"\b(?:[Tt]he|[Mm]y) new (?:job|role|position)(?: offer)? fell through(?P<value>)",
    ], "The user's new job was called off.", _called_off, confidence=0.7, importance=0.6,
         historical=True, ends_only=True),
    rule("fact", "next_job", "stay staying", [
        # a place stayed at is no job kept: "at the Hilton", "at Grandma's", "at Mia's for the night"
        rf"(?:^|\bI(?:'ve| have)? )(?:[Dd]ecided|chose) to stay at (?P<stay>(?!the\b){ORG})(?<!'s)(?<!’s)(?P<value>)"
        r"(?=\s*(?:[.;!]|$|,? (?:instead|after all|rather)\b))",
        rf"\bI(?:'m| am) staying at (?P<stay>(?!the\b){ORG}) after all(?P<value>)",
    ], "The user decided to stay at {stay}: the new job was called off.", _called_off, confidence=0.7,
         importance=0.6, historical=True, ends_only=True),
    rule("fact", "{part}", "birthday anniversary", [
        rf"\b(?i:my|our) (?P<thing>birthday|(?:wedding )?anniversary)(?: is|'s) (?:on )?(?:the )?(?P<value>{DATE})(?![\w])",
    ], "The user's {thing} is {value}.", lambda m: [{"value": m.group("value"), "thing": m.group("thing"),
                                                     "part": snake(m.group("thing")).removeprefix("wedding_")}],
         importance=0.7),
    rule("event", "{part}", "appointment appt", [
        rf"\b(?i:my|our|the) {_APPOINTMENT_OF}(?P<thing>[a-z]+(?:'s)? )?(?:appointment|appt) (?:is|'s|is now|"
        rf"has been moved to|was moved to|got moved to|moved to) (?:on |to )?(?:the )?{_DAY}",
    ], "The user's {thing}appointment is on {value}.", _appointment, importance=0.6),
]
