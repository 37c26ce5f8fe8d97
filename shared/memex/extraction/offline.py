"""The offline extractor: first-person patterns, no LLM. It misses things; it never invents.

Only messages with role "user" are read (the user's own, and those of other named participants,
whose facts are filed under their name), one sentence at a time, read as people type it ("i'm",
curly apostrophes, an "I" dropped at the start: "started at Acme last week"; the chat typist's "im",
"bf", "lol", emoji and lowercase names: casual.py). A question is
skipped (but "I live in Lisbon, you?" and "I'm vegan, so what can I cook?" keep their statement, and
"What should I get my sister Ana?" the name it takes for granted), words quoted within a sentence
are mentioned, not said, and a match whose clause is negated,
hedged, hypothetical or reported ("I don't work at", "if I lived in", "I think I'm allergic",
"he thinks I live in") yields nothing. Each rule of `_RULES` is a regex with a
`value` group (and sometimes a `kind`, `thing` or `topic` group that names the key) and a clean
function that validates and normalises what it captured; a name must look like one (capitalised,
not a weekday or a nationality), a role must end in a known job title, an opinion must use a
known evaluative word. A correction ("actually I meant Lisbon, not Porto", "Actually my sister
lives in Porto, not Braga") only re-emits a fact already stated in the turn or in the session
history, with the corrected value, when its other words are that fact's; the value after "not" is
never filed. A statement the user takes back ("Please forget that I'm allergic to peanuts", "Forget
what I said about moving to Berlin", "Scratch that, I don't have a cat") ends the current fact it names
and files nothing of its own (_FORGET, _DENIED; supersession.left_alone).

Time grows linearly with the message: a sentence longer than MAX_SENTENCE_CHARS is not read, the
words that qualify a match are located once per sentence, and a correction finds the fact it
corrects through an index. Measured (CPU time, on a 2-core machine at load 30): 1 MB of
hostile shapes 0.5 s, of one-line statements ("I love cats1. I love cats2. ...") 0.8 s.
"""

from __future__ import annotations

import datetime
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from itertools import chain
from typing import Any, Callable, Iterator

from memex import job_start, standalone, supersession
from memex.extraction import casual, plain, vocabulary
from memex.jobs import Candidate, key_words, subject_key

# --- vocabulary -----------------------------------------------------------------------------

_ROLE_ABBREVIATIONS = {
    "PM": "product manager", "SWE": "software engineer", "SDE": "software engineer",
    "CEO": "chief executive officer", "CTO": "chief technology officer", "CFO": "chief financial officer",
    "COO": "chief operating officer", "CPO": "chief product officer", "CMO": "chief marketing officer",
    "VP": "vice president", "EM": "engineering manager", "TPM": "technical program manager",
    "SRE": "site reliability engineer", "MLE": "machine learning engineer", "PO": "product owner",
    "RN": "registered nurse", "GP": "general practitioner",
}
# The last word of a role: "I'm a big fan" or "I'm a hard worker" are not jobs.
_ROLE_HEADS = (
    "accountant actor actress analyst architect artist assistant attorney author baker banker barista "
    "bartender biologist carpenter cashier chef chemist clerk coach consultant co-founder cofounder "
    "coordinator dentist designer developer dietitian director doctor economist editor electrician "
    "engineer entrepreneur executive farmer firefighter founder freelancer illustrator intern investor "
    "journalist lawyer lead lecturer librarian manager marketer mathematician mechanic midwife musician "
    "nanny nurse nutritionist officer paralegal paramedic pharmacist photographer physician physicist "
    "pilot plumber practitioner president professor programmer psychiatrist psychologist receptionist "
    "recruiter researcher salesperson scientist secretary specialist student surgeon teacher technician "
    "therapist translator tutor veterinarian vet waiter waitress writer counselor counsellor worker carer "
    "caregiver firefighter cook driver trainer instructor planner administrator strategist advisor adviser "
    "agent broker auditor curator dancer singer producer animator engineer-in-training postdoc resident "
    "guard lifeguard cleaner janitor housekeeper hairdresser barber stylist butcher florist welder builder "
    "gardener landscaper courier porter sailor soldier detective surveyor optometrist physiotherapist hygienist "
    "chiropractor radiographer dispatcher teller actuary underwriter ranger steward stewardess attendant machinist "
    "supervisor foreman copywriter ghostwriter screenwriter speechwriter proofreader transcriptionist solicitor "
    "barrister bookkeeper realtor roofer plasterer bricklayer locksmith tailor seamstress jeweler jeweller optician "
    "sommelier statistician pediatrician paediatrician dermatologist anesthesiologist anaesthetist anesthetist "
    "radiologist cardiologist neurologist oncologist obstetrician orthodontist podiatrist audiologist sonographer "
    "phlebotomist geologist archaeologist anthropologist sociologist videographer cinematographer"
).split()
# Words before a role that make it a judgement or a former job rather than the current job.
_NOT_ROLE_MODIFIERS = frozenset(
    "good bad great terrible awful big huge little decent proud better worse best worst amazing horrible "
    "lousy careful natural total real true fellow aspiring wannabe future former ex ex- retired hard fast slow "
    "quick backseat keen avid amateur enthusiastic passionate weekend hobby".split())
_RELATIONS = vocabulary.RELATIONS
_PETS = vocabulary.PETS
# Capitalised words that follow "my wife is" or "my dog" without being a name ("American
# Airlines" is one: only a name of one word is checked).
_NOT_NAMES = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday today tonight tomorrow yesterday home "
    "dr mr mrs ms prof sir "
    "american british english scottish welsh irish french german italian spanish portuguese "
    "brazilian mexican canadian australian dutch belgian swiss austrian swedish norwegian danish "
    "finnish polish russian ukrainian greek turkish chinese japanese korean indian pakistani "
    "vietnamese thai filipino african asian european latino latina jewish catholic christian muslim "
    "hindu buddhist atheist".split()) | {n.casefold() for n in vocabulary.NATIONALITIES}
_EVALUATIONS = (
    "overrated underrated overhyped overpriced great good bad terrible awful amazing awesome fantastic "
    "wonderful excellent brilliant boring interesting fun useless useful pointless important essential "
    "dangerous stupid silly beautiful ugly better worse harmful healthy unhealthy fascinating exciting "
    "annoying cool nice perfect horrible lovely incredible ridiculous necessary unnecessary productive "
    "hard easy difficult delicious disgusting impressive underwhelming fine fair unfair"
).split() + ["the best", "the worst", "the future", "worth it", "a waste of time", "a scam", "a joke"]
_INTENSIFIERS = ("so really very pretty totally completely quite super way kinda somewhat incredibly "
                 "extremely highly hugely seriously absolutely massively genuinely fairly too actually").split()
_ALLERGENS = ("peanut nut tree-nut shellfish fish egg milk dairy gluten wheat soy sesame penicillin latex "
              "pollen bee cat dog").split()
_UNITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_SMALL_NUMBERS = {
    "no": 0, "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}


def _alternation(words) -> str:
    # Longest first, so that "best friend" wins over "friend".
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


# --- regex building blocks ------------------------------------------------------------------


def _capitals() -> str:
    """The capital letters of the Latin, Greek, Cyrillic and Armenian scripts (with their extended
    blocks), as one character class: Python's `re` has no `\\p{Lu}`, and Latin-1's alone ("À-Þ") left
    "I live in İzmir.", "My name is Łukasz." and "I work at Škoda." filing nothing. Not every script's:
    the class is compiled into every name pattern at import, where these add about 0.3 s (0.6 s
    without) and the whole plane's about 0.5 s, for scripts (Cherokee, Glagolitic, Coptic) that English
    sentences hardly name anything in."""
    capitals = [c for c in [*range(0x530), *range(0x1E00, 0x2000)] if chr(c).isupper()]
    ranges, start = [], capitals[0]
    for before, c in zip(capitals, capitals[1:] + [None]):
        if c != before + 1:
            ranges.append(re.escape(chr(start)) + ("" if before == start else "-" + re.escape(chr(before))))
            start = c
    return "[" + "".join(ranges) + "]"


_UPPER = _capitals()
_CAPWORD = rf"{_UPPER}[\w'&-]*"
# One to four capitalised words ("Lisbon", "Bank of America", "Procter & Gamble", "St. Louis"),
# never "I", and never cut before a further capitalised word.
_PROPER = (rf"(?!I\b)(?:(?:St|Mt|Ft)\.\s+)?{_CAPWORD}(?:\s+(?:(?:of|de|da|do|dos|das|del|la|le|van|von|der|den|du|&)\s+)?"
           rf"(?!I\b){_CAPWORD}){{0,3}}(?![\w'&-])(?!\s+(?!I\b){_UPPER})")
# An organisation: a proper name that may also start with a digit ("3M", "7-Eleven"), end in a
# number ("Company 7") when nothing follows, or join two names with "and" when nothing follows
# ("Procter and Gamble"; "Acme and Bob is my boss" keeps "Acme").
_ORG_WORD = rf"(?:{_CAPWORD}|\d+[A-Za-z][\w'&-]*|\d+-{_CAPWORD})"
_ORG_END = r"(?=\s*(?:[.,;:!?)]|$))"
_ORG = (rf"(?!I\b)(?:(?:St|Mt|Ft)\.\s+)?{_ORG_WORD}(?:\s+(?:(?:of|de|da|del|la|le|van|von|der|den|du|&)\s+)?"
        rf"(?!I\b){_ORG_WORD}){{0,3}}(?:\s+and\s+{_CAPWORD}{_ORG_END}|\s+\d{{1,4}}{_ORG_END})?"
        rf"(?![\w'&-])(?!\s+(?!I\b){_UPPER})")
# A time of day, which is not where a job was ("I left my job at 5pm today").
_CLOCK = r"\d{1,2}(?:[:.]\d{2})?\s*(?i:[ap]\.?m\b\.?)"
# When one joined: "I joined Acme last month" is a job as surely as "I joined Acme."
_JOINED_WHEN = (r"(?=\s+(?:last (?:week|month|year|spring|summer|fall|autumn|winter)|this (?:week|month|year)|"
                r"recently|yesterday|in (?:\d{4}|January|February|March|April|May|June|July|August|September|"
                r"October|November|December))\b)")
# One joins these as a user, not as an employee.
_PLATFORMS = (r"(?:Facebook|Twitter|X|Instagram|TikTok|Reddit|Strava|LinkedIn|Discord|Slack|Snapchat|Tinder|Bumble|"
              r"Hinge|Pinterest|Mastodon|Threads|YouTube|Duolingo|Bluesky|WhatsApp|Telegram|Patreon)\b")
# "I'm working at Starbucks today" says where the user is, not who employs them.
_NOT_TEMPORARY = (r"(?!\s+(?:today|tonight|tomorrow|this (?:morning|afternoon|evening|week|weekend)|right now|"
                  r"for the (?:day|week|afternoon|morning)))")
_WORD = r"[\w'&+-]+"
_NUMBER = (rf"\d{{1,3}}|(?:{_alternation(_TENS)})(?:[- ](?:{_alternation(_UNITS)}))?"
           rf"|{_alternation(_SMALL_NUMBERS)}")
# Up to three words before a known job title: "product manager", "senior PM", "ICU nurse".
_ROLE = (rf"(?:[A-Za-z][\w-]*\s+){{0,3}}?"
         rf"(?:(?i:{_alternation(_ROLE_HEADS)})|{_alternation(_ROLE_ABBREVIATIONS)})(?![\w-])")
# Objects that say nothing about the user ("I love it", "I like your idea", "I hate when..."), and
# verbs that show "I love" was a relative clause ("something I love is awesome").
_NOT_OBJECT = (r"(?!(?:it|that|this|these|those|them|you|your|yours|him|her|his|my|our|their|how|what|"
               r"when|where|why|who|which|if|so|too|not|being|to be|to(?!\s+\w)|all of|every day|about|most|"
               r"least|more|the (?:idea|way|fact|thought|sound)|is|are|was|were|makes|made|has|have|had)\b)")
# Where a free phrase ends: punctuation (or an emoji), or a word that starts another clause.
_PHRASE_END = (r"(?=\s*(?:[^\w\s'&+-]|$)|\s+-\s|\s+(?:but|because|since|so|when|while|though|although|"
               r"especially|if|unless|which|as well|too|a lot|very much|so much|lol|haha|these days|nowadays|now|"
               r"anymore|any more|lately|recently|at the moment|right now|"
               r"and (?:I|I'm|I've|we|my|it|that|he|she|they|you))\b)")
# Where a fact with a strict shape (an age, a diet, a role) ends: punctuation, or one of a few words.
_STRICT_END = r"(?=\s*(?:{}|$)|\s+(?:{})\b)"


def _phrase(max_words: int) -> str:
    return rf"{_NOT_OBJECT}{_WORD}(?:\s+{_WORD}){{0,{max_words - 1}}}?{_PHRASE_END}"


# A list of short items, with a comma and an "and" or "or" before the last: "penicillin, latex and
# bees", "sushi, tacos, and ramen". A phrase alone ends at the first comma; a list is read whole and
# each of its items filed as one said alone would be (_list_items). Likes and dislikes split only a list of
# single words ("hiking, climbing and surfing"): their lists of longer items, filed item by item ("reading,
# watching movies, and exploring nature"), cost LoCoMo's held-out recall (docs/measurements/quality.md,
# extract12), and two items without a comma stay whole ("action and sci-fi movies", "rock and roll").
_LIST_ITEM = rf"{_NOT_OBJECT}{_WORD}(?:\s+{_WORD}){{0,2}}?"
_LIST = rf"{_LIST_ITEM}(?:,\s+{_LIST_ITEM}){{1,5}},?\s+(?:and|or)\s+{_LIST_ITEM}{_PHRASE_END}"
_WORDS_LISTED = rf"{_NOT_OBJECT}{_WORD}(?:,\s+{_NOT_OBJECT}{_WORD}){{1,5}},?\s+(?:and|or)\s+{_NOT_OBJECT}{_WORD}{_PHRASE_END}"


def _listed(max_words: int) -> str:
    """A list (_LIST), or else a phrase of at most `max_words` words."""
    return rf"(?:{_LIST}|{_phrase(max_words)})"


_CLAUSE_STARTS = ("but", "so", "now", "since", "because", "lol", "and (?:I|I'm|I've|my|we|it)")


def _strict_end(*words: str, punctuation: str = r"[^\w\s'-]") -> str:
    return _STRICT_END.format(punctuation, "|".join(_CLAUSE_STARTS + words))


_ROLE_END = _strict_end("and", "at", "for", "in", "on", "with", "from", "by", "who", "working", "based",
                        "myself", "too", "here", "there", "last", "this", "recently", "since", "after", "earlier",
                        "while", "before", "until", "when", "during")
# Adverbs people put before a verb: "I now work at", "I officially work for", "I usually go climbing".
_ADVERBS = r"(?:(?:now|still|also|just|only|finally|recently|currently|often|sometimes|[a-z]+ly) )*"
_JOB_NOUN = r"(?:job|position|role|gig|post)"
# Living somewhere, after "I" or "We": a contraction takes no space before it ("I'm living"), and the
# adverbs come after it ("I'm now living").
_LIVING = (rf"(?: {_ADVERBS}(?:live|am living|are living|have been living)|(?:'m|'re) {_ADVERBS}living"
           rf"|'ve {_ADVERBS}been living)")
# What says the user's clause is about the past: "used to", a past tense ("saw", "worked").
_RECALLED = (r"used to|would|was|were|had|did|(?![a-z]*eed\b)[a-z]+ed|saw|met|went|got|knew|took|made|found|felt|spent|thought|"
             r"came|gave|told|heard|left|lost|kept|became|ran|taught|caught|brought|sat|stood|wrote|drove|ate|"
             r"could|never")
# When or how the user works, between "work" and "as a nurse": "I work nights as a security guard".
_WORK_HOURS = (r"(?:(?:nights|weekends|days|evenings|mornings|shifts|part[- ]time|full[- ]time|remotely|from home|"
               r"freelance|locally) )?")
# Working somewhere, which may be for a day ("I'm working at Starbucks today"); starting somewhere,
# which is a job ("I started at Salesforce this week").
_WORKS_AT = (rf"\bI {_ADVERBS}(?:work|'m working|am working) (?:at|for)"
             rf"|\bI(?:'m| am) {_ADVERBS}(?:working|employed) (?:at|for|by)"
             rf"|\bI(?:'ve| have) {_ADVERBS}been working (?:at|for)")
# The first stretch of a job: "my first day", "my first two weeks".
_FIRST_SPAN = r"(?:day|week|month|shift|(?:two|three|four|five|six|few|couple of|\d) (?:days|weeks|months|shifts))"
# A job taken, got or landed, its role said before the employer or not: "I got a job as a product
# manager at Canva" (the role rule files the role of the same words).
_JOB_TAKEN = (rf"(?:got (?:an?|the) (?:new )?{_JOB_NOUN}|landed (?:an?|the|my) (?:new |dream |first )?{_JOB_NOUN}"
              rf"|accepted (?:an?|the) (?:new )?{_JOB_NOUN}|got hired)")
_STARTED_AT = (rf"\bI(?:'ve| have)? {_ADVERBS}(?:(?:started|began) (?:at|working (?:at|for)|(?:an?|my) (?:new )?{_JOB_NOUN} "
               rf"(?:at|with))|got (?:an?|the) (?:new )?{_JOB_NOUN} (?:at|with)|got hired (?:at|by)"
               rf"|landed (?:an?|the|my) (?:new |dream |first )?{_JOB_NOUN} (?:at|with)|accepted (?:an|the|a job) offer from"
               rf"|accepted (?:an?|the) (?:new )?{_JOB_NOUN} (?:at|with)|{_JOB_TAKEN} as (?:an? |the )?{_ROLE} (?:at|with)"
               r"|signed with)"
               rf"|\bI(?:'ve| have| was)? {_ADVERBS}been hired (?:at|by)|\bI was {_ADVERBS}hired (?:at|by)"
               rf"|\b(?i:my) first {_FIRST_SPAN} at"
               r"|\b(?i:my) (?:new |current )?employer is")
_CURRENT_JOB = rf"{_WORKS_AT}|{_STARTED_AT}"
# Teaching somewhere, which makes the school the employer and the job a teacher's: "I switched to
# teaching at Denver East High School"; a school is named, not "at a workshop" or "at 9".
_TEACHES_AT = (rf"\bI(?:'ve| have)? {_ADVERBS}(?:teach|'m teaching|am teaching|(?:(?:switched|moved|went|gone|gotten|got) "
               rf"back |(?:switched|moved|went|gone|returned) )to teaching|(?:started|began) teaching)"
               rf"(?P<subject> (?i:{_alternation(vocabulary.SCHOOL_SUBJECTS)}))? at (?:the )?(?={_UPPER})")
# "a small agency called Pixel Farm": the name after what kind of place it is.
_ORG_INTRO = r"(?:the |an? (?:[a-z][\w-]* ){1,2}(?:called|named) )?"
# "head of design", "director of engineering": a title that ends in what it leads.
_HEAD_OF = r"(?:head|director|vp|VP|vice president|chief|manager) of [a-z][\w-]*(?: [a-z][\w-]*)?"
_PAST_JOB = (r"\bI (?:used to work|previously worked|formerly worked|worked) (?:at|for)"
             r"|\bI(?: have|'ve)? (?:resigned|retired) from|\bI (?:was|got) (?:laid off|let go|fired) (?:from|by)"
             r"|\bI no longer work (?:at|for)")
_LEFT_JOB = (rf"{_PAST_JOB}|\bI {_ADVERBS}(?:left|quit)\b|\b(?:years?|yrs?|months?) at|\bI (?:changed|switched) jobs?\b"
             # "I'm no longer at Google", "I'm not at Google anymore", "I don't work at Deloitte anymore"
             rf"|\bI(?:'m| am) no longer (?:at|with) (?:the )?{_UPPER}"
             rf"|\bI(?:(?:'m| am) not (?:at|with)| (?:don't|do not) work (?:at|for)) (?:the )?{_UPPER}[^,.;]*?"
             r"\b(?:anymore|any more)\b")
_HAVE = r"\b(?:I|[Ww]e)(?: have|'ve got| have got)"
# "a 3-year-old son", "my older sister": words between the article and the relative.
_KIN_ADJECTIVE = (rf"(?:(?:little|baby|newborn|teenage|grown|older|younger|elder|big|twin|"
                  rf"(?:{_NUMBER})[- ](?:years?|months?|weeks?)[- ]old) )?")
# A pastime said as such ends there, or goes on with when or how often: "I started reading the
# report" is one errand, not a hobby.
_PASTIME_END = (r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:again|recently|lately|last|this|every|on|at|in|with|and|but|"
                r"a lot|most|more|now|too|twice|once|daily|weekly|regularly)\b)")
_GOT_PET = r"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?(?:got|adopted|rescued|bought)"
# "a rescue beagle", "a 2-year-old tabby", "two lovely dogs": words between the article and the
# animal, from a short list (an open one would read "a hot dog" or "a fat cat"); none starts a breed
# ("golden retriever", "great dane").
_PET_ADJECTIVES = (rf"(?:rescue|rescued|little|new|young|old|senior|sweet|tiny|baby|fluffy|second|third|"
                   rf"lovely|beautiful|gorgeous|adorable|cute|big|small|black|white|ginger|grey|gray|brown|tabby|"
                   rf"lazy|crazy|beloved|(?:{_NUMBER})[- ](?:years?|months?|weeks?)[- ]old)")
_PET_ADJECTIVE = rf"(?:{_PET_ADJECTIVES} ){{0,2}}"
# How the name follows: "named Max", "called Max", ", his name is Rocky".
# A name said in the next sentence counts too ("We got a puppy. His name is Pretzel.": _SENTENCES keeps
# the two together).
_NAMED = r"(?:,? (?:named|called)|(?:,? (?:and )?|(?: too)?[.!] )(?i:her|his|its|their) name(?:'s| is))"
_BREED = rf"(?i:{_alternation(vocabulary.DOG_BREEDS + vocabulary.CAT_BREEDS)})"
# A name set beside what it names ("Biscuit, my beagle"): one word, the object of a verb ("walked
# Biscuit, my beagle") or the subject, closed by a comma ("Luna, our lab, ate my charger"), never a
# word said to someone ("Thanks, my dog ...", "I called Mom, my dog was barking").
_NAME_BESIDE = (rf"(?:(?<=[a-z] )|^(?={_UPPER}[\w'-]*, (?i:my|our) [^,]*,))(?!I\b)"
                rf"(?!(?i:{_alternation(_RELATIONS)}|mum|mama|papa|thanks|yes|yeah|no|ok|okay|sorry|well|oh|hey|hi|hello)\b)")
_APPOSITION_END = r"(?![\w'-])(?=\s*(?:[,.;:!)]|$))"
# A month's name, or its abbreviation with or without its dot ("Sept."); a full name takes no dot, so
# that "My birthday is 12 May." ends its date before the sentence's full stop.
_MONTH = rf"(?i:{_alternation(vocabulary.MONTHS[:12])}|(?:{_alternation(vocabulary.MONTHS[12:])})\.?)(?!\w)"
# Since when a fact has held ("since 2015", "since March", "since last spring"): not since an hour.
_SINCE_WHEN = rf"since (?:\d{{4}}|{_MONTH}|last (?:year|spring|summer|fall|autumn|winter))(?![\w'-])"
_DATE = (rf"{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{_MONTH}")
_WEEKDAY = r"(?i:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
# When a plan happens: "next week", "tomorrow", "in May", "on Saturday", "this summer".
_WHEN = (rf"(?:next (?:week|month|year|weekend|summer|spring|fall|autumn|winter|{_WEEKDAY}|{_MONTH})|tomorrow|tonight|"
         r"this (?:weekend|summer|spring|fall|autumn|winter|year|month)|"
         rf"in (?:{_MONTH}|the (?:spring|summer|fall|autumn|winter))|on {_WEEKDAY})")
_LATER = (rf"(?:next (?:month|year|summer|spring|fall|autumn|winter|{_MONTH})|this (?:summer|spring|fall|autumn|winter|year)|"
          rf"in (?:{_MONTH}|the (?:spring|summer|fall|autumn|winter)|\d{{4}}))")
# When a trip is: a time of _WHEN or a day of the month ("on the 15th", "on March 3rd").
_TRIP_WHEN = (rf"(?:{_WHEN}|on (?:the )?\d{{1,2}}(?:st|nd|rd|th)(?: of {_MONTH})?|on {_DATE}"
              r"|(?:over|at) (?:Easter|Christmas|New Year|Thanksgiving|the holidays|half[- ]term))")
# When a job starts, said ahead of it: any time of _WHEN, a date, or a weekday alone ("my first day
# at Notion is Monday").
_START_WHEN = (rf"(?:{_WHEN}|(?:on )?(?:the )?\d{{1,2}}(?:st|nd|rd|th)(?: of {_MONTH})?|(?:on )?{_DATE}|{_WEEKDAY}"
               r"|in (?:a|an|one|two|three|four|five|six|a few|a couple of) (?:days?|weeks?|months?)|soon)(?![\w'-])")
# A job taken and said to start later, after its employer ("I signed with Netflix, starting Monday",
# "got a job at Spotify, I start next week") or before ("Tomorrow is my first day at Notion").
_STARTS_LATER = (r",?\s*(?:and |-+ |— |– )?(?:I(?:'ll| will)? |I'm |I am )?(?P<verb>start|starting|starts|begin|beginning|begins)"
                 rf"(?: there| work| working)? (?P<when>{_START_WHEN})")
_AHEAD_WHEN = (rf"(?:^|[,;:]\s*|\b(?i:and|so) )(?P<when>(?i:tomorrow|next (?:week|{_WEEKDAY})|{_WEEKDAY}))"
               r",? (?:is|will be) ")
_AHEAD_BEFORE = re.compile(rf"{_AHEAD_WHEN}$")
_MY = r"\b(?i:my|our)"
_NOT_PLANS = ("(?:planning|going|flying|driving|heading|moving|travelling|traveling|visiting|feeling|being|"
              "thinking|looking|trying|hoping|wondering|considering|doing|working|staying|sitting|waiting|watching|"
              "reading|eating|sleeping|relaxing|chilling|getting (?:tired|better|worse|sick|old|bored|used)|"
              # "I'm turning 50 next month" is an age (_TURNING), not a plan; "we're expecting a baby in May"
              # a baby on the way (expecting_baby)
              rf"turning (?:{_NUMBER})(?![\w'-])|expecting)")
_RELATION = rf"(?P<kind>(?i:{_alternation(_RELATIONS)}))"
# Everyone whose name and facts are filed: the relatives and friends, and a boss, a colleague, a
# neighbour, a roommate, a cousin, an aunt, an uncle, a grandparent.
_PERSON_PARTS = {**_RELATIONS, **vocabulary.PEOPLE}
_WHO = rf"(?P<kind>(?i:{_alternation(_PERSON_PARTS)}))"
# Someone in the user's life after what they are to the user, named or not: "my sister Ana", "my
# husband, Raj,", "my boss", "our son".
_PERSON = rf"{_MY} {_KIN_ADJECTIVE}{_WHO}(?:,? (?P<name>{_PROPER}),?)?"
# Who is known without a name: one has one mother, one boss, and says "my sister" of the one sister
# one speaks of. A friend, a colleague, a cousin said with no name may be any of them: nothing is filed.
_KNOWN_UNNAMED = frozenset("partner sister brother mother father child boss grandmother grandfather".split())
_PET = rf"(?P<kind>(?i:{_alternation(_PETS)}))"


def _plural(word: str) -> str:
    """"cat" -> "cats", "puppy" -> "puppies", "goldfish" -> "goldfish"."""
    if word.endswith("fish"):
        return word
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    return word + "s"


# Pets said in the plural ("two cats", "our kittens"), and the word each is the plural of.
_PET_PLURALS = {_plural(word): word for word in _PETS}
_PETS_SAID = rf"(?P<kind>(?i:{_alternation(_PET_PLURALS)}))"
# What one has, counted or not ("two cats", "a dog", "three kids"), as one item of a list: "We have
# two kids and two cats."
_OWNED_WORDS = (*_PET_PLURALS, *_PETS, *vocabulary.CHILDREN, "kid", "child", "son", "daughter", "boy", "girl")
_OWNED = rf"(?:an?|{_NUMBER}) {_PET_ADJECTIVE}(?i:{_alternation(_OWNED_WORDS)})(?![\w'-])"
_PETS_COUNTED = re.compile(rf"(?P<value>an?|{_NUMBER}) {_PET_ADJECTIVE}(?P<kind>(?i:{_alternation([*_PET_PLURALS, *_PETS])}))")
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
_GOT_WHEN = (rf"(?: (?:(?:last|this) (?:night|week|weekend|month|year|spring|summer|fall|autumn|winter|{_WEEKDAY})|"
             r"yesterday|today|recently|(?:a|two|three|a few|a couple of) (?:days|weeks?|months?) ago))?")
# How a pet's life with the user ended: it died or was put down, or was given to another home.
_PET_GONE = r"(?:died|passed away|passed|was put down|was put to sleep|had to be put down|was rehomed|had to be rehomed)"
_HAD_TO = r"(?:(?:had|have had|'ve had) to |finally |recently |sadly )?"
_PUT_DOWN = rf"\b(?:I|[Ww]e) {_HAD_TO}(?:give|gave|given|put) (?:my|our) {_PET_ADJECTIVE}{_PET}"
_GAVE_AWAY = rf"\b(?:I|[Ww]e) {_HAD_TO}(?:(?:give|gave|given) away|rehome|rehomed|lost) (?:my|our) {_PET_ADJECTIVE}{_PET}"
# Where a pet lost ends its clause ("We lost our dog last year"; not "lost our dog in the park").
_LOST_END = (rf"(?=\s*(?:[.!;]|$)|\s+(?:last|this|yesterday|recently|earlier|to|a few|a couple|in (?:\d{{4}}|{_MONTH}))"
             r"(?![\w'-]))")
# A pet said ended just after its name: "Our dog Rex died", "our dog Max down", "Luna, our cat, died".
_ENDED_AFTER = rf"(?!,? (?:{_PET_GONE}|down|away)\b)"
# The same before "my" or "our": "We had to put our old beagle down", "We lost our beagle".
_ENDED_BEFORE = r"(?<!put )(?<!give )(?<!gave )(?<!given )(?<!lost )(?<!rehomed )(?<!rehome )(?<!away )"
# A pet said to have been the user's: "I used to have a dog", "We used to have a cat when I was a
# kid"; the clause ends there or says when ("a dog walker", "a cat allergy" are none).
_USED_TO_END = (r"(?=\s*(?:[.!;,)]|$)|\s+(?:when|as a (?:kid|child|teenager)|growing up|back (?:home|then|in)|"
                r"years ago|in (?:college|school|\d{4})|too|and|but|once|for)\b)")
# "I'm Omar, a chef": an introduction, the name said before what one is.
_INTRODUCED = rf"(?:{_PROPER}, )?"


# --- value cleaning -------------------------------------------------------------------------

Fields = dict[str, str]


def _name(m: re.Match[str]) -> list[Fields]:
    value = re.sub(r"'s?$", "", m.group("value"))
    return [] if value.casefold() in _NOT_NAMES else [{"value": value}]


# What a user may type capitalised after "I'm" that names nobody.
_TITLE_CASED = frozenset(
    "ok okay fine good great back done here home ready sorry tired single married pregnant retired vegan "
    "vegetarian autistic dyslexic diabetic epileptic coeliac celiac bipolar deaf blind gay straight bi trans "
    "queer millennial boomer".split()) | {"gen x", "gen y", "gen z"}


def _own_name(m: re.Match[str]) -> list[Fields]:
    value = m.group("value")
    # "I'm INFJ.", "I'm Pro-choice."
    if value.isupper() or re.search(r"-[a-z]", value) or value.casefold() in _TITLE_CASED:
        return []
    return _name(m)


def _text(m: re.Match[str]) -> list[Fields]:
    return [{"value": m.group("value")}]


def _list_items(m: re.Match[str]) -> list[Fields]:
    """Each item of a list (_LIST: "hiking, camping and kayaking"), or the one value when no comma
    says it is a list ("fish and chips" stays whole)."""
    value = m.group("value")
    if "," not in value:
        return [{"value": value}]
    *items, last = [item.strip() for item in value.split(",")]
    items += re.split(r"^(?:and|or)\s+|\s+(?:and|or)\s+", last, maxsplit=1)
    return [{"value": item} for item in items if item]


def _role(m: re.Match[str]) -> list[Fields]:
    words = m.group("value").split()
    # A student is what the user is, not a job title: the work-status rule files it.
    if any(w.casefold() in _NOT_ROLE_MODIFIERS for w in words[:-1]) or words[-1].casefold() == "student":
        return []
    return [{"value": " ".join(_ROLE_ABBREVIATIONS.get(w, w) for w in words)}]


def _teacher(m: re.Match[str]) -> list[Fields]:
    return [{"value": f"{m.group('value')} teacher"}]


# "I'm married to Tom", "I've been dating Chris for a year": a partner named by the verb.
_PARTNER_VERBS = frozenset("married engaged dating seeing with".split())
# What a relative is called in place of a name ("Mum", "Grandma"): one sees them, never dates them.
_KIN_CALLED = frozenset(vocabulary.HOUSEHOLD) | frozenset("mama papa nan nana nanna granny gran grandad granddad".split())


# Someone described and nothing more, so that "his name" in the next sentence can be no one else's:
# "My boss is awful.", "My husband is a chef.", "My grandpa is 90.", not "My sister is dating someone."
# nor "My boss has a dog." nor "My sister is pregnant."
_ONLY_DESCRIBED = (r"(?:is|'s|was|has been|can be) (?:(?:an?|the) )?(?:(?!(?:a|an|the|my|our|his|her|their|your|"
                   r"someone|somebody|married|engaged|dating|seeing|pregnant|expecting|having|getting|with|to|and|"
                   r"but|or|got|met|of|friends?)\b)[a-z0-9][\w'-]*(?: |(?=[.!]))){1,4}")
# Whom "his" or "her" can be of: a sister is no "his".
_HIS = frozenset("husband boyfriend fiancé fiance brother dad father son uncle grandpa grandfather grandad granddad".split())
_HERS = frozenset("wife girlfriend fiancée fiancee sister mom mum mother daughter aunt grandma grandmother granny".split())


def _relation(m: re.Match[str]) -> list[Fields]:
    kind = m.group("kind").casefold()
    pronoun = (m.groupdict().get("pronoun") or "").casefold()
    if kind in (_HERS if pronoun == "his" else _HIS if pronoun == "her" else ()):
        return []  # "My sister is so happy. His name is Tom.": whose name, then?
    if kind in _PARTNER_VERBS:
        if kind == "seeing" and _a_place(m.group("value")):
            return []  # "I'm seeing Rome for a week" is a visit
        if kind in ("seeing", "dating") and m.group("value").casefold() in _KIN_CALLED:
            return []  # "I'm seeing Mum." is a visit
        if kind == "with" and (_an_organisation(m.group("value")) or _WORK_SAID.search(m.string)):
            return []  # "I've been with Siemens for three years" is a job (_been_at)
        return [{**f, "kind": "partner", "part": "partner"} for f in _name(m)]
    if _PERSON_PARTS[kind] == "partner" and _PARTNER_DIED.match(m.string, m.end()):
        return []  # "My husband Tom passed away": a late partner (below), not the current one
    return [{**f, "kind": kind, "part": _PERSON_PARTS[kind]} for f in _name(m)]


_SONS_DAUGHTERS = r"(?:sons?|daughters?|boys?|girls?)"
# Two names or more: "Ava and Mia", "Tom, Ann and Joe"; never "I" ("two dogs, Max and I walk them").
_NAMES = rf"(?!I\b){_CAPWORD}(?:(?:,| and|, and) (?!I\b){_CAPWORD})+(?![\w'&-])(?!\s+{_UPPER})"
_CHILD_KINDS = vocabulary.CHILDREN


def _listed_names(names: str) -> list[str]:
    """The names of a list (_NAMES), or none when one is no name (a weekday, a breed: "my cats are
    Siamese and Persian")."""
    listed = [re.sub(r"'s?$", "", n) for n in re.split(r",? and |, ", names)]
    if any(not n or n.casefold() in _NOT_NAMES or n.casefold() in _BREED_KIND for n in listed):
        return []
    return listed


def _children_named(m: re.Match[str]) -> list[Fields]:
    """Each child of a list ("two daughters, Ava and Mia"; "a son and a daughter, Jack and Lily", which
    names no one kind): a name each."""
    kind = _CHILD_KINDS.get(m.group("kind").casefold(), "child")
    return [{"value": n, "kind": kind} for n in _listed_names(m.group("value"))]


# Children named with their ages: "Emma (8) and Liam (5)", or the names and then the ages in the same
# order, "Noah and Ava, are 10 and 7".
_AGED_NAME = rf"(?!I\b){_CAPWORD} \((?:{_NUMBER})\)"
_AGED_NAMES = rf"{_AGED_NAME}(?:(?:,| and|, and) {_AGED_NAME})+"
_AGES = rf"(?:{_NUMBER})(?:(?:,| and|, and) (?:{_NUMBER}))+"
_CHILDREN_AGED = [
    rf"{_MY} (?P<kind>sons|daughters|kids|children|boys|girls)(?: are|:) (?P<value>{_AGED_NAMES})(?![\w'])",
    rf"{_MY} (?P<kind>sons|daughters|kids|children|boys|girls),? (?P<value>{_NAMES}),? are (?P<ages>{_AGES})"
    rf"(?: (?:years old|respectively))?(?=\s*(?:[.!;]|$))",
]


def _names_and_ages(m: re.Match[str]) -> list[tuple[str, int]]:
    """The children of _CHILDREN_AGED, each with their age; none when the names and ages do not pair."""
    if m.groupdict().get("ages") is None:
        pairs = re.findall(r"(\S+) \(([^)]+)\)", m.group("value"))
    else:
        ages = re.split(r",? and |, ", m.group("ages"))
        pairs = list(zip(_listed_names(m.group("value")), ages))
        if len(pairs) != len(ages):
            return []
    aged = [(name, _number(age)) for name, age in pairs]
    if any(name.casefold() in _NOT_NAMES or age is None or not 0 <= age <= 60 for name, age in aged):
        return []
    return aged


def _children_aged_names(m: re.Match[str]) -> list[Fields]:
    kind = _CHILD_KINDS[m.group("kind").casefold()]
    return [{"value": name, "kind": kind} for name, _ in _names_and_ages(m)]


def _children_ages(m: re.Match[str]) -> list[Fields]:
    kind = _CHILD_KINDS[m.group("kind").casefold()]
    return [{"value": str(age), "kind": kind, "who": _snake(name), "named": f" {name}"}
            for name, age in _names_and_ages(m)]


def _child_born(m: re.Match[str]) -> list[Fields]:
    said = m.group("kind").removeprefix("baby ")
    kind = {"boy": "son", "girl": "daughter", "baby": "child"}.get(said, said)
    return [{**f, "kind": kind} for f in _name(m)]


def _child_by_order(m: re.Match[str]) -> list[Fields]:
    return [{**f, "kind": m.group("kind").casefold()} for f in _name(m)]


def _pet(m: re.Match[str]) -> list[Fields]:
    kind = m.group("kind").casefold()
    return [{**f, "kind": kind, "part": _PETS[kind]} for f in _name(m)]


def _pets_named(m: re.Match[str]) -> list[Fields]:
    """Each pet of a list ("two cats, Miso and Tofu"): a name each, under its kind's key."""
    kind = _PET_PLURALS[m.group("kind").casefold()]
    return [{"value": n, "kind": kind, "part": _PETS[kind]} for n in _listed_names(m.group("value"))]


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
        said = owned.group("kind").casefold()
        if owned.group("value").casefold() in ("a", "an"):
            if said in _PETS and not (n == len(items) - 1 and _NAMED_NEXT.match(m.string, m.end())):
                found.append(_a_pet(said, owned.group("value").casefold()))
            continue
        number = _number(owned.group("value"))
        if number:
            part = _PETS[_PET_PLURALS.get(said, said)]
            found.append({"value": str(number), "part": f"pet_{part}_count", "said": f"{number} {said}"})
    return found


def _a_pet(said: str, article: str) -> Fields:
    """A pet of a kind, said with "a" ("a puppy"): its kind ("dog") under `pet_kind`."""
    return {"value": _PETS[said].replace("_", " "), "part": "pet_kind", "said": f"{article} {said}"}


def _pet_kind(m: re.Match[str]) -> list[Fields]:
    said = m.group("kind").casefold()
    return [_a_pet(said, "an" if said[0] in "aeiou" else "a")]


_BREED_KIND = {**{b: "dog" for b in vocabulary.DOG_BREEDS}, **{b: "cat" for b in vocabulary.CAT_BREEDS}}


def _breed_of(m: re.Match[str]) -> Fields:
    breed = m.group("breed")
    kind = _PETS[m.group("kind").casefold()] if m.groupdict().get("kind") else _BREED_KIND[breed.casefold()]
    return {"breed": breed, "kind": kind, "part": kind}


def _pet_breed(m: re.Match[str]) -> list[Fields]:
    """A pet named with its breed ("a beagle called Pepper") gives its name and its breed; a breed
    alone ("my dog is a labrador") its breed."""
    fields = _breed_of(m)
    if fields["part"] != _BREED_KIND[fields["breed"].casefold()]:
        return []  # "my cat is a beagle" is no breed of a cat
    found = [{**fields, "value": fields["breed"], "fact": "breed", "said": "breed is"}]
    if m.groupdict().get("name"):
        name = re.sub(r"'s?$", "", m.group("name"))
        if name.casefold() not in _NOT_NAMES:
            found.insert(0, {**fields, "value": name, "fact": "name", "said": "is named"})
    return found


# One pet of a list, said by its kind or its breed ("a cat", "a beagle", "a Siamese cat").
_ONE_PET = rf"(?:{_BREED}(?: (?i:{_alternation(_PETS)}))?|(?i:{_alternation(_PETS)}))(?![\w'-])"
# A breed, and the pet word that may follow it ("our beagle", "our beagle puppy").
_BREED_SAID = rf"(?P<breed>{_BREED})(?: (?P<kind>(?i:{_alternation(_PETS)})))?"


def _pet_gone_by_breed(m: re.Match[str]) -> list[Fields]:
    """A pet of a breed that is over: its name when said, else its kind (`pet_kind`, as "My rabbit
    died." files), and its breed, each as history ("The user used to have a dog named Pepper.", "...
    a beagle.")."""
    fields = _breed_of(m)
    kind, breed = fields["kind"], fields["breed"]
    if kind != _BREED_KIND[breed.casefold()]:
        return []
    said = kind.replace("_", " ")
    found = [{"value": breed, "part": f"pet_{kind}_breed", "said": f"{'an' if breed[0] in 'aeiouAEIOU' else 'a'} {breed}"}]
    name = re.sub(r"'s?$", "", m.group("name") or "")
    if name and name.casefold() not in _NOT_NAMES:
        return [{"value": name, "part": f"pet_{kind}_name", "said": f"a {said} named {name}"}, *found]
    if name:
        return []
    return [{**_a_pet(kind, "an" if said[0] in "aeiou" else "a"), "said": f"{'an' if said[0] in 'aeiou' else 'a'} {said}"},
            *found]


def _plan(m: re.Match[str]) -> list[Fields]:
    """What the user plans, with when it is when that was said first ("Next month I'm moving to
    Leeds": moving to Leeds next month)."""
    value, when = m.group("value").rstrip("."), m.groupdict().get("when")
    return [{"value": f"{value} {when[0].lower()}{when[1:]}" if when else value}]


def _year(m: re.Match[str]) -> list[Fields]:
    """A year gone by (of birth, of graduation), four digits: "'85" is the latest year ending in 85 that is
    not in the future."""
    said = m.group("value")
    if said[0].isdigit():
        return [{"value": said}]
    year = datetime.date.today().year
    year -= (year - int(said[1:])) % 100
    return [{"value": str(year)}]


def _condition(m: re.Match[str]) -> list[Fields]:
    value = m.group("value")
    return [{"value": vocabulary.CONDITION_ADJECTIVES.get(value.casefold(), value)}]


def _items(m: re.Match[str]) -> list[Fields]:
    """Each of a short list ("painting and hiking"), or the one value."""
    return [{"value": item} for item in re.split(r"\s*(?:,|\band\b)\s*", m.group("value")) if item]


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
    value = _gerund(m.group("verb").casefold())
    return [{"value": value}] if value in _HOBBY_SET else []


_HOBBY_SET = frozenset(vocabulary.HOBBIES)
# One outing of a pastime, as a noun, and the pastime.
_ROUTINES = {"run": "running", "jog": "jogging", "swim": "swimming", "hike": "hiking", "bike ride": "cycling",
             "climb": "climbing", "surf": "surfing", "row": "rowing", "yoga": "yoga", "pilates": "pilates"}


# How often a pastime is done: "every morning", "three times a week", "most weekends", "daily".
_HOW_OFTEN = (rf"(?:(?:every|each) (?:(?:single|other|second) )?(?:day|morning|evening|night|lunchtime|week|weekend|{_WEEKDAY}"
              rf"(?: (?:morning|afternoon|evening|night))?)|on {_WEEKDAY}s"
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
# A race run, which makes running a pastime: "I run marathons", "training for a half marathon".
_RACE = r"(?:half[- ])?(?:marathons?|ultramarathons?|ultras|10ks?|5ks?)(?![\w'-])"
# Who does a pastime, and the pastime: "a keen cyclist". Not "a baker" or "a painter", which are jobs.
_PASTIME_NOUNS = {"runner": "running", "jogger": "jogging", "swimmer": "swimming", "cyclist": "cycling",
                  "climber": "climbing", "hiker": "hiking", "surfer": "surfing", "skier": "skiing",
                  "snowboarder": "snowboarding", "golfer": "golfing", "skater": "skating", "kayaker": "kayaking",
                  "rower": "rowing", "knitter": "knitting", "triathlete": "triathlon"}


def _given_up(m: re.Match[str]) -> list[Fields]:
    thing = m.group("value").casefold()
    verb = vocabulary.GIVEN_UP[thing]
    if verb == "smoke":
        return [{"value": "no", "part": "smokes", "what": "smoke"}]
    return [{"value": "no", "part": f"{verb}s_{_snake(thing)}", "what": f"{verb} {thing}"}]


def _snake(text: str) -> str:
    words = [w for w in key_words(text) if w not in ("the", "a", "an")]
    return "_".join(words)


def _singular(word: str) -> str:
    """The word a plural is of, by _plural's endings read back ("foods" -> "food", "cities" -> "city",
    "movies" -> "movie"); a word no plural of that shape stays as it is ("series")."""
    for stem in (word[:-3] + "y", word[:-1], word[:-2]):
        if stem and _plural(stem) == word and not stem.endswith("s"):
            return stem
    return word


def _favorite(m: re.Match[str]) -> list[Fields]:
    """A favourite thing, or each of a list of them: "My favourite foods are sushi, tacos and ramen" files
    three `favorite_food`, keyed as one favourite food would be."""
    if re.match(r"(?:probably|maybe|perhaps)\b", m.group("value")):
        return []
    thing = m.group("thing")
    if m.group("verb") == "are":
        *before, last = thing.split()
        thing = " ".join([*before, _singular(last)])
    return [{**item, "thing": thing, "part": _snake(thing)} for item in _list_items(m)]


def _opinion(m: re.Match[str]) -> list[Fields]:
    topic, part = m.group("topic"), _snake(m.group("topic"))
    return [{"value": m.group("value"), "topic": topic, "verb": m.group("verb"), "part": part}] if part else []


def _number(text: str) -> int | None:
    text = text.casefold()
    if text.isdigit():
        return int(text)
    tens, _, unit = re.sub(r"[- ]+", " ", text).partition(" ")
    if tens in _TENS:
        return _TENS[tens] + _SMALL_NUMBERS.get(unit, 0)
    return _SMALL_NUMBERS.get(text)


def _age(m: re.Match[str]) -> list[Fields]:
    age = _number(m.group("value"))
    if age is not None and m.groupdict().get("ahead"):
        age -= 1  # "I turn 40 next week": 39 until then, and the birthday's age replaces it once said
    return [{"value": str(age)}] if age is not None and 1 <= age <= 120 else []


def _children(m: re.Match[str]) -> list[Fields]:
    value = m.group("value")
    count = (1 if value.casefold() in ("a", "an") else _number(value)) if value else 0
    more = m.groupdict().get("more")
    if count is not None and more:  # "two daughters and a son"
        added = 1 if more in ("a", "an") else _number(more)
        count = None if added is None else count + added
    if count is None or count > 20:
        return []
    said = {0: "no children", 1: "1 child"}.get(count, f"{count} children")
    return [{"value": str(count), "said": said}]


def _allergies(m: re.Match[str]) -> list[Fields]:
    # "penicillin and to cats": each item without the preposition repeated
    items = [re.sub(r"^to ", "", item) for item in re.split(r"\s*(?:,|\band\b|\bor\b)\s*", m.group("value"))]
    return [{"value": item} for item in items if item and item.casefold() not in ("something", "everything")]


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
    return [{"value": "no", "part": f"{verb}s_{_snake(thing)}", "what": f"{verb} {thing}"}]


# A name shaped like an organisation rather than a place: a digit or "&" ("3M", "AT&T"), a capital
# inside a word ("PayPal", not "McAllen"), an acronym ("IBM", not "NYC") or a company word last.
_ORG_SUFFIXES = frozenset(
    "inc corp corporation co ltd llc plc gmbh ag labs lab group bank capital partners technologies tech systems "
    "software solutions consulting studios media health airlines airways motors pharma pharmaceuticals "
    "holdings ventures industries insurance energy games networks analytics foods".split())
_PLACE_ACRONYMS = frozenset("NYC USA UAE UK US LA SF DC NZ".split())
_INNER_CAPITAL = re.compile(r"(?<!^Mc)(?<!^Mac)(?<!^O')(?<!^De)(?<!^La)(?<!^Le)(?<!^Di)(?<!^Du)[a-z][A-Z]")


def _org_shaped(name: str) -> bool:
    words = name.split()
    return (any(c.isdigit() or c == "&" for c in name)
            or words[-1].rstrip(".").casefold() in _ORG_SUFFIXES
            or any(_INNER_CAPITAL.search(w) for w in words)
            or any(len(w) >= 3 and w.isupper() and w not in _PLACE_ACRONYMS for w in words))


def _a_place(name: str) -> bool:
    return name.casefold() in vocabulary.PLACES


def _well_known_employer(name: str) -> bool:
    return name.casefold() in vocabulary.WELL_KNOWN_EMPLOYERS


def _an_organisation(name: str) -> bool:
    return _org_shaped(name) or _well_known_employer(name)


def _a_department(name: str) -> bool:
    return name.casefold() in vocabulary.DEPARTMENTS


# A move between two names is a job change when a name looks like an organisation, or when both
# are well-known employers ("I moved from Google to Meta"); a move between places when a name is a
# known place ("I moved from Paris to London for a new job"); a switch between two names is a job
# change when the sentence speaks of work ("I switched from Uber to Lyft" may be a rider's), or when
# the verb says it ("I changed jobs from Zendesk to Intercom"). A move between two names that are
# neither ("I moved from Stripe to Notion", "I switched from Adobe to Figma", a designer's tools) is
# not filed as said: a guess either way would file a company as the user's city, a tool as their
# employer or a town as their employer; it is a job change only if the old name is the current
# employer (_maybe_job_move). A move for something of the user's ("... to Apple for my laptop") is a
# customer's, unless work is named; a move between teams ("... to the Growth team") is no employer's.
_JOB_WORDS = re.compile(r"\b(?:jobs?|roles?|positions?|compan(?:y|ies)|employers?|teams?|careers?|hired|gigs?)\b",
                        re.IGNORECASE)
_FOR_THEIR_OWN = re.compile(r",?\s+for (?:my|our)\b", re.IGNORECASE)
_A_TEAM = re.compile(r"\s+(?:team|squad|department|division|unit|org|group)s?\b", re.IGNORECASE)


def _not_a_job_move(m: re.Match[str]) -> bool:
    """Whether a move between two names is surely no job change: a customer's, a move between
    teams or departments, or a move between places."""
    if _FOR_THEIR_OWN.match(m.string, m.end()) and not _JOB_WORDS.search(m.string):
        return True
    if _A_TEAM.match(m.string, m.end("old")) or _A_TEAM.match(m.string, m.end("new")):
        return True
    if any(_a_department(n) for n in (m.group("old"), m.group("new"))):
        return True
    return not any(_org_shaped(n) for n in (m.group("old"), m.group("new"))) \
        and any(_a_place(n) for n in (m.group("old"), m.group("new")))


def _a_job_move(m: re.Match[str]) -> bool:
    names = (m.group("old"), m.group("new"))
    if _not_a_job_move(m):
        return False
    if m.groupdict().get("jobs"):
        return True
    if any(_org_shaped(n) for n in names):
        return True
    if any(_a_place(n) for n in names):
        return False
    if m.group("verb") in ("moved", "went", "jumped") and all(_well_known_employer(n) for n in names):
        return True
    return m.group("verb") in ("switched", "jumped") and bool(_JOB_WORDS.search(m.string))


def _job_move(part: str) -> Callable[[re.Match[str]], list[Fields]]:
    """The old or the new employer of a move between two names, when it is a job change."""
    return lambda m: [{"value": m.group(part)}] if _a_job_move(m) else []


def _someones_job_move(part: str) -> Callable[[re.Match[str]], list[Fields]]:
    """_job_move for someone in the user's life, whose current employer no rule sees (the user's is the
    judge's: _maybe_job_move): a switch between two well-known employers is a job change too, unless a
    customer switches between the two ("My husband switched from Google to Stripe", not "from Apple to
    Samsung")."""
    def move(m: re.Match[str]) -> list[Fields]:
        names = {m.group("old").casefold(), m.group("new").casefold()}
        switched = m.group("verb") == "switched" and names <= vocabulary.WELL_KNOWN_EMPLOYERS \
            and len(names) == 2 and not any(names <= kind for kind in vocabulary.SWITCHED_AS_A_CUSTOMER)
        return [{"value": m.group(part)}] if switched or _a_job_move(m) else []
    return move


def _maybe_job_move(part: str) -> Callable[[re.Match[str]], list[Fields]]:
    """The old or the new employer of a move between two names that may be a job change or not
    ("I switched from Adobe to Figma"): filed only if the old one is the current employer
    (`Candidate.ends_only`, `Candidate.only_replacing`)."""
    return lambda m: [] if _a_job_move(m) or _not_a_job_move(m) else [{"value": m.group(part), "old": m.group("old")}]


def _organisation(m: re.Match[str]) -> list[Fields]:
    """An employer, unless it is a known place ("I left London for a job at Google"), whole with its
    possessive ("McDonald's", "St Mary's")."""
    return [] if _a_place(m.group("value")) or not _name(m) else [{"value": m.group("value")}]


# Where one is for years without working there: "I was at Oxford University for three years".
_SCHOOL_WORDS = frozenset("university college school academy institute uni polytechnic conservatory "
                          "seminary kindergarten".split())


# How long the user was or has been somewhere: "three years", "about a decade", "a couple of months".
_SPAN = (r"(?:about |almost |nearly |over |more than |just over |just under )?"
         r"(?:{}|a few|several|many|a couple of|a couple|a) (?:years?|yrs?|months?|decades?)").format(_NUMBER)


def _been_at(m: re.Match[str]) -> list[Fields]:
    """Where the user has been for years (_stayed_at); someone the user has been with ("I've been with
    Tom for three years") is no employer: "with" takes an organisation's name or a word of work."""
    if m.group("with") == "with" and not (_an_organisation(m.group("value")) or _WORK_SAID.search(m.string)):
        return []
    return _stayed_at(m)


def _stayed_at(m: re.Match[str]) -> list[Fields]:
    """A former employer, where the user was for years or months ("Before that I was at Zalando for
    four years"); not a school, nor a known place."""
    if _SCHOOL_WORDS.intersection(w.casefold() for w in m.group("value").split()):
        return []
    return _organisation(m)


def _whose(kind: str, name: str | None) -> str | None:
    """Whose fact it is, as its key begins: a named person's under what they are and their name
    (`sister_ana`, so that it is found by their name and never replaces another sister's), a parent's
    under the relation, named or not (`mother`: one has one mother), an unnamed relative's under the
    relation (`sister`, `child_son`); None for a name that is no name, or someone unnamed who may be
    anyone (_KNOWN_UNNAMED)."""
    part = _PERSON_PARTS[kind]
    if name:
        if name.casefold() in _NOT_NAMES:
            return None
        return _named_person(part, name)
    if part == "child":
        return f"child_{kind}"
    return part if part in _KNOWN_UNNAMED else None


def _named_person(part: str, name: str) -> str:
    """Whose fact it is when the person is named (_whose): a parent's under the relation alone, anyone
    else's under the relation and their name (`sister_ana`)."""
    return part if part in ("mother", "father") else f"{part}_{_snake(name)}"


def _kin_fact(clean: Callable[[re.Match[str]], list[Fields]]) -> Callable[[re.Match[str]], list[Fields]]:
    """A fact about someone in the user's life (_PERSON: "my sister Ana lives in Porto", "my brother is
    a nurse"), its value cleaned by `clean`: the user's, under a key and in a sentence that say whose
    it is (`{person}_city`, _whose), so that it never replaces the user's own fact of that kind."""
    def fact(m: re.Match[str]) -> list[Fields]:
        kind = m.group("kind").casefold()
        name = m.groupdict().get("name")
        person = _whose(kind, name)
        if person is None:
            return []
        said = {"kind": kind, "part": _PERSON_PARTS[kind], "person": person, "named": f" {name}" if name else ""}
        return [{**f, **said, "a": "an" if f["value"][:1].casefold() in "aeiou" else "a"} for f in clean(m)]
    return fact



def _person_left(m: re.Match[str]) -> list[Fields]:
    """An employer someone left: said as their job ("quit her job at Deloitte") or an organisation
    ("left Google"); "My wife left Tom" is no job."""
    if m.group("job") or _an_organisation(m.group("value")):
        return _organisation(m)
    return []


def _place_move(part: str) -> Callable[[re.Match[str]], list[Fields]]:
    """The old or the new city of someone's move between two names, when a name is a known place and
    neither is an organisation or a department ("My sister moved from Braga to Porto")."""
    def clean(m: re.Match[str]) -> list[Fields]:
        names = (m.group("old"), m.group("new"))
        if any(_an_organisation(n) or _a_department(n) for n in names) or not any(_a_place(n) for n in names):
            return []
        return [{"value": m.group(part)}]
    return clean


# A school a child goes to, by a name that says it is one ("Lincoln Elementary", "Hillside Primary").
_SCHOOL_NAMED = _SCHOOL_WORDS | frozenset("elementary primary high middle prep montessori".split())


def _school_gone_to(m: re.Match[str]) -> list[Fields]:
    if not _SCHOOL_NAMED.intersection(w.casefold() for w in m.group("value").split()):
        return []
    return _school(m)


def _person_pet(m: re.Match[str]) -> list[Fields]:
    """A pet of someone in the user's life ("my sister's dog is called Bruno", "my friend Sara has a
    golden retriever named Max"): its name, and its breed when said."""
    breed = m.groupdict().get("breed")
    animal = _PETS[m.group("pet").casefold()] if m.group("pet") else _BREED_KIND[breed.casefold()]
    if (breed and animal != _BREED_KIND[breed.casefold()]) or not _name(m):
        return []
    said = animal.replace("_", " ")
    found = [{"value": m.group("value"), "animal": animal, "fact": "name", "said": f"a {said} named {m.group('value')}"}]
    if breed:
        found.append({"value": breed, "animal": animal, "fact": "breed", "said": f"a {said}, a {breed}"})
    return found

_STARTS_LATER_AFTER = re.compile(_STARTS_LATER)
# Where "I quit Stripe" ends: what follows is when, or another clause.
_LEFT_END = (r"(?=\s*(?:[^\w\s'&-]|$)|\s+(?:last|this|yesterday|today|recently|after|in|at the end|a (?:week|month|"
             r"year|while|few)|and|but|so|because|to (?:go|start|open|launch|focus|freelance|travel))\b)")
# What tells that a name left is a job, in the sentence: "I quit Pimenton, best job I ever had", "I left
# Acme to start my own company". Without it, "I left Tom" or "I quit Duolingo" is no job (nor is "I
# left Tom after five years").
_WORK_SAID = re.compile(
    r"\b(?:jobs?|compan(?:y|ies)|employers?|careers?|colleagues|co-?workers|notice|resigned|last day at work|"
    r"(?:my|our) own (?:place|business|company|restaurant|shop|studio|practice|firm|agency|bakery|cafe|café|"
    r"clinic|startup)|freelanc\w*|self-employed)\b", re.IGNORECASE)
_LEFT_ALONE = re.compile(rf"I {_ADVERBS}(?:left|quit) ")
_LEFT_NAME = rf"\bI {_ADVERBS}(?:left|quit) (?:the )?(?!{_PLATFORMS})(?P<value>{_ORG}){_LEFT_END}"


def _left_alone(m: re.Match[str]) -> bool:
    """Whether a name is left or quit alone, with nothing that says it is a job: not an organisation
    ("Acme Inc", a well-known employer) and no word of work in the sentence ("I left Tom")."""
    return bool(_LEFT_ALONE.match(m.group())) and not _an_organisation(m.group("value")) \
        and not _WORK_SAID.search(m.string)


def _left_employer(m: re.Match[str]) -> list[Fields]:
    """A former employer (_organisation), unless the name is left alone."""
    return [] if _left_alone(m) else _organisation(m)


def _left_name(m: re.Match[str]) -> list[Fields]:
    """A name left alone that is no known place ("I left Feedzai."): a former employer only if it
    is the current one, which the judge tells (`Candidate.ends_only`)."""
    return _name(m) if _left_alone(m) and not _a_place(m.group("value")) else []


def _called_off(m: re.Match[str]) -> list[Fields]:
    """The job to come called off: the employer named ("Twilio"), else "the new job", which ends the
    only current one (supersession.ending)."""
    named = next((m.group(g) for g in ("value", "value2", "value3") if g in m.re.groupindex and m.group(g)), "")
    stay = {"stay": m.group("stay")} if "stay" in m.re.groupindex else {}
    if stay and (_a_place(stay["stay"]) or stay["stay"].casefold() in _PERSON_PARTS):
        return []  # "Decided to stay at Paris", "at Grandma": a stay, no job kept
    return [{"value": named or job_start.UNNAMED, **stay}]


def _employer_now(m: re.Match[str]) -> list[Fields]:
    """An employer (_organisation), unless the job is said to start later, wherever in the sentence:
    then it is the job to come (the job-ahead rule), which becomes the employer on its day (pipeline.start_jobs)."""
    if _STARTS_LATER_AFTER.match(m.string, m.end()) or _AHEAD_BEFORE.search(m.string, 0, m.start()):
        return []
    return _organisation(m)


def _known_place(m: re.Match[str]) -> list[Fields]:
    return _name(m) if _a_place(m.group("value")) else []


_HOME = r"(?:house|home|flat|apartment|place|condo|townhouse)"


def _place(m: re.Match[str]) -> list[Fields]:
    """A place of a move, unless a name of the move is an organisation or a department ("I moved to
    Google last year", "I moved to Sales" are no city), or the move is between two names neither of
    which is a known place."""
    names = [name for name in m.groupdict().values() if name]
    if any(_an_organisation(n) or _a_department(n) for n in names) or (len(names) > 1 and not any(_a_place(n) for n in names)):
        return []
    return _name(m)


def _not_an_organisation(m: re.Match[str]) -> list[Fields]:
    """A place someone else moved to, unless it is an organisation or a department ("My brother moved
    to Google", "My sister Jo moved to Marketing")."""
    value = m.group("value")
    return [] if _an_organisation(value) or _a_department(value) else _name(m)


def _department_move(m: re.Match[str]) -> list[Fields]:
    """The place of a move to a department or an employer there ("I moved to Sales in Denver", "I moved
    to IBM in Austin"): the department or the employer is no city, the place is."""
    where = m.group("dept")
    return _not_an_organisation(m) if _a_department(where) or _an_organisation(where) else []


def _employer_moved_to(m: re.Match[str]) -> list[Fields]:
    """The employer of a move to one ("I moved to IBM in Austin"): a name shaped like an organisation
    or a well-known employer, never a place or a department ("I moved to Sales")."""
    return _organisation(m) if _an_organisation(m.group("value")) and not _a_department(m.group("value")) else []


_NEW_JOB = rf"(?:(?:a|an|my|the) (?:new )?{_JOB_NOUN} )?"
_AHEAD = {"start": "starting at", "starting": "starting at", "starts": "starting at", "begin": "starting at",
          "beginning": "starting at", "begins": "starting at", "join": "joining", "joining": "joining",
          "first day": "first day at", "start date": "start date at"}


def _job_ahead(m: re.Match[str]) -> list[Fields]:
    """A job to start, as the job to come: "starting at Notion in April", "first day at Notion on Monday".
    Someone's house ("I'm starting at Sam's on Monday") and a known place are no job."""
    org = m.group("org")
    if re.search(r"'s?$", org) or _a_place(org):
        return []
    when = (m.group("when") or "").rstrip(".")  # _MONTH takes the dot of "Apr.", and so a full stop
    if not re.match(rf"{_WEEKDAY}|{_MONTH}", when):
        when = when[:1].lower() + when[1:]  # "Next month I start at Canva"
    if re.match(rf"{_WEEKDAY}|\d|{_MONTH}", when) and not re.match(r"(?i:next|this|in|on)\b", when):
        when = f"on {when}"
    return [{"value": " ".join(filter(None, (_AHEAD[m.group("verb").casefold()], org, when)))}]


# How the user wants to be answered: the length of an answer, its language, its emojis. Said to the
# assistant, so asked as an imperative ("Please keep your answers short", "Don't use emojis") or
# said of "answers" ("I prefer replies in Spanish"); "keep it short" may be about a toast, and "I
# don't use emojis" is the user's own habit.
_ANSWERS = r"(?:answers|replies|responses)"
_PLEASE = r"^(?:(?i:actually|also|oh|and|btw|ok|okay)[,:]? )?(?:(?i:please|pls|plz|kindly) )?"
_SHORT = ("short", "shorter", "brief", "briefer", "concise", "to the point", "succinct")
_DETAILED = ("detailed", "long", "longer", "in-depth", "thorough", "more detailed")
_LENGTHS = rf"(?i:{_alternation(_SHORT + _DETAILED)})"
_LENGTH = rf"(?P<value>{_LENGTHS})"
_LANGUAGES = rf"(?:{_alternation(vocabulary.LANGUAGES)})(?![\w'-])"
_LANGUAGE = rf"(?P<value>{_LANGUAGES})"
# What the preference rules for answers take, which "I prefer ..." (the `prefers` key) leaves to them.
_ANSWER_PREFERRED = rf"(?:{_LENGTHS} {_ANSWERS}\b|{_ANSWERS}(?: to be)? in {_LANGUAGES})"


def _answer_length(m: re.Match[str]) -> list[Fields]:
    return [{"value": "short" if m.group("value").casefold() in _SHORT else "detailed"}]


def _emojis(m: re.Match[str]) -> list[Fields]:
    if m.groupdict().get("yes"):
        return [{"value": "yes", "said": "is fine with emojis in answers"}]
    return [{"value": "no", "said": "wants no emojis in answers"}]


# A phone number, whole as said ("+44 7700 900123", "(415) 555-0199"): 7 to 15 digits.
_PHONE = r"(?P<value>\+?\(?\d[\d ().-]{5,22}\d)(?![\w-])"
_PHONE_KIND = r"(?:phone|mobile|cell|cellphone|cell phone|telephone)"
# "my phone number", "my number", "my mobile", "my cell"; not "my order number".
_PHONE_NAME = rf"(?:(?:{_PHONE_KIND}|contact) )?number|{_PHONE_KIND}"


def _from_place(m: re.Match[str]) -> list[Fields]:
    """Where the user is from, when it is a known place: "I'm from Acme" is no hometown."""
    return _name(m) if _a_place(m.group("value")) else []


def _phone(m: re.Match[str]) -> list[Fields]:
    return [{"value": m.group("value")}] if 7 <= sum(c.isdigit() for c in m.group("value")) <= 15 else []


# When an event of someone's life happened, said with it ("started school last week").
_PAST_WHEN = (r"(?: (?P<when>(?:last|this) (?:week|month|year|spring|summer|fall|autumn|winter|term|semester)|today|"
              rf"yesterday|recently|in (?:{_MONTH}|\d{{4}})))?")
_STARTED = (rf"(?P<value>(?i:{_alternation(vocabulary.SCHOOLING)})"
            rf"|(?i:{_alternation(vocabulary.HOBBIES + vocabulary.PLAYED)})"
            r"(?: (?:lessons|classes|practice|club|camp))?)")


def _started(m: re.Match[str]) -> list[Fields]:
    when = m.group("when")
    return [{"value": m.group("value"), "when": f" {when}" if when else ""}]


# An appointment of the user's and its day: "my dentist appointment is on Monday". Not another
# person's ("my sister's appointment").
_APPOINTMENT_OF = (rf"(?!(?:{_alternation(_RELATIONS)}|{_alternation(vocabulary.OTHER_PEOPLE)}|kids?|children)"
                   r"(?:'s)?\b)")
_DAY = rf"(?P<value>(?:(?i:next|this) )?{_WEEKDAY}|{_DATE})(?![\w'-])"


def _appointment(m: re.Match[str]) -> list[Fields]:
    thing = re.sub(r"'s$", "", (m.group("thing") or "").strip())
    day = m.group("value").rstrip(".")  # _MONTH takes the dot of "Sept.", and so a full stop
    return [{"value": day, "part": "_".join(filter(None, ("event", _snake(thing), "appointment"))),
             "thing": f"{thing} " if thing else ""}]


# --- languages, nationality and schooling ---------------------------------------------------

_LANGUAGE_NAMES = {name.casefold(): name for name in vocabulary.LANGUAGES}
# How well a language is spoken, said before it ("fluent Spanish", "a little English"): kept in the
# sentence, not in the value.
_HOW_SPOKEN = r"(?:fluent|basic|conversational|decent|good|broken|some|a little|a bit of)"
# A language spoken, in any case: after "I speak" or "fluent in" nothing else is meant by "french".
_SPOKEN = rf"(?:{_HOW_SPOKEN} )?(?i:{_alternation(vocabulary.LANGUAGES)})(?![\w'-])"
# Where or to whom a language is spoken, or how well, said after it: "English at work and Polish at
# home", "Spanish with my mom and English with my dad". Never a language itself ("with my French
# in-laws" is no qualifier: the list ends before it).
_NOT_A_LANGUAGE = rf"(?!(?i:{_alternation(vocabulary.LANGUAGES)})(?![\w'-]))"
_WHERE_SPOKEN = (rf"(?:at (?:work|home|school|the office)|(?:with|to) (?:my|our) {_NOT_A_LANGUAGE}[a-z]+(?:-in-law)?|"
                 r"with (?:friends|family|colleagues|clients|customers|patients)|fluently|natively|(?:fairly |pretty )?well|"
                 r"a (?:bit|little))")
_SPOKEN_ITEM = rf"{_SPOKEN}(?: {_WHERE_SPOKEN})?"
_SPOKEN_LIST = rf"{_SPOKEN_ITEM}(?:(?:,|,? and|,? or) {_SPOKEN_ITEM}){{0,5}}"
_ONE_SPOKEN = re.compile(rf"(?:(?P<how>{_HOW_SPOKEN}) )?(?P<language>(?i:{_alternation(vocabulary.LANGUAGES)}))(?![\w'-])")
_SPOKEN_END = (r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:fluently|natively|well|fairly|pretty|quite|very|really|a bit|a little|"
               r"at|with|to|and|but|so|too|as|since|because|every|daily|now|though|in|growing up)\b)")
_NATIONALITY = rf"(?:{_alternation(vocabulary.NATIONALITIES)})(?![\w'-])"
_NATIONALITIES_SAID = rf"{_NATIONALITY}(?:(?:,|,? and) {_NATIONALITY})?"
# "I'm Irish on my mother's side", "I'm Italian-American", "I'm French-speaking": no citizenship said.
_NATIONALITY_END = _strict_end("and", "by birth", "by nationality", "too", "myself", "originally", "though", "btw",
                               punctuation=r"[^\w\s'-]")
_FIELD = rf"(?i:{_alternation(vocabulary.FIELDS_OF_STUDY)})(?![\w'-])"
_FIELDS_SAID = rf"{_FIELD}(?: and {_FIELD})?"
_FIELD_END = (r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:at|in|from|and|but|so|because|for|since|as|with|when|while|before|"
              r"after|now|too|then|last|this|until)\b)")
# A degree by its name; the two-letter ones only with what or where ("an MS" may be a disease, "a BA"
# an airline).
_DEGREE = (r"(?:(?i:ph\.?d(?:\.(?= in\b))?|doctorate|master's degree|masters degree|master's|masters|bachelor's degree|"
           r"bachelors degree|bachelor's|bachelors|mba|mphil|dphil|msc|bsc|beng|meng|llb|llm|law degree|medical degree|"
           r"degree|diploma)|(?:MA|MS|BA|BS|JD)(?= (?:in|from) ))(?![\w'-])")
_DEGREE_SAID = rf"{_DEGREE}(?: in {_FIELDS_SAID})?"
_DEGREE_END = (r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:from|at|and|but|so|because|in \d{4}|last|this|since|too|now|when|"
               r"while|before|after|with)\b)")
_HAS_DEGREE = r"\bI(?: have|'ve got| have got| hold| earned| got| received| completed| finished| did| graduated with)"
_DOING_DEGREE = r"\bI(?:'m| am) (?:currently |now |still )?(?:doing|working on|studying for|pursuing|finishing|completing)"
# Where a school's name ends: not "studied at Blue Bottle all afternoon" nor "for hours".
_SCHOOL_END = (r"(?!\s+for (?:hours|the (?:day|afternoon|morning|evening|weekend)|a (?:bit|while|few hours)))"
               r"(?=\s*(?:[^\w\s'&-]|$)|\s+(?:in|and|but|so|where|for|from|with|as|since|because|last|until|before|"
               r"after|when|then)\b)")
# What one goes to a school for, which makes "I went to Harvard" schooling and not a visit.
_FOR_SCHOOLING = (r"(?=\s+for (?:undergrad|college|uni|university|grad school|graduate school|law school|med school|"
                  r"medical school|business school|my (?:degree|undergrad|master's|masters|PhD|MBA|bachelor's)))")
_GRADUATED_WHEN = (rf"(?: (?P<when>in \d{{4}}|in {_MONTH}|last (?:year|spring|summer|month|week)|"
                   r"this (?:year|spring|summer)))?")


def _spoken(m: re.Match[str]) -> list[Fields]:
    """Each language of a list ("English, Hindi and Tamil", "English at work and Polish at home"), by
    its name, with how well it is spoken when said before it."""
    return [{"value": _LANGUAGE_NAMES[one.group("language").casefold()],
             "how": f"{one.group('how')} " if one.group("how") else ""}
            for one in _ONE_SPOKEN.finditer(m.group("value"))]


def _nationalities(m: re.Match[str]) -> list[Fields]:
    return [{"value": n} for n in re.split(r",? and |, ", m.group("value"))]


_FIELD_NAMES = frozenset(vocabulary.FIELDS_OF_STUDY)


def _fields(m: re.Match[str]) -> list[Fields]:
    """Each field of "history and economics"; "design and technology" is one."""
    value = m.group("value")
    return [{"value": f} for f in ([value] if value.casefold() in _FIELD_NAMES else value.split(" and "))]


# What a school named by its subject teaches ("med school": medicine).
_SCHOOL_OF = {"nursing": "nursing", "law": "law", "med": "medicine", "medical": "medicine", "dental": "dentistry",
              "vet": "veterinary medicine", "veterinary": "veterinary medicine", "art": "art", "drama": "drama",
              "film": "film", "business": "business", "architecture": "architecture"}


def _degree(m: re.Match[str]) -> list[Fields]:
    value = m.group("value")
    acronym = value[:2].isupper() and value[0] in "AEFHILMNORSX"
    return [{"value": value, "a": "an" if value[0] in "aeiouAEIOU" or acronym else "a"}]


# What an operation was on, or what it was: "knee surgery", "a hip replacement", "gallbladder removal".
_BODY_PARTS = ("knee hip shoulder back spine spinal wrist ankle foot hand elbow eye heart brain gallbladder appendix "
               "hernia ACL cataract jaw nose neck stomach gastric bariatric cardiac thumb finger toe bunion "
               "tonsils sinus lung liver kidney bowel breast").split()
_OPERATED = rf"(?:(?i:left|right|double|keyhole|laser|minor|major) )?(?:{_alternation(_BODY_PARTS)})"
_PROCEDURE = "(?:replacement|transplant|reconstruction|removal|bypass)"
# What an injury is to: "broke my wrist", "tore my ACL", "sprained my ankle".
_INJURED = _alternation("wrist arm leg ankle knee hip shoulder back neck collarbone rib ribs finger toe foot hand "
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
    return [{"value": f"{_INJURY_WORDS[m.group('verb').casefold()]} {m.group('value')}"}]


def _school(m: re.Match[str]) -> list[Fields]:
    """A school by its name, not someone's house ("I studied at Sam's")."""
    if re.search(r"'s?$", m.group("value")):
        return []
    when = m.groupdict().get("when")
    return [{**f, "when": f" {when}" if when else ""} for f in _name(m)]


def _school_named(m: re.Match[str]) -> list[Fields]:
    """A school gone to, when its name says it is one ("Lincoln High School"): "I went to Oxford" may
    be a visit."""
    if not _SCHOOL_WORDS.intersection(w.casefold() for w in m.group("value").split()):
        return []
    return _school(m)


# --- things done, read and played: the items of a list ----------------------------------------
# "What activities has she done with her family?", "What books has he read?": the items' lines seldom
# say the list's noun ("We went camping", "I'm reading The Hobbit"), so each item is filed under its
# kind when it is said, and topics.py maps the noun to the kind.

# Where an outing said by its activity ends: punctuation, or when, where or with whom it was.
_OUTING_END = (r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:again|last|this|yesterday|today|on|at|in|with|and|but|for|"
               r"together|over|near|by|around|twice|once|every|all)\b)")
# Whom one takes on an outing: "took the kids", "took my daughter", "took our two boys"; people, as a
# dog taken to the beach is walked rather than given a day out.
_PEOPLE_TAKEN = _alternation({*_RELATIONS, *vocabulary.CHILDREN, *vocabulary.CHILDREN.values(), *vocabulary.HOUSEHOLD,
                              "kid", "family", "grandkids", "grandchildren", "nephews", "nieces", "class", "students"})
_TAKEN = rf"(?:the (?:kids|children|family|boys|girls|grandkids)|them|everyone|(?:my|our) (?:[\w-]+ ){{0,2}}?(?:{_PEOPLE_TAKEN}))"
# A title as written: in quotes, or capitalised words with the small words between them ("The Name
# of the Wind"); never a possessive ("Sam's email"), a weekday or a platform one reads ("Reddit").
_TITLE_WORD = rf"(?!I\b)(?:{_UPPER}|[0-9])[\w:-]*(?!['\w])"
_TITLE = (rf"\"(?P<quoted>[^\"]{{1,60}})\""
          rf"|(?!{_WEEKDAY}\b|{_PLATFORMS})(?P<value>{_TITLE_WORD}(?:\s+(?:(?:of|the|a|an|and|in|on|to|for|at|with)\s+)*"
          rf"{_TITLE_WORD}){{0,6}})(?![\w'-])(?!\s+{_UPPER})")
# What a capitalised title ends on: punctuation or a word that is not the title's.
_TITLE_END = (r"(?:(?<=\")|(?=\s*(?:[^\w\s'-]|$)|\s+(?:by|and|last|this|yesterday|today|tonight|now|right|again|"
              r"for|on|in|at|with|to|every|lately|recently|over|twice|once|all|a lot|so far|but|because)\b))")
# Where a video game is played: "on my Switch", "on the PS5".
_CONSOLE = r"(?:PS[2-5]|PlayStation(?: [2-5])?|Xbox(?: One| Series [XS])?|(?:Nintendo )?Switch|PC|computer|laptop|phone|console|Steam|iPad)"


def _outing(m: re.Match[str]) -> list[Fields]:
    """An outing: its activity ("camping"), where one went for it ("zoo"), or the class or retreat of a
    pastime ("pottery class")."""
    value = m.group("value").casefold()
    said = f"to the {value}" if m.groupdict().get("place") else f"to a {value}" if m.groupdict().get("course") else value
    return [{"value": value, "said": said}]


# A trip is told from an errand by where it went: a country, state or city of vocabulary.PLACES ("I went to
# Tesco yesterday" is no trip), and, for "went to" and "was in", by when it was ("I went to Oxford for the
# weekend" says neither when nor, on its own, more than a day out).
_PLACE_VISITED = rf"(?P<place>(?i:{_alternation(vocabulary.PLACES)}))(?![\w'&-])"
_TRIP_PAST = (rf"(?:last (?:week|weekend|month|year|summer|spring|fall|autumn|winter|{_WEEKDAY}|{_MONTH})|yesterday|"
              rf"in (?:{_MONTH}|\d{{4}}|the (?:spring|summer|fall|autumn|winter))|(?:at|over) (?:the )?(?:Easter|"
              r"Christmas|New Year|Thanksgiving|holidays|half[- ]term)|this (?:past )?(?:summer|spring|winter|"
              r"fall|autumn)|(?:a|one|two|three|four|five|six|a few|a couple of) (?:days|weeks|months|years) ago)(?![\w'-])")
_TRIP_SPAN = (r"(?:a|one|two|three|four|five|six|seven|ten|a few|a couple of|\d{1,2}) (?:long )?"
              r"(?:days?|nights?|weeks?|weekends?|months?)")
# What a trip was for, said between the place and when: "for our honeymoon", "for work".
_TRIP_FOR = r"(?: for (?:a |an |the |my |our |his |her )?[\w-]+(?: [\w-]+)?)?"
# Time spent somewhere, or back from it, is a trip to a town or region no list holds ("We spent August in
# Hossegor", "back from a week in Tarifa"): a capitalised name there, ending its clause, is the place.
_PLACE_CALLED = r"an? (?:[a-z]+ ){0,2}(?:village|town|city|hamlet|island|suburb|place) (?:called|named) "
_NOT_A_TEAM = (r"(?:Labour|Tories|Tory|Conservatives|Democrats|Republicans|Greens|Lib Dems|Liberals|Reform|SNP|"
               r"Trump|Biden|Harris|Obama|Ukraine|Palestine|Israel|Gaza)(?![\w'&-])")
# A team by its usual name (vocabulary.SPORTS_TEAMS) or shaped as a club's ("Leeds United", "Cork City").
_TEAM_SHAPED = (rf"{_CAPWORD}(?: {_CAPWORD})? (?:United|City|FC|Rovers|Wanderers|Athletic|Albion|Hotspur|County|Town|"
                r"Rangers|Orient|Argyle|Wednesday|Forest)")
_TEAM = rf"(?:the )?(?P<value>(?:{_alternation(vocabulary.SPORTS_TEAMS)})|{_TEAM_SHAPED})(?![\w'&-])"
_SPENT = (rf"(?:{_TRIP_SPAN}|{_MONTH}|the (?:(?:whole|entire) )?(?:summer|spring|winter|fall|autumn|weekend|"
          r"holidays|long weekend))")
_PLACE_SPENT_IN = (rf"(?P<place>(?i:{_alternation(vocabulary.PLACES)})(?![\w'&-])|(?!{_MONTH}|{_WEEKDAY}|(?i:hospital|jail|prison|rehab|quarantine|isolation|lockdown|court|"
                   rf"hell|heaven|bed|A&E|ICU|ER)(?![\w'&-])){_PROPER}"
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
    return [{"value": value}] if value and value.casefold() not in _NOT_NAMES else []


# --- the rules ------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Rule:
    type: str
    key: str  # may use {part}, from the clean function
    patterns: tuple[re.Pattern[str], ...]  # alternatives, each with a `value` group
    # Lowercase words one of which every pattern contains: a sentence without any of them is not
    # scanned by the patterns (most sentences hold cues for two or three rules, not twenty).
    cues: frozenset[str]
    sentence: str  # formatted with the fields of the clean function
    clean: Callable[[re.Match[str]], list[Fields]] = _name
    confidence: float = 0.8
    importance: float = 0.7
    historical: bool = False
    ends_only: bool = False  # Candidate.ends_only
    only_replacing: bool = False  # Candidate.only_replacing, the `old` field of the clean function


def _rule(type_: str, key: str, cues: str, patterns: list[str], sentence: str, clean=_name,
          confidence: float = 0.8, importance: float = 0.7, historical: bool = False, ends_only: bool = False,
          only_replacing: bool = False) -> _Rule:
    compiled = tuple(re.compile(p) for p in patterns)
    return _Rule(type_, key, compiled, frozenset(cues.split()), sentence, clean, confidence, importance, historical,
                 ends_only, only_replacing)


_QUIT_END = _strict_end("anymore", "any more", "at all", "altogether", "completely", "entirely", "for good",
                        "these days", "last", "ago", r"\d+", rf"(?:{_NUMBER}) (?:years?|months?|weeks?|days?)",
                        r"a (?:year|month|week|while|few|couple)", "either",
                        "in", "since", "when", "after", "on", "back", "cold turkey", "years", "months")
# What is no longer drunk or eaten: one or two plain words ("coffee", "red meat").
# A word of when ("I quit drinking last year") is not what was given up.
_HABIT_OBJECT = (r"(?: (?P<value>(?!(?:and|or|but|with|at|in|on|for|to|much|any|anything|enough|a|the|last|this|"
                 r"since|ago|back|years?|months?|weeks?|anymore|completely|altogether|entirely|cold|when|after|"
                 rf"few|several|couple|{_NUMBER})\b)"
                 r"[a-z][\w'-]*(?: [a-z][\w'-]*)??))?")
_NO_LONGER_END = _strict_end("anymore", "any more", "at all", "these days", "either")
# "I'm 100% sure" is not an age.
_AGE_END = _strict_end("and", "btw", "tbh", "haha", "lmao", "fyi", "already", "today", "this", punctuation=r"[.,;!)]")
_TURNED_END = _strict_end("and", "today", "yesterday", "last", "on", "in", punctuation=r"[.,;!)]")
# A birthday ahead, said with when it comes ("I turn 40 next week", "my mum turns 70 in June"): the age
# until then is one less (_age's `ahead`). Without a time ("I'm turning 40, help") it is not read, a bare
# "turning" may be a wish or a joke; nor is "I turn 40 today" one less: the age rule reads it, as "I turned
# 40 today", as the new age.
_TURNING = (rf"(?P<ahead>turns?|turning) (?P<value>{_NUMBER})(?= (?:(?:{_WHEN}|soon|in (?:a|one|two|three|a few|a couple of) "
            rf"(?:days?|weeks?|months?)|on (?:the )?\d{{1,2}}(?:st|nd|rd|th)|on {_DATE})(?![\w'-])))")

# A move between two names, either way round ("from Google to Meta", "to Meta from Google").
_MOVES_BETWEEN = [
    rf"\bI(?:'ve| have)? {_ADVERBS}(?P<verb>moved|switched|went|jumped|transferred) (?:over )?from (?:the )?"
    rf"(?P<old>{_ORG}) to (?:the )?(?P<new>{_ORG})",
    # "I changed jobs from Zendesk to Intercom": the verb says it is a job change.
    rf"\bI(?:'ve| have)? {_ADVERBS}(?P<verb>moved|switched|changed) (?P<jobs>jobs|employers|companies) from (?:the )?"
    rf"(?P<old>{_ORG}) to (?:the )?(?P<new>{_ORG})",
    rf"\bI(?:'ve| have)? {_ADVERBS}(?P<verb>moved|switched|went|jumped|transferred) (?:over )?to (?:the )?"
    rf"(?P<new>{_ORG}) from (?:the )?(?P<old>{_ORG})",
]

# Parting from a partner: "broke up", "split up", "separated", "got divorced".
_PARTED = r"(?:broke up|split up|split|separated|got divorced|divorced)"
_PARTNER_WORD = "|".join(word for word, part in _RELATIONS.items() if part == "partner")
# "broke up with my boyfriend Marco" names the partner left, not a partner now.
_NOT_AFTER_PARTING = "".join(f"(?<!{verb} {prep} )" for verb in ("broke up", "split up", "split", "separated")
                             for prep in ("with", "from"))
# When a parting happened, and the clause ending there: not "we broke up the meeting", "we split the bill".
# A month may carry its year ("in June 2019") and be the last one ("last June"); a day its year ("on June
# 3rd 2019").
_PARTING_WHEN = (rf"(?:(?:last|this) (?:week|month|year|spring|summer|fall|autumn|winter|weekend|{_WEEKDAY})|"
                 rf"last {_MONTH}|last night|yesterday|today|recently|on (?:the )?(?:{_DATE})(?:,? \d{{4}})?(?![\w'-])|"
                 rf"(?:(?:way )?back )?in (?:\d{{4}}|"
                 rf"(?i:{_alternation(vocabulary.MONTHS)})(?:,? \d{{4}})?)(?![\w'-])|"
                 r"(?:a|two|three|four|five|six|a few|a couple of) (?:days?|weeks?|months?|years?) ago)")
_PROPOSED = (rf"(?:just |finally |officially )?(?:proposed(?: to me)?|popped the question)"
             rf"(?: (?:on {_WEEKDAY}|{_PARTING_WHEN}))?(?=\s*(?:[.!,;]|$))")
# Where one got engaged or married, before or after when: "We got engaged in Paris last night",
# "got married at the beach"; a month is when, not where ("in June").
_WED_PLACE = rf"(?: (?:in|at|on) (?!{_MONTH}(?![\w'-]))(?:the |a )?(?:{_PROPER}|[a-z]+))?"
# The same, kept as when the parting happened (`Candidate.happened`): read against the turn's time, it
# places the event in the user's history (timeline.happened).
_PARTED_WHEN = rf"(?: (?P<when>{_PARTING_WHEN}))?"
# A parting's time that places it in history: a year, a month, months or years ago. Not "yesterday" or
# "a few days ago": a husband spoken of this morning and "we divorced yesterday" are one husband.
_DATED = re.compile(rf"\d{{4}}|\b(?:months?|years?) ago\b|\bin {_UPPER}")


def _happened(m: re.Match[str]) -> Fields:
    when = m.groupdict().get("when")
    return {"happened": when} if when and _DATED.search(when) else {}


# Where seeing or dating someone ends its clause: punctuation, since when or for how long, or another
# clause ("I'm seeing Lena tomorrow" is a meeting).
# Nor "I'm seeing Lena and Tom tomorrow" (a second name after "and"); a comma ends it only before what
# the user thinks of them, ending there ("I'm seeing Lena, she's great"; "Lena, she's my therapist" and
# "Lena, she's great at tennis" are none).
_LIKED = ("great amazing wonderful lovely awesome sweet kind funny nice perfect incredible fantastic brilliant "
          "gorgeous beautiful cute smart fun the best").split()
_GOING_OUT_END = (rf"(?=\s*(?:[.!;)]|$)|\s+(?:now|these days|at the moment|right now|since\b|and\b(?!\s+(?!I\b){_UPPER})|"
                  r"but\b|so\b|for (?:(?:about|over|almost|nearly|more than) )?(?:a|an|\d+|two|three|four|five|six|several|"
                  r"a few|a couple of) (?:days?|weeks?|months?|years?)\b|for (?:a while|ages|years|months)\b)"
                  rf"|,\s*(?:she|he|they)(?:'s| is|'re| are) (?:(?:{_alternation(_INTENSIFIERS)}) )?"
                  rf"(?:{_alternation(_LIKED)})(?=\s*(?:[^\w\s'-]|$)|\s+(?:and|but|so|too|lol)\b))")
# A partner named after what they are: "I'm dating a guy called Ben", "seeing this girl named Mia".
# Or someone named after: "I started dating someone, her name is Julia."
_SOMEONE_NAMED = (r"(?:(?:a|this) (?:guy|girl|man|woman|boy|lady|gal|dude|bloke|chap|fella|fellow) "
                  rf"(?:named|called) |(?:someone|somebody)(?: new)?{_NAMED} )?")
_PARTING_END = _strict_end("and", "but", "so", "after", "because")
# A thing disliked, said before the dislike (a few words, no word that opens a clause or points back),
# and the dislike that follows it ("I hate it", "I can't stand them").
_DISLIKED = (r"(?!(?i:honestly|yeah|yes|no|well|ok|okay|lol|tbh|and|but|so|oh|ugh|man|dude|seriously|it|that|this|"
             r"which|what|sometimes|now|also|i|you|he|she|they|we|sorry|sure|anyway|actually|like)\b)"
             r"[\w'-]+(?: [\w'-]+){0,2}")
_HATE_IT = (r"I (?:(?:really|absolutely|just|totally|honestly) )*(?:hate|detest|loathe|can't stand|cannot stand|"
            r"can't handle|can't stomach) (?:it|them)(?=\s*(?:[^\w\s'-]|$))")
# A thing tried: a few words, the fewest that leave the rest to when ("cilantro once"); not "I tried to
# call him", "I tried it".
_TRIED = r"(?!(?i:to|it|that|this|them|him|her|out|on|again|hard|my best)\b)[\w'-]+(?: [\w'-]+){0,2}?"
# The same after a thing tried, maybe in the next sentence (_SENTENCES keeps the two together): "I tried
# cilantro once. I hate it.", "I tried sushi once and hated it."
# Read by _SENTENCES too, in the message as typed: hence its ’.
_HATED_IT = (r"(?:and |but )?(?:I )?(?:(?:really|absolutely|just|totally|honestly) )*(?:hate|hated|detest|detested|loathe|"
             r"loathed|can't stand|couldn't stand) (?:it|them)(?=\s*(?:[^\w\s'’-]|$))")


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
_WORK_STATUS_END = _strict_end("last", "this", "yesterday", "today", "recently", "early", "in", "since", "ago",
                               "again", "after", "earlier", "on", "right now", "at the moment", "for now", "a (?:year|month|"
                               "week|while|few|couple)", r"\d+", "two", "three", "four", "five", "six", "several",
                               rf"for (?:(?:almost|nearly|over|about|the (?:past|last)) )?(?:{_NUMBER}|an?|a few|"
                               r"a couple of|several|many) (?:days?|weeks?|months?|years?)", "and", "when", "because")
_OUT_OF_WORK = ("out of work", "between jobs", "out of a job", "unemployed", "jobless")
# The user among those who lost their jobs: "We both got laid off", "My husband and I both got let
# go", "We lost our jobs". Not "They both got laid off", "My team got laid off", "We laid off ten
# people".
_WE_BOTH = (rf"\b(?:[Ww]e|(?i:my) (?:{_alternation(_RELATIONS)}) and I|(?i:me and my) (?:{_alternation(_RELATIONS)}))"
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
    if where[:1].isupper() and _a_place(where):
        return []
    return [{"value": "retired", "from": f" from {where}" if where else ""}]


# "I'm a student", "As a grad student, I...": a student is what the user is, not a job title. Up to
# three words before it ("PhD", "full-time", "second-year law"), none a judgement ("a good student").
_STUDENT = r"(?:student|undergrad|undergraduate|postgrad|postgraduate)"
_STUDENT_SAID = rf"(?:[A-Za-z][\w-]* ){{0,3}}?{_STUDENT}"


def _student(m: re.Match[str]) -> list[Fields]:
    said = m.group("said")
    if any(w.casefold() in _NOT_ROLE_MODIFIERS for w in said.split()[:-1]):
        return []
    words = " ".join(_ROLE_ABBREVIATIONS.get(w, w) for w in said.split())
    return [{"value": "student", "said": words, "a": "an" if words[:1].casefold() in "aeiou" else "a"}]


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
_DIED = r"(?:passed away|passed on|died|passed(?=\s*(?:[.!,;]|$)))"
_DIED_OF = r"(?: (?:of|from|after) (?:an? )?[a-z]+(?: [a-z]+)?)?"
# What one loses a spouse to; without it "I lost my wife" ends there or says when ("I lost my wife
# in the crowd" is no death).
_LOST_TO = (r"(?: to (?:cancer|covid|covid-19|dementia|suicide|a heart attack|a stroke|an? (?:accident|illness|"
            r"overdose|car crash|long illness)))?")
_PARTNER_DIED = re.compile(rf",? {_DIED}")


def _widowed(m: re.Match[str]) -> list[Fields]:
    return [{"value": "widowed", "kind": m.group("kind").casefold(), **_happened(m)}]


def _late_partner(m: re.Match[str]) -> list[Fields]:
    """A partner named as dead ("My husband Tom passed away", "my late wife Anna"): their name, as
    history."""
    return [{**f, "kind": m.group("kind").casefold()} for f in _name(m)]


def _said_beside_a_partner(candidates: list[Candidate]) -> list[Candidate]:
    """A divorce or a spouse's death said as an event ends the current partner (supersession.
    ENDED_BY_EVENT), but not in a message that names a current partner ("My wife and I divorced in
    2019, and my girlfriend Lena moved in last month"): that partner came after, and the event is
    filed as what happened (a fact), as "I'm divorced" is."""
    beside = {(c.source_message_id, c.subject) for c in candidates
              if c.base_key == supersession.PARTNER_KEY and not c.historical}
    return [replace(c, type="fact") if supersession.ends_partnership(c) and (c.source_message_id, c.subject) in beside
            else c for c in candidates]


def _not_also_a_plan(candidates: list[Candidate]) -> list[Candidate]:
    """A job to come is filed as that (`next_job`), not also among the other plans: the plans' rule
    reads "I'm starting at Notion in April" too, as anything else the user is doing months ahead."""
    jobs = {(c.source_message_id, c.subject, c.value.casefold()) for c in candidates if c.base_key == "next_job"}
    return [c for c in candidates
            if not (c.base_key == "plan" and (c.source_message_id, c.subject, c.value.casefold()) in jobs)]


# A child's age: "My son Max is 7.", "Our daughter just turned 12." Filed under the child's name as
# a named relative's facts are (`child_max_age`), or under "son" or "daughter" when none is said.
_CHILD = r"(?P<kind>(?i:son|daughter|eldest|oldest|youngest))"
# A child said by where they come among the user's children ("my eldest", "our youngest").
_BIRTH_ORDER = r"(?P<kind>(?i:eldest|oldest|youngest))"


# A one-word name and its "'s" for "is" ("My daughter Ava's 9."), which a _PROPER name does not end on.
_NAME_IS = rf"(?P<name>(?!I\b){_UPPER}[\w-]*)'s"


def _child_age(m: re.Match[str]) -> list[Fields]:
    name = m.group("name")
    if name and name.casefold() in _NOT_NAMES:
        return []
    kind = m.group("kind").casefold()
    return [{**f, "kind": kind, "who": _snake(name) if name else kind, "named": f" {name}" if name else ""}
            for f in _age(m)]


def _child_age_in_months(m: re.Match[str]) -> list[Fields]:
    return [{**f, "value": f"{f['value']} months"} for f in _child_age(m)]


# The age of someone in the user's life but a partner or a child: "My brother is 34.", "My mom just
# turned 60.", "My sister Ana is 19.", "My aunt Rosa is 70." Keyed as their other facts are (_whose:
# `sister_ana_age`, `brother_age`, `mother_age` for "My mom Linda is 61" too, so that "my mom just
# turned 62" said later replaces it). One value, so a later age replaces the earlier. Not a partner's
# (it would outlive the partnership), as a child's age is filed apart (_child_age).
_AGED_KIN = rf"(?P<kind>(?i:{_alternation(w for w, part in _PERSON_PARTS.items() if part not in ('partner', 'child'))}))"



# A car: its maker, and the capitalised words or numbers of its model ("Tesla Model 3", "Ford F-150",
# "Volvo XC90"), with its year when one comes first ("2015 Honda Civic"). What follows ends the clause or says when: "a
# Tesla charger", "Tesla stock" and "a Honda Civic for my daughter" are no car of the user's.
_CAR_MODEL = rf"(?!(?:I|{_WEEKDAY}|{_MONTH})(?![\w-]))[A-Z0-9][\w-]*"
_CAR = (rf"(?P<value>(?:(?:19[5-9]\d|20[0-4]\d) )?(?:{_alternation(vocabulary.CAR_MAKES)})(?:\s+{_CAR_MODEL}){{0,3}})"
        r"(?![\w'&-])")
_A_CAR = r"(?:an?|my|our) (?:(?:new|brand new|used|second-hand|secondhand|old|electric|little) )*"
_CAR_END = (rf"(?=\s*(?:[^\w\s'&-]|$)|\s+(?:and|but|so|because|since|last|this|yesterday|today|recently|now|these days|"
            rf"every|to work|for (?:years|months|ages|a (?:while|year|few|couple)|(?:{_NUMBER}) (?:years?|months?)))\b)")
# A vehicle ridden that is no car, by its kind, one word for each (vehicle).
_RIDDEN = {"bicycle": "bicycle", "bike": "bicycle", "push bike": "bicycle", "e-bike": "e-bike", "ebike": "e-bike",
           "motorbike": "motorbike", "motorcycle": "motorbike", "scooter": "scooter", "moped": "moped"}
_A_MAKE = re.compile(rf"(?<![\w-])(?:{_alternation(vocabulary.CAR_MAKES)})(?![\w-])")


def _car(m: re.Match[str]) -> list[Fields]:
    value = m.group("value")
    return [{"value": value, "a": "an" if value[0] in "AEIOU" else "a"}]


_BOAT = r"(?:sail|speed|motor|narrow|house|fishing )?boat|yacht|dinghy|canoe|kayak"
_NO_CAR_END = (r"(?=\s*(?:[.,;!)]|$)|\s+(?:anymore|any more|now|right now|at the moment|these days|yet|either|at all|"
               r"and|but|so|because|since)\b)")


def _no_car(m: re.Match[str]) -> list[Fields]:
    """"I sold my car": no car now, unless the sentence names one ("I sold my car and bought a
    Tesla"), which is then the car."""
    return [] if _A_MAKE.search(m.string) else [{"value": "none"}]


# Words that open a sentence as a name would and name nobody.
_NO_ONE = ("(?:He|She|It|They|We|You|This|That|Who|There|Here|What|Which|Mine|Everyone|Everybody|Someone|Somebody|"
           "Nobody|Noone|Anyone|Anybody)")
# Who the user lives with: "My mom lives with us now", "My sister moved in with me", "I live with my
# parents", "I live with my mom and dad" (each one a value); and who no longer does ("My brother moved
# out").
_HOUSEHOLD_ONE = rf"(?i:{_alternation(vocabulary.HOUSEHOLD)})(?![\w'-])"
_HOUSEHOLD = (rf"(?P<who>{_HOUSEHOLD_ONE}(?:(?:,|,? and) (?:(?i:my|our) )?{_KIN_ADJECTIVE}{_HOUSEHOLD_ONE}){{0,3}})")
_HOUSEHOLD_WORD = re.compile(rf"{_HOUSEHOLD_ONE}$")
_HOME_END = (rf"(?=\s*(?:[^\w\s'-]|$)|\s+(?:now|again|full[- ]time|last|this|since|for|and|but|so|because|after|when|"
             rf"recently|yesterday|in (?:\d{{4}}|{_UPPER}\w*)|a (?:few|couple)|(?:{_NUMBER}) (?:days?|weeks?|months?|years?) ago)\b)")
_HOUSEHOLD_NAMED = rf"{_MY} {_KIN_ADJECTIVE}{_HOUSEHOLD}(?:,? (?P<name>{_PROPER}),?)?"


def _household_partner(m: re.Match[str]) -> list[Fields]:
    return [{"value": m.group("value").casefold()}]


def _household(m: re.Match[str]) -> list[Fields]:
    """Each one lived with, by the word said ("mom", "dad"); a name only when one is ("my sister Ana")."""
    name = m.group("name")
    if name and name.casefold() in _NOT_NAMES:
        return []
    said = re.split(r",? and |, ", m.group("who"))
    named = f" {name}" if name and len(said) == 1 else ""
    return [{"value": _HOUSEHOLD_WORD.search(who).group().casefold(), "named": named} for who in said]


_RULES = [
    # work
    _rule("fact", "employer", "work working employed started began got hired at for joined landed accepted signed "
          "employer left quit switched moved went jumped changed first promoted teach teaching", [
        rf"(?:{_WORKS_AT}) {_ORG_INTRO}(?P<value>{_ORG}){_NOT_TEMPORARY}",
        rf"{_TEACHES_AT}(?P<value>{_ORG}){_NOT_TEMPORARY}",
        # "my first day at Notion is Monday" is a plan (below), not a job yet
        rf"(?:{_STARTED_AT}) {_ORG_INTRO}(?P<value>{_ORG})(?!,?\s+(?:is|will be) {_START_WHEN})",
        # a student's school is no employer (the school rule files it)
        rf"\bI(?:'m| am) {_INTRODUCED}(?:now |currently )?(?:an?|the) {_ROLE}(?<!student)(?: now| currently)? (?:at|for) (?:the )?"
        rf"(?P<value>{_ORG}){_NOT_TEMPORARY}",
        rf"\bI(?: {_ADVERBS}work|'m {_ADVERBS}working| am {_ADVERBS}working) {_WORK_HOURS}as (?:an?|the) {_ROLE} "
        rf"(?:at|for) (?:the )?(?P<value>{_ORG}){_NOT_TEMPORARY}",
        rf"\bI (?:just |recently |finally )?(?:got|was|have been|'ve been) promoted to (?:an? |the )?"
        rf"(?:{_ROLE}|{_HEAD_OF}) (?:at|with) (?:the )?(?P<value>{_ORG}){_NOT_TEMPORARY}",
        # "I left Monzo for a job at Wise": a job left for one named as such.
        rf"\bI {_ADVERBS}(?:left|quit) (?:my job at )?(?:the )?{_ORG} for (?:an?|my) (?:new )?{_JOB_NOUN} (?:at|with) "
        rf"(?:the )?(?P<value>{_ORG})",
        rf"\bI(?:'ve| have)? (?:just |recently )?joined (?:the )?(?P<value>{_ORG}) as (?:an?|the) {_ROLE}{_ROLE_END}",
        rf"\bI(?:'ve| have)? (?:just |recently |finally )?joined (?:the )?(?!{_PLATFORMS})(?P<value>{_ORG})"
        rf"(?:{_ORG_END}|{_JOINED_WHEN})",
        rf"\bI (?:left|quit) (?:my job at )?(?:the )?{_ORG},? (?:and|to) (?:I {_ADVERBS})?(?:join|joined|start at|started at) "
        rf"(?:the )?(?P<value>{_ORG})",
        rf"\b(?:years?|yrs?|months?) at (?:the )?{_ORG},? I {_ADVERBS}(?:switched|moved|went|jumped) (?:over )?to "
        rf"(?:the )?(?P<value>{_ORG})",
        # The first stretch of a job behind the user, its "my" dropped: "First week at Notion done",
        # "survived the first month at Deloitte"; not "First day at Yosemite!".
        rf"(?<![\w'])(?i:first) {_FIRST_SPAN} at (?:the )?(?P<value>{_ORG}),? (?:(?:is|was|are|were|now|officially) )?"
        rf"(?:done|over|complete|completed|finished|in the books|behind me)(?![\w'-])",
        rf"\b(?i:finished|survived|completed|wrapped up|got through) (?:the )?first {_FIRST_SPAN} at (?:the )?"
        rf"(?P<value>{_ORG})",
        # "I quit Nokia, and now I'm with Ericsson": where the user is, said after a job they left.
        rf"(?:{_LEFT_JOB})[^.;]*?\b(?:now,? I(?:'m| am)|I(?:'m| am) now|I(?:'m| am)) (?:at|with) (?:the )?"
        rf"(?!{_PLATFORMS})(?P<value>{_ORG})",
    ], "The user's employer is {value}.", _employer_now, importance=0.8),
    _rule("fact", "employer", "moved switched went jumped transferred changed", [
        *_MOVES_BETWEEN,
    ], "The user's employer is {value}.", _job_move("new"), importance=0.8),
    _rule("fact", "employer", "moved switched went jumped transferred changed", [
        *_MOVES_BETWEEN,
    ], "The user used to work at {value}.", _job_move("old"), confidence=0.7, importance=0.6, historical=True),
    _rule("fact", "employer", "moved switched went jumped transferred", [
        *_MOVES_BETWEEN,
    ], "The user's employer is {value}.", _maybe_job_move("new"), importance=0.8, only_replacing=True),
    _rule("fact", "employer", "moved switched went jumped transferred", [
        *_MOVES_BETWEEN,
    ], "The user used to work at {value}.", _maybe_job_move("old"), confidence=0.7, importance=0.6, historical=True,
          ends_only=True),
    _rule("fact", "employer", "work worked job resigned retired laid let fired left quit longer years months "
          "anymore more goodbye bye farewell", [
        rf"(?:{_PAST_JOB}) (?:the )?(?P<value>{_ORG})",
        rf"\bI (?:left|quit) my job at (?:the )?(?!{_CLOCK})(?P<value>{_ORG})",
        rf"\bI {_ADVERBS}(?:left|quit) (?:the )?(?!{_PLATFORMS})(?P<value>{_ORG}) (?=for (?:an?|my) (?:new )?{_JOB_NOUN} "
        rf"(?:at|with) )",
        rf"\bI (?:left|quit) (?:the )?(?!{_PLATFORMS})(?P<value>{_ORG}),? "
        rf"(?=(?:and|to) (?:I {_ADVERBS})?(?:join|joined|start at|started at) )",
        # "I left Deutsche Bank last year and now I work at Revolut": a job left for another.
        rf"\bI {_ADVERBS}(?:left|quit) (?:the )?(?!{_PLATFORMS})(?P<value>{_ORG})(?=[^.;]*?(?:{_CURRENT_JOB}|"
        rf"\b(?:now,? I(?:'m| am)|I(?:'m| am) now) (?:at|with) (?:{_UPPER}|[0-9])))",
        rf"\bI (?:don't|do not) work (?:at|for) (?:the )?(?P<value>{_ORG}) (?=any ?more\b)",
        rf"\b(?:years?|yrs?|months?) at (?:the )?(?P<value>{_ORG}),? (?=I {_ADVERBS}(?:(?:switched|moved|went|jumped) "
        rf"(?:over )?to |left\b|quit\b))",
        # A job left, said alone: "I quit Stripe", "I'm no longer at Stripe" (_left_employer)
        _LEFT_NAME,
        rf"\bI(?:'m| am) no longer (?:at|working (?:at|for)|employed (?:at|by)) (?:the )?(?P<value>{_ORG})",
        # a goodbye to the people of a job: "Said goodbye to my team at Canva", or to everyone there when the
        # sentence starts the next job ("First day at Twilio tomorrow, said goodbye to everyone at Canva")
        rf"\b(?i:said|say|saying) (?i:goodbye|bye|farewell) to (?:my|all my|the) (?:team|colleagues|coworkers|co-workers|"
        rf"workmates) at (?:the )?(?P<value>{_ORG})",
        rf"^[^.;]*?\b(?i:first day|start|starting)\b[^.;]*?\b(?i:said|saying) (?i:goodbye|bye|farewell) to everyone at "
        rf"(?:the )?(?P<value>{_ORG})",
        rf"\bI(?:'m| am) not (?:at|working (?:at|for)|employed (?:at|by)) (?:the )?(?P<value>{_ORG}) (?=any ?more\b)",
        # "with" may be a partner's: a job only when the next job is said
        rf"\bI(?:'m| am) (?:not|no longer) with (?:the )?(?P<value>{_ORG}) (?=(?:any ?more)?,? (?:(?:and|now|so) )?"
        rf"(?:{_CURRENT_JOB}|\bI(?:'ve| have)? {_ADVERBS}joined)\b)",
    ], "The user used to work at {value}.", _left_employer, confidence=0.7, importance=0.6, historical=True),
    _rule("fact", "employer", "was retired", [
        rf"\bI was at (?:the )?(?P<value>{_ORG}) for {_SPAN}(?![\w'-])",
        # "I retired in 2020 after 40 years with IBM": the retirement the work-status rule files
        rf"\bI {_ADVERBS}retired\b[^.;]*? after {_SPAN} (?:at|with|for) (?:the )?(?P<value>{_ORG})",
    ], "The user used to work at {value}.", _stayed_at, confidence=0.7, importance=0.6, historical=True),
    # "I've been at Unilever for three years", "I've been with Siemens since 2015": where the user still is
    _rule("fact", "employer", "been worked", [
        rf"\bI(?:'ve| have) (?:now |still )?been (?P<with>at|with) (?:the )?(?P<value>{_ORG}) (?:for {_SPAN}|{_SINCE_WHEN})",
        # "I've worked at Deloitte since 2016"; not "for five years" ("I've worked at Google for five
        # years, then left" is a job done)
        rf"\bI(?:'ve| have) (?:now |still )?worked (?P<with>at|for) (?:the )?(?P<value>{_ORG}) {_SINCE_WHEN}",
    ], "The user's employer is {value}.", _been_at, importance=0.8),
    _rule("fact", "employer", "left quit", [_LEFT_NAME], "The user used to work at {value}.", _left_name,
          confidence=0.7, importance=0.6, historical=True, ends_only=True),
    _rule("fact", "role", "a an the promoted became title job role position head as", [
        rf"\bI(?:'m| am) {_INTRODUCED}(?:now |currently |also )?(?:an?|the) (?P<value>{_ROLE}){_ROLE_END}",
        rf"\bI(?:'ve| have)? {_ADVERBS}{_JOB_TAKEN} as (?:an? |the )?(?P<value>{_ROLE})(?= (?:at|with)\b)",
        # "As a nurse, I see this a lot": who the user is, said in passing
        # not a reminiscence ("As a nurse, I saw a lot"): it says nothing of the job now
        rf"^(?i:as) an? (?!(?:former|ex-?|retired|future|wannabe|aspiring|would-be)\b)(?P<value>{_ROLE})"
        rf"(?: (?:working|based|in|at) [^,]*)?(?:,\s*I\b(?! (?:{_RECALLED})\b)|$)",
        rf"(?:{_CURRENT_JOB}|\bI(?:'ve| have)? (?:just |recently )?joined) {_PROPER} as (?:an?|the) "
        rf"(?P<value>{_ROLE}){_ROLE_END}",
        rf"\bI(?: (?:now |currently )?work|'m (?:now |currently )?working| am (?:now |currently )?working) "
        rf"{_WORK_HOURS}as (?:an?|the) (?P<value>{_ROLE}){_ROLE_END}",
        rf"\bI(?:'m| am) an? (?:{_NUMBER})[- ]years?[- ]old (?P<value>{_ROLE}){_ROLE_END}",
        # "the CTO of a startup"; not "a student of life"
        rf"\bI(?:'m| am) (?:now |currently |also )?the (?P<value>(?:{_alternation(_ROLE_ABBREVIATIONS)})|founder|"
        rf"co-?founder) (?=of\b)",
        rf"\bI (?:just |recently |finally )?(?:got|was|have been|'ve been) promoted to (?:an? |the )?"
        rf"(?P<value>{_ROLE}|{_HEAD_OF}){_ROLE_END}",
        rf"\bI (?:just |recently |finally )?became (?:an?|the) (?P<value>{_ROLE}){_ROLE_END}",
        # "I've been an electrician for 15 years": how long, so the job still held
        rf"\bI(?:'ve| have) been (?:an?) (?P<value>{_ROLE}) (?=for (?:(?:about|over|almost|nearly|more than) )?"
        rf"(?:{_NUMBER}|a few|a couple of|several|many) (?:years?|months?|decades?)\b|since\b)",
        rf"\b(?i:my) (?:job title|title|job|role|position) is (?:an? |the )?(?P<value>{_ROLE}|{_HEAD_OF}){_ROLE_END}",
        rf"\bI(?:'m| am) (?:now |currently |also )?(?:the )?(?P<value>{_HEAD_OF}){_ROLE_END}",
    ], "The user's job title is {value}.", _role, confidence=0.75, importance=0.75),
    # "I teach chemistry at a secondary school": a subject that makes the role
    _rule("fact", "role", "teach", [
        rf"\bI {_ADVERBS}teach (?P<value>(?i:{_alternation(vocabulary.SCHOOL_SUBJECTS)}))(?= at\b|\s*[.,;!]|\s*$)",
    ], "The user's job title is {value}.", _teacher, confidence=0.75, importance=0.75),
    # "I teach at Lincoln High School" (a subject said: the rule above)
    _rule("fact", "role", "teach teaching", [
        rf"{_TEACHES_AT}{_ORG}{_NOT_TEMPORARY}",
    ], "The user's job title is {value}.", lambda m: [] if m.group("subject") else [{"value": "teacher"}],
          confidence=0.75, importance=0.75),
    _rule("fact", "role", "a an the", [
        rf"\bI (?:used to be|was) (?:an?|the) (?P<value>{_ROLE}){_ROLE_END}",
        rf"\bI (?:used to work|worked) as (?:an?|the) (?P<value>{_ROLE}){_ROLE_END}",
        rf"\bI(?:'m| am) (?:an?|the) (?:former |ex-?)(?P<value>{_ROLE}){_ROLE_END}",
        # a job retracted: "I'm not a teacher anymore", "I'm no longer a nurse"
        rf"\bI(?:'m| am) no longer (?:an?|the) (?P<value>{_ROLE}){_ROLE_END}",
        rf"\bI(?:'m| am) not (?:an?|the) (?P<value>{_ROLE}) (?=any ?more\b)",
        rf"(?:{_PAST_JOB}) {_PROPER} as (?:an?|the) (?P<value>{_ROLE}){_ROLE_END}",
    ], "The user's job title used to be {value}.", _role, confidence=0.7, importance=0.6, historical=True),
    # A work status. Out of work or retired ends the current employer and job title, and a job named
    # later ends it in turn (supersession.related_keys); a leave is beside the job and ends nothing.
    _rule("fact", "employment_status", "job jobs work laid let fired sacked redundant unemployed jobless resigned", [
        rf"{_NOT_BACKGROUND}\bI(?:'ve| have)? (?:just |recently |finally )?(?:quit|lost|left) my job{_WORK_STATUS_END}",
        rf"{_NOT_BACKGROUND}\bI (?:just |recently )?(?:got|was|have been|'ve been) (?:laid off|let go|fired|sacked|"
        rf"made redundant){_WORK_STATUS_END}",
        rf"{_NOT_BACKGROUND}\bI (?:just |recently |finally )?resigned{_WORK_STATUS_END}",
        rf"{_NOT_BACKGROUND}\bI(?:'m| am|'ve been| have been) (?:now |currently |still )?"
        rf"(?:{_alternation(_OUT_OF_WORK)}){_WORK_STATUS_END}",
        rf"{_NOT_BACKGROUND}{_WE_BOTH} (?:just |recently )?(?:got|were|have been|'ve been)(?: both| all)? (?:laid off|"
        rf"let go|made redundant){_WORK_STATUS_END}",
        rf"{_NOT_BACKGROUND}{_WE_BOTH} (?:just |recently )?lost our jobs{_WORK_STATUS_END}",
    ], "The user is out of work.", _status("out of work"), confidence=0.75, importance=0.8),
    _rule("fact", "employment_status", "retired", [
        rf"{_NOT_BACKGROUND}\bI(?:'m| am)? (?:now |just |recently |finally |happily |officially )?retired(?: now)?"
        rf"{_WORK_STATUS_END}",
        rf"{_NOT_BACKGROUND}\bI(?:'ve| have) (?:just |recently |finally |officially )?retired{_WORK_STATUS_END}",
        # what from: a working life ("from teaching", "from the army"), or an employer by its name
        rf"{_NOT_BACKGROUND}\bI(?:'m| am|'ve| have)? (?:now |just |recently |finally |happily |officially )?retired "
        rf"from (?P<from>(?:{_alternation(_RETIRED_FROM)})(?![\w'-])|(?:the )?(?!{_PLATFORMS}){_ORG}){_WORK_STATUS_END}",
    ], "The user is retired{from}.", _retired, confidence=0.75, importance=0.8),
    _rule("fact", "employment_status", "leave", [
        rf"\bI(?:'m| am) (?:now |currently |still )?(?P<value>on {_LEAVES})(?=\s*(?:[^\w\s'-]|$)|\s+(?:until|till|for|"
        rf"since|now|right now|at the moment|and|but|so)\b)",
    ], "The user is {value}.", _text, confidence=0.75, importance=0.8),
    _rule("fact", "employment_status", "student undergrad undergraduate postgrad postgraduate", [
        rf"\bI(?:'m| am) {_INTRODUCED}(?:now |currently |also |still )?an? (?P<said>{_STUDENT_SAID}){_ROLE_END}",
        rf"^(?i:as) an? (?!(?:former|ex-?|future|would-be)\b)(?P<said>{_STUDENT_SAID}),\s*I\b",
    ], "The user is {a} {said}.", _student, confidence=0.75, importance=0.8),
    _rule("fact", "employment_status", "student undergrad undergraduate postgrad postgraduate", [
        rf"\bI (?:used to be|was) an? (?P<said>{_STUDENT_SAID}){_ROLE_END}",
    ], "The user used to be {a} {said}.", _student, confidence=0.7, importance=0.6, historical=True),
    # places
    _rule("fact", "city", "live lived based living moved relocated bought new settled back", [
        rf"\b(?:I|[Ww]e) (?:now |currently |still )?live (?:and (?:I |[Ww]e )?work )?in (?P<value>{_PROPER})",
        rf"\b(?:I|[Ww]e)(?:'ve| have) (?:always )?lived in (?P<value>{_PROPER})",
        rf"\b(?:I|[Ww]e)(?:'ve| have) been living in (?P<value>{_PROPER})",
        rf"\bI(?:'m| am) (?:now |currently )?(?:based|living) in (?P<value>{_PROPER})",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) (?:back |here |over )?to "
        rf"(?P<value>{_PROPER})(?=(?: from (?P<old>{_PROPER}))?)",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) from (?P<old>{_PROPER}) to "
        rf"(?P<value>{_PROPER})",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?bought (?:a|our|my) (?:first )?"
        rf"(?:house|home|flat|apartment|condo) in (?P<value>{_PROPER})",
        # a new home said by itself: "We just moved into a flat in Manchester", "Our new place is in
        # Brooklyn", "the new flat we're renting is in Camden" (not someone else's: "My sister's new place")
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?moved into (?:a|an|our|my|the) (?:new |own )?"
        rf"{_HOME} in (?P<value>{_PROPER})",
        rf"(?:\b(?i:our|my) new {_HOME}|(?:^|[.!?] )(?i:the) new {_HOME} (?:we|I)(?:'re| are|'m| am|'ve| have) "
        rf"(?:renting|bought|moved into)) is (?:in|over in|down in|up in) (?P<value>{_PROPER})",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:finally |now )?settled (?:down )?in (?P<value>{_PROPER})",
        # "I moved back to my hometown, Cork": the hometown rule files it as where the user is from too
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?moved back to (?i:my|our) home ?town(?:,| of) "
        rf"(?P<value>{_PROPER})",
        rf"\bI(?:'m| am) back in (?P<value>{_PROPER}),? where I grew up\b",
        # the user's clause going on without its "I": "I left London in 2020 and now live in Lisbon"
        rf"^(?:I|[Ww]e)\b[^.;]*? and (?:now |currently )?live in (?P<value>{_PROPER})",
    ], "The user lives in {value}.", _place, importance=0.75),
    # a move to a department in a place: "I moved to Sales in Denver", "I relocated to the Finance team
    # in Leeds" (the place, not the department: _department_move)
    _rule("fact", "city", "moved relocated", [
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) (?:over )?to "
        rf"(?:the )?(?P<dept>{_PROPER})(?: (?:team|department|division|office))? in (?P<value>{_PROPER})",
    ], "The user lives in {value}.", _department_move, importance=0.75),
    # the employer of that move: "I moved to IBM in Austin", "I transferred to Deloitte in March"
    _rule("fact", "employer", "moved relocated transferred", [
        rf"\bI(?:'ve| have)? {_ADVERBS}(?:moved|relocated|transferred) (?:over )?to (?:the )?(?P<value>{_ORG})"
        rf"(?= in (?:{_PROPER}|{_MONTH}|\d{{4}})|{_ORG_END})",
    ], "The user's employer is {value}.", _employer_moved_to, importance=0.8),
    # "Home is Glasgow these days": a known place only ("Home is Acme", "Home is Netflix" are none).
    _rule("fact", "city", "home", [
        rf"(?:^|[.!?] )[Hh]ome(?:'s| is) (?:now )?(?P<value>{_PROPER})(?=\s*(?:[.!,;]|$)| (?:now|these days)\b)",
    ], "The user lives in {value}.", _known_place, importance=0.75),
    _rule("fact", "city", "live lived living moved relocated longer left", [
        rf"\b(?:I|[Ww]e) (?:used to live|previously lived|once lived|lived|was living|were living) in (?P<value>{_PROPER})",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) "
        rf"(?:to (?P<new>{_PROPER}) |away |here )?from (?P<value>{_PROPER})(?= to (?P<then>{_PROPER}))?",
        rf"\b(?:I|[Ww]e) no longer live in (?P<value>{_PROPER})",
        # "I moved out of Boston in 2018", "I left London in 2020 and now live in Lisbon" (a place left
        # for another home; "I left Google" is a job, "I left Paris" alone a known place, _place_left)
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |finally )?(?:moved out of|left) (?P<value>{_PROPER})"
        rf"(?=[^.;]*?\b(?:I|[Ww]e)?(?: now| currently)? (?:live|moved|relocated) (?:in|to)\b)",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |finally )?moved out of (?P<value>{_PROPER})",
        rf"\b(?:I|[Ww]e) (?:don't|do not) live in (?P<value>{_PROPER}) (?=any ?more\b)",
    ], "The user used to live in {value}.", _place, confidence=0.7, importance=0.6, historical=True),
    _rule("fact", "birthplace", "born", [
        rf"\bI was born in (?P<value>{_PROPER})",
    ], "The user was born in {value}.", importance=0.6),
    _rule("fact", "birth_year", "born", [
        r"\bI was born in (?P<value>(?:19|20)\d\d|'\d\d)(?![\w'-])",
    ], "The user was born in {value}.", _year, importance=0.6),
    _rule("fact", "hometown", "originally grew come raised hometown home from", [
        rf"\b(?i:my) home ?town(?:,| of| is) (?P<value>{_PROPER})",
        rf"\bI(?:'m| am) back in (?P<value>{_PROPER}),? where I grew up\b",
        rf"\bI(?:'m| am) originally from (?P<value>{_PROPER})",
        rf"\bI(?:'m| am) from (?P<value>{_PROPER}),? originally\b",
        rf"\b(?:I come|[Oo]riginally,? I(?:'m| am)) from (?P<value>{_PROPER})",
        rf"\bI (?:grew up|was (?:born and )?raised) in (?P<value>{_PROPER})",
        # a place no one knows, introduced by its kind: "I grew up in a tiny village called Ballydehob"
        rf"\b(?:I (?:grew up|was (?:born and )?raised) in|I come from|I(?:'m| am) (?:originally )?from) {_PLACE_CALLED}"
        rf"(?P<value>{_PROPER})",
    ], "The user is originally from {value}.", importance=0.6),
    # "I'm from Cairo", "I'm Omar, a chef from Cairo": where the user is from, which may not be where
    # they live now; a known place only ("I'm from Acme, calling about your order").
    _rule("fact", "hometown", "from", [
        rf"\bI(?:'m| am) {_INTRODUCED}(?:(?:an?|the) {_ROLE} )?from (?:the )?(?P<value>{_PROPER})",
        rf"^(?i:hi|hello|hey)(?: there)?[,!]? I(?:'m| am) {_PROPER} from (?:the )?(?P<value>{_PROPER})",
    ], "The user is from {value}.", _from_place, importance=0.6),
    # languages, nationality and schooling: each holds several values (families.py),
    # and a later school ends no earlier degree
    _rule("fact", "language", "speak speaking fluent bilingual trilingual conversational proficient speaker", [
        rf"\bI {_ADVERBS}(?:can )?speak (?P<value>{_SPOKEN_LIST}){_SPOKEN_END}",
        rf"\bI grew up speaking (?P<value>{_SPOKEN_LIST}){_SPOKEN_END}",
        rf"\bI(?:'m| am) (?:(?:completely|totally|fully|pretty|quite|almost|also) )?(?:fluent|bilingual|trilingual|"
        rf"conversational|proficient) in (?P<value>{_SPOKEN_LIST}){_SPOKEN_END}",
        rf"\bI(?:'m| am) an? (?:fluent )?(?P<value>{_SPOKEN}) speaker(?![\w'-])",
    ], "The user speaks {how}{value}.", _spoken, importance=0.6),
    _rule("fact", "language", "native first mother", [
        rf"{_MY} (?:native|first|mother) (?:language|tongue)(?: is|'s) (?P<value>{_SPOKEN}){_SPOKEN_END}",
        rf"(?:^|[,;:]\s*|\b(?i:and|but|so) )(?P<value>{_SPOKEN}) is my (?:native|first|mother) (?:language|tongue)\b",
        rf"\bI(?:'m| am) an? native (?P<value>{_SPOKEN}) speaker(?![\w'-])",
    ], "The user's native language is {value}.", _spoken, importance=0.6),
    _rule("fact", "nationality", "m am citizen national citizenship nationality passport passports", [
        rf"\bI(?:'m| am) (?:also |both )?(?P<value>{_NATIONALITIES_SAID}){_NATIONALITY_END}",
        rf"\bI(?:'m| am|'ve become| have become| became| just became) (?:also |now )?an? (?P<value>{_NATIONALITY}) "
        r"(?:citizen|national)(?![\w'-])",
        rf"\bI(?: have|'ve got| have got| hold| got| just got| recently got) (?:an? |my |dual |both )?"
        rf"(?P<value>{_NATIONALITIES_SAID}) (?:citizenship|nationality|passports?)(?![\w'-])",
        rf"{_MY} nationality is (?P<value>{_NATIONALITIES_SAID}){_NATIONALITY_END}",
    ], "The user's nationality is {value}.", _nationalities, importance=0.6),
    _rule("fact", "field_of_study", "studied majored minored undergrad undergraduate", [
        rf"\bI {_ADVERBS}(?:studied|majored in|minored in) (?P<value>{_FIELDS_SAID}){_FIELD_END}",
        # a first degree said without its name: "I did my undergrad in history at Yale"
        rf"\bI did my (?:undergrad|undergraduate|undergraduate degree|bachelor's|bachelors|BA|BSc|BS) in "
        rf"(?P<value>{_FIELDS_SAID}){_FIELD_END}",
    ], "The user studied {value}.", _fields, confidence=0.75, importance=0.6),
    _rule("fact", "field_of_study", "studying study majoring major", [
        rf"\bI(?:'m| am|'ve been| have been) {_ADVERBS}(?:studying|majoring in) (?P<value>{_FIELDS_SAID}){_FIELD_END}",
        rf"\bI {_ADVERBS}study (?P<value>{_FIELDS_SAID}){_FIELD_END}",
        rf"{_MY} major is (?P<value>{_FIELDS_SAID}){_FIELD_END}",
    ], "The user is studying {value}.", _fields, confidence=0.75, importance=0.6),
    # a school named by what it teaches: "I'm in my final year of nursing school", "I go to art school"
    _rule("fact", "field_of_study", "school", [
        rf"\bI(?:(?:'m| am) {_ADVERBS}(?:in|at) (?:my (?:first|second|third|fourth|fifth|final|last) year (?:of|at) )?|"
        rf" {_ADVERBS}go to )(?P<value>(?i:{_alternation(_SCHOOL_OF)})) school(?![\w'-])",
    ], "The user is studying {value}.", lambda m: [{"value": _SCHOOL_OF[m.group("value").casefold()]}],
          confidence=0.75, importance=0.6),
    _rule("fact", "degree", "have got hold earned received completed finished did graduated", [
        rf"{_HAS_DEGREE} (?:an?|my) (?P<value>{_DEGREE_SAID}){_DEGREE_END}",
    ], "The user has {a} {value}.", _degree, confidence=0.75, importance=0.6),
    _rule("fact", "degree", "doing working studying pursuing finishing completing year", [
        rf"{_DOING_DEGREE} (?:an?|my) (?P<value>{_DEGREE_SAID}){_DEGREE_END}",
        rf"\bI(?:'m| am) (?:now )?in (?:the |my )?(?:first|second|third|fourth|fifth|final|last) year of (?:an?|my) "
        rf"(?P<value>{_DEGREE_SAID}){_DEGREE_END}",
    ], "The user is doing {a} {value}.", _degree, confidence=0.75, importance=0.6),
    _rule("fact", "school", "studied went did have got hold earned received completed finished grad graduate "
          "alum alumnus alumna majored minored", [
        rf"\bI {_ADVERBS}(?:studied (?:{_FIELDS_SAID} )?|(?:majored|minored) in {_FIELDS_SAID} )at (?:the )?(?P<value>{_ORG})"
        rf"{_NOT_TEMPORARY}{_SCHOOL_END}",
        r"\bI went to (?:college|university|uni|school|grad school|graduate school|law school|med school|"
        rf"medical school|business school|high school) at (?:the )?(?P<value>{_ORG}){_SCHOOL_END}",
        rf"\bI went to (?:the )?(?P<value>{_ORG}){_FOR_SCHOOLING}",
        rf"\bI did my (?:{_DEGREE}|undergrad|undergraduate|undergraduate degree)(?: in {_FIELDS_SAID})? at (?:the )?"
        rf"(?P<value>{_ORG}){_SCHOOL_END}",
        rf"{_HAS_DEGREE} (?:an?|my) {_DEGREE_SAID} from (?:the )?(?P<value>{_ORG}){_SCHOOL_END}",
        rf"\bI(?:'m| am) an? (?P<value>{_PROPER}) (?:grad|graduate|alum|alumnus|alumna)(?![\w'-])",
    ], "The user studied at {value}.", _school, confidence=0.75, importance=0.6),
    _rule("fact", "school", "went", [
        rf"\bI went to (?:the )?(?P<value>{_ORG})(?=\s*(?:[^\w\s'&-]|$)|\s+(?:and|but|where|in \d{{4}})\b)",
    ], "The user studied at {value}.", _school_named, confidence=0.75, importance=0.6),
    _rule("fact", "school", "graduated", [
        rf"\bI(?:'ve| have)? {_ADVERBS}graduated (?:with (?:an?|my|the) [^,.;]{{1,40}}? )?from (?:the )?(?P<value>{_ORG})"
        rf"{_GRADUATED_WHEN}",
    ], "The user graduated from {value}{when}.", _school, confidence=0.75, importance=0.6),
    _rule("fact", "school", "class", [
        rf"^(?i:class) of (?:19|20)\d\d (?:at|from) (?:the )?(?P<value>{_ORG})",
    ], "The user studied at {value}.", _school, confidence=0.7, importance=0.6),
    # The year the user graduated: "I graduated in 2012", "I graduated from Leeds in 2012", "I finished uni
    # in 2008", "Class of 2019!" (opening the sentence: "the class of 2019 was huge" is not the user's).
    _rule("fact", "graduation_year", "graduated finished class", [
        rf"\bI(?:'ve| have)? {_ADVERBS}graduated (?:(?:with (?:an?|my|the) [^,.;]{{1,40}}? )?from (?:the )?{_ORG} |"
        rf"(?:from )?(?:high school|college|uni|university|school|law school|med school|grad school) )?"
        r"in (?P<value>(?:19|20)\d\d)(?![\w'-])",
        r"\bI (?:only |just )?finished (?:uni|university|college|school|high school|grad school|law school|med school|"
        r"my (?:degree|studies|PhD|masters?|master's)) in (?P<value>(?:19|20)\d\d)(?![\w'-])",
        r"(?:^|\bI(?:'m| am|'m in the| am in the) )(?i:class) of (?P<value>(?:19|20)\d\d|'\d\d)(?![\w'-])",
    ], "The user graduated in {value}.", _year, confidence=0.75, importance=0.6),
    _rule("fact", "school", "student undergrad undergraduate postgrad postgraduate studying study doing working "
          "pursuing", [
        rf"\bI(?:'m| am) {_INTRODUCED}(?:now |currently |also )?(?:an?|the) (?:[A-Za-z][\w-]* ){{0,3}}?"
        rf"(?:student|undergrad|undergraduate|postgrad|postgraduate) (?:at|of) (?:the )?(?P<value>{_ORG}){_SCHOOL_END}",
        rf"\bI(?:'m| am|'ve been| have been) {_ADVERBS}studying (?:{_FIELDS_SAID} )?at (?:the )?(?P<value>{_ORG})"
        rf"{_NOT_TEMPORARY}{_SCHOOL_END}",
        rf"\bI {_ADVERBS}study (?:{_FIELDS_SAID} )?at (?:the )?(?P<value>{_ORG}){_NOT_TEMPORARY}{_SCHOOL_END}",
        rf"{_DOING_DEGREE} (?:an?|my) {_DEGREE_SAID} at (?:the )?(?P<value>{_ORG}){_SCHOOL_END}",
    ], "The user is a student at {value}.", _school, confidence=0.75, importance=0.6),
    # who the user is
    _rule("fact", "name", "name by hi hello hey call m am", [
        rf"\b(?i:my) (?:first )?name(?:'s| is) (?P<value>{_PROPER})",
        rf"\bI go by (?P<value>{_PROPER})",
        rf"^(?i:hi|hello|hey)(?: there)?[,!]? I(?:'m| am) (?P<value>{_PROPER})",
        rf"\bI(?:'m| am) (?P<value>{_PROPER}), (?:an?|the) {_ROLE}{_ROLE_END}",
        rf"\b(?i:you can|please|just) call me (?P<value>{_PROPER})",
    ], "The user's name is {value}.", importance=0.9),
    # A sentence that is only an introduction ("I'm Marco.", "I'm Marco, Anna's husband.", "Call me
    # Marco."): what else follows "I'm" capitalised is a nationality or faith (_NOT_NAMES), a type
    # or an acronym in capitals ("I'm INFJ."), or a word typed in title case (_TITLE_CASED).
    _rule("fact", "name", "m am call", [
        rf"^I(?:'m| am) (?P<value>{_PROPER})(?:[.!]*$|(?=, ))",
        rf"^(?i:call) me (?P<value>{_PROPER})[.!]*$",
    ], "The user's name is {value}.", _own_name, importance=0.9),
    _rule("fact", "phone_number", "number phone mobile cell cellphone telephone reach call text ring contact "
          "message whatsapp", [
        rf"{_MY} (?:new |current |own )?(?:{_PHONE_NAME})(?:(?:'s| is)(?: now)?|:) "
        rf"{_PHONE}",
        # "I got a new phone number: 555-0177", "I've got a new mobile number, it's 555-0190"
        rf"\bI(?:(?:'ve| have)? (?:just )?got| have) (?:a )?new (?:{_PHONE_NAME})(?::|,? (?:it's|it is|which is)|,? -|,)? "
        rf"{_PHONE}",
        # How to reach the user, said to whoever may: "You can reach me at +1 617 555 0123", "Call me on 07700 900321"
        rf"(?:(?:^|(?<=[,;:] ))(?:(?i:please|pls|just|so|also|and|or) )?|\b(?i:you can|feel free to) )"
        rf"(?i:reach|call|text|ring|phone|contact|message|whatsapp) me (?:at|on) {_PHONE}",
    ], "The user's phone number is {value}.", _phone, importance=0.7),
    _rule("fact", "phone_number", "number phone mobile cell cellphone telephone", [
        rf"{_MY} (?:old|previous|former) (?:{_PHONE_NAME})(?: (?:was|is)|:) "
        rf"{_PHONE}",
    ], "The user's phone number used to be {value}.", _phone, confidence=0.7, importance=0.5, historical=True),
    _rule("fact", "age", "m am turned turn turning", [
        rf"\bI(?:'m| am) (?P<value>{_NUMBER})(?: (?:years?|yrs?) old| years of age| ?y/?o)?{_AGE_END}",
        rf"\bI (?:just |recently )?turned (?P<value>{_NUMBER}){_TURNED_END}",
        rf"\bI(?:'m| am) an? (?P<value>{_NUMBER})[- ]years?[- ]old (?=[a-z])",
        rf"\bI(?:'m| am)? {_TURNING}",
        # "I turn 30 today!": the birthday is today, so the age is the new one (not one less)
        rf"\bI(?:'m| am)? (?:turn|turning) (?P<value>{_NUMBER}) today(?=\s*(?:[.!,;]|$))",
    ], "The user is {value} years old.", _age, importance=0.6),
    _rule("fact", "number_of_children", "have got m am as", [
        rf"{_HAVE} (?P<value>{_NUMBER}) (?:kids|children|kid|child)(?![\w'])",
        # "two daughters" counts them; "no sons" says nothing of daughters, "two girls coming over" nothing of children
        rf"{_HAVE} (?!no\b)(?P<value>{_NUMBER}) {_SONS_DAUGHTERS}(?: and (?P<more>an?|{_NUMBER}) {_SONS_DAUGHTERS})?"
        r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:and|but|who|aged|named|called)\b)",
        # "a son and a daughter" counts them too; "a son" alone does not say he is the only child
        rf"{_HAVE} (?P<value>an?) {_SONS_DAUGHTERS} and (?P<more>an?|{_NUMBER}) {_SONS_DAUGHTERS}"
        r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:and|but|who|aged|named|called)\b)",
        rf"\bI(?:'m| am) a (?:mother|mom|mum|father|dad|parent) of (?P<value>{_NUMBER})(?![\w'])",
        # "as a mom of three, I ...": who the user is, said in passing
        rf"\b(?i:as) a (?:mother|mom|mum|father|dad|parent) of (?P<value>{_NUMBER}),? I\b",
        r"\b(?:I|[Ww]e) (?:don't|do not) have (?:any )?(?:kids|children)(?P<value>)(?![\w'])",
        # said after what the user is, as a fragment: "I'm divorced, no kids."
        rf"\bI(?:'m| am) (?:(?:now |happily )?(?:single|married|divorced|widowed|separated|engaged|retired)|"
        rf"(?:{_NUMBER})|an? [^,.;!?]{{1,30}}), (?:and )?no (?:kids|children)(?P<value>)(?: yet)?(?=\s*(?:[.!;,]|$))",
    ], "The user has {said}.", _children, importance=0.6),
    # food and health
    _rule("fact", "dietary_restriction", "m am been keep eat went gone turned became become as", [
        # "as the only vegetarian at the barbecue, I ...": who the user is, said in passing
        r"\b(?i:as) (?:an?|the only|a strict|a lifelong) (?P<value>vegetarian|vegan|pescatarian|pescetarian|coeliac|"
        r"celiac)(?: (?:at|in|on|among|of|for) [^,.;!?]{1,50})?,\s*I\b",
        r"\bI(?:'m| am|'ve been| have been)(?: now| strictly| fully)? (?:an? )?(?P<value>vegetarian|vegan|pescatarian|"
        r"pescetarian|gluten[- ]free|dairy[- ]free|lactose[- ]intolerant|coeliac|celiac|kosher|halal)"
        + _strict_end("and", "for", "these", "too", "as", "though", "myself", "since", "ever", "again", "already",
                      "(?:most of|all) my (?:life|adult life)", "my (?:whole|entire) life"),
        r"\bI (?:keep|eat) (?:only )?(?P<value>kosher|halal)\b",
        r"\bI(?:'ve| have)? (?:went|gone|turned|became|become) (?:fully )?(?P<value>vegetarian|vegan|pescatarian|"
        r"pescetarian|gluten[- ]free|dairy[- ]free)"
        + _strict_end("and", "in", "last", "this", "after", "when", "about", "over", "recently", r"\d+",
                      "a (?:year|few|couple)", "years", "months"),
    ], "The user is {value}.", _text, importance=0.85),
    # A diet retracted: "I'm no longer vegan", "I'm not vegetarian anymore", "I stopped being vegan"; the
    # past, which ends the diet if it is the current one (supersession.ending).
    _rule("fact", "dietary_restriction", "longer not stopped quit gave given", [
        r"\bI(?:'m| am) no longer (?:an? )?(?P<value>vegetarian|vegan|pescatarian|pescetarian)"
        + _strict_end("and", "since", "after", "because", "these days"),
        r"\bI(?:'m| am) not (?:an? )?(?P<value>vegetarian|vegan|pescatarian|pescetarian) (?=any ?more\b)",
        r"\bI(?:'ve| have)? (?:stopped|quit|gave up|given up) being (?:an? )?(?P<value>vegetarian|vegan|pescatarian|"
        r"pescetarian)" + _QUIT_END,
    ], "The user used to be {value}.", _text, confidence=0.7, importance=0.6, historical=True),
    _rule("fact", "allergy", "allergic allergy", [
        r"\bI(?:'m| am)(?: (?:very|severely|deathly|highly|really|quite|mildly|slightly|super|so))? allergic to "
        rf"(?P<value>{_listed(5)})",
        # after something else the user is: "I'm lactose intolerant and allergic to shellfish"
        r"\bI(?:'m| am) (?:(?!not\b|allergic\b)[\w'-]+ ){1,3}and (?:also )?(?:(?:very|severely|deathly|highly|mildly) )?"
        rf"allergic to (?P<value>{_listed(5)})",
        rf"\bI have an? (?:severe |mild |bad )?(?P<value>(?i:{_alternation(_ALLERGENS)})) allergy\b",
    ], "The user is allergic to {value}.", _allergies, importance=0.9),
    _rule("fact", "{part}", "stopped quit given gave longer don not never smoked vaped sober", [
        rf"\bI(?: have|'ve)? (?:stopped|quit|given up|gave up) (?P<verb>smoking|vaping|drinking|eating)"
        rf"{_HABIT_OBJECT}{_QUIT_END}",
        rf"\bI (?:no longer|don't|do not|never) (?P<verb>smoke|vape|drink|eat){_HABIT_OBJECT}{_NO_LONGER_END}",
        # two said together: "I don't smoke or drink", each its own fact
        rf"\bI (?:no longer|don't|do not|never) (?P<verb>smoke|vape|drink)(?P<value>) (?:or|and|nor) (?:smoke|vape|drink)"
        rf"{_NO_LONGER_END}",
        rf"\bI (?:no longer|don't|do not|never) (?:smoke|vape|drink) (?:or|and|nor) (?P<verb>smoke|vape|drink)(?P<value>)"
        rf"{_NO_LONGER_END}",
        r"\bI (?:never) (?P<verb>smoked|vaped)(?P<value>)" + _NO_LONGER_END,
        # sober for good, not for tonight: "I've been sober since 2017", "I'm sober now"
        rf"\bI(?:'m| am|'ve been| have been) (?:now |still |completely )?(?P<verb>sober)(?P<value>)"
        rf"(?= {_SINCE_WHEN}| for {_SPAN}|\s+now\s*(?:[.!;]|$)|{_NO_LONGER_END})",
    ], "The user does not {what}.", _habit, confidence=0.75, importance=0.6),
    _rule("fact", "{part}", "gave given quit cut", [
        rf"\bI(?: have|'ve)? (?:gave up|given up|quit|cut out) (?P<value>(?i:{_alternation(vocabulary.GIVEN_UP)}))"
        rf"{_QUIT_END}",
    ], "The user does not {what}.", _given_up, confidence=0.75, importance=0.6),
    # people and pets
    _rule("relation", "{part}_name", "my our named called married engaged dating seeing with", [
        # not the partner just left: "broke up with my boyfriend Marco", "My partner Sam and I split up"
        rf"{_NOT_AFTER_PARTING}{_MY} {_KIN_ADJECTIVE}{_WHO}(?:'s name is| is called| is named| is|,? (?i:her|his|their) "
        rf"name(?:'s| is)|,)? "
        rf"(?P<value>{_PROPER})(?!,? and I {_ADVERBS}{_PARTED})",
        # a boss said with the workplace between: "My manager at Talkdesk is Carla."
        rf"{_MY} {_KIN_ADJECTIVE}(?P<kind>(?i:boss|manager)) at (?:the )?{_ORG} is (?P<value>{_PROPER})",
        rf"(?P<value>{_PROPER}) \((?i:my|our) {_WHO}\)",
        # named in the next sentence, when nobody else was said in between: "My boss is awful. His name is Greg."
        rf"{_NOT_AFTER_PARTING}{_MY} {_KIN_ADJECTIVE}{_WHO} {_ONLY_DESCRIBED}[.!] (?P<pronoun>(?i:his|her|their)) "
        rf"name(?:'s| is) (?P<value>{_PROPER})",
        rf"{_HAVE} an? {_KIN_ADJECTIVE}{_WHO},? (?:named|called) (?P<value>{_PROPER})",
        rf"\bI(?:'m| am| got| just got|'ve been| have been) (?P<kind>married|engaged) to (?P<value>{_PROPER})",
        rf"\bI(?:'ve| have) been (?P<kind>dating|seeing|with) {_SOMEONE_NAMED}(?P<value>{_PROPER}) (?=for\b|{_SINCE_WHEN})",
        # seeing or dating someone, the clause ending there or saying since when: not "I'm seeing Lena
        # tomorrow", "I'm seeing Dr. Patel on Monday"
        rf"\bI(?:'m| am|'ve been| have been) (?:now |currently |still )?(?P<kind>dating|seeing) {_SOMEONE_NAMED}"
        rf"(?P<value>{_PROPER})"
        rf"{_GOING_OUT_END}",
        rf"\bI (?:just |recently |finally )?(?:started|began) (?P<kind>dating|seeing) {_SOMEONE_NAMED}(?P<value>{_PROPER})"
        rf"(?= {_PARTING_WHEN}\b|{_GOING_OUT_END})",
        # "Lena and I have been dating": a first name opening its clause ("Yesterday Tom and I ..." is none)
        rf"(?:^(?:(?i:so|and|well|oh|yeah|btw),? )?|(?<=[,;:] ))(?P<value>(?!I\b){_CAPWORD}) and I (?:have been |'ve been |are |(?:just |recently )?"
        rf"(?:started|began) )(?P<kind>dating|seeing)(?: each other)?(?= {_PARTING_WHEN}\b|{_GOING_OUT_END})",
        rf"(?:^(?:(?i:so|and|well|oh|yeah|btw),? )?|(?<=[,;:] ))(?P<value>(?!I\b){_CAPWORD}) and I {_ADVERBS}got "
        rf"(?P<kind>engaged|married)(?={_WED_PLACE}(?: {_PARTING_WHEN}\b|{_WED_PLACE}{_GOING_OUT_END}))",
        rf"\bI(?:'m| am|'ve been| have been) (?:now |currently )?in a (?:serious |committed |new |long-distance )?"
        rf"relationship (?P<kind>with) (?P<value>{_PROPER}){_GOING_OUT_END}",
    ], "The user's {kind} is named {value}.", _relation, confidence=0.75, importance=0.8),
    # What someone in the user's life does, where they work or live (_kin_fact).
    _rule("fact", "{person}_role", "my our", [
        rf"{_PERSON} (?:is|'s) (?:now |currently |also |still )?(?:an?|the) (?P<value>{_ROLE}){_ROLE_END}",
        rf"{_PERSON} (?:now |currently |also |still )?works as (?:an?|the) (?P<value>{_ROLE}){_ROLE_END}",
        # "My husband Ken works at Ford as a mechanic": the employer first (the employer rule files it)
        rf"{_PERSON} (?:now |currently |also |still )?works (?:at|for) (?:the )?{_ORG} as (?:an?|the) "
        rf"(?P<value>{_ROLE}){_ROLE_END}",
    ], "The user's {kind}{named} is {a} {value}.", _kin_fact(_role), confidence=0.7, importance=0.6),
    # What a named relative teaches is their role, as "I teach chemistry" is the user's.
    _rule("fact", "{person}_role", "teaches", [
        rf"{_PERSON} (?:now |currently |also |still )?teaches (?P<value>(?i:{_alternation(vocabulary.SCHOOL_SUBJECTS)}))"
        r"(?= at\b|\s*[.,;!]|\s*$)",
    ], "The user's {kind}{named} is {a} {value}.", _kin_fact(_teacher), confidence=0.7, importance=0.6),
    _rule("fact", "{person}_employer", "my our", [
        rf"{_PERSON} (?:(?:now |currently |also |still )?works (?:at|for)|(?:just |recently |finally )?got (?:hired|"
        rf"a (?:new )?job) (?:at|by|with)|is (?:now |currently |still )?"
        rf"(?:working (?:at|for)|employed (?:at|by))|(?:is|'s) (?:now |currently |also |still )?(?:an?|the) {_ROLE}"
        rf"(?<!student) (?:at|for)|(?:now |currently |also |still )?works as (?:an?|the) {_ROLE} (?:at|for)) (?:the )?"
        rf"(?P<value>{_ORG}){_NOT_TEMPORARY}",
    ], "The user's {kind}{named} works at {value}.", _kin_fact(_organisation), confidence=0.7, importance=0.6),
    # Where a named relative studies: their school, as "I'm a student at UCL" is the user's (not their employer)
    _rule("fact", "{person}_school", "student undergrad undergraduate postgrad postgraduate studies studying", [
        rf"{_PERSON} (?:is|'s) (?:now |currently |still )?(?:an?|the) (?:[A-Za-z][\w-]* ){{0,2}}?(?:student|undergrad|"
        rf"undergraduate|postgrad|postgraduate) (?:at|of) (?:the )?(?P<value>{_ORG}){_SCHOOL_END}",
        rf"{_PERSON} (?:now |currently |still )?(?:studies|is studying) (?:{_FIELDS_SAID} )?at (?:the )?"
        rf"(?P<value>{_ORG}){_NOT_TEMPORARY}{_SCHOOL_END}",
    ], "The user's {kind}{named} studies at {value}.", _kin_fact(_school), confidence=0.7, importance=0.6),
    _rule("fact", "{person}_city", "my our", [
        rf"{_PERSON} (?:(?:now |currently |also |still )?lives|is (?:now |currently |still )?(?:based|living)) in "
        rf"(?P<value>{_PROPER})",
    ], "The user's {kind}{named} lives in {value}.", _kin_fact(_not_an_organisation), confidence=0.7, importance=0.6),
    # their move, read as the user's own is ("My friend Kate just moved to Berlin"; not "moved to Google")
    _rule("fact", "{person}_city", "moved relocated", [
        rf"{_PERSON} (?:has |'s )?(?:just |recently |finally )?(?:moved|relocated) (?:back |over )?to "
        rf"(?P<value>{_PROPER}){_NOT_TEMPORARY}",
    ], "The user's {kind}{named} lives in {value}.", _kin_fact(_not_an_organisation), confidence=0.7, importance=0.6),
    # What a named child, relative or friend started: an event of their life, the user's to keep.
    _rule("event", "{person}_started", "started began", [
        rf"{_PERSON} (?:just |finally |recently )?(?:started|began) {_STARTED}{_PAST_WHEN}"
        r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:in|at|and|but|so|with|on)\b)",
    ], "The user's {kind}{named} started {value}{when}.", _kin_fact(_started), confidence=0.7, importance=0.6),
    # what someone in the user's life did before, or no longer does
    _rule("fact", "{person}_role", "used", [
        rf"{_PERSON} used to (?:be (?:an?|the)|work as (?:an?|the)) (?P<value>{_ROLE}){_ROLE_END}",
    ], "The user's {kind}{named} used to be {a} {value}.", _kin_fact(_role), confidence=0.7, importance=0.5,
          historical=True),
    _rule("fact", "{person}_role", "promoted became", [
        rf"{_PERSON} (?:just |recently |finally )?(?:got |was |has been |'s been )?(?:promoted to|became) (?:an? |the )?"
        rf"(?P<value>{_ROLE}|{_HEAD_OF}){_ROLE_END}",
    ], "The user's {kind}{named} is {a} {value}.", _kin_fact(_role), confidence=0.7, importance=0.6),
    _rule("fact", "{person}_employment_status", "retired", [
        rf"{_PERSON} (?:has |'s |just |recently |finally )*(?P<value>retired)(?=\s*(?:[.,;!]|$)|\s+(?:last|this|in|"
        rf"from|after|early|recently|a (?:year|few|couple)|(?:{_NUMBER}) (?:years?|months?))\b)",
    ], "The user's {kind}{named} is retired.", _kin_fact(_text), confidence=0.7, importance=0.6),
    # a job left, the one taken after it, a move between employers (_job_move) or places (_place_move)
    _rule("fact", "{person}_employer", "left quit longer", [
        rf"{_PERSON} (?:has |'s )?(?:just |recently |finally )?(?:left|quit) (?P<job>(?:her|his|their) (?:job|position|role) "
        rf"(?:at|with) )?(?:the )?(?!{_PLATFORMS})(?P<value>{_ORG}){_LEFT_END}",
        rf"{_PERSON} (?:is|'s) no longer (?P<job>at|with|working (?:at|for)) (?:the )?(?P<value>{_ORG})",
    ], "The user's {kind}{named} used to work at {value}.", _kin_fact(_person_left), confidence=0.7,
          importance=0.5, historical=True),
    _rule("fact", "{person}_employer", "joined", [
        rf"{_PERSON} (?:has |'s )?(?:just |recently |finally )?(?:left|quit) (?:(?:her|his|their) job at )?(?:the )?{_ORG},? "
        rf"(?:and|to) (?:join|joined|has joined) (?:the )?(?P<value>{_ORG}){_NOT_TEMPORARY}",
        rf"{_PERSON} (?:is|'s) no longer (?:at|with) (?:the )?{_ORG},? (?:and )?(?:she|he|they)(?:'s| has| have)? "
        rf"(?:just |recently )?joined (?:the )?(?P<value>{_ORG}){_NOT_TEMPORARY}",
    ], "The user's {kind}{named} works at {value}.", _kin_fact(_organisation), confidence=0.7, importance=0.6),
    _rule("fact", "{person}_employer", "moved switched went jumped transferred", [
        rf"{_PERSON} (?:has |'s )?{_ADVERBS}(?P<verb>moved|switched|went|jumped|transferred) (?:over )?from (?:the )?"
        rf"(?P<old>{_ORG}) to (?:the )?(?P<new>{_ORG})",
    ], "The user's {kind}{named} works at {value}.", _kin_fact(_someones_job_move("new")), confidence=0.7,
          importance=0.6),
    _rule("fact", "{person}_employer", "moved switched went jumped transferred", [
        rf"{_PERSON} (?:has |'s )?{_ADVERBS}(?P<verb>moved|switched|went|jumped|transferred) (?:over )?from (?:the )?"
        rf"(?P<old>{_ORG}) to (?:the )?(?P<new>{_ORG})",
    ], "The user's {kind}{named} used to work at {value}.", _kin_fact(_someones_job_move("old")), confidence=0.7,
          importance=0.5, historical=True),
    _rule("fact", "{person}_city", "moved relocated", [
        rf"{_PERSON} (?:has |'s )?{_ADVERBS}(?P<verb>moved|relocated) (?:back )?from (?P<old>{_PROPER}) to "
        rf"(?P<new>{_PROPER}){_NOT_TEMPORARY}",
    ], "The user's {kind}{named} lives in {value}.", _kin_fact(_place_move("new")), confidence=0.7, importance=0.6),
    _rule("fact", "{person}_city", "moved relocated used", [
        rf"{_PERSON} (?:has |'s )?{_ADVERBS}(?P<verb>moved|relocated) (?:back )?from (?P<old>{_PROPER}) to "
        rf"(?P<new>{_PROPER}){_NOT_TEMPORARY}",
    ], "The user's {kind}{named} used to live in {value}.", _kin_fact(_place_move("old")), confidence=0.7,
          importance=0.5, historical=True),
    # "My mom used to live in Cork but now she lives in Dublin": where they live now, said of them
    _rule("fact", "{person}_city", "used", [
        rf"{_PERSON} used to live in {_PROPER},? but (?:now )?(?:she|he|they) (?:now )?lives? in (?P<value>{_PROPER})",
    ], "The user's {kind}{named} lives in {value}.", _kin_fact(_not_an_organisation), confidence=0.7, importance=0.6),
    _rule("fact", "{person}_city", "used", [
        rf"{_PERSON} used to live in (?P<value>{_PROPER})",
    ], "The user's {kind}{named} used to live in {value}.", _kin_fact(_not_an_organisation), confidence=0.7,
          importance=0.5, historical=True),
    # where a child or a relative goes to school, or is in a year of it
    _rule("fact", "{person}_school", "goes attends year", [
        rf"{_PERSON} (?:now |currently |still )?(?:goes to|attends) (?:the )?(?P<value>{_ORG}){_NOT_TEMPORARY}",
        rf"{_PERSON} (?:is|'s) (?:now )?in (?:her|his|their) (?:first|second|third|fourth|final|last) year (?:at|of) "
        rf"(?:the )?(?P<value>{_ORG})",
    ], "The user's {kind}{named} studies at {value}.", _kin_fact(_school_gone_to), confidence=0.7, importance=0.6),
    _rule("fact", "{person}_school", "started began", [
        rf"{_PERSON} (?:just |finally |recently )?(?:started|began) (?:an?|her|his|their) {_DEGREE_SAID} at (?:the )?"
        rf"(?P<value>{_ORG}){_SCHOOL_END}",
    ], "The user's {kind}{named} studies at {value}.", _kin_fact(_school), confidence=0.7, importance=0.6),
    _rule("event", "{person}_started", "started began", [
        rf"{_PERSON} (?:just |finally |recently )?(?:started|began) (?:an?|her|his|their) (?P<value>{_DEGREE})"
        rf"(?: in {_FIELDS_SAID})?{_PAST_WHEN}(?=\s*(?:[^\w\s'-]|$)|\s+(?:in|at|and|but|so|with|on)\b)",
    ], "The user's {kind}{named} started {value}{when}.", _kin_fact(_started), confidence=0.7, importance=0.6),
    # their health, an allergy, a plan, a pet
    _rule("fact", "{person}_health_condition", "has got suffers lives diagnosed", [
        rf"{_PERSON} (?:has|'s got|has got|suffers from|lives with|(?:was|got|has been|'s been) diagnosed with) "
        rf"(?:(?:a|mild|severe|chronic|bad) )?(?P<value>(?i:{_alternation(vocabulary.HEALTH_CONDITIONS)}))"
        rf"(?![\w'-])(?!\s+(?:about|over|attacks?|before|when)\b)",
    ], "The user's {kind}{named} has {value}.", _kin_fact(_text), confidence=0.7, importance=0.7),
    _rule("fact", "{person}_allergy", "allergic", [
        rf"{_PERSON}(?: is|'s)(?: (?:very|severely|deathly|highly|really|quite|mildly|slightly|super|so))? allergic to "
        rf"(?P<value>{_listed(5)})",
        rf"{_PERSON}(?: is|'s) (?:{_NUMBER})(?: (?:years?|yrs?) old)? and (?:is )?allergic to (?P<value>{_phrase(5)})",
    ], "The user's {kind}{named} is allergic to {value}.", _kin_fact(_allergies), confidence=0.7, importance=0.8),
    # a move ahead, which will change where they live (a trip or a visit is theirs, not a fact of the user's)
    _rule("event", "{person}_plan", "moving relocating", [
        rf"{_PERSON} (?:is|'s) (?P<value>(?:moving|relocating)(?: to| back to)?(?: {_PROPER})? {_TRIP_WHEN})"
        r"(?=\s*(?:[.,;!?]|$)|\s+(?:for|with|because|to)\b)",
    ], "The user's {kind}{named} plans: {value}.", _kin_fact(_text), confidence=0.7, importance=0.5),
    _rule("fact", "{person}_pet_{animal}_{fact}", "named called name", [
        rf"{_PERSON}'s {_PET_ADJECTIVE}(?P<pet>(?i:{_alternation(_PETS)}))(?:'s name is| is called| is named) "
        rf"(?P<value>{_PROPER})",
        rf"{_PERSON} (?:has|'s got|has got|(?:just )?(?:got|adopted)) (?:an?|another) {_PET_ADJECTIVE}"
        rf"(?P<pet>(?i:{_alternation(_PETS)})){_NAMED} (?P<value>{_PROPER})",
        rf"{_PERSON} (?:has|'s got|has got|(?:just )?(?:got|adopted)) (?:an?|another) {_PET_ADJECTIVE}"
        rf"(?P<breed>{_BREED})(?: (?P<pet>(?i:{_alternation(_PETS)})))?{_NAMED} (?P<value>{_PROPER})",
        # a second pet named in the same breath: "My sister has a pug named Otis and a cat named Bean."
        rf"{_PERSON} (?:has|'s got|has got|(?:just )?(?:got|adopted)) (?:an?|another) {_PET_ADJECTIVE}"
        rf"(?:{_BREED}|(?i:{_alternation(_PETS)}))(?: (?i:{_alternation(_PETS)}))?{_NAMED} {_PROPER},? and (?:an?|another) "
        rf"{_PET_ADJECTIVE}(?P<pet>(?i:{_alternation(_PETS)})){_NAMED} (?P<value>{_PROPER})",
    ], "The user's {kind}{named} has {said}.", _kin_fact(_person_pet), confidence=0.7, importance=0.5),
    _rule("relation", "child_name", "have got are", [
        rf"{_HAVE} (?:(?:{_NUMBER}) )?(?:twin )?(?P<kind>sons|daughters|kids|children|boys|girls)[,:]? "
        rf"(?:(?:named|called) )?(?P<value>{_NAMES})",
        rf"{_HAVE} an? (?:son|boy|daughter|girl) and an? (?:son|boy|daughter|girl)(?P<kind>)[,:] (?:(?:named|called) )?"
        rf"(?P<value>{_NAMES})",
        rf"{_MY} (?P<kind>sons|daughters|kids|children|boys|girls) are (?:(?:named|called) )?(?P<value>{_NAMES})",
    ], "The user's {kind} is named {value}.", _children_named, confidence=0.75, importance=0.8),
    _rule("relation", "child_name", "my our", _CHILDREN_AGED, "The user's {kind} is named {value}.",
          _children_aged_names, confidence=0.75, importance=0.8),
    _rule("fact", "child_{who}_age", "my our", _CHILDREN_AGED, "The user's {kind}{named} is {value} years old.",
          _children_ages, confidence=0.75, importance=0.6),
    # a child born: "My husband and I just had a baby boy, Leo.", "We welcomed a baby girl named Ella"
    _rule("relation", "child_name", "had welcomed", [
        rf"(?:\b(?:I|[Ww]e)|\b(?i:my) (?:{_PARTNER_WORD}) and I|(?<![\w'])(?i:me) and my (?:{_PARTNER_WORD})) "
        rf"(?:just |recently |finally )?(?:had|welcomed) (?:(?:a|our (?:first|second|third|fourth)) )?(?:(?:little|new) )?"
        rf"(?P<kind>baby (?:boy|girl|son|daughter)|son|daughter|baby),?(?: (?:named|called))? (?P<value>{_PROPER})",
    ], "The user's {kind} is named {value}.", _child_born, confidence=0.75, importance=0.8),
    # a child named by where they come among the children: "My eldest, Sam, just turned 18."
    _rule("relation", "child_name", "eldest oldest youngest", [
        rf"{_MY} {_BIRTH_ORDER},? (?P<value>{_PROPER}),",
    ], "The user's {kind} child is named {value}.", _child_by_order, confidence=0.75, importance=0.8),
    _rule("fact", "relationship_status", "m am", [
        r"\bI(?:'m| am) (?:now |currently |happily )?(?P<value>single|married|divorced|widowed|engaged|separated)"
        + _strict_end("now", "again", "right now", "at the moment", "for now"),
    ], "The user is {value}.", _text, confidence=0.75, importance=0.7),
    # "Since my divorce I've been cooking for one": still divorced (not "after my divorce", which may
    # have been followed by anything)
    _rule("fact", "relationship_status", "divorce", [
        r"(?:^|(?<=[,;:] ))(?:(?i:ever) )?(?i:since) my divorce\b",
    ], "The user is divorced.", lambda m: [{"value": "divorced"}], confidence=0.7, importance=0.7),
    # A proposal to the user: "Sam proposed last night!", "My boyfriend popped the question" (engaged; the
    # partner's name the rule below files); not "Tom proposed a toast", "Harry proposed to Meghan".
    _rule("fact", "relationship_status", "proposed popped", [
        rf"(?:^|(?<=[,;:] ))(?:(?i:my) (?:{_PARTNER_WORD})(?:,? {_PROPER},?)?|(?!I\b){_PROPER}|(?i:he|she)) {_PROPOSED}",
    ], "The user is engaged.", lambda m: [{"value": "engaged"}], confidence=0.7, importance=0.7),
    _rule("relation", "partner_name", "proposed popped", [
        rf"(?:^|(?<=[,;:] ))(?P<value>(?!I\b){_PROPER}) {_PROPOSED}",
    ], "The user's partner is named {value}.", confidence=0.7, importance=0.8),
    # A partnership begun or ended, said of the user and no name: "I got married in June!", "We broke up",
    # "My wife and I divorced last year". An event: a divorce said so ends the current partner
    # (supersession.ENDED_BY_EVENT), where "I'm divorced" says only what the user is.
    _rule("event", "relationship_status", "got tied broke split separated divorced", [
        rf"\b(?:I|[Ww]e) {_ADVERBS}(?:got (?P<value>married|divorced|engaged)|tied the knot){_WED_PLACE}{_PARTED_WHEN}"
        rf"{_WED_PLACE}{_PARTING_END}",
        # "Daniel and I got engaged!", "My boyfriend and I got married", "Me and my girlfriend got engaged"
        rf"(?:^|(?<=[,;:] ))(?:(?!I\b){_CAPWORD} and I|(?i:my) (?:{_PARTNER_WORD}) and I|(?i:me) and my "
        rf"(?:{_PARTNER_WORD})) {_ADVERBS}(?:got (?P<value>married|engaged)|tied the knot){_WED_PLACE}{_PARTED_WHEN}"
        rf"{_WED_PLACE}{_PARTING_END}",
        rf"\b[Ww]e {_ADVERBS}(?P<verb>broke up|split up|split|separated){_PARTED_WHEN}{_PARTING_END}",
        rf"\b(?i:my) (?:{_PARTNER_WORD}) and I {_ADVERBS}(?P<verb>{_PARTED}){_PARTED_WHEN}{_PARTING_END}",
        # "Me and my husband got divorced", as people say it
        rf"(?<![\w'])(?i:me) and my (?:{_PARTNER_WORD}) {_ADVERBS}(?P<verb>{_PARTED}){_PARTED_WHEN}{_PARTING_END}",
        # a parting from an ex: "My ex-wife and I split up last year", "Me and my ex split up"
        rf"\b(?i:my) (?P<ex>ex(?:-?(?:{_PARTNER_WORD}))?) and I {_ADVERBS}(?P<verb>{_PARTED}){_PARTED_WHEN}{_PARTING_END}",
        rf"(?<![\w'])(?i:me) and my (?P<ex>ex(?:-?(?:{_PARTNER_WORD}))?) {_ADVERBS}(?P<verb>{_PARTED}){_PARTED_WHEN}"
        rf"{_PARTING_END}",
    ], "The user is {value}.", _status_after_parting, confidence=0.7, importance=0.7),
    # The day of a wedding, said with it, is the anniversary: "We got married on June 3rd 2019."
    _rule("fact", "anniversary", "married tied", [
        rf"\b(?:I|[Ww]e|(?i:my) (?:{_PARTNER_WORD}) and I) {_ADVERBS}(?:got married|tied the knot){_WED_PLACE} on (?:the )?"
        rf"(?P<value>(?:{_DATE})(?:,? (?:19|20)\d\d)?)(?![\w'-]){_WED_PLACE}{_PARTING_END}",
    ], "The user's wedding anniversary is {value}.", lambda m: [{"value": m.group("value")}], importance=0.7),
    # A spouse's death, an event that leaves the user widowed and ends the partner; "I'm a widow" and
    # "my late husband" say what the user is.
    _rule("event", "relationship_status", "passed died lost", [
        rf"\b(?i:my) {_SPOUSE}(?:,? {_PROPER},?)? {_DIED}{_DIED_OF}{_PARTED_WHEN}{_PARTING_END}",
        rf"\bI(?:'ve| have)? {_ADVERBS}lost (?i:my) {_SPOUSE}{_LOST_TO}{_PARTED_WHEN}{_PARTING_END}",
    ], "The user is widowed: their {kind} died.", _widowed, confidence=0.7, importance=0.7),
    _rule("fact", "relationship_status", "widow widower late", [
        r"\bI(?:'m| am) (?:now )?an? (?:young )?(?:widow|widower)(?![\w'-])",
        rf"\b(?i:my) late (?:{_PARTNER_WORD})\b",
    ], "The user is widowed.", lambda m: [{"value": "widowed"}], confidence=0.7, importance=0.7),
    _rule("relation", "partner_name", "passed died late", [
        rf"\b(?i:my) {_KIN_ADJECTIVE}(?P<kind>{_PARTNER_WORD}),? (?P<value>{_PROPER}),? {_DIED}",
        rf"\b(?i:my) late (?P<kind>{_PARTNER_WORD}),? (?P<value>{_PROPER})",
    ], "The user's late {kind} is {value}.", _late_partner, confidence=0.7, importance=0.6, historical=True),
    # A partner the user left or was left by, or an ex named as such: history, which ends them as the
    # current partner (supersession.ending).
    _rule("relation", "partner_name", "broke split separated divorced longer ex used was", [
        rf"\bI {_ADVERBS}(?:broke up|split up|split|separated) (?:with|from) (?:{_MY} (?:{_PARTNER_WORD}),? )?"
        rf"(?P<value>{_PROPER})",
        rf"(?:{_MY} (?:{_PARTNER_WORD}),? )?(?<![\w'])(?P<value>{_PROPER}),? and I {_ADVERBS}{_PARTED}"
        rf"(?: {_PARTING_WHEN})?{_PARTING_END}",
        rf"\bI(?:'m| am) no longer (?:dating|seeing|married to|engaged to) (?P<value>{_PROPER})",
        rf"\bI {_ADVERBS}divorced (?P<value>{_PROPER})",
        rf"\bI(?:'m| am| got) divorced from (?P<value>{_PROPER})",
        rf"\bI (?:used to be (?:married|engaged) to|used to (?:date|be with)|was (?:married|engaged) to) "
        rf"(?P<value>{_PROPER})",
        rf"{_MY} ex(?:-?(?:{_PARTNER_WORD}))?,? (?P<value>{_PROPER})",
    ], "The user's former partner is {value}.", _name, confidence=0.7, importance=0.6, historical=True),
    # "I'm no longer with Sam." may be a partner or a firm: it ends the partner only if Sam is the
    # current one (`ends_only`), as "I left Tom." ends only a current employer.
    _rule("relation", "partner_name", "longer", [
        rf"\bI(?:'m| am) no longer (?:with|together with) (?P<value>{_PROPER})",
    ], "The user's former partner is {value}.", _name, confidence=0.7, importance=0.6, historical=True,
          ends_only=True),
    # a child's age (_child_age)
    _rule("fact", "child_{who}_age", "son daughter eldest oldest youngest", [
        rf"{_MY} {_KIN_ADJECTIVE}{_CHILD}(?:,? (?P<name>{_PROPER}),?)?(?: is|'s) (?P<value>{_NUMBER})"
        rf"(?: (?:years?|yrs?) old| ?y/?o)?{_AGE_END}",
        rf"{_MY} {_KIN_ADJECTIVE}{_CHILD},? {_NAME_IS} (?P<value>{_NUMBER})(?: (?:years?|yrs?) old| ?y/?o)?{_AGE_END}",
        rf"{_MY} {_KIN_ADJECTIVE}{_CHILD}(?:,? (?P<name>{_PROPER}),?)? (?:just |recently )?turned (?P<value>{_NUMBER})"
        rf"{_TURNED_END}",
        rf"{_MY} {_KIN_ADJECTIVE}{_CHILD}(?:,? (?P<name>{_PROPER}),?)? (?:(?:is|'s) )?{_TURNING}",
    ], "The user's {kind}{named} is {value} years old.", _child_age, confidence=0.75, importance=0.6),
    # a baby's age in months, said with the relation ("My daughter Maya is 5 months old."): the unit kept,
    # as when said by the name alone (_aged_again), which then replaces it ("Maya is 6 months old now.")
    _rule("fact", "child_{who}_age", "months", [
        rf"{_MY} {_KIN_ADJECTIVE}{_CHILD}(?:,? (?P<name>{_PROPER}),?)?(?: is|'s) (?P<value>{_NUMBER}) months? old"
        rf"(?: now)?{_AGE_END}",
    ], "The user's {kind}{named} is {value} old.", _child_age_in_months, confidence=0.75, importance=0.6),
    # a relative's, a friend's or a colleague's age (_AGED_KIN)
    _rule("fact", "{person}_age", "is s turned turns turning", [
        rf"{_MY} {_KIN_ADJECTIVE}{_AGED_KIN}(?:,? (?P<name>{_PROPER}),?)?(?: is|'s) (?P<value>{_NUMBER})"
        rf"(?: (?:years?|yrs?) old| ?y/?o)?{_AGE_END}",
        rf"{_MY} {_KIN_ADJECTIVE}{_AGED_KIN},? {_NAME_IS} (?P<value>{_NUMBER})(?: (?:years?|yrs?) old| ?y/?o)?{_AGE_END}",
        rf"{_MY} {_KIN_ADJECTIVE}{_AGED_KIN}(?:,? (?P<name>{_PROPER}),?)? (?:just |recently )?turned (?P<value>{_NUMBER})"
        rf"{_TURNED_END}",
        rf"{_MY} {_KIN_ADJECTIVE}{_AGED_KIN}(?:,? (?P<name>{_PROPER}),?)? (?:(?:is|'s) )?{_TURNING}",
    ], "The user's {kind}{named} is {value} years old.", _kin_fact(_age), confidence=0.75, importance=0.6),
    # the user's car, one at a time
    _rule("fact", "car", "drive driving bought got own have leased car", [
        rf"\b(?:I|[Ww]e)(?:'ve| have)? {_ADVERBS}(?:drive|bought|got|own|have|leased) {_A_CAR}{_CAR}{_CAR_END}",
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are|'ve been| have been) {_ADVERBS}driving {_A_CAR}{_CAR}{_CAR_END}",
        rf"{_MY} (?:new |current )?car(?:'s| is) (?:an? )?{_CAR}{_CAR_END}",
    ], "The user drives {a} {value}.", _car, confidence=0.75, importance=0.6),
    _rule("fact", "car", "used previously sold traded rid scrapped", [
        rf"\b(?:I|[Ww]e) (?:used to (?:drive|have|own)|previously (?:drove|owned)) {_A_CAR}{_CAR}{_CAR_END}",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? {_ADVERBS}(?:sold|traded in|got rid of|scrapped) {_A_CAR}{_CAR}"
        rf"(?:{_CAR_END}|(?= to\b))",
    ], "The user used to drive {a} {value}.", _car, confidence=0.7, importance=0.5, historical=True),
    _rule("fact", "car", "sold rid scrapped car written totalled totaled stolen", [
        rf"\b(?:I|[Ww]e)(?:'ve| have)? {_ADVERBS}(?:sold|got rid of|scrapped) (?:my|our) (?:old )?car(?![\w'-])"
        rf"(?:{_CAR_END}|(?= to\b))",
        # "I don't have a car", "We don't own a car anymore"; not "a car seat", nor "a car today"
        rf"\b(?:I|[Ww]e) (?:(?:don't|do not|no longer)(?: even)? (?:have|own)|(?:haven't|have not) got) (?:an? )?"
        rf"car(?![\w'-]){_NO_CAR_END}",
        # "My car was written off in a crash", "our car got stolen": gone, as a car sold is
        rf"{_MY} (?:old )?car (?:was|got|has been|'s been) {_ADVERBS}(?:written off|totall?ed|stolen|scrapped)(?![\w'-])",
    ], "The user has no car now.", _no_car, confidence=0.7, importance=0.6),
    # Whether the user drives: "I can't drive", "I never learned to drive"; "I passed my driving test"
    _rule("fact", "drives", "drive", [
        r"\bI (?:can't|cannot|can not|don't|do not|never learned to|never learnt to) drive"
        r"(?=\s*(?:[.,;!)]|$)|\s+(?:and|but|so|because|yet|at all|either)\b)",
    ], "The user does not drive.", lambda m: [{"value": "no"}], confidence=0.7, importance=0.6),
    _rule("fact", "drives", "passed", [
        rf"\bI(?:'ve| have)? {_ADVERBS}passed my driving test(?![\w'-])",
    ], "The user drives.", lambda m: [{"value": "yes"}], confidence=0.7, importance=0.6),
    # A vehicle ridden that is no car, by its name: "I ride a Vespa to work", "I cycle to work on a Brompton"
    _rule("fact", "vehicle", "ride riding cycle commute", [
        rf"\bI(?:'m| am)? {_ADVERBS}(?:ride|riding|cycle(?: to work)? on|commute on) an? (?:(?:new|old|used|vintage) )*"
        rf"(?P<value>(?!{_NO_ONE}\b|Peloton\b){_PROPER})"
        r"(?=\s*(?:[^\w\s'&-]|$)|\s+(?:to|on|at|in|every|and|but|around|most|for|these days|now)\b)",
    ], "The user rides a {value}.", _text, confidence=0.65, importance=0.5),
    # one bought or owned, by its kind when no name is said: "I bought a bicycle." (not "a bike for my son")
    _rule("fact", "vehicle", "bought got own have", [
        rf"\bI(?:'ve| have)? {_ADVERBS}(?:bought|got|own|have) an? (?:(?:new|used|second-hand|old|electric) )*"
        rf"(?P<kind>{_alternation(_RIDDEN)}){_CAR_END}",
    ], "The user has a {value}.", lambda m: [{"value": _RIDDEN[m.group("kind").casefold()]}], confidence=0.65,
          importance=0.5),
    # the user's boat, as the car: what kind, the past once sold, "none" when sold without its kind
    _rule("fact", "boat", "have own bought got", [
        rf"\b(?:I|[Ww]e)(?:'ve| have)? {_ADVERBS}(?:have|own|bought|got) (?:an?|our|my) (?:(?:new|used|old|little) )?"
        rf"(?P<value>{_BOAT}){_CAR_END}",
    ], "The user has a {value}.", _text, confidence=0.7, importance=0.6),
    _rule("fact", "boat", "sold rid", [
        rf"\b(?:I|[Ww]e)(?:'ve| have)? {_ADVERBS}(?:sold|got rid of) (?:my|our|the) (?:old )?(?!boat\b)(?P<value>{_BOAT})"
        rf"(?:{_CAR_END}|(?= to\b))",
    ], "The user used to have a {value}.", _text, confidence=0.7, importance=0.5, historical=True),
    _rule("fact", "boat", "sold rid", [
        rf"\b(?:I|[Ww]e)(?:'ve| have)? {_ADVERBS}(?:sold|got rid of) (?:my|our|the) (?:old )?boat(?:{_CAR_END}|(?= to\b))",
    ], "The user has no boat now.", lambda m: [{"value": "none"}], confidence=0.7, importance=0.6),
    # a gym left: "I quit the gym", "I cancelled my gym membership" (not "I quit the gym for a month")
    _rule("fact", "gym_membership", "quit cancelled canceled gym", [
        rf"\bI(?:'ve| have)? {_ADVERBS}(?:quit|cancelled|canceled) (?:the|my) gym(?: membership)?{_QUIT_END}",
    ], "The user no longer goes to a gym.", lambda m: [{"value": "none"}], confidence=0.7, importance=0.5),
    # who the user lives with (_household)
    _rule("fact", "lives_with", "lives living live moved", [
        rf"{_HOUSEHOLD_NAMED} {_ADVERBS}(?:lives|live|is living|'s living|are living|has been living|'s been living|"
        rf"have been living) with (?:me|us){_HOME_END}",
        # "moved in", not "is moving in", which is ahead
        rf"{_HOUSEHOLD_NAMED} (?:has |have |'s )?{_ADVERBS}moved (?:back )?in with (?:me|us){_HOME_END}",
        rf"\b(?:I|[Ww]e)(?:{_LIVING}| {_ADVERBS}moved (?:back )?in) with (?:my|our) (?:(?:{_NUMBER}) )?{_KIN_ADJECTIVE}{_HOUSEHOLD}(?:,? (?P<name>{_PROPER}))?"
        rf"{_HOME_END}",
        # those one shares a home with, said without "my": "I live with two roommates in a tiny apartment"
        rf"\b(?:I|[Ww]e){_LIVING} with (?:(?:{_NUMBER}|a few|a couple of) |an? )(?P<who>(?i:roommates?|flatmates?|housemates?))(?P<name>)"
        rf"(?:{_HOME_END}|(?= in (?:an?|the) ))",
    ], "The user lives with their {value}{named}.", _household, confidence=0.7, importance=0.6),
    # a partner not named ("I live with my boyfriend"); one named is the partner's name rule's, and "I
    # moved in with my boyfriend" stays unfiled (test_who_the_user_lives_with)
    _rule("fact", "lives_with", "live living together", [
        rf"\b(?:I|[Ww]e){_LIVING} with (?i:my) (?P<value>(?i:{_PARTNER_WORD})){_HOME_END}(?!,? {_PROPER})",
        # "My girlfriend and I moved in together", "My husband and I live together"
        rf"{_MY} (?P<value>(?i:{_PARTNER_WORD})) and I {_ADVERBS}(?:moved in together|(?:live|are living|'re living) "
        rf"together){_HOME_END}",
    ], "The user lives with their {value}.", _household_partner, confidence=0.7, importance=0.6),
    # living alone: "I live alone now.", "I've been living on my own since May" (supersession ends those
    # lived with; one moving in ends it)
    _rule("fact", "lives_with", "live living alone own myself", [
        rf"\bI(?: {_ADVERBS}(?:live|am living|have been living)|'m {_ADVERBS}living|'ve {_ADVERBS}been living) "
        rf"(?:alone|on my own|by myself)"
        rf"{_HOME_END}",
    ], "The user lives alone.", lambda m: [{"value": "alone"}], confidence=0.7, importance=0.6),
    # Someone by name alone, opening the sentence: "Sam moved in with me." (a partner's name among them:
    # who it is the session may not say)
    _rule("fact", "lives_with", "moved", [
        rf"^(?P<value>(?!I\b|{_MONTH}|{_WEEKDAY}|{_NO_ONE}\b){_UPPER}[a-z'-]+) (?:has |'s )?{_ADVERBS}moved (?:back )?in with (?:me|us)"
        rf"{_HOME_END}",
    ], "The user lives with {value}.", _name, confidence=0.65, importance=0.6),
    _rule("fact", "lives_with", "moved", [
        rf"{_HOUSEHOLD_NAMED} (?:has |'s )?{_ADVERBS}moved out{_HOME_END}",
    ], "The user no longer lives with their {value}{named}.", _household, confidence=0.7, importance=0.5,
          historical=True),
    _rule("fact", "pet_{part}_name", "my our named called name have has got adopted rescued bought", [
        # not a pet whose end is said ("Our dog Rex died", "We lost our dog Rex"): the rule below
        rf"(?<!lost )(?<!rehomed )(?<!rehome )(?<!away ){_MY} {_PET}(?:'s name is| is called| is named| is|,)? "
        rf"(?P<value>{_PROPER}){_ENDED_AFTER}",
        rf"(?P<value>{_PROPER}) \((?i:my|our) {_PET}\)",
        rf"(?:{_HAVE}|{_GOT_PET}) (?:an?|another) {_PET_ADJECTIVE}{_PET}{_NAMED} (?P<value>{_PROPER})",
        rf"{_GOT_PET} (?:an?|another) {_PET_ADJECTIVE}{_PET}{_GOT_WHEN}(?:[.!]|,(?: and)?) "
        rf"(?i:her|his|its|their) name(?:'s| is) (?P<value>{_PROPER})",
        # named by the user in the same breath: "I just got a goldfish, I named him Bubbles."
        rf"(?:{_HAVE}|{_GOT_PET}) (?:an?|another) {_PET_ADJECTIVE}{_PET}{_GOT_WHEN}{_NAMED_HIM}(?P<value>{_PROPER})",
        # a second pet named in the same breath: "We have a dog called Bolt and a cat named Pixel.", "a
        # beagle named Pepper and a cat named Luna" (one said by its breed: the breed rule below)
        rf"(?:{_HAVE}|{_GOT_PET}) (?:an?|another) {_PET_ADJECTIVE}{_ONE_PET}{_NAMED} {_PROPER},? "
        rf"and (?:an?|another) {_PET_ADJECTIVE}{_PET}{_NAMED} (?P<value>{_PROPER})",
        # the name set after the pet, closing the sentence: "We adopted a second cat, Tofu."
        rf"(?:{_HAVE}|{_GOT_PET}) (?:an?|another) {_PET_ADJECTIVE}{_PET}, (?P<value>{_CAPWORD})(?=\s*(?:[.!]|$))",
        rf"{_NAME_BESIDE}(?P<value>{_CAPWORD}), (?i:my|our) {_PET_ADJECTIVE}{_PET}{_APPOSITION_END}{_ENDED_AFTER}",
    ], "The user's {kind} is named {value}.", _pet, confidence=0.75, importance=0.6),
    # a pet named after a counted list: "We have two cats and a dog named Rex."
    _rule("fact", "pet_{part}_name", "named called", [
        rf"(?:{_HAVE}|{_GOT_PET}) (?!no\b)(?:{_NUMBER}) {_PET_ADJECTIVE}(?i:{_alternation(_PET_PLURALS)}),? "
        rf"and (?:an?|another) {_PET_ADJECTIVE}{_PET}{_NAMED} (?P<value>{_PROPER})",
    ], "The user's {kind} is named {value}.", _pet, confidence=0.75, importance=0.6),
    # pets said in the plural, named as a list: "We have two cats, Miso and Tofu.", "Our dogs are called Pip and Max."
    _rule("fact", "pet_{part}_name", "have got adopted rescued bought my our", [
        rf"(?:{_HAVE}|{_GOT_PET}) (?:(?!no\b)(?:{_NUMBER}) )?{_PET_ADJECTIVE}{_PETS_SAID}(?:,? (?:named|called)|[,:])? "
        rf"(?P<value>{_NAMES})",
        rf"{_MY} (?:(?:{_NUMBER}) )?{_PET_ADJECTIVE}{_PETS_SAID}(?:,? (?:are )?(?:named|called)|,| are)? (?P<value>{_NAMES})",
    ], "The user's {kind} is named {value}.", _pets_named, confidence=0.75, importance=0.6),
    # how many of a kind the user has, named or not, and a kind said with "a": "we have two rabbits",
    # "I have a dog." (_pets_owned); not two dogs to walk, nor two cats staying for the week, nor "a dog
    # in this fight"
    _rule("fact", "{part}", "have got", [
        rf"{_HAVE} (?P<value>{_OWNED}(?:(?:,|,? and) {_OWNED}){{0,4}})"
        r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:and|but|so|named|called|too|now|at home)\b)",
    ], "The user has {said}.", _pets_owned, confidence=0.75, importance=0.6),
    # how many of a kind, said with "my" or "our" ("I live with my girlfriend and our two cats"), or after
    # a pet named ("I have a beagle called Louie and two cats"); not pets whose end is said ("our two
    # cats died")
    _rule("fact", "{part}", "my our named called", [
        rf"{_ENDED_BEFORE}{_MY} (?P<value>(?!one\b)(?:{_NUMBER}) {_PET_ADJECTIVE}{_PETS_SAID})(?![\w'-])"
        rf"(?!,? (?:are |were )?(?:{_PET_GONE}|down|away)\b)",
        rf"{_HAVE} an? {_PET_ADJECTIVE}{_ONE_PET}{_NAMED} {_PROPER},? and (?P<value>(?:{_NUMBER}) {_PET_ADJECTIVE}"
        rf"{_PETS_SAID})(?=\s*(?:[^\w\s'-]|$))",
    ], "The user has {said}.", _pets_owned, confidence=0.75, importance=0.6),
    # a pet got, without its name: "We adopted a puppy last week." ("We adopted two kittens" is what
    # was added, not how many there are: no count)
    _rule("fact", "pet_kind", "got adopted rescued", [
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?(?:got|adopted|rescued) (?:an?|another) "
        rf"{_PET_ADJECTIVE}{_PET}{_GOT_PET_END}(?![^.;!?]*?, an? [^.;!?,]*?{_NAMED} {_CAPWORD})"
        rf"(?!{_GOT_WHEN}(?:{_NAMED} |{_NAMED_HIM}){_CAPWORD})",
    ], "The user has {said}.", _pet_kind, confidence=0.7, importance=0.6),
    _rule("fact", "pet_{part}_{fact}", "have got adopted rescued bought my our mine", [
        rf"(?:{_HAVE}|{_GOT_PET}) an? {_PET_ADJECTIVE}(?P<breed>{_BREED})(?: (?P<kind>(?i:{_alternation(_PETS)})))?"
        rf"{_NAMED} (?P<name>{_PROPER})",
        # after someone else's pet or a question about pets: "Mine is a Maine Coon called Oscar" (the
        # breed says the kind; a breed alone, "Mine is a Persian", may be a rug)
        rf"^(?i:mine)(?: is|'s) an? {_PET_ADJECTIVE}(?!lab\b)(?P<breed>{_BREED})"
        rf"(?: (?P<kind>(?i:{_alternation(_PETS)})))?{_NAMED} (?P<name>{_PROPER})",
        # the breed and name set after the pet got: "We adopted a kitten last month, a ragdoll named Pixel"
        rf"{_GOT_PET} (?:an?|another) {_PET_ADJECTIVE}{_ONE_PET}(?: [a-z]+){{0,3}}?, an? {_PET_ADJECTIVE}"
        rf"(?P<breed>{_BREED})(?: (?P<kind>(?i:{_alternation(_PETS)})))?{_NAMED} (?P<name>{_PROPER})",
        # a second pet named in the same breath, said by its breed: "a cat named Luna and a corgi called Waffles"
        rf"(?:{_HAVE}|{_GOT_PET}) (?:an?|another) {_PET_ADJECTIVE}{_ONE_PET}{_NAMED} {_PROPER},? and (?:an?|another) "
        rf"{_PET_ADJECTIVE}(?P<breed>{_BREED})(?: (?P<kind>(?i:{_alternation(_PETS)})))?{_NAMED} (?P<name>{_PROPER})",
        # A breed alone ends its clause ("I have a lab meeting" is no dog), and "a lab" may be a laboratory.
        rf"(?:{_HAVE}|{_GOT_PET}) an? {_PET_ADJECTIVE}(?!lab\b)(?P<breed>{_BREED})"
        rf"(?: (?P<kind>(?i:{_alternation(_PETS)})))?(?=\s*(?:[^\w\s'&-]|$)|\s+(?:and|but|who|that|so)\b)",
        rf"{_MY} (?P<kind>(?i:{_alternation(_PETS)}))(?: (?P<name>{_PROPER}))? is an? (?P<breed>{_BREED})(?![\w-])",
        # A pet named beside its breed: "walked Biscuit, my beagle, this morning", "my beagle Biscuit";
        # not one whose end is said ("Bella, our beagle, passed away": the rule of a pet over, below)
        rf"{_NAME_BESIDE}(?P<name>{_CAPWORD}), (?i:my|our) {_PET_ADJECTIVE}(?P<breed>{_BREED})"
        rf"(?: (?P<kind>(?i:{_alternation(_PETS)})))?{_APPOSITION_END}{_ENDED_AFTER}",
        rf"{_ENDED_BEFORE}{_MY} {_PET_ADJECTIVE}(?!lab\b)(?P<breed>{_BREED}),? (?P<name>(?!I\b){_CAPWORD})(?![\w'&-])"
        rf"(?!\s+{_UPPER}){_ENDED_AFTER}",
        # A breed said with "my" and a word of a pet ("my rescue greyhound", "my beagle puppy"); alone, "my
        # Persian rug" or "my boxer shorts" may be no pet.
        rf"{_ENDED_BEFORE}{_MY} (?:{_PET_ADJECTIVES} ){{1,2}}(?!lab\b)(?P<breed>{_BREED})(?: (?P<kind>(?i:{_alternation(_PETS)})))?"
        rf"(?![\w'-])(?!,? {_CAPWORD}){_ENDED_AFTER}",
        rf"{_ENDED_BEFORE}{_MY} (?!lab\b)(?P<breed>{_BREED}) (?P<kind>(?i:{_alternation(_PETS)}))(?![\w'-]){_ENDED_AFTER}",
    ], "The user's {kind} {said} {value}.", _pet_breed, confidence=0.75, importance=0.6),
    _rule("fact", "pet_{part}_name", "used had", [
        rf"\b(?:I|[Ww]e) (?:used to have|had) an? {_PET_ADJECTIVE}{_PET}{_NAMED} (?P<value>{_PROPER})",
    ], "The user used to have a {kind} named {value}.", _pet, confidence=0.7, importance=0.5, historical=True),
    # A pet that died or was given away: history, which ends that pet's name (supersession.ending)
    # and nothing else (another pet of its kind, a count, stay as they were).
    _rule("fact", "pet_{part}_name", "died passed put give gave given rehome rehomed lost", [
        rf"{_MY} {_PET_ADJECTIVE}{_PET},? (?P<value>{_PROPER}),? {_PET_GONE}(?![\w'-])",
        rf"{_NAME_BESIDE}(?P<value>{_CAPWORD}), (?i:my|our) {_PET_ADJECTIVE}{_PET},? {_PET_GONE}(?![\w'-])",
        rf"{_PUT_DOWN},? (?P<value>{_PROPER}),? (?:down|away)\b",
        rf"{_GAVE_AWAY},? (?P<value>{_PROPER})",
    ], "The user used to have a {kind} named {value}.", _pet, confidence=0.7, importance=0.5, historical=True),
    # The same, of a pet not named: its kind ("My rabbit died.", "We had to give our cat away."), an
    # event, which ends the only pet of that kind; or said as the user's once ("I used to have a dog."),
    # a fact of the past, which ends no named pet (supersession.pet_ending)
    _rule("event", "pet_kind", "died passed put give gave given rehome rehomed lost", [
        rf"{_MY} {_PET_ADJECTIVE}{_PET} {_PET_GONE}(?![\w'-])",
        rf"{_PUT_DOWN} (?:down|away)\b",
        rf"{_GAVE_AWAY}{_LOST_END}",
    ], "The user used to have {said}.", _pet_kind, confidence=0.7, importance=0.5, historical=True),
    _rule("fact", "pet_kind", "used", [
        rf"\b(?:I|[Ww]e) used to (?:have|own) an? {_PET_ADJECTIVE}{_PET}{_USED_TO_END}",
    ], "The user used to have {said}.", _pet_kind, confidence=0.7, importance=0.5, historical=True),
    # A pet of a breed that died or was given away, named or not: "We had to put our beagle Pepper down",
    # "Bella, our beagle, passed away", "Our labrador died". Its name (or its kind) and its breed, as
    # history (_pet_gone_by_breed); an event, as the end of a pet of no breed is.
    _rule("event", "{part}", "died passed put give gave given rehome rehomed lost", [
        rf"{_MY} {_PET_ADJECTIVE}(?!lab\b){_BREED_SAID}(?:,? (?P<name>{_PROPER}),?)? {_PET_GONE}(?![\w'-])",
        rf"{_NAME_BESIDE}(?P<name>{_CAPWORD}), (?i:my|our) {_PET_ADJECTIVE}{_BREED_SAID},? {_PET_GONE}(?![\w'-])",
        rf"\b(?:I|[Ww]e) {_HAD_TO}(?:give|gave|given|put) (?:my|our) {_PET_ADJECTIVE}(?!lab\b){_BREED_SAID}"
        rf"(?:,? (?P<name>{_PROPER}),?)? (?:down|away)\b",
        rf"\b(?:I|[Ww]e) {_HAD_TO}(?:(?:give|gave|given) away|rehome|rehomed|lost) (?:my|our) {_PET_ADJECTIVE}(?!lab\b)"
        rf"{_BREED_SAID}(?:,? (?P<name>{_PROPER})|{_LOST_END})",
    ], "The user used to have {said}.", _pet_gone_by_breed, confidence=0.7, importance=0.5, historical=True),
    # Money and home: renting or owning where the user lives ("We rent a two-bed flat", "We just bought our
    # first house!"; a house bought in a named place is the city's rule), the bank, what is saved for.
    _rule("fact", "housing", "rent renting", [
        rf"\b(?:I|[Ww]e) {_ADVERBS}rent (?:an?|our|my|the) (?:[\w-]+ ){{0,3}}?(?:flat|apartment|house|place|home|room|"
        rf"studio|condo|bungalow|cottage)(?![\w'-])",
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are) {_ADVERBS}renting(?=\s*(?:[.,;!]|$)|\s+(?:for now|at the moment)\b|"
        r" (?:an?|our|my|the) (?:[\w-]+ ){0,3}?(?:flat|apartment|house|place|home|room|studio|condo)(?![\w'-]))",
    ], "The user rents their home.", lambda m: [{"value": "renting"}], confidence=0.65, importance=0.6),
    _rule("fact", "housing", "bought own", [
        rf"\b(?:I|[Ww]e)(?:'ve| have)? {_ADVERBS}bought (?:our|my) first (?:house|home|flat|apartment|place)"
        r"(?=\s*(?:[.,;!]|$)|\s+(?:and|but|so|last|this|together)\b)",
        rf"\b(?:I|[Ww]e) {_ADVERBS}own (?:our|my) (?:own )?(?:house|home|flat|apartment|place)(?=\s*(?:[.,;!]|$)|\s+(?:and|but|now)\b)",
    ], "The user owns their home.", lambda m: [{"value": "homeowner"}], confidence=0.65, importance=0.6),
    _rule("fact", "bank", "bank banking", [
        rf"\b(?:I|[Ww]e) {_ADVERBS}bank with (?P<value>{_ORG}){_ORG_END}",
        rf"{_MY} bank is (?P<value>{_ORG}){_ORG_END}",
    ], "The user banks with {value}.", _text, confidence=0.65, importance=0.5),
    _rule("fact", "saving_for", "saving", [
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are|'ve been| have been) {_ADVERBS}saving (?:up )?for (?P<a>an?|the|my|our) "
        rf"(?!rainy day\b)(?P<value>{_phrase(5)})",
    ], "The user is saving for {a} {value}.", lambda m: [{"value": m["value"], "a": m["a"]}], confidence=0.65,
          importance=0.5),
    # A baby on the way, the user's or their partner's: "We're expecting our second baby in May!", "I'm 20
    # weeks pregnant", "My wife is pregnant" (a partner named alone, "Sam is pregnant!", is _pregnant_again's).
    # Not "I'm expecting a call", nor someone else's pregnancy ("My sister is pregnant").
    _rule("fact", "expecting_baby", "expecting pregnant", [
        rf"\b(?:I|[Ww]e)(?:'re| are|'m| am) {_ADVERBS}expecting (?:(?:a|our|my) (?:(?:first|second|third|fourth|"
        rf"fifth|new|little|baby) )*(?:baby|child|kid)|twins|a (?:baby )?(?:boy|girl))(?![\w'-])",
        rf"\bI(?:'m| am) {_ADVERBS}(?:(?:{_NUMBER}|a few) (?:weeks?|months?) )?pregnant(?![\w'-])",
        rf"{_MY} (?P<who>(?i:{_PARTNER_WORD})) (?:is|'s) {_ADVERBS}(?:(?:{_NUMBER}|a few) (?:weeks?|months?) )?pregnant"
        rf"(?![\w'-])",
    ], "The user is expecting a baby.", lambda m: [{"value": "yes"}], confidence=0.7, importance=0.7),
    # health
    # An operation the user had ("I had knee surgery in March", "I'm recovering from hip replacement
    # surgery") and an injury ("I broke my wrist skiing", "tore my ACL"): events of the user's health, one
    # memory each, apart from the lasting conditions of health_condition. Only a body part or a named
    # procedure is read ("I had a big surgery" says nothing of what), and only the user's own ("my
    # brother broke his arm" is not).
    _rule("event", "surgery", "had underwent recovering surgery operation replacement transplant out removed", [
        rf"{had} (?:an? |my |some )?(?P<value>{_OPERATED}(?: {_PROCEDURE})?) (?:surgery|operation|op)(?![\w'-])"
        for had in (rf"\bI(?:'ve| have)? {_ADVERBS}(?:had|underwent|got)", rf"\bI(?:'m| am) {_ADVERBS}recovering from")
    ] + [
        rf"{had} (?:an? |my |some )?(?P<value>{_OPERATED} {_PROCEDURE})(?![\w'-])"
        for had in (rf"\bI(?:'ve| have)? {_ADVERBS}(?:had|underwent|got)", rf"\bI(?:'m| am) {_ADVERBS}recovering from")
    ] + [
        # "I had my appendix out", "had my tonsils removed": the removal
        rf"{had} (?:my |an? )?(?P<value>{_REMOVED}) (?:out|removed|taken out)(?![\w'-])"
        for had in (rf"\bI(?:'ve| have)? {_ADVERBS}(?:had|got)", )
    ], "The user had {value}.", _surgery, confidence=0.7, importance=0.6),
    _rule("event", "injury", "broke fractured tore sprained dislocated ruptured torn broken", [
        rf"\bI(?:'ve| have)? {_ADVERBS}(?P<verb>broke|broken|fractured|tore|torn|sprained|dislocated|ruptured) my "
        rf"(?:(?:left|right) )?(?P<value>{_INJURED})(?![\w'-])",
    ], "The user had a {value}.", _injury, confidence=0.7, importance=0.6),
    _rule("fact", "health_condition", "have got had suffer live diagnosed m am struggle deal suffering living "
          "struggling dealing get as", [
        rf"\bI(?: have|'ve got| have got|'ve had| have had| suffer from| live with| struggle with| deal with"
        rf"|(?:'ve| have) been (?:suffering from|living with|struggling with|dealing with)"
        rf"| (?:was|got|have been|'ve been) diagnosed with)"
        rf" (?:(?:a|mild|severe|chronic|bad) )?(?P<value>(?i:{_alternation(vocabulary.HEALTH_CONDITIONS)}))"
        rf"(?![\w'-])(?!\s+(?:about|over|attacks?|before|when)\b)",
        rf"^(?i:as) (?:someone|somebody|a person) (?:with|who has|living with) (?:(?:a|mild|severe|chronic|bad) )?"
        rf"(?P<value>(?i:{_alternation(vocabulary.HEALTH_CONDITIONS)}))(?:,\s*I\b(?! (?:{_RECALLED})\b)|$)",
        # a diagnosis says when it was made ("diagnosed with asthma when I was a kid"), where "I had
        # anxiety when I flew" says when it came
        rf"\bI (?:was|got|have been|'ve been) diagnosed with (?:(?:a|mild|severe|chronic|bad) )?"
        rf"(?P<value>(?i:{_alternation(vocabulary.HEALTH_CONDITIONS)}))(?![\w'-])(?= (?:when|as|at|in)\b)",
        # what comes back again and again: "I get really bad migraines"
        rf"\bI {_ADVERBS}get (?:(?:really|very|quite|pretty|such) )?(?:(?:bad|terrible|awful|severe|horrible|chronic) )?"
        rf"(?P<value>(?i:migraines|eczema|vertigo|sciatica|gout))(?![\w'-])(?!\s+(?:about|over|attacks?|before|when)\b)",
        rf"\bI(?:'m| am) (?P<value>(?i:{_alternation(vocabulary.CONDITION_ADJECTIVES)}))(?![\w'-])",
    ], "The user has {value}.", _condition, confidence=0.75, importance=0.85),
    # pastimes
    _rule("preference", "hobby", "hobby hobbies play playing taken took picked got gotten getting started go do pastime "
          "time practice practise", [
        rf"\b(?i:my) (?:favou?rite )?(?:hobby|hobbies|pastime|pastimes) (?:is|are|include) "
        rf"(?P<value>{_NOT_OBJECT}{_WORD}(?:\s+{_WORD}){{0,2}}?(?:(?:,| and) {_WORD}(?:\s+{_WORD}){{0,2}}?){{0,3}})"
        rf"{_PHRASE_END}",
        rf"\b(?:I|[Ww]e) {_ADVERBS}(?:play|practice|practise) (?:the )?"
        rf"(?P<value>(?i:{_alternation(vocabulary.PLAYED)}))(?![\w'-])",
        rf"\bI(?:'ve| have)? {_ADVERBS}(?:taken up|took up|picked up|got (?:really )?into|gotten (?:really )?into|started) "
        rf"(?P<value>(?i:{_alternation(vocabulary.HOBBIES)})){_PASTIME_END}",
        # "I've been getting into climbing" (and "Been getting into ...", read with its "I've")
        rf"\bI(?:'m| am|'ve been| have been) getting (?:really |more |properly )?into "
        rf"(?P<value>(?i:{_alternation(vocabulary.HOBBIES)})){_PASTIME_END}",
        rf"\b(?:I|[Ww]e) {_ADVERBS}(?:go|do|practice|practise) (?P<value>(?i:{_alternation(vocabulary.HOBBIES)}))"
        rf"{_PASTIME_END}",
    ], "The user's hobby is {value}.", _items, confidence=0.7, importance=0.5),
    # A pastime given up: "I stopped playing tennis", "I gave up climbing", "I don't play chess anymore"; the
    # past, which ends it if it is a current hobby. Not a break ("I quit running for a month").
    _rule("preference", "hobby", "stopped quit gave given play longer", [
        rf"\bI(?:'ve| have)? {_ADVERBS}(?:stopped|quit|gave up|given up) (?:playing (?:the )?)?"
        rf"(?P<value>(?i:{_alternation(vocabulary.PLAYED)}|{_alternation(vocabulary.HOBBIES)})){_QUIT_END}",
        rf"\bI (?:don't|do not) play (?:the )?(?P<value>(?i:{_alternation(vocabulary.PLAYED)})) (?=any ?more\b)",
        rf"\bI no longer play (?:the )?(?P<value>(?i:{_alternation(vocabulary.PLAYED)})){_QUIT_END}",
    ], "The user's hobby used to be {value}.", _text, confidence=0.7, importance=0.5, historical=True),
    # A pastime said as the user's routine: "back from my Saturday run", "my morning swim"; not "my
    # first run in months", nor "my weekly run to the shops".
    _rule("preference", "hobby", "my our", [
        rf"{_MY} (?:(?:usual|regular|daily|weekly|nightly|early|long) )?(?:{_WEEKDAY}|weekend|morning|evening|lunchtime|"
        rf"sunrise|daily|weekly|nightly|usual|regular|long) (?P<verb>{_alternation(_ROUTINES)})(?: (?:class|session))?"
        r"(?![\w'-])(?!\s+to\b)",
    ], "The user's hobby is {value}.", lambda m: [{"value": _ROUTINES[m.group("verb")]}], confidence=0.7,
          importance=0.5),
    _rule("preference", "hobby", "free spare time", [
        r"\bI (?P<verb>[a-z]+)(?: [a-z]+)?? in my (?:free|spare) time\b",
    ], "The user's hobby is {value}.", _pastime_verb, confidence=0.7, importance=0.5),
    # A pastime said with how often ("I swim three times a week"; not "I cycle to work every day"), or
    # as what the user is ("a keen cyclist") or does ("I run marathons").
    _rule("preference", "hobby", "every each once twice times weekends most daily regularly lot mondays tuesdays "
          "wednesdays thursdays fridays saturdays sundays work", [
        rf"\b(?:I|[Ww]e) {_ADVERBS}(?P<verb>[a-z]+) {_HOW_MUCH}{_HOW_OFTEN}(?![\w'-])",
    ], "The user's hobby is {value}.", _pastime_verb, confidence=0.7, importance=0.5),
    _rule("preference", "hobby", "run ran do did training m am as", [
        # "I ran the Lisbon half marathon last weekend"
        rf"\bI(?:'ve| have)? {_ADVERBS}(?:run|ran|do|did) (?:an? |my (?:first |second |third |\w+th )?|the (?:{_PROPER} )?)?"
        rf"{_RACE}",
        rf"\bI(?:'m| am) {_ADVERBS}training for (?:an? |my (?:first |second |third |\w+th )?)?{_RACE}",
        rf"\bI(?:'m| am) {_ADVERBS}training for (?:an? |my (?:first |second |third |\w+th )?)?(?:triathlons?|(?i:ironman))"
        rf"(?P<triathlon>)(?![\w'-])",
        rf"\bI(?:'m| am) an? (?:(?:keen|avid|passionate|big|huge|regular|serious|amateur|casual|weekend|lifelong|"
        rf"competitive) )?(?P<noun>{_alternation(_PASTIME_NOUNS)})"
        r"(?=\s*(?:[.,;:!?)]|$)|\s+(?:and|but|so|too|myself|now|these|since)\b)",
        # who the user is, said in passing: "As a keen cyclist, I ...", before a question (_APPOSITIVE)
        rf"^(?i:as) an? (?:(?:keen|avid|passionate|big|huge|regular|serious|amateur|casual|weekend|lifelong|"
        rf"competitive) )?(?P<noun>{_alternation(_PASTIME_NOUNS)})(?:,\s*I\b(?! (?:{_RECALLED})\b)|$)",
    ], "The user's hobby is {value}.", lambda m: [{"value": "triathlon" if m.groupdict().get("triathlon") is not None
                                                   else _PASTIME_NOUNS.get(m.groupdict().get("noun") or "", "running")}],
          confidence=0.7, importance=0.5),
    _rule("fact", "learning", "learning learn teaching", [
        rf"\bI(?:'m| am|'ve been| have been|(?:'ve| have)? (?:just |recently )?(?:started|begun|began)) "
        rf"(?:currently |now )?(?:learning|trying to learn|teaching myself) (?:how )?(?:to )?"
        # ending before when, where or how ("learning to surf this summer", "learning Welsh online"), or as a phrase
        rf"(?!(?:a lot|so much|more|from|about|what|lots)\b)(?P<value>{_NOT_OBJECT}{_WORD}(?:\s+{_WORD}){{0,4}}?"
        rf"(?=\s+(?:this|last|since|every|online|on|at the|with|for (?:a|two|three|a few|a couple of|several|"
        rf"the (?:past|last)) (?:days?|weeks?|months?|years?))\b)|{_phrase(5)})",
    ], "The user is learning {value}.", _text, confidence=0.7, importance=0.5),
    # things done, read and played, each under its kind (the items of a list, above)
    _rule("event", "activity", "went took visited been did tried", [
        rf"\b(?:I|[Ww]e)(?: all| both)? went (?P<value>(?i:{_alternation(vocabulary.HOBBIES)})){_OUTING_END}",
        rf"\b(?:I|[Ww]e)(?: all| both)? (?:went to|visited|(?:'ve|have) been to|took {_TAKEN} to) (?:the |a |an )?"
        rf"(?P<place>(?P<value>(?i:{_alternation(vocabulary.OUTINGS)})))(?![\w'-])",
        # a pastime tried once, as a class or a retreat: "I did a pottery class yesterday"
        rf"\b(?:I|[Ww]e)(?: all| both)? (?:went to|did|took|tried) (?:a|an|my first|our first) "
        rf"(?P<course>(?P<value>(?i:{_alternation(vocabulary.HOBBIES)}) (?:class|lesson|workshop|course|retreat))){_OUTING_END}",
    ], "The user went {said}.", _outing, confidence=0.7, importance=0.5),
    # a trip done: "We went to Japan in May", "Just got back from two weeks in Peru", "I flew to Toronto"
    _rule("event", "activity", "went flew traveled travelled drove took visited spent back was were", [
        rf"\b(?:I|[Ww]e)(?: all| both)? went (?:back )?to {_PLACE_VISITED}{_TRIP_FOR} (?P<when>{_TRIP_PAST})",
        rf"(?:^|[,;:]\s*)(?P<when>(?i:{_TRIP_PAST})),? (?:I|[Ww]e)(?: all| both)? went (?:back )?to {_PLACE_VISITED}",
        # being somewhere is a trip when it was lately ("I was in Berlin last week"); "I was in London in
        # 2015" may be a year lived there
        rf"\b(?:I|[Ww]e)(?: all| both)? (?:was|were) in {_PLACE_VISITED}{_TRIP_FOR} "
        rf"(?P<when>(?!in \d|last year|\w+ years ago){_TRIP_PAST})",
        rf"\b(?:I|[Ww]e)(?: all| both)? (?:{_TRIPPED} to|visited) {_PLACE_VISITED}(?:{_TRIP_FOR} (?P<when>{_TRIP_PAST}))?",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? {_ADVERBS}spent {_SPENT} (?:in|on|touring|exploring|travell?ing) {_PLACE_SPENT_IN}",
        # back from it, said now, with how long or what it was: "Just got back from two weeks in Peru", "Back
        # from a long weekend in Rome!" ("I'm back from Paris" may be from a day's work there)
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are| have| 've)? {_ADVERBS}(?:got |came |flew |arrived )?back from "
        rf"(?:(?:{_TRIP_SPAN}|(?:a|an|our|my) (?:[\w-]+ ){{0,2}}?(?:trip|holiday|vacation|weekend|week|honeymoon)) "
        rf"(?:in|to|around|through) ){_PLACE_SPENT_IN}",
    ], "The user went on a {value}{said}.", _trip, confidence=0.7, importance=0.5),
    # Being somewhere a year or more ago ("I was in London in 2015", "We were in Tokyo two years ago") is a
    # stay there, a visit or a year lived: filed as what it is sure to be, a stay then, never the current city.
    _rule("event", "activity", "was were", [
        rf"\b(?:I|[Ww]e)(?: all| both)? (?:was|were) in {_PLACE_VISITED}{_TRIP_FOR} "
        rf"(?P<when>in (?:19|20)\d\d|last year|(?:a|one|two|three|four|five|six|a few|a couple of) years ago)(?![\w'-])",
    ], "The user was in {place}{said}.", _stay, confidence=0.7, importance=0.5),
    _rule("fact", "book", "reading read finished reread", [
        rf"\bI(?:'m| am|'ve been| have been|(?:'ve| have)? (?:just |recently )?(?:started|finished)) {_ADVERBS}"
        rf"(?:re-?)?reading (?:the (?:book|novel) )?(?:{_TITLE}){_TITLE_END}",
        rf"\bI(?:'ve| have)? {_ADVERBS}(?:read|re-?read|finished) (?:the (?:book|novel) )?(?:{_TITLE}){_TITLE_END}",
        # the next book after the one finished, its "I" shared: "I finished Dune, now reading Project Hail Mary."
        rf"\bI(?:'ve| have)? {_ADVERBS}(?:read|finished) [^,;.!?]{{1,60}}[,;] (?:and )?(?:I'm )?(?:now|currently) "
        rf"(?:re-?)?reading (?:the (?:book|novel) )?(?:{_TITLE}){_TITLE_END}",
    ], "The user read {value}.", _title, confidence=0.7, importance=0.5),
    _rule("fact", "game", "play playing played game", [
        rf"\b(?:I|[Ww]e)(?:'ve been|'m| am| have been|'re| are)? {_ADVERBS}(?:play|playing|played) "
        rf"(?:{_TITLE}) on (?:my|the|our) {_CONSOLE}(?![\w'-])",
        rf"\b(?:I|[Ww]e|me)\b[^,.;:!?]{{0,40}}?\b(?:a|the) (?:(?:video|computer|mobile|online|new) )?game "
        rf"(?:called|named) (?:{_TITLE}){_TITLE_END}",
    ], "The user plays {value}.", _title, confidence=0.7, importance=0.5),
    # plans and dates
    _rule("event", "plan", "planning plan intend next tomorrow tonight this in on decided booked over at", [
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are) planning (?:to|on) (?P<value>{_phrase(8)})",
        # a decision taken, not yet done: "I've decided to quit my job in March"
        rf"\b(?:I|[Ww]e)(?:'ve| have) (?:just |finally |now )?decided to (?P<value>{_phrase(8)})",
        rf"\b(?i:my|our) (?:plan|intention) is to (?P<value>{_phrase(8)})",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |finally )?booked (?P<value>an? (?:trip|holiday|vacation|cruise|"
        rf"weekend away) to {_phrase(6)})",
        # what the user is going to do, with when, a week or more ahead: "I'm going to sell my car in June"
        # (not "I'm going to cry", which says no time, nor the errand of "I'm going to study the contract tonight")
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are) going to (?P<value>(?!be\b|go\b|have to\b)[a-z]+(?: {_WORD}){{0,5}}? "
        rf"(?!tonight|tomorrow|this (?:weekend|month)|on {_WEEKDAY}){_TRIP_WHEN})(?=\s*(?:[.,;!?]|$))",
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are) planning (?P<value>an? (?:trip|holiday|vacation|visit) to {_phrase(6)})",
        rf"\b(?:I|[Ww]e) (?:plan|intend) (?:to|on) (?P<value>{_phrase(8)})",
        # something to learn wanted with a time ahead is a plan ("I want to learn Japanese this year"), where
        # "I want to learn Japanese" alone may be a wish
        rf"\bI {_ADVERBS}(?:want|hope|aim) to (?P<value>learn (?:how to )?(?:{_WORD} ){{0,3}}?{_WORD} (?:this|next) "
        rf"(?:year|summer|autumn|fall|winter|spring))(?=\s*(?:[.,;!?]|$))",
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are) (?P<value>(?:going|flying|driving|heading|moving|relocating|travelling|"
        rf"traveling|getting married|visiting)(?: to| back to)?(?: {_PROPER}{_TRIP_FOR}| (?<=visiting )(?:my|our) "
        rf"[a-z]+(?:-in-law)?s?(?: in {_PROPER})?)? {_TRIP_WHEN})"
        # what the trip is for may follow: "relocating to Copenhagen next year for my husband's job"
        r"(?=\s*(?:[.,;!?]|$)|\s+(?:for|with|because|to)\b)",
        # a race ahead: "I'm doing the London half marathon in April" ("doing" is no plan by itself)
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are) (?P<value>(?:doing|running|racing) (?:the|a|my first) (?:{_WORD} ){{0,3}}?"
        rf"(?:{_RACE}|triathlons?|ironman) {_TRIP_WHEN})(?=\s*(?:[.,;!?]|$))",
        # Anything else the user is doing weeks or months ahead: "we're hosting Thanksgiving this
        # year"; not an errand of tonight ("I'm cooking dinner tonight") nor how they feel or what
        # they think ("I'm feeling better next week").
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are) (?P<value>(?!{_NOT_PLANS}\b)[a-z]+ing(?: {_WORD}){{0,5}}? {_LATER})"
        r"(?=\s*(?:[.,;!?]|$))",
        # where the user will be: "I'll be in Tokyo next week"
        rf"\b(?:I|[Ww]e)(?:'ll| will) be (?P<value>in {_PROPER} {_TRIP_WHEN})(?=\s*(?:[.,;!?]|$)|\s+(?:for|with)\b)",
        # the time said first: "Next month I'm moving to Leeds"
        rf"(?:^|[,;:]\s*)(?P<when>(?i:{_TRIP_WHEN})),? (?:I|[Ww]e)(?:'m|'re| am| are) (?P<value>(?:going|flying|driving|"
        rf"heading|moving|relocating|travelling|traveling|visiting)(?: to| back to)? {_PROPER}{_TRIP_FOR})"
        r"(?=\s*(?:[.,;!?]|$)|\s+(?:for|with|because)\b)",
    ], "The user's plan: {value}.", _plan, confidence=0.7, importance=0.6),
    # A job said before it starts: "Starting at Notion in April", "I start at Notion next month", "my
    # first day at Notion is Monday". A plan, not the employer: until it starts, the employer is still
    # the old one; on the day it names it becomes the employer (job_start.py, pipeline.start_jobs), unless
    # the employer named before then ends it (supersession.py). Filed as the job to come (`next_job`),
    # not among the other plans, so that a question about work finds it after the current job
    # (retrieval/topics.py). Joining takes a time months ahead or a role ("I'm joining Sam
    # tomorrow" is an errand); one starts "at" a job ("I'm starting with React next week" is a tool).
    _rule("event", "next_job", "start starting starts begin beginning begins join joining first date", [
        rf"\bI(?:'m| am) {_ADVERBS}(?P<verb>starting) {_NEW_JOB}at (?:the )?(?P<org>{_ORG}),? "
        rf"(?P<when>{_START_WHEN})",
        rf"\bI(?:'m| am) {_ADVERBS}(?P<verb>starting) (?P<when>{_START_WHEN}) at (?:the )?(?P<org>{_ORG})",
        rf"\bI {_ADVERBS}(?P<verb>start) {_NEW_JOB}at (?:the )?(?P<org>{_ORG}),? (?P<when>{_START_WHEN})",
        rf"\bI(?:'ll| will)(?: be)? {_ADVERBS}(?P<verb>start|starting) {_NEW_JOB}at (?:the )?(?P<org>{_ORG})"
        rf"(?:,? (?P<when>{_START_WHEN}))?",
        rf"\bI(?:'m| am) (?:going|due|set|about) to (?P<verb>start) {_NEW_JOB}at (?:the )?(?P<org>{_ORG})"
        rf"(?:,? (?P<when>{_START_WHEN}))?",
        rf"\bI(?:'m| am| will be|'ll be) {_ADVERBS}(?P<verb>joining) (?:the )?(?!{_PLATFORMS})(?P<org>{_ORG}),? "
        rf"(?:(?P<when>{_LATER})|(?=as (?:an?|the) {_ROLE}))",
        rf"\bI(?:'ll| will) {_ADVERBS}(?P<verb>join) (?:the )?(?!{_PLATFORMS})(?P<org>{_ORG}),? "
        rf"(?:(?P<when>{_LATER})|(?=as (?:an?|the) {_ROLE}))",
        rf"\b(?i:my) (?P<verb>first day|start date) at (?:the )?(?P<org>{_ORG}),? (?:is|will be|starts|begins) "
        rf"(?P<when>{_START_WHEN})",
        # The start said after a job taken ("I signed with Netflix, starting Monday"), or first
        # ("Tomorrow is my first day at Notion", "Next month I start at Canva").
        rf"(?:{_CURRENT_JOB}) {_ORG_INTRO}(?P<org>{_ORG}){_STARTS_LATER}",
        rf"{_AHEAD_WHEN}(?i:my) (?P<verb>first day) at (?:the )?(?P<org>{_ORG})",
        # said without "my", opening the sentence, with when and a word of work or of the job left: "First day
        # at Twilio tomorrow, said goodbye to everyone at Canva" ("First day at Yosemite tomorrow!" is a visit)
        rf"^(?=[^.;]*?\b(?i:jobs?|role|team|colleagues|co-?workers|goodbye|farewell)\b)"
        rf"(?:(?i:so|and|oh|ok|okay),? )?(?P<verb>(?i:first day)) at (?:the )?(?P<org>{_ORG}),? (?P<when>{_START_WHEN})",
        rf"(?:^|[,;:]\s*)(?P<when>(?i:{_START_WHEN})),? I(?:'m| am|'ll| will)?(?: be)? {_ADVERBS}(?P<verb>start|starting) "
        rf"{_NEW_JOB}at (?:the )?(?P<org>{_ORG})",
        rf"(?:^|[,;:]\s*)(?P<when>(?i:{_LATER})),? I(?:'m| am|'ll| will)?(?: be)? {_ADVERBS}(?P<verb>join|joining) "
        rf"(?:the )?(?!{_PLATFORMS})(?P<org>{_ORG})",
    ], "The user's plan: {value}.", _job_ahead, confidence=0.7, importance=0.6),
    # A job to come called off, by the user or the employer: "The Twilio offer fell through.", "I turned
    # down the Twilio job.", "I'm not taking the job at Twilio after all.", "Twilio rescinded my offer."
    # Said as the job to come over (historical), kept only when it names a current one, which it ends
    # (supersession.ending), so that its day makes nothing of it (pipeline.start_jobs). Only the user's
    # ("my sister turned down a job at Twilio" is hers); nervous about the job or a contract sent is no end.
    _rule("fact", "next_job", "fell through turned down declined not rescinded withdrew withdrawn pulled", [
        rf"\b(?:[Tt]he|[Mm]y) (?P<value>{_ORG}) (?:job )?offer (?:fell through|was (?:withdrawn|rescinded|pulled))",
        rf"\b(?:[Tt]he|[Mm]y) (?:job )?offer (?:from|at) (?P<value>{_ORG}) (?:fell through|was (?:withdrawn|rescinded|pulled))",
        rf"\bI {_ADVERBS}(?:turned down|declined) (?:the |my )?(?P<value>{_ORG}) (?:job|offer|role|position)\b",
        rf"\bI {_ADVERBS}(?:turned down|declined) (?:the |my |their )?(?:job |role |position )?(?:offer )?"
        rf"(?:at|from|with) (?P<value>{_ORG})",
        rf"\bI(?:'m| am) not (?:taking|accepting|joining) (?:the (?:job|offer|role|position) (?:at|from|with) "
        rf"(?P<value>{_ORG})|the (?P<value2>{_ORG}) (?:job|offer|role|position)|(?P<value3>{_ORG}))(?:,)? after all",
        rf"(?:^|[,;:]\s*)(?P<value>{_ORG}) (?:rescinded|withdrew|pulled) (?:my|the) (?:job )?offer",
    ], "The user's job to come at {value} was called off.", _called_off, confidence=0.7, importance=0.6,
          historical=True, ends_only=True),
    # The job to come called off without its name ("The new job got cancelled.": the one current), or by
    # staying at the job the user has ("Decided to stay at Canva."): it ends the only job to come.
    _rule("fact", "next_job", "cancelled canceled fell called", [
        r"\b(?:[Tt]he|[Mm]y) new (?:job|role|position)(?: offer)? (?:got|was|has been) (?:cancell?ed|called off|withdrawn|"
        r"rescinded|pulled)(?P<value>)",
        r"\b(?:[Tt]he|[Mm]y) new (?:job|role|position)(?: offer)? fell through(?P<value>)",
    ], "The user's new job was called off.", _called_off, confidence=0.7, importance=0.6,
          historical=True, ends_only=True),
    _rule("fact", "next_job", "stay staying", [
        # a place stayed at is no job kept: "at the Hilton", "at Grandma's", "at Mia's for the night"
        rf"(?:^|\bI(?:'ve| have)? )(?:[Dd]ecided|chose) to stay at (?P<stay>(?!the\b){_ORG})(?<!'s)(?<!’s)(?P<value>)"
        r"(?=\s*(?:[.;!]|$|,? (?:instead|after all|rather)\b))",
        rf"\bI(?:'m| am) staying at (?P<stay>(?!the\b){_ORG}) after all(?P<value>)",
    ], "The user decided to stay at {stay}: the new job was called off.", _called_off, confidence=0.7,
          importance=0.6, historical=True, ends_only=True),
    _rule("fact", "{part}", "birthday anniversary", [
        rf"\b(?i:my|our) (?P<thing>birthday|(?:wedding )?anniversary)(?: is|'s) (?:on )?(?:the )?(?P<value>{_DATE})(?![\w])",
    ], "The user's {thing} is {value}.", lambda m: [{"value": m.group("value"), "thing": m.group("thing"),
                                                     "part": _snake(m.group("thing")).removeprefix("wedding_")}],
          importance=0.7),
    _rule("event", "{part}", "appointment appt", [
        rf"\b(?i:my|our|the) {_APPOINTMENT_OF}(?P<thing>[a-z]+(?:'s)? )?(?:appointment|appt) (?:is|'s|is now|"
        rf"has been moved to|was moved to|got moved to|moved to) (?:on |to )?(?:the )?{_DAY}",
    ], "The user's {thing}appointment is on {value}.", _appointment, importance=0.6),
    # how the user wants to be answered
    _rule("preference", "preference_answer_length", "keep answers replies responses", [
        rf"{_PLEASE}(?i:keep) (?:your |the |all )?{_ANSWERS}(?: to me)? (?:(?:really|very|nice and|super|quite) )?"
        rf"{_LENGTH}(?![\w'-])",
        rf"\bI (?:(?:really|much|generally|usually|would) )*prefer {_LENGTH} {_ANSWERS}\b",
        rf"{_PLEASE}{_LENGTH} {_ANSWERS} (?:are|would be) (?:(?:totally|perfectly|absolutely|also|actually) )?"
        r"(?:fine|ok|okay|good|great|better|welcome|preferred|best)\b",
    ], "The user wants {value} answers.", _answer_length, confidence=0.75, importance=0.7),
    _rule("preference", "preference_answer_language", "answer reply respond write talk speak prefer", [
        rf"{_PLEASE}(?i:answer|reply|respond|write|talk|speak)(?: to me| back)? in {_LANGUAGE}"
        r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:from now on|please|only|always)\b)",
        rf"\bI (?:(?:really|much|generally|usually|would) )*prefer {_ANSWERS}(?: to be)? in {_LANGUAGE}",
    ], "The user wants answers in {value}.", _text, confidence=0.75, importance=0.7),
    _rule("preference", "preference_emojis", "emojis emoji", [
        rf"{_PLEASE}(?:(?i:don't|do not|never|stop|quit) (?:use|using|send|sending|put|putting) (?:any )?emojis?"
        rf"|(?i:no) (?:more )?emojis?(?=\s*(?:[^\w\s'-]|$)|,? (?:please|pls|thanks)\b))(?![\w'-])",
        rf"{_PLEASE}(?P<yes>(?i:feel free to|go ahead and|you can|you may)) use emojis?(?![\w'-])",
    ], "The user {said}.", _emojis, confidence=0.75, importance=0.7),
    # likes and opinions
    _rule("preference", "likes", "love like enjoy adore fan into", [
        r"\bI (?:(?:really|absolutely|just|also|totally|truly|do|genuinely|kinda) )*(?:love|like|enjoy|adore) "
        rf"(?P<value>{_WORDS_LISTED}|{_phrase(8)})",
        rf"\bI(?:'m| am) a (?:big |huge )?fan of (?P<value>{_WORDS_LISTED}|{_phrase(8)})",
        rf"\bI(?:'m| am) (?:really |so |very |big |totally )?into (?P<value>{_WORDS_LISTED}|{_phrase(6)})",
    ], "The user likes {value}.", _list_items, confidence=0.7, importance=0.5),
    _rule("preference", "dislikes", "hate dislike detest loathe stand like enjoy fan handle stomach tried tasted", [
        r"\bI (?:(?:really|absolutely|just|also|totally|truly|kinda) )*(?:hate|dislike|detest|loathe|can't stand|"
        rf"cannot stand|don't like|do not like|don't enjoy) (?!to\b)(?P<value>{_WORDS_LISTED}|{_phrase(8)})",
        rf"\bI(?:'m| am) not (?:a |a big )?fan of (?P<value>{_WORDS_LISTED}|{_phrase(8)})",
        # the thing said first: "I think cilantro tastes like soap, I hate it.", "Olives, I can't stand them."
        rf"\bI (?:really |honestly )?think (?P<value>{_DISLIKED}) (?:tastes?|smells?|looks?|sounds?|feels?) like "
        rf"[^,.;!?]+[,;] (?:and |so )?{_HATE_IT}",
        rf"^(?P<value>{_DISLIKED})(?:,|:|\s+[—–-]) {_HATE_IT}",
        rf"\bI (?:once |finally )?(?:tried|tasted) (?P<value>{_TRIED})(?: (?:once|before|recently|"
        rf"for the first time|last (?:night|week|month|year)))?(?:[,.;!] | ){_HATED_IT}",
    ], "The user dislikes {value}.", _list_items, confidence=0.7, importance=0.5),
    _rule("preference", "prefers", "prefer", [
        r"\bI (?:(?:generally|usually|really|much|strongly|always) )*prefer "
        rf"(?!{_ANSWER_PREFERRED})(?P<value>{_NOT_OBJECT}{_WORD}(?:\s+{_WORD}){{0,7}}?)"
        rf"(?:(?=\s+(?:over|rather than|instead of|than|to)\s)|{_PHRASE_END})",
    ], "The user prefers {value}.", _text, confidence=0.7, importance=0.5),
    # A team supported, by name: "I support Celtic", "I've supported Leeds United since I was six", "I'm a
    # season ticket holder at Leeds United". A party, a politician or a country supported is no team.
    _rule("preference", "favorite_team", "support supported season supporter fan follow followed", [
        rf"\bI(?:'ve| have)? {_ADVERBS}(?:support|supported) (?P<value>(?!{_MONTH}|{_WEEKDAY}|{_NOT_A_TEAM}){_PROPER})"
        + _strict_end("since", "and", "but", "though", "all", "through", "my whole", "ever", "like"),
        # "I support the Green Bay Packers": after "the", a team's plural name or a known team ("the NHS" is none)
        rf"\bI(?:'ve| have)? {_ADVERBS}(?:support|supported|follow|followed) {_TEAM}",
        rf"\bI(?:'ve| have)? {_ADVERBS}(?:support|supported) the (?P<value>(?:{_CAPWORD} ){{0,2}}"
        rf"(?!{_NOT_A_TEAM}){_UPPER}[\w-]*[a-z]s)(?![\w'&-])(?!\s+{_UPPER})",
        # "Big Arsenal fan since I was a kid", "I'm a die-hard Celtics fan": a fan of a known team or a club
        rf"(?:^|\bI(?:'m| am) )(?:(?i:an?) )?(?:(?i:big|huge|massive|lifelong|life-long|die-hard|diehard|proud|loyal|"
        rf"long-suffering|long-time|longtime) )*{_TEAM} fan(?![\w'-])",
        rf"\bI(?:'m| am)? {_ADVERBS}(?:have )?(?:an? )?season ticket(?: holder)? (?:at|for|with) (?P<value>{_PROPER})",
        # "I'm a lifelong Liverpool supporter", "Lifelong Celtic supporter here": a supporter is a team's ("a big
        # Arsenal fan" may be a band's: not read)
        rf"(?:^|\bI(?:'m| am) )(?:(?i:an?) )?(?:(?i:big|huge|massive|lifelong|life-long|die-hard|diehard|proud|loyal) )*"
        rf"(?P<value>(?!{_NOT_A_TEAM}){_PROPER}) supporter(?![\w'-])",
    ], "The user supports {value}.", confidence=0.7, importance=0.5),
    _rule("preference", "favorite_{part}", "favorite favourite", [
        rf"\b(?i:my) (?:all[- ]time |absolute )?favou?rite (?P<thing>{_WORD}(?:\s+{_WORD}){{0,2}}?)"
        # "is actually X", "is now X": a correction's or a change's word, not the favourite's
        rf"(?: is|'s| (?P<verb>are))(?: (?i:actually|now|still|definitely|really|honestly|currently))? "
        rf"(?P<value>{_listed(6)})",
    ], "The user's favorite {thing} is {value}.", _favorite, confidence=0.75, importance=0.5),
    _rule("opinion", "opinion_about_{part}", "think believe feel reckon mind", [
        r"(?:\bI (?:(?:really|honestly|personally|kinda|now|actually) )*(?:think|believe|feel like|feel that|reckon)"
        r"(?: that)?|\bI(?:'ve| have)? changed my mind[:,;—–-]*) "
        r"(?P<topic>(?!(?:it|that|this|you|he|she|they|we|I|my|our|your|his|her|their|there|what|which|"
        rf"everything|nothing|something|anything|everyone|someone|nobody)\b){_WORD}(?:\s+{_WORD}){{0,3}}?) "
        r"(?P<verb>is|are) "
        rf"(?:(?:{_alternation(_INTENSIFIERS)}|kind of|a bit) )?(?P<value>{_alternation(_EVALUATIONS)})"
        + _strict_end("and", "for", "to", "in", "if", "these days", "nowadays", "honestly", "tbh", "imo", "though"),
    ], "The user thinks {topic} {verb} {value}.", _opinion, confidence=0.6, importance=0.4),
]


# A question may take for granted who someone is: "What should I get my wife Anna for her birthday?",
# "Is chocolate bad for my dog Rex?". Only such a name is read from a question; not when the question
# is what to call them ("Should I name my son Leo?"), nor in a hypothetical ("What if my ...").
_NAMING = r"(?<!\bname )(?<!\bnamed )(?<!\bnaming )(?<!\bcall )(?<!\bcalled )(?<!\bcalling )(?<!\brename )"
_ASKED_UNSURE = frozenset("if unless whether wish suppose supposing imagine pretend assume dream".split())
# A question about someone lost ("Why did my dog Rex die so young?") names no one the user has now.
_ASKED_GONE = re.compile(r"\b(?:die|died|dying|dead|death|passed|pass away|put \w+ down|lost|losing|miss|missing|"
                         r"gone|late|ex|former|divorce|divorced|divorcing|rehome|rehomed|rehoming)\b", re.IGNORECASE)
_ASKED_RULES = [
    _rule("relation", "{part}_name", "my our", [
        rf"{_NAMING}{_NOT_AFTER_PARTING}{_MY} {_KIN_ADJECTIVE}{_RELATION},? (?P<value>{_PROPER})",
    ], "The user's {kind} is named {value}.", _relation, confidence=0.75, importance=0.8),
    _rule("fact", "pet_{part}_name", "my our", [
        rf"{_NAMING}{_ENDED_BEFORE}{_MY} {_PET},? (?P<value>{_PROPER}){_ENDED_AFTER}",
    ], "The user's {kind} is named {value}.", _pet, confidence=0.75, importance=0.6),
]


# --- sentences and clauses ------------------------------------------------------------------

# A sentence ends after . ! or ?, but not after "St." or "Dr.", nor before "His name is ...", which names
# what the sentence before it spoke of (_NAMED).
_SENTENCES = re.compile(r"(?<=[.!?])(?<!\b[SM]t\.)(?<!\bFt\.)(?<!\bDr\.)(?<!\bM[rs]\.)(?<!\bMrs\.)\s+"
                        rf"(?!\s|(?:His|Her|Its|Their) name(?:'s| is)\b|(?:I|We) (?:named|called) (?:him|her|it|them) |{_HATED_IT})|\n+")
# A sentence longer than this is not read: a statement of a fact is short (the longest sentence the
# rules extract from in LoCoMo-dev is 146 characters, the longest of all 177), and a run-on of
# thousands of characters is a paste, not a statement; reading it would cost every rule a scan.
MAX_SENTENCE_CHARS = 1000
# "I live in Lisbon, what about you?" still states where the user lives: a question whose last
# clause starts with one of these words keeps what comes before that clause. So does a request made
# after a fact said in passing ("I'm allergic to nuts, which granola is safe?", "I work at Deloitte,
# so can you explain an audit?"), unless what comes before is itself asked ("Do I live in Lisbon,
# what do you think?", "Can you tell me if I'm vegan, or is it the cheese?").
_TAG_SEPARATORS = ",;:—–"
_TAG_QUESTION = re.compile(r"\s*(?:(?:so|then) )?(?:what|how|do|does|did|are|is|can|could|would|will|have|any|and|you|right|"
                           r"which|where|who|when|why|should|shall|suggestions|ideas|tips|thoughts|recommendations)\b",
                           re.IGNORECASE)
_ASKED = re.compile(r"(?:what|how|why|where|when|who|which|whose|can|could|would|will|should|shall|do|does|did|is|are|"
                    r"am|may|might)\b", re.IGNORECASE)
# Who the user is, said before a question ("As a nurse, how should I sleep?", "As someone with ADHD, how
# do I study?"), is kept when the question speaks of the user as "I" or "me", or of no one ("As a nurse
# working nights, what's the best way to sleep?"): "As a nurse, can you explain wound care?" asks the
# agent to play a part, "As a firefighter, what would my day look like?" may be make-believe.
_APPOSITIVE = re.compile(r"(?i:as) (?:an?|someone|somebody)\b[^,;:—–]*")
_OF_THE_USER = re.compile(r"\b(?:I|me)\b")
_OF_SOMEONE = re.compile(r"\b(?:you|your|yours|my|our|he|she|they|him|her|his|them|their|we|us)\b", re.IGNORECASE)
# A sentence of its own that takes back the one before it, and a tag that says its sentence is sarcasm.
_TAKES_BACK = re.compile(r"(?i:not|jk|j/k|just kidding|just joking|kidding)[.!]*")
_SARCASM_TAG = re.compile(r"(?:^|\s)/s\s*[.!]*$")
# A greeting that is a sentence of its own ("Hi!", "Hello there."), and the sentence it may open.
_GREETING = re.compile(r"(?i:hi|hello|hey)(?: there)?[.!]+")
_I_FIRST = re.compile(r"I(?:['’](?:m|ve|d|ll)|\b)")
# What ends a clause: a mark, or one of these words.
_CLAUSE_MARKS = re.compile(r"[,;:—–()]")
_CLAUSE_WORDS = frozenset("and but so because although though while whereas".split())
# Words before a match, in its clause, that make it something other than a plain statement. Each is a
# whole word (a run of \w), so one pass over the words of a sentence finds them all.
_UNSURE_WORDS = frozenset(
    "not no never nobody if unless whether when whenever what whatever wish suppose supposing imagine pretend "
    "assume assumes assumed dream dreamed dreamt hope hoping maybe perhaps probably might may could would "
    "should think thinks thought believe believes guess wonder wondering doubt say says said tell tells "
    "told".split())
_NEGATED = re.compile(r"n't\b", re.IGNORECASE)
# A sentence that opens by asking to play along ("Pretend you're a pirate and I'm a sailor"): every
# clause of it is make-believe, not only the first.
_MAKE_BELIEVE = re.compile(r"(?:let's |lets )?(?:pretend|imagine|suppose|supposing)\b", re.IGNORECASE)
# Words quoted within a sentence are mentioned, not said: "Translate 'I live in London' into French",
# "He texted 'I got the job!'". A quote that opens the sentence is the message itself. Quotes of any
# typography are straight here (plain.plain).
_QUOTED = re.compile(r"(?<=\s)(?:\"[^\"]+\"|'(?=\w)(?:[^']|'(?=\w))+'(?!\w))")
# Words right after a match that take it back.
_TAKEN_BACK = re.compile(r"[\s,]*(?:I think|I guess|I suppose|I believe|maybe|probably|perhaps|or not|jk|just kidding)\b",
                         re.IGNORECASE)
# Words later in the same clause (before any , ; or .) that say it has ended ("I started at Google
# in 2019 and left in 2022").
_ENDED = re.compile(r"\band (?:then |later )?(?:I )?(?:left|quit|moved away)\b", re.IGNORECASE)
_ENDED_STOP = re.compile(r"[,;.]")
_WORDS = re.compile(r"\w+")
_TERM_WORD = r"(?!(?i:not|but|and|or)\b)[\w'&+-]+"
# The value on either side of "not": one to three words, never a pronoun or the correction's own words.
_TERM = (r"(?!(?i:I|it|that|this|you|we|he|she|they|a|an|the|actually|sorry|oops|correction|no|my)\b)"
         rf"{_TERM_WORD}(?:\s+{_TERM_WORD}){{0,2}}?")
# A correction: "actually I meant Lisbon, not Porto", "Sorry, not Porto but Lisbon", or the statement
# said again with the right value ("Actually my sister lives in Porto, not Braga"). What comes
# before "not" (`said`) ends with the right value; the words before that must be words of the fact
# corrected (_correct).
_CORRECTION = re.compile(
    r"(?:^|\b(?i:actually|sorry|oops|correction|my bad|no|I meant|I mean)\b[,:!]?)\s*"
    r"(?:(?i:I meant|I mean|it's|it is)\s+)?"
    rf"(?:(?P<said>{_TERM_WORD}(?:\s+{_TERM_WORD}){{0,7}}?),?\s+not\s+(?P<old>{_TERM})"
    rf"|(?i:not)\s+(?P<old2>{_TERM})(?:,|\s+[—–-]{{1,2}})?\s+(?:but\s+)?(?P<new2>{_TERM}))"
    r"(?=\s*(?:[^\w\s'&+-]|$))")
# A correction that says only the right name, of the one name the message before filed: "Sorry, I
# meant Initrode." (_correct_meant).
# A correction said as the statement again, with no "not": "Correction: my dog's name is Biscuit.",
# "Sorry, my wife's name is Anna." (_correct_restated).
_RESTATED = re.compile(r"(?i:actually|sorry|oops|correction|my bad|no wait|wait|typo|scratch that)\b[,:!]?\s+(?i:(?:I|my|it)\b)")
_MEANT = re.compile(rf"(?i:sorry|oops|actually|no|correction|my bad)[,:!]?\s+(?i:I meant|I mean)\s+"
                    rf"(?P<new>(?!I\b){_CAPWORD}(?:\s+{_CAPWORD}){{0,3}})[.!]?")
# A correction of a name said with the person's pronoun: "Sorry, her name is Anna." (_correct_named).
# Someone's new age said by their name alone, opening the sentence: "Mia turned 8 today!", "Leo is 5
# now.", "Leo's now 5" (_age_again); "Leo is 5" alone may be said of anyone's Leo, and is not read.
_AGED_AGAIN = re.compile(rf"(?:(?i:so|and|oh|well|yay|omg|wow),? )?(?P<name>(?!I\b){_UPPER}[\w-]*)(?: (?:(?:just|finally|"
                         rf"officially) )?turned (?P<value>{_NUMBER})(?= (?:today|yesterday|on|last|this)\b|\s*(?:[.!,;]|$))|"
                         rf"(?: is|'s) (?:now (?P<now>{_NUMBER})|(?P<then>{_NUMBER})(?: (?:years?|yrs?) old| (?P<months>months?) old)? now)"
                         rf"(?: (?:years?|yrs?) old| (?P<months_now>months?) old)?(?=\s*(?:[.!,;]|$)))")
# The same age said after the person's birthday, by pronoun: "It was Oscar's birthday on Sunday, he's 3 now."
_BIRTHDAY_AGE = re.compile(rf"(?:(?i:it was|yesterday was|today is|today was|so|and|oh|well|yay) )?(?P<name>(?!I\b){_UPPER}[\w-]*)'s "
                           rf"birthday\b[^.!?]*?[,;] (?:and |so )?(?:he|she)(?:'s| is) (?:now (?P<now>{_NUMBER})|"
                           rf"(?P<then>{_NUMBER})(?: (?:years?|yrs?) old)?(?: now| today)?)(?=\s*(?:[.!,;]|$))")
_PERSON_NAME_KEYS = frozenset(f"{part}_name" for part in _PERSON_PARTS.values())
# The partner's pregnancy said by their name alone: "Sam is pregnant!" (_pregnant_again).
_PREGNANT_AGAIN = re.compile(rf"(?:(?i:so|and|oh|well|yay|omg|wow|guess what),? )?(?P<name>(?!I\b){_UPPER}[\w-]*)"
                             rf"(?: is|'s) (?:(?:{_NUMBER}|a few) (?:weeks?|months?) )?pregnant(?=\s*(?:[.!,;]|$))")
_PREGNANT_AGAIN_RULE = _rule("fact", "expecting_baby", "pregnant", [], "The user is expecting a baby.",
                             confidence=0.7, importance=0.7)
_AGED_AGAIN_RULE = _rule("fact", "{person}_age", "turned", [], "The user's {part} {name} is {value} {old}.",
                         confidence=0.75, importance=0.6)
# A pet's death said by its name alone, opening the sentence: "Pickle passed away last week", "Sadly Miso
# was put to sleep" (_pet_gone_again); "passed" alone is not read ("Pickle passed the vet check").
_GONE_AGAIN = re.compile(rf"(?:(?i:so|and|oh|well|sadly|unfortunately),? )?(?P<name>(?!I\b){_UPPER}[\w-]*) "
                         r"(?:(?:just|sadly|finally|recently) )?(?:died|passed away|passed on|was put down|"
                         r"was put to sleep|had to be put down|was rehomed|had to be rehomed)(?![\w'-])")
_PET_NAME_KEYS = frozenset(f"pet_{part}_name" for part in _PETS.values())
_GONE_AGAIN_RULE = _rule("fact", "pet_{part}_name", "died passed put rehomed", [],
                         "The user used to have a {kind} named {value}.", confidence=0.7, importance=0.5, historical=True)
_NAMED_AGAIN = re.compile(rf"(?i:actually|sorry|oops|correction|my bad|no wait|wait)[,:!]?\s+(?P<pronoun>(?i:her|his|its))"
                          rf"\s+name(?:'s|\s+is)\s+(?P<new>(?!I\b){_CAPWORD}(?:\s+{_CAPWORD}){{0,3}})[.!]?")
# Words of a corrected statement that need not be words of the fact it corrects.
_CORRECTION_WORDS = frozenset(
    "actually sorry oops correction my bad no i meant mean said it it's is i'm im a an the our we i'd".split())
# The right value at the end of what is said before "not", by the wrong value's shape: a number
# (maybe with its noun: "3 kids"), a date, a name (capitalised words), or as many words as the wrong one.
_SAID_NUMBER = re.compile(rf"(?:^|\s)(?!(?i:no)\b)(?P<new>(?i:{_NUMBER}))(?:\s+[\w'-]+)?$")
_SAID_DATE = re.compile(rf"(?:^|\s)(?P<new>{_DATE})$")
_A_DATE = re.compile(_DATE)
_SAID_NAME = re.compile(rf"(?:^|\s)(?P<new>{_CAPWORD}(?:\s+{_CAPWORD}){{0,3}})$")


def _statements(text: str, questions: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    """The sentences of a message that state something, each as read and as said: questions are
    dropped (into `questions`, when given), except for the statement before a tag question. A
    greeting said as a sentence of its own opens the next one when that one starts with "I" ("Hi!
    I'm Dana." reads "Hi, I'm Dana."): the name rule reads an "I'm" after a greeting as an
    introduction. As said is the message's own words, verbatim (the greeting and the tag question in
    them), which a fact quotes (`raw_quote`)."""
    kept: list[tuple[str, str]] = []
    previous_from = previous_to = 0
    greeting, greeting_at = "", 0
    start = 0
    for gap in [*_SENTENCES.finditer(text), None]:
        piece = text[start:gap.start() if gap else len(text)]
        at = start + len(piece) - len(piece.lstrip())
        sentence = piece.strip()
        said_from, said_to = at, at + len(sentence)
        start = gap.end() if gap else len(text)
        if greeting and _I_FIRST.match(sentence):
            kept.pop()  # the greeting, read again as this sentence's opening
            sentence = f"{greeting}, {sentence}"
            said_from = greeting_at
        greeting, greeting_at = (sentence.rstrip(".!"), at) if _GREETING.fullmatch(sentence) else ("", 0)
        if len(sentence) > MAX_SENTENCE_CHARS:
            continue
        if sentence.endswith("?"):
            # Only the last clause can be the tag: it runs from the last separator to the "?".
            cut = max(sentence.rfind(separator) for separator in _TAG_SEPARATORS)
            if cut >= 0 and _TAG_QUESTION.match(sentence, cut + 1) and not _ASKED.match(sentence):
                question, sentence = sentence[cut + 1:], sentence[:cut].rstrip()
                if _APPOSITIVE.fullmatch(sentence) and not _OF_THE_USER.search(question) \
                        and _OF_SOMEONE.search(question):
                    continue
        if _TAKES_BACK.fullmatch(sentence) or _SARCASM_TAG.search(sentence):
            # "I just love sitting in traffic. Not.", "I love Mondays /s": the sentence before, or this
            # one, was said not to be meant
            if kept and not _SARCASM_TAG.search(sentence) and kept[-1][1] == text[previous_from:previous_to]:
                kept.pop()
            continue
        previous_from, previous_to = said_from, said_to
        if sentence and not sentence.endswith("?"):
            kept.append((sentence, text[said_from:said_to]))
        elif sentence and questions is not None:
            questions.append((sentence, text[said_from:said_to]))
    return kept


# How people type: a lower-case "i", curly apostrophes, and a dropped subject at the start ("started
# a new job at Acme", "been vegan since 2019"), read as the sentence with its "I".
_LOWER_I = re.compile(r"(?<![\w'])i(?=(?:'(?:m|ve|d|ll))?(?![\w']))")
_SOON = r"(?:(?:just|recently|finally|officially|actually|still)\s+)?"
_DROPPED_SUBJECT = re.compile(
    r"^(?:(?:so|and|also|oh|well|ok|okay|yeah|yes|btw|update)\b[,:!]?\s+)?"
    rf"(?={_SOON}(?:started|began|joined|moved|relocated|got|quit|left|switched|adopted|went|turned|became|landed|sold|bought|"
    r"signed|stopped|gave|picked|took|been|grew|starting|joining|moving|relocating|going|getting|flying|heading|driving|"
    r"broke|tore|sprained|fractured|dislocated|had my|passed my|"
    r"travelling|traveling|allergic|back from|not (?:a )?(?:big )?fan|(?:not|no longer) at)\b|no (?:kids|children)(?= yet\b|\s*(?:[.!;]|$)))",
    re.IGNORECASE)
_BEEN = re.compile(rf"{_SOON}been\b", re.IGNORECASE)
# A time of the user's life said first without its comma ("When I was little we had a rabbit called
# Snowy"): read with the comma, so that its "when" is a clause of its own and not a hypothetical one
# over what follows ("When I was little, we had ..." was already read as the past).
# A person the user introduces is told of as the rules read it: "This is my friend Anna, she's a
# nurse." as "My friend Anna is a nurse.", "Meet my colleague Priya, she works at Google." as "My
# colleague Priya works at Google." (a colleague's facts are not filed, as ever); a pet too: "Meet my dog
# Rex, he's a beagle." as "My dog Rex is a beagle.".
_PEOPLE = _alternation([*vocabulary.RELATIONS, *vocabulary.OTHER_PEOPLE, *_PETS])
_INTRODUCED = re.compile(
    rf"^(?i:(?:this|that) is|here(?:'s| is)|meet|say (?:hi|hello) to) (?P<who>(?i:my|our) (?i:{_PEOPLE}),? {_UPPER}[\w'-]*)"
    r"(?:,? (?:and )?(?:she|he|it)(?:(?P<is>'s| is)\b|(?= [a-z])))?")
# "Marco is my brother." as "My brother is Marco.": kin and partners only, for "Coffee is my best
# friend." is said of anything; and only where the sentence or clause ends, not "Sam is my brother's
# friend".
_NAMED_AS_KIN = re.compile(
    rf"^(?!(?:He|She|It|This|That|Who|There|Here|What|Which|Mine|Everyone|Someone|Nobody)\b)(?P<name>{_UPPER}[a-z'-]+) is "
    rf"(?P<kin>my (?i:{_alternation(k for k, part in vocabulary.RELATIONS.items() if part != 'friend')}))"
    r"(?=\s*(?:[.!]|$)|, | and\b)")
_TIME_OF_LIFE = re.compile(
    r"^(?:(?:back|way back) )?when I was (?:a (?:kid|child|boy|girl|teenager|teen|student)|little|young|younger|"
    r"small|in (?:college|school|high school|university|uni|my (?:teens|twenties|thirties|forties)))(?= (?:I|we|my|our)\b)",
    re.IGNORECASE)
# What a dropped "I'm" opens ("moving to Berlin in March", "allergic to peanuts", "not a fan of jazz"),
# a dropped "I have" ("no kids yet", "No kids."; not "No kids, not three", a correction's) and a
# dropped "I've" ("got 2 cats": had, not just got).
_AM = re.compile(rf"{_SOON}(?:starting|joining|moving|relocating|going|getting|flying|heading|driving|travelling|"
                 r"traveling|allergic|back from|not|no longer)\b", re.IGNORECASE)
_HAVE_NONE = re.compile(r"no\b", re.IGNORECASE)
_GOT_COUNT = re.compile(rf"{_SOON}got (?:\d+|{_alternation(_UNITS[1:])})\b", re.IGNORECASE)


# A verb phrase joined to the user's own clause shares its "I": "I work at Stripe and live in
# Dublin", "I left Stripe and just started at Notion", and after a comma as people list what they
# are ("I'm 32, live in Toronto, work at Shopify"; a comma's "like I said" is no liking); or its "we",
# which the rules read as they read "We moved to York" ("We sold our house in Leeds and moved to
# York"). Only when that clause opens with "I" or "we" and a verb of the user's own life (not "I think my brother left Google
# and joined Meta", not "My sister moved to Boston and started at MIT").
_OWN_VERBS = (r"(?:grew|work|worked|working|live|lived|living|started|began|joined|moved|relocated|quit|left|switched|"
              r"adopted|became|landed|got|have|had|own|love|like|prefer|play|teach|study|studied|retired|"
              r"sold|bought|am|was|been)")
_OWN_CLAUSE = re.compile(rf"(?:^|[,;:]\s*)(?:(?:so|and|also|well|btw)\s+)?(?P<who>I|[Ww]e)(?:'m|'ve|'re| {_SOON}{_OWN_VERBS})\b"
                         r"[^,;:]*$")
_JOINED_VERB = re.compile(
    rf"(?:\s(?:and|but|then)|,(?!\s+like\b))\s+(?={_SOON}(?:work|live|started|began|joined|moved|relocated|quit|left|"
    r"switched|adopted|became|landed|got|have|own|love|like|prefer|play|teach|study|retired|bought)\b)", re.IGNORECASE)


# A question about someone else ("How's your sister doing?", "Where does she work now?") is answered
# without a subject ("Moved to Berlin last year."): that dropped subject is the one asked about.
_ASKED_ABOUT_OTHER = re.compile(
    rf"\b(?:your (?:{_alternation(_RELATIONS)}|kids|children|{_alternation(vocabulary.OTHER_PEOPLE)}|"
    r"family)|he|she)\b[^?.!]*\?\s*$", re.IGNORECASE)


def _asks_about_someone_else(before: dict[str, Any] | None, message: dict[str, Any]) -> bool:
    """Whether the line before `message`, said by someone else, asks about a third person."""
    if before is None or standalone.same_speaker(before, message):
        return False
    return bool(_ASKED_ABOUT_OTHER.search(before["content"] or ""))


def _typed(sentence: str, dropped_is_user: bool = True) -> str:
    sentence = _LOWER_I.sub("I", casual.tidy(plain.plain(sentence)))
    sentence = _INTRODUCED.sub(lambda m: m["who"][0].upper() + m["who"][1:] + (" is" if m["is"] else ""), sentence,
                               count=1)
    sentence = _NAMED_AS_KIN.sub(lambda m: f"M{m['kin'][1:]} is {m['name']}", sentence, count=1)
    sentence = _TIME_OF_LIFE.sub(r"\g<0>,", sentence, count=1)
    dropped = _DROPPED_SUBJECT.match(sentence) if dropped_is_user else None
    if dropped:
        at = dropped.end()
        subject = ("I've " if _BEEN.match(sentence, at) or _GOT_COUNT.match(sentence, at) else
                   "I'm " if _AM.match(sentence, at) else "I have " if _HAVE_NONE.match(sentence, at) else "I ")
        sentence = sentence[:at] + subject + sentence[at].lower() + sentence[at + 1:]
    # Left to right, so that a clause given its "I" opens the user's own clause for the next one
    # ("I'm 32, live in Toronto, work at Shopify").
    joined = _JOINED_VERB.search(sentence)
    while joined:
        own = _OWN_CLAUSE.search(sentence, 0, joined.start())
        if own:
            who = "I " if own["who"] == "I" else "we "
            sentence = sentence[:joined.end()] + who + sentence[joined.end():]
        joined = _JOINED_VERB.search(sentence, joined.end() + 1)
    return sentence


class _Surroundings:
    """Where the words that qualify a statement stand in one sentence, found in one pass each, so
    that judging a match costs a few bisections rather than a rescan of the sentence (a sentence
    may hold many matches: "I love cats and I love dogs and I ...")."""

    def __init__(self, sentence: str):
        self._sentence = sentence
        self._make_believe = bool(_MAKE_BELIEVE.match(sentence))
        breaks = [mark.end() for mark in _CLAUSE_MARKS.finditer(sentence)]
        unsure = [negation.span() for negation in _NEGATED.finditer(sentence)]
        self._ended: list[int] = []
        for word in _WORDS.finditer(sentence):
            lowered = word.group().lower()
            if lowered in _CLAUSE_WORDS:
                breaks.append(word.end())
                if lowered == "and" and _ENDED.match(sentence, word.start()):
                    self._ended.append(word.start())
            if lowered in _UNSURE_WORDS:
                unsure.append(word.span())
        self._breaks = sorted(breaks)
        # Spans that never nest, so sorted by start they are sorted by end too.
        unsure.sort()
        self._unsure_starts = [start for start, _ in unsure]
        self._unsure_ends = [end for _, end in unsure]
        self._stops = [stop.start() for stop in _ENDED_STOP.finditer(sentence)]
        self._quoted = [quote.span() for quote in _QUOTED.finditer(sentence)]

    def plain(self, match: re.Match[str]) -> bool:
        """Whether the words around a match leave its statement plain (not negated, hedged,
        hypothetical, reported or over)."""
        if self._make_believe:
            return False
        start, end = match.span()
        quoted = bisect_right(self._quoted, (start, len(self._sentence))) - 1
        if quoted >= 0 and self._quoted[quoted][1] > start:
            return False
        # The clause of the match starts after the last break before it.
        last_break = bisect_right(self._breaks, start) - 1
        clause = self._breaks[last_break] if last_break >= 0 else 0
        # The first unsure word of the clause, if it ends before the match, qualifies it.
        first = bisect_left(self._unsure_starts, clause)
        if first < len(self._unsure_starts) and self._unsure_ends[first] <= start:
            return False
        if _TAKEN_BACK.match(self._sentence, end):
            return False
        ended = bisect_left(self._ended, end)
        stop = bisect_left(self._stops, end)
        return not (ended < len(self._ended) and (stop == len(self._stops) or self._ended[ended] < self._stops[stop]))


def _matches(sentence: str) -> list[tuple[int, _Rule, Fields]]:
    words = set(_WORDS.findall(sentence.lower()))
    rules = [rule for rule in _RULES if not rule.cues.isdisjoint(words)]
    if not rules:
        return []
    surroundings = _Surroundings(sentence)
    found = []
    for rule in rules:
        for pattern in rule.patterns:
            for match in pattern.finditer(sentence):
                if surroundings.plain(match):
                    found.extend((match.start(), rule, fields) for fields in rule.clean(match))
    return sorted(found, key=lambda item: item[0])


def _asked_matches(question: str) -> list[tuple[_Rule, Fields]]:
    """The names a question takes for granted (_ASKED_RULES)."""
    words = set(_WORDS.findall(question.lower()))
    if _ASKED_GONE.search(question):
        return []
    found = []
    for rule in (rule for rule in _ASKED_RULES if not rule.cues.isdisjoint(words)):
        for pattern in rule.patterns:
            for match in pattern.finditer(question):
                if _ASKED_UNSURE.isdisjoint(_WORDS.findall(question[:match.start()].lower())):
                    found.extend((rule, fields) for fields in rule.clean(match))
    return found


class OfflineExtractor:
    name = "offline-rules"

    def extract(self, messages: list[dict[str, Any]], history: list[dict[str, Any]]) -> list[Candidate]:
        found = _Facts()
        earlier: _Facts | None = None  # the history's facts, extracted once a correction needs them
        for i, message in enumerate(messages):
            if message["role"] != "user":
                continue
            # Another named participant's "I work at Acme" is about them (models.speaker_subject).
            subject = message.get("subject") or "user"
            before = messages[i - 1] if i else (history[-1] if history else None)
            about_them = _asks_about_someone_else(before, message)
            questions: list[tuple[str, str]] = []
            for n, (sentence, said) in enumerate(_statements(message["content"] or "", questions)):
                stated = found.size()
                forget = _FORGET.match(plain.plain(sentence)) if subject == "user" else None
                retracted = _retracted(forget, plain.plain(sentence)) if subject == "user" else None
                matched = _matches(_typed(retracted or sentence, dropped_is_user=not (about_them and n == 0)))
                for _, rule, fields in matched:
                    candidate = _candidate(rule, fields, message["id"], said, subject)
                    found.add(_taken_back(candidate) if retracted else candidate)
                if forget and forget["topic"] and not matched:
                    if earlier is None:
                        earlier = _Facts(self.extract(history, []))
                    for fact in _about_topic([*earlier.in_order(), *found.in_order()], forget["topic"]):
                        found.add(_taken_back(replace(fact, source_message_id=message["id"], raw_quote=said)))
                # Read as the rules read it: "Actually it’s Lisbon" is "Actually it's Lisbon".
                read = plain.plain(sentence)
                corrections = list(_CORRECTION.finditer(read))
                for match in corrections:
                    if earlier is None:
                        earlier = _Facts(self.extract(history, []))
                    if not _correct(found, earlier, match, message["id"], said, subject) \
                            and not _correct_within(found, found, message["id"], match, message["id"], said, subject) \
                            and before is not None and before["role"] == "user":
                        _correct_within(found if i else earlier, found, before["id"], match, message["id"], said,
                                        subject)
                meant = _MEANT.fullmatch(read)
                if meant and before is not None and before["role"] == "user":
                    if earlier is None and not i:
                        earlier = _Facts(self.extract(history, []))
                    _correct_meant(found if i else earlier, found, before["id"], meant.group("new"), message["id"],
                                   said, subject)
                elif (named := _NAMED_AGAIN.fullmatch(read)) and before is not None and before["role"] == "user":
                    if earlier is None and not i:
                        earlier = _Facts(self.extract(history, []))
                    _correct_named(found if i else earlier, found, before["id"], named, message["id"], said, subject)
                elif (aged := _AGED_AGAIN.match(read) or _BIRTHDAY_AGE.match(read)):
                    if earlier is None:
                        earlier = _Facts(self.extract(history, []))
                    _age_again(earlier, found, aged, message["id"], said, subject)
                elif (pregnant := _PREGNANT_AGAIN.match(read)):
                    if earlier is None:
                        earlier = _Facts(self.extract(history, []))
                    _pregnant_again(earlier, found, pregnant.group("name"), message["id"], said, subject)
                elif (gone := _GONE_AGAIN.match(read)):
                    if earlier is None:
                        earlier = _Facts(self.extract(history, []))
                    _pet_gone_again(earlier, found, gone.group("name"), message["id"], said, subject)
                elif not corrections and _RESTATED.match(read) and before is not None and before["role"] == "user":
                    if earlier is None and not i:
                        earlier = _Facts(self.extract(history, []))
                    _correct_restated(found if i else earlier, found, stated, before["id"])
            for question, said in questions:
                for rule, fields in _asked_matches(_typed(question, dropped_is_user=False)):
                    found.add(_candidate(rule, fields, message["id"], said, subject))
        return _distinct(_said_beside_a_partner(_not_also_a_plan(found.in_order())))


# The user taking back a statement of their own: "Please forget that I'm allergic to peanuts", "Forget
# what I said about moving to Berlin", "Don't remember that I'm vegan"; and a denial said as one
# ("Scratch that, I don't have a cat", "That's not true, I never worked at Acme"). Only at the start
# of the sentence and naming a statement: not "I always forget my keys", "Don't forget to buy milk",
# "Forget it, let's talk about something else", "My brother wants me to forget about the peanuts".
_FORGET = re.compile(
    r"^(?:(?:please|oh|and|also|actually|sorry),? )*(?:please )?(?:(?:forget|disregard|ignore) (?:that (?:I (?:said|told "
    r"you) (?:that )?)?(?P<said>\S.*)|what I (?:said|told you) about (?P<topic>\S.*))|(?:don't|do not) (?:remember|keep) "
    r"that (?P<kept>\S.*))", re.IGNORECASE)
_DENIED = re.compile(
    r"^(?:(?:scratch|strike) that|(?:that's|that is) (?:not true|wrong|false)),?\s+"
    r"(?P<said>I(?: (?:don't|do not|didn't|did not|never)|'m not| am not)) (?P<rest>\S.*)", re.IGNORECASE)
# Words of a topic that name no fact ("what I said about my job at Acme": "job at Acme").
_TOPIC_FILLER = frozenset("my the a an that this it about me I at in of to".casefold().split())


def _retracted(forget: re.Match[str] | None, sentence: str) -> str | None:
    """The statement a retraction takes back ("I'm allergic to peanuts"; a topic as a statement with
    its dropped "I'm": "moving to Berlin next month"; a denial's without its "not": "I have a cat"),
    or None for no retraction."""
    if forget:
        return forget["said"] or forget["topic"] or forget["kept"]
    denied = _DENIED.match(sentence)
    if denied:
        return ("I'm " if "m" in denied["said"][1:3] else "I ") + denied["rest"]
    return None


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORDS.findall(text.casefold())) - _TOPIC_FILLER


def _about_topic(facts: list[Candidate], topic: str) -> list[Candidate]:
    """The user's current facts, said before, that a topic names ("moving to Berlin": the plan "moving
    to Berlin next month"; "my job at Acme": the employer "Acme"): those whose value says all the
    topic's words, else those whose value's words the topic says all of."""
    words = _words(topic)
    if not words:
        return []
    own = [fact for fact in facts if fact.subject == "user" and not fact.historical and _words(fact.value)]
    return [f for f in own if words <= _words(f.value)] or [f for f in own if _words(f.value) <= words]


def _taken_back(candidate: Candidate) -> Candidate:
    """A fact the user took back: it ends the current fact it names, kept in its history as taken
    back (supersession.left_alone), and files nothing when it names none."""
    return replace(candidate, historical=True, ends_only=True, only_replacing=None, happened=None,
                   content=f"The user took this back: {candidate.content}")


def _candidate(rule: _Rule, fields: Fields, message_id: str, quote: str, subject: str = "user") -> Candidate:
    return Candidate(
        type=rule.type,
        key=subject_key(subject, rule.key.format(**fields)),
        value=fields["value"],
        content=_about(subject, rule.sentence.format(**fields)),
        confidence=rule.confidence,
        importance=rule.importance,
        source_message_id=message_id,
        raw_quote=quote,
        subject=subject,
        historical=rule.historical,
        ends_only=rule.ends_only,
        only_replacing=fields["old"] if rule.only_replacing else None,
        happened=fields.get("happened"),
    )


def _about(subject: str, sentence: str) -> str:
    """A rule's sentence ("The user's employer is Acme.") about the participant who said it
    ("Melanie's employer is Acme."), so that a search naming them finds it."""
    if subject == "user":
        return sentence
    return sentence.replace("The user's", f"{subject}'s", 1).replace("The user", subject, 1)


def _value_mark(value: str) -> tuple[str, str | int]:
    """Two values are the same when they are the same words ("new  york", "New York") or the same
    number ("3", "three")."""
    words = " ".join(value.casefold().split())
    number = _number(words)
    return ("number", number) if number is not None else ("words", words)


class _Facts:
    """Candidates in the order found, indexed by value, so that a correction finds the latest facts
    it may correct, and drops the one it corrects, without rescanning every fact found before (a message may hold
    thousands of facts and of corrections)."""

    def __init__(self, candidates: list[Candidate] = ()):
        self._order: dict[int, Candidate] = {}  # a dict keeps insertion order and deletes in O(1)
        # Built at the first correction: most messages have none.
        self._by_value: dict[tuple[str, str | int], list[int]] | None = None
        # The facts of each message by the words of their values, a dict as an ordered set (a fact
        # dropped is deleted when met): built at the first correction of one word of a longer value.
        self._by_word: dict[tuple[str, str], dict[int, None]] | None = None
        self._next = 0
        for candidate in candidates:
            self.add(candidate)

    def add(self, candidate: Candidate) -> None:
        number = self._next
        self._next += 1
        self._order[number] = candidate
        if self._by_value is not None:
            self._index(number, candidate)
        if self._by_word is not None:
            self._index_words(number, candidate)

    def _index(self, number: int, candidate: Candidate) -> None:
        # Only a value its content states can be corrected: the content is rewritten around it.
        if candidate.value in candidate.content:
            self._by_value.setdefault(_value_mark(candidate.value), []).append(number)

    def _index_words(self, number: int, candidate: Candidate) -> None:
        for word in set(_VALUE_WORD.findall(candidate.value.casefold())):
            self._by_word.setdefault((candidate.source_message_id, word), {})[number] = None

    def saying(self, message_id: str, word: str, fits: Callable[[Candidate], bool],
               most: int = 2) -> list[tuple[int, Candidate]]:
        """The last `most` facts of a message that fit and whose value says `word` (case ignored), the
        latest first: the wrong word of a correction, found without rescanning every fact."""
        if self._by_word is None:
            self._by_word = {}
            for number, candidate in self._order.items():
                self._index_words(number, candidate)
        numbers = self._by_word.get((message_id, word.casefold()), {})
        found, dropped = [], []
        for number in reversed(numbers):
            if number not in self._order:
                dropped.append(number)
            elif fits(self._order[number]):
                found.append((number, self._order[number]))
                if len(found) == most:
                    break
        for number in dropped:
            del numbers[number]
        return found

    def latest(self, value: str, most: int = 3) -> list[tuple[int, Candidate]]:
        """The last `most` facts with this value, the latest first."""
        if self._by_value is None:
            self._by_value = {}
            for number, candidate in self._order.items():
                self._index(number, candidate)
        numbers = self._by_value.get(_value_mark(value), [])
        while numbers and numbers[-1] not in self._order:
            numbers.pop()  # dropped by an earlier correction
        return [(n, self._order[n]) for n in reversed(numbers[-most:]) if n in self._order]

    def of_message(self, message_id: str) -> list[tuple[int, Candidate]]:
        return [(n, c) for n, c in self._order.items() if c.source_message_id == message_id]

    def drop(self, number: int) -> None:
        del self._order[number]

    def size(self) -> int:
        """The number the next fact added gets: `since` it, the facts added after."""
        return self._next

    def since(self, number: int) -> list[tuple[int, Candidate]]:
        return [(n, c) for n, c in self._order.items() if n >= number]

    def swap(self, number: int, candidate: Candidate) -> None:
        """The fact numbered `number`, re-stated; its value unchanged (the index is by value)."""
        self._order[number] = candidate

    def in_order(self) -> list[Candidate]:
        return list(self._order.values())

    def latest_first(self) -> Iterator[Candidate]:
        return reversed(self._order.values())


def _correct(found: _Facts, earlier: _Facts, match: re.Match[str], message_id: str, quote: str,
             subject: str) -> bool:
    """Re-state the fact whose value was the wrong one with the right value; the wrong one, if
    stated in this turn, is dropped. Nothing happens when no fact of the speaker's had the wrong
    value, when the right value has not the wrong one's shape, or when the words said around it are
    not the fact's ("The meeting is on Tuesday, not Monday" corrects no appointment on Monday)."""
    old = match.group("old") or match.group("old2")
    for pool in (found, earlier):
        for number, wrong in pool.latest(old):
            if wrong.subject != subject:
                continue
            right = _right_value(match, wrong)
            if right is None:
                continue
            same = [n for n, c in found.latest(right) if _same_fact(c.key, wrong.key) and c.source_message_id == message_id]
            for n in same:  # the rules read the statement said again: the correction replaces it
                found.drop(n)
            if pool is found and number not in same:
                found.drop(number)
            found.add(replace(wrong, value=right, content=wrong.content.replace(wrong.value, right, 1),
                              source_message_id=message_id, raw_quote=quote, corrects=wrong.value))
            return True
    return False


# The shapes a word of a longer value is corrected in: a day for a day, a month for a month, a number
# for a number, a name for a name.
_VALUE_WORD = re.compile(r"[\w'-]+")
_WORD_SHAPES = tuple(re.compile(rf"{shape}$") for shape in (_WEEKDAY, _MONTH, r"\d+(?:st|nd|rd|th)?", _CAPWORD))


def _correct_within(pool: _Facts, found: _Facts, said_in: str, match: re.Match[str], message_id: str,
                    quote: str, subject: str) -> bool:
    """"Sorry, I meant Wednesday, not Tuesday.", said right after "I'm flying to Berlin next Tuesday." (or
    in the same message, `said_in`): the wrong value one word of a longer one (the plan "flying to Berlin
    next Tuesday"), that fact re-stated with the right word. Nothing unless one fact of that message says
    that word, once, and the right word is of its shape, said with no words but a correction's."""
    old = match.group("old") or match.group("old2")
    said = (match.group("new2") or match.group("said")).split()
    if len(old.split()) != 1 or not said or any(word.casefold().strip(",") not in _CORRECTION_WORDS
                                                  for word in said[:-1]):
        return False
    right = said[-1]
    shape = next((s for s in _WORD_SHAPES if s.match(old)), None)
    if shape is None or not shape.match(right) or right.casefold() == old.casefold():
        return False
    word = re.compile(rf"(?<![\w'-]){re.escape(old)}(?![\w'-])", re.IGNORECASE)
    said_it = pool.saying(said_in, old, lambda c: c.subject == subject and not c.historical
                          and len(word.findall(c.value)) == 1 and c.value in c.content)
    if len(said_it) != 1:
        return False
    number, wrong = said_it[0]
    value = word.sub(right, wrong.value)
    if pool is found:  # said in this turn: only the right one is filed
        found.drop(number)
    found.add(replace(wrong, value=value, content=wrong.content.replace(wrong.value, value, 1),
                      source_message_id=message_id, raw_quote=quote, corrects=wrong.value))
    return True


def _correct_meant(pool: _Facts, found: _Facts, before_id: str, right: str, message_id: str, quote: str,
                   subject: str) -> None:
    """"Sorry, I meant Initrode.", said right after a message that filed one name: that name's fact
    re-stated with the right one. Nothing when the message before filed no name or more than one
    (which was meant?)."""
    named = [(n, c) for n, c in pool.of_message(before_id) if c.subject == subject
             and c.value[:1].isupper() and c.value in c.content and not c.historical]
    if len(named) != 1:
        return
    number, wrong = named[0]
    if pool is found:  # said in this turn: only the right one is filed
        found.drop(number)
    found.add(replace(wrong, value=right, content=wrong.content.replace(wrong.value, right, 1),
                      source_message_id=message_id, raw_quote=quote, corrects=wrong.value))


def _gender(fact: Candidate) -> str | None:
    """"her" or "his", when the fact's person says which: by its key ("sister_name"), else by its words
    ("My husband is called Jon." files `partner_name`)."""
    words = set(fact.key.split("_"))
    if words.isdisjoint(_HIS | _HERS):
        words = set(re.findall(r"[\w'-]+", fact.raw_quote.casefold()))
    his, hers = not words.isdisjoint(_HIS), not words.isdisjoint(_HERS)
    return "his" if his and not hers else "her" if hers and not his else None


def _age_again(earlier: _Facts, found: _Facts, aged: re.Match[str], message_id: str, quote: str,
               subject: str) -> None:
    """"Mia turned 8 today!" (or "Maya is 6 months old now", "It was Oscar's birthday on Sunday, he's 3 now"),
    said of someone by their name alone: their age, filed as the session said who
    they are ("My daughter Mia is 7." earlier: child_mia_age, which the new age replaces), under the key
    _kin_fact gives their other facts. Nothing when the session does not say who they are (a name alone
    may be a pet's, a firm's or a town's), nor for a partner, whose age the rules never file (it would
    outlive the partnership)."""
    said = aged.groupdict()
    name = said["name"]
    age = _number(said.get("value") or said["now"] or said["then"])
    if age is None or not 1 <= age <= 120 or name.casefold() in _NOT_NAMES:
        return
    # a baby's age in months ("Maya is 6 months old now") keeps its unit
    value = f"{age} months" if said.get("months") or said.get("months_now") else str(age)
    named = _filed_last(earlier, found, name, subject, lambda key: key in _PERSON_NAME_KEYS)
    part = named.base_key.removesuffix("_name") if named is not None else None
    if part is None or part == "partner":
        return
    person = _named_person(part, name)
    found.add(_candidate(_AGED_AGAIN_RULE, {"value": value, "old": "old" if value.endswith("months") else "years old",
                                            "person": person, "part": part, "name": name}, message_id,
                         quote, subject))


def _pregnant_again(earlier: _Facts, found: _Facts, name: str, message_id: str, quote: str, subject: str) -> None:
    """"Sam is pregnant!", said of the partner by name alone: the user is expecting a baby. Nothing when the
    name the session gives last is not the current partner's (a sister or a friend is pregnant: not the
    user's baby)."""
    mark = _value_mark(name)
    named = next((c for c in reversed([*earlier.in_order(), *found.in_order()]) if c.subject == subject
                  and c.base_key.endswith("_name") and _value_mark(c.value) == mark), None)
    if named is not None and named.base_key == "partner_name" and not named.historical:
        found.add(_candidate(_PREGNANT_AGAIN_RULE, {"value": "yes"}, message_id, quote, subject))


def _pet_gone_again(earlier: _Facts, found: _Facts, name: str, message_id: str, quote: str, subject: str) -> None:
    """"Pickle passed away last week", said of a pet by its name alone: that pet's name as history, under
    the key the session filed it ("My dog Pickle..." earlier: pet_dog_name, which this ends), as "My dog
    Pickle died" files it. Nothing when the name the session says last is no current pet's (a person's
    death has no key; a name alone may be anyone's)."""
    if name.casefold() in _NOT_NAMES:
        return
    named = _filed_last(earlier, found, name, subject, lambda key: key.endswith("_name"))
    if named is None or named.base_key not in _PET_NAME_KEYS:
        return
    part = named.base_key.removeprefix("pet_").removesuffix("_name")
    found.add(_candidate(_GONE_AGAIN_RULE, {"value": named.value, "part": part, "kind": part.replace("_", " ")},
                         message_id, quote, subject))


def _filed_last(earlier: _Facts, found: _Facts, name: str, subject: str,
                filed: Callable[[str], bool]) -> Candidate | None:
    """The last current fact of the speaker's that files `name` under a key `filed` takes (its base
    key), this turn's before the history's: who the session last said they are."""
    mark = _value_mark(name)
    return next((c for c in chain(found.latest_first(), earlier.latest_first()) if c.subject == subject
                 and not c.historical and filed(c.base_key) and _value_mark(c.value) == mark), None)


def _correct_named(pool: _Facts, found: _Facts, before_id: str, named: re.Match[str], message_id: str, quote: str,
                   subject: str) -> None:
    """"Sorry, her name is Anna.", said right after a message that filed a name: the last name that
    message filed, of a person (or pet) the pronoun may stand for, re-stated with the right one ("My
    sister is Ana and my brother is Tom." then "Sorry, his name is Thomas": Tom). Nothing when the message
    before filed no name the pronoun fits."""
    pronoun = named.group("pronoun").casefold()
    fits = [(n, c) for n, c in pool.of_message(before_id) if c.subject == subject and c.key.endswith("name")
            and c.value[:1].isupper() and c.value in c.content and not c.historical
            and _gender(c) in (None, pronoun)]
    if not fits:
        return
    number, wrong = fits[-1]
    right = named.group("new")
    if _value_mark(right) == _value_mark(wrong.value):
        return
    if pool is found:  # said in this turn: only the right one is filed
        found.drop(number)
    found.add(replace(wrong, value=right, content=wrong.content.replace(wrong.value, right, 1),
                      source_message_id=message_id, raw_quote=quote, corrects=wrong.value))


def _correct_restated(pool: _Facts, found: _Facts, stated: int, before_id: str) -> None:
    """"Correction: my dog's name is Biscuit.", said right after "My dog's name is Buddy.": each fact
    the correction states re-states the one fact of its key the message before filed with another
    value, and replaces it (`corrects`) rather than adding a second dog. Nothing when the message before
    filed no fact of that key, or more than one (which was meant?)."""
    for number, fact in found.since(stated):
        if fact.historical:
            continue
        wrong = [(n, c) for n, c in pool.of_message(before_id) if c.key == fact.key and c.subject == fact.subject
                 and not c.historical]
        if len(wrong) != 1 or _value_mark(wrong[0][1].value) == _value_mark(fact.value):
            continue
        if pool is found:  # said in this turn: only the right one is filed
            found.drop(wrong[0][0])
        found.swap(number, replace(fact, corrects=wrong[0][1].value))


def _same_fact(key: str, corrected: str) -> bool:
    """Whether a fact read in a correction is the corrected one: its key, or its key without the name
    ("Actually my sister lives in Porto, not Braga" reads `sister_city`, of the sister Ana whose
    `sister_ana_city` it corrects)."""
    head, _, tail = key.partition("_")
    return key == corrected or (bool(tail) and len(corrected) > len(key) + 1
                                and corrected.startswith(f"{head}_") and corrected.endswith(f"_{tail}"))


def _right_value(match: re.Match[str], wrong: Candidate) -> str | None:
    """The right value a correction gives for `wrong`, in its shape (a number for a number, a name
    for a name), when the other words said before "not" are words of the wrong fact."""
    said = match.group("new2") or match.group("said")
    if wrong.value.isdigit():
        right = _SAID_NUMBER.search(said)
    elif _A_DATE.fullmatch(wrong.value):
        right = _SAID_DATE.search(said)
    elif wrong.value[0].isupper():
        right = _SAID_NAME.search(said)
        while right and right.group("new").split()[0].casefold() in _CORRECTION_WORDS:
            right = _SAID_NAME.search(said, right.start("new") + len(right.group("new").split()[0]))
    else:
        words = len(wrong.value.split())
        right = re.search(rf"(?:^|\s)(?P<new>\S+(?:\s+\S+){{{words - 1}}})$", said)
    if right is None:
        return None
    new = right.group("new")
    around = (said[:right.start("new")] + " " + said[right.end("new"):]).casefold()
    known = set(re.findall(r"[\w']+", plain.plain(f"{wrong.raw_quote} {wrong.content}").casefold()))
    if any(word not in known and word not in _CORRECTION_WORDS for word in re.findall(r"[\w']+", around)):
        return None
    return str(_number(new)) if wrong.value.isdigit() else new


def _distinct(candidates: list[Candidate]) -> list[Candidate]:
    seen: set[tuple[str, str, bool]] = set()
    kept = []
    for c in candidates:
        mark = (c.key, c.value.casefold(), c.historical)
        if mark not in seen:
            seen.add(mark)
            kept.append(c)
    return kept
