"""The regex building blocks the rules share: word lists compiled into them, and the pieces (a proper
name, an organisation, a number, a date, a phrase and where it ends) their patterns are written with.
A block used by one domain's rules only lives in that domain's module (rules/)."""

from __future__ import annotations

import re

from memex.extraction import vocabulary
from memex.first_person import OFTEN
from memex.time_phrases import MONTH_ABBREVIATIONS, MONTHS, WEEKDAYS


ROLE_ABBREVIATIONS = {
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
NOT_ROLE_MODIFIERS = frozenset(
    "good bad great terrible awful big huge little decent proud better worse best worst amazing horrible "
    "lousy careful natural total real true fellow aspiring wannabe future former ex ex- retired hard fast slow "
    "quick backseat keen avid amateur enthusiastic passionate weekend hobby".split())
RELATIONS = vocabulary.RELATIONS
PETS = vocabulary.PETS
# Holidays, each word capitalised as a name's is: when, not who or where ("I'm working for Labor Day" is no employer,
# "then I start at New Year's Eve" no job, "He proposed on Valentine's Day" says when).
HOLIDAYS = frozenset({
    "christmas", "easter", "thanksgiving", "halloween",
    "christmas eve", "christmas day", "new year", "new year's", "new year's eve", "new year's day", "boxing day",
    "easter sunday", "easter monday", "good friday", "mother's day", "father's day", "valentine's day",
    "labor day", "labour day", "memorial day", "independence day", "thanksgiving day", "veterans day",
    "st patrick's day", "st. patrick's day"})
# Capitalised words that follow "my wife is" or "my dog" without being a name ("American
# Airlines" is one: only a name of one word is checked); a holiday or noon is when ("I'm working from home for
# Christmas", "I start at Noon").
NOT_NAMES = frozenset(WEEKDAYS) | HOLIDAYS | frozenset(
    "today tonight tomorrow yesterday home noon midday "
    "dr mr mrs ms prof sir "
    "american british english scottish welsh irish french german italian spanish portuguese "
    "brazilian mexican canadian australian dutch belgian swiss austrian swedish norwegian danish "
    "finnish polish russian ukrainian greek turkish chinese japanese korean indian pakistani "
    "vietnamese thai filipino african asian european latino latina jewish catholic christian muslim "
    "hindu buddhist atheist".split()) | {n.casefold() for n in vocabulary.NATIONALITIES}
# A quarter, a half or a fiscal year, capitalised and holding a digit as an organisation's name may ("Q3", "H2",
# "FY24", "Q1 2025"), but a time: "I'm working from home for Q3".
PERIOD = re.compile(r"(?:Q[1-4]|H[12]|FY ?(?:\d\d){1,2})(?: (?:19|20)\d\d)?")
# Words said between a verb and its "not" ("I'm really not vegan", "I'm honestly not retired").
HEDGES = (rf"(?:{OFTEN}|honestly|definitely|certainly|probably|simply|totally|absolutely|literally|seriously|surely|"
          r"truly|quite|even)")
INTENSIFIERS = ("so really very pretty totally completely quite super way kinda somewhat incredibly "
                "extremely highly hugely seriously absolutely massively genuinely fairly too actually").split()
UNITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
SMALL_NUMBERS = {
    "no": 0, "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
        "eighty": 80, "ninety": 90}


def alternation(words) -> str:
    # Longest first, so that "best friend" wins over "friend"; then in order of letters, so that a set's
    # words make one source whatever the hash seed (required_shipped.py files a pattern by its source).
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


def _capitals() -> str:
    """The capital letters of the Latin, Greek, Cyrillic and Armenian scripts (with their extended
    blocks), as one character class: Python's `re` has no `\\p{Lu}`, and Latin-1's alone ("À-Þ") left
    "I live in İzmir.", "My name is Łukasz." and "I work at Škoda." filing nothing. Not every script's:
    the class is compiled into every name pattern (each at its first use, rule.Rule), where over the
    whole table these add about 0.3 s (0.6 s without) and the whole plane's about 0.5 s, for scripts (Cherokee, Glagolitic, Coptic) that English
    sentences hardly name anything in."""
    capitals = [c for c in [*range(0x530), *range(0x1E00, 0x2000)] if chr(c).isupper()]
    ranges, start = [], capitals[0]
    for before, c in zip(capitals, capitals[1:] + [None]):
        if c != before + 1:
            ranges.append(re.escape(chr(start)) + ("" if before == start else "-" + re.escape(chr(before))))
            start = c
    return "[" + "".join(ranges) + "]"


UPPER = _capitals()
CAPWORD = rf"{UPPER}[\w'&-]*"
# One to four capitalised words ("Lisbon", "Bank of America", "Procter & Gamble", "St. Louis"),
# never "I", and never cut before a further capitalised word.
PROPER = (rf"(?!I\b)(?:(?:St|Mt|Ft)\.\s+)?{CAPWORD}(?:\s+(?:(?:of|de|da|do|dos|das|del|la|le|van|von|der|den|du|&)\s+)?"
          rf"(?!I\b){CAPWORD}){{0,3}}(?![\w'&-])(?!\s+(?!I\b){UPPER})")
# An organisation: a proper name that may also start with a digit ("3M", "7-Eleven"), end in a
# number ("Company 7") when nothing follows, or join two names with "and" when nothing follows
# ("Procter and Gamble"; "Acme and Bob is my boss" keeps "Acme").
_ORG_WORD = rf"(?:{CAPWORD}|\d+[A-Za-z][\w'&-]*|\d+-{CAPWORD})"
ORG_END = r"(?=\s*(?:[.,;:!?)]|$))"
ORG = (rf"(?!I\b)(?:(?:St|Mt|Ft)\.\s+)?{_ORG_WORD}(?:\s+(?:(?:of|de|da|del|la|le|van|von|der|den|du|&)\s+)?"
       rf"(?!I\b){_ORG_WORD}){{0,3}}(?:\s+and\s+{CAPWORD}{ORG_END}|\s+\d{{1,4}}{ORG_END})?"
       rf"(?![\w'&-])(?!\s+(?!I\b){UPPER})")
# One joins these as a user, not as an employee.
PLATFORMS = (r"(?:Facebook|Twitter|X|Instagram|TikTok|Reddit|Strava|LinkedIn|Discord|Slack|Snapchat|Tinder|Bumble|"
             r"Hinge|Pinterest|Mastodon|Threads|YouTube|Duolingo|Bluesky|WhatsApp|Telegram|Patreon)\b")
# "I'm working at Starbucks today" says where the user is, not who employs them.
NOT_TEMPORARY = (r"(?!\s+(?:today|tonight|tomorrow|this (?:morning|afternoon|evening|week|weekend)|right now|"
                 r"for the (?:day|week|afternoon|morning)))")
WORD = r"[\w'&+-]+"
NUMBER = (rf"\d{{1,3}}|(?:{alternation(TENS)})(?:[- ](?:{alternation(UNITS)}))?"
          rf"|{alternation(SMALL_NUMBERS)}")
# Up to three words before a known job title: "product manager", "senior PM", "ICU nurse".
ROLE = (rf"(?:[A-Za-z][\w-]*\s+){{0,3}}?"
        rf"(?:(?i:{alternation(_ROLE_HEADS)})|{alternation(ROLE_ABBREVIATIONS)})(?![\w-])")
# A role said after where one works: "at Notion as an engineer".
AS_ROLE = rf"as (?:an?|the) {ROLE}"
# Objects that say nothing about the user ("I love it", "I like your idea", "I hate when..."), and
# verbs that show "I love" was a relative clause ("something I love is awesome").
NOT_OBJECT = (r"(?!(?:it|that|this|these|those|them|you|your|yours|him|her|his|my|our|their|how|what|"
              r"when|where|why|who|which|if|so|too|not|being|to be|to(?!\s+\w)|all of|every day|about|most|"
              r"least|more|the (?:idea|way|fact|thought|sound)|is|are|was|were|makes|made|has|have|had)\b)")
# Where a free phrase ends: punctuation (or an emoji), or a word that starts another clause.
PHRASE_END = (r"(?=\s*(?:[^\w\s'&+-]|$)|\s+-\s|\s+(?:but|because|since|so|when|while|though|although|"
              r"especially|if|unless|which|as well|too|a lot|very much|so much|lol|haha|these days|nowadays|now|"
              r"anymore|any more|lately|recently|at the moment|right now|"
              r"and (?:I|I'm|I've|we|my|it|that|he|she|they|you))\b)")
# Where a fact with a strict shape (an age, a diet, a role) ends: punctuation, or one of a few words.
_STRICT_END = r"(?=\s*(?:{}|$)|\s+(?:{})\b)"


def phrase(max_words: int) -> str:
    return rf"{NOT_OBJECT}{WORD}(?:\s+{WORD}){{0,{max_words - 1}}}?{PHRASE_END}"


# A list of short items, with a comma and an "and" or "or" before the last: "penicillin, latex and
# bees", "sushi, tacos, and ramen". A phrase alone ends at the first comma; a list is read whole and
# each of its items filed as one said alone would be (_list_items). Likes and dislikes split only a list of
# single words ("hiking, climbing and surfing"): their lists of longer items, filed item by item ("reading,
# watching movies, and exploring nature"), cost LoCoMo's held-out recall (docs/measurements/quality.md,
# extract12), and two items without a comma stay whole ("action and sci-fi movies", "rock and roll").
_LIST_ITEM = rf"{NOT_OBJECT}{WORD}(?:\s+{WORD}){{0,2}}?"
_LIST = rf"{_LIST_ITEM}(?:,\s+{_LIST_ITEM}){{1,5}},?\s+(?:and|or)\s+{_LIST_ITEM}{PHRASE_END}"


def list_or_phrase(max_words: int) -> str:
    """A list (_LIST), or else a phrase of at most `max_words` words."""
    return rf"(?:{_LIST}|{phrase(max_words)})"


_CLAUSE_STARTS = ("but", "so", "now", "since", "because", "lol", "and (?:I|I'm|I've|my|we|it)")


# "Until", or said shorter: "till March", "'til March".
UNTIL_SAID = r"(?:until|till|'til)"


def strict_end(*words: str, punctuation: str = r"[^\w\s'-]") -> str:
    return _STRICT_END.format(punctuation, "|".join(_CLAUSE_STARTS + words))


ROLE_END = strict_end("and", "at", "for", "in", "on", "with", "from", "by", "who", "working", "based",
                      "myself", "too", "here", "there", "last", "this", "recently", "since", "after", "earlier",
                      "while", "before", UNTIL_SAID, "when", "during")
# Adverbs people put before a verb: "I now work at", "I officially work for", "I usually go climbing".
ADVERBS = r"(?:(?:now|still|also|just|only|finally|recently|currently|often|sometimes|[a-z]+ly) )*"
JOB_NOUN = r"(?:job|position|role|gig|post)"
# What says the user's clause is about the past: "used to", a past tense ("saw", "worked").
RECALLED = (r"used to|would|was|were|had|did|(?![a-z]*eed\b)[a-z]+ed|saw|met|went|got|knew|took|made|found|felt|spent|thought|"
            r"came|gave|told|heard|left|lost|kept|became|ran|taught|caught|brought|sat|stood|wrote|drove|ate|"
            r"could|never")
# When or how the user works, between "work" and where or as what: "I work nights as a security guard", "I work
# remotely for Acme", "I work part-time at Tesco".
HOURS = (r"(?:nights|weekends|days|evenings|mornings|shifts|part[- ]time|full[- ]time|remotely|from home|freelance|"
         r"locally)")
WORK_HOURS = rf"(?:{HOURS} )?"
# Working somewhere, which may be for a day ("I'm working at Starbucks today"); starting somewhere,
# which is a job ("I started at Salesforce this week").
WORKS_AT = (rf"\bI {ADVERBS}(?:work|'m working|am working) {WORK_HOURS}(?:at|for)"
            rf"|\bI(?:'m| am) {ADVERBS}(?:working {WORK_HOURS}(?:at|for|by)|employed (?:at|for|by))"
            rf"|\bI(?:'ve| have) {ADVERBS}been working {WORK_HOURS}(?:at|for)")
# The first stretch of a job: "my first day", "my first two weeks".
FIRST_SPAN = r"(?:day|week|month|shift|(?:two|three|four|five|six|few|couple of|\d) (?:days|weeks|months|shifts))"
# A job taken, got or landed, its role said before the employer or not: "I got a job as a product
# manager at Canva" (the role rule files the role of the same words).
JOB_TAKEN = (rf"(?:got (?:an?|the) (?:new )?{JOB_NOUN}|landed (?:an?|the|my) (?:new |dream |first )?{JOB_NOUN}"
             rf"|accepted (?:an?|the) (?:new )?{JOB_NOUN}|got hired)")
STARTED_AT = (rf"\bI(?:'ve| have)? {ADVERBS}(?:(?:started|began) (?:at|working (?:at|for)|(?:an?|my) (?:new )?{JOB_NOUN} "
              rf"(?:at|with))|got (?:an?|the) (?:new )?{JOB_NOUN} (?:at|with)|got hired (?:at|by)"
              rf"|landed (?:an?|the|my) (?:new |dream |first )?{JOB_NOUN} (?:at|with)|accepted (?:an|the|a job) offer from"
              rf"|accepted (?:an?|the) (?:new )?{JOB_NOUN} (?:at|with)|{JOB_TAKEN} as (?:an? |the )?{ROLE} (?:at|with)"
              r"|signed with)"
              rf"|\bI(?:'ve| have| was)? {ADVERBS}been hired (?:at|by)|\bI was {ADVERBS}hired (?:at|by)"
              rf"|\b(?i:my) first {FIRST_SPAN} at"
              r"|\b(?i:my) (?:new |current )?employer is")
CURRENT_JOB = rf"{WORKS_AT}|{STARTED_AT}"
# "a small agency called Pixel Farm": the name after what kind of place it is.
ORG_INTRO = r"(?:the |an? (?:[a-z][\w-]* ){1,2}(?:called|named) )?"
# "head of design", "director of engineering": a title that ends in what it leads.
HEAD_OF = r"(?:head|director|vp|VP|vice president|chief|manager) of [a-z][\w-]*(?: [a-z][\w-]*)?"
HAVE = r"\b(?:I|[Ww]e)(?: have|'ve got| have got)"
# "a 3-year-old son", "my older sister": words between the article and the relative.
KIN_ADJECTIVE = (rf"(?:(?:little|baby|newborn|teenage|grown|older|younger|elder|big|twin|"
                 rf"(?:{NUMBER})[- ](?:years?|months?|weeks?)[- ]old) )?")
# "a rescue beagle", "a 2-year-old tabby", "two lovely dogs": words between the article and the
# animal, from a short list (an open one would read "a hot dog" or "a fat cat"); none starts a breed
# ("golden retriever", "great dane").
PET_ADJECTIVES = (rf"(?:rescue|rescued|little|new|young|old|senior|sweet|tiny|baby|fluffy|second|third|"
                  rf"lovely|beautiful|gorgeous|adorable|cute|big|small|black|white|ginger|grey|gray|brown|tabby|"
                  rf"lazy|crazy|beloved|(?:{NUMBER})[- ](?:years?|months?|weeks?)[- ]old)")
PET_ADJECTIVE = rf"(?:{PET_ADJECTIVES} ){{0,2}}"
# How the name follows: "named Max", "called Max", ", his name is Rocky".
# A name said in the next sentence counts too ("We got a puppy. His name is Pretzel.": _SENTENCES keeps
# the two together).
NAMED = r"(?:,? (?:named|called)|(?:,? (?:and )?|(?: too)?[.!]+ )(?i:her|his|its|their) name(?:'s| is))"
BREED = rf"(?i:{alternation(vocabulary.DOG_BREEDS + vocabulary.CAT_BREEDS)})"
# What a home is called: "our new house", "moving out of my flat".
HOME = r"(?:house|home|flat|apartment|place|condo|townhouse)"
# Titles and place words abbreviated before a name, whose dot ends no sentence or clause: "St. Mary's", "Dr. Lee".
ABBREVIATIONS = ("St", "Mt", "Ft", "Dr", "Mr", "Ms", "Mrs")
ABBREVIATION = rf"\b(?:{'|'.join(ABBREVIATIONS)})\."
# A month's name, or its abbreviation with or without its dot ("Sept."); a full name takes no dot, so
# that "My birthday is 12 May." ends its date before the sentence's full stop.
MONTH = rf"(?i:{alternation(MONTHS)}|(?:{alternation(MONTH_ABBREVIATIONS)})\.?)(?!\w)"
WEEKDAY = rf"(?i:{'|'.join(WEEKDAYS)})"
# Since when a fact has held ("since 2015", "since March", "since last spring"): not since an hour.
SINCE_WHEN = rf"since (?:\d{{4}}|{MONTH}|last (?:year|spring|summer|fall|autumn|winter))(?![\w'-])"
# A stay, a job, a role or a school for a while, said after the place, the employer, the role or the school: "I
# moved to Oslo for the summer", "I'm based in Dublin until March", "I'm based in Lisbon for the day", "to work at
# Equinor for six months", "I work as a barista for the summer", "I'm studying at MIT for a semester"
# (values.unless_a_stay: the user's home and someone's, and a home moved away from; their employer, role and
# school). "For work" or "for a summer job" says why, not for how
# long; "over the summer" may say when a move was ("I moved to Oslo over the summer" is a home); "for years",
# without a count, says a long time and no end ("I moved to Berlin to work at Zalando for years" is a home and a
# job). A span counted and then "now" says how long so far ("I'm living in Lisbon for a year now", "I work at
# Google for two years now": a home and a job held), where "the summer now" is still a stay. "Until" a time says
# when the stay or the job ends, as "for" a span says how long it lasts ("I'm based in Dublin until Christmas",
# "I work at Google until March"); "until I retire" says none.
_WHILE = (r"(?:(?:whole|entire|next|coming) )?(?:summer|winter|spring|fall|autumn|season|semester|term|day|night|"
          r"week|weekend|month|year|holidays|while|days|weeks|months|years)")
_WHILE_END = (r"(?=\s*(?:[^\w\s'&-]|$)|\s+(?:and|but|then|so|or|with|while|before|after|to|in|at|lol|haha)\b)")
# When a stay or a job for a while ends, its time the group `until`: "until March", "until next year", "until the
# end of the month".
UNTIL = (rf"{UNTIL_SAID} (?P<until>{MONTH}|next \w+|the end(?: of (?:the |this |next )?\w+)?|tomorrow|{WEEKDAY}|(?:19|20)\d\d"
         r"|(?:the )?(?:summer|winter|spring|fall|autumn|holidays|weekend)|Christmas|Easter)\b")
FOR_A_WHILE = (
    rf",?\s+(?:for (?!years\b)(?:(?:the |this ){_WHILE}(?:{_WHILE_END}|(?=\s+now\b))"
    rf"|(?:a |an |a few |a couple of |several |(?:{NUMBER}) )?{_WHILE}{_WHILE_END})"
    rf"|{UNTIL})")
DATE = (rf"{MONTH} \d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{MONTH}")
# When and where someone was born, said after "born" (the user, places.py; a child, people.py): a year ("in 1990",
# "'90"); the day ("on March 4", "on the 4th of March": its group `day`) or the month ("in Mar.") it may come after;
# the place said first ("in Leeds in 1990", "in Porto, Portugal in 1985"), never a month.
BIRTH_YEAR = r"(?:(?:19|20)\d\d|'\d\d)(?![\w'-])"
BIRTH_DAY = rf"(?:the )?(?:(?P<day>{DATE})(?!\w)|{MONTH})"
BORN_WHERE = rf"(?:in (?!{MONTH}){PROPER}(?:, {PROPER})?,? )?"
# When a plan happens: "next week", "tomorrow", "in May", "on Saturday", "this summer".
_WHEN = (rf"(?:next (?:week|month|year|weekend|summer|spring|fall|autumn|winter|{WEEKDAY}|{MONTH})|tomorrow|tonight|"
         r"this (?:weekend|summer|spring|fall|autumn|winter|year|month)|"
         rf"in (?:{MONTH}|the (?:spring|summer|fall|autumn|winter))|on {WEEKDAY})")
# When a trip is: a time of _WHEN or a day of the month ("on the 15th", "on March 3rd").
TRIP_WHEN = (rf"(?:{_WHEN}|on (?:the )?\d{{1,2}}(?:st|nd|rd|th)(?: of {MONTH})?|on {DATE}"
             r"|(?:over|at) (?:Easter|Christmas|New Year|Thanksgiving|the holidays|half[- ]term))")
# When a job starts, said ahead of it: any time of _WHEN, a date, or a weekday alone ("my first day
# at Notion is Monday").
START_WHEN = (rf"(?:{_WHEN}|(?:on )?(?:the )?\d{{1,2}}(?:st|nd|rd|th)(?: of {MONTH})?|(?:on )?{DATE}|{WEEKDAY}"
              r"|in (?:a|an|one|two|three|four|five|six|a few|a couple of) (?:days?|weeks?|months?)|soon)(?![\w'-])")
# A job taken and said to start later, after its employer ("I signed with Netflix, starting Monday",
# "got a job at Spotify, I start next week") or before ("Tomorrow is my first day at Notion").
STARTS_LATER = (r",?\s*(?:and |-+ |— |– )?(?:I(?:'ll| will)? |I'm |I am )?(?P<verb>start|starting|starts|begin|beginning|begins)"
                rf"(?: there| work| working)? (?P<when>{START_WHEN})")
AHEAD_WHEN = (rf"(?:^|[,;:]\s*|\b(?i:and|so) )(?P<when>(?i:tomorrow|next (?:week|{WEEKDAY})|{WEEKDAY}))"
              r",? (?:is|will be) ")
MY = r"\b(?i:my|our)"
# Everyone whose name and facts are filed: the relatives and friends, and a boss, a colleague, a
# neighbour, a roommate, a cousin, an aunt, an uncle, a grandparent.
PERSON_PARTS = {**RELATIONS, **vocabulary.PEOPLE}
PET = rf"(?P<kind>(?i:{alternation(PETS)}))"
# How a pet's life with the user ended: it died or was put down, or was given to another home.
PET_GONE = r"(?:died|passed away|passed|was put down|was put to sleep|had to be put down|was rehomed|had to be rehomed)"
# A pet said ended just after its name: "Our dog Rex died", "our dog Max down", "Luna, our cat, died".
ENDED_AFTER = rf"(?!,? (?:{PET_GONE}|down|away)\b)"
# The same before "my" or "our": "We had to put our old beagle down", "We lost our beagle".
ENDED_BEFORE = r"(?<!put )(?<!give )(?<!gave )(?<!given )(?<!lost )(?<!rehomed )(?<!rehome )(?<!away )"
# "I'm Omar, a chef": an introduction, the name said before what one is.
INTRODUCED = rf"(?:{PROPER}, )?"


# "I'm married to Tom", "I've been dating Chris for a year": a partner named by the verb.
PARTNER_VERBS = frozenset("married engaged dating seeing with".split())
# What a relative is called in place of a name ("Mum", "Grandma"): one sees them, never dates them.
KIN_CALLED = frozenset(vocabulary.HOUSEHOLD) | frozenset("mama papa nan nana nanna granny gran grandad granddad".split())
# Whom "his" or "her" can be of: a sister is no "his".
HIS = frozenset("husband boyfriend fiancé fiance brother dad father son uncle grandpa grandfather grandad granddad".split())
HERS = frozenset("wife girlfriend fiancée fiancee sister mom mum mother daughter aunt grandma grandmother granny".split())
# Two names or more: "Ava and Mia", "Tom, Ann and Joe"; never "I" ("two dogs, Max and I walk them").
NAMES = rf"(?!I\b){CAPWORD}(?:(?:,| and|, and) (?!I\b){CAPWORD})+(?![\w'&-])(?!\s+{UPPER})"


BREED_KIND = {**{b: "dog" for b in vocabulary.DOG_BREEDS}, **{b: "cat" for b in vocabulary.CAT_BREEDS}}
# A race run, which makes running a pastime: "I run marathons", "training for a half marathon".
RACE = r"(?:half[- ])?(?:marathons?|ultramarathons?|ultras|10ks?|5ks?)(?![\w'-])"


# A name shaped like an organisation rather than a place: a digit or "&" ("3M", "AT&T"), a capital
# inside a word ("PayPal", not "McAllen"), an acronym ("IBM", not "NYC") or a company word last.
ORG_SUFFIXES = frozenset(
    "inc corp corporation co ltd llc plc gmbh ag labs lab group bank capital partners technologies tech systems "
    "software solutions consulting studios media health airlines airways motors pharma pharmaceuticals "
    "holdings ventures industries insurance energy games networks analytics foods".split())
PLACE_ACRONYMS = frozenset("NYC USA UAE UK US LA SF DC NZ".split())
INNER_CAPITAL = re.compile(r"(?<!^Mc)(?<!^Mac)(?<!^O')(?<!^De)(?<!^La)(?<!^Le)(?<!^Di)(?<!^Du)[a-z][A-Z]")


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
JOB_WORDS = re.compile(r"\b(?:jobs?|roles?|positions?|compan(?:y|ies)|employers?|teams?|careers?|hired|gigs?)\b",
                       re.IGNORECASE)
FOR_THEIR_OWN = re.compile(r",?\s+for (?:my|our)\b", re.IGNORECASE)
A_TEAM = re.compile(r"\s+(?:team|squad|department|division|unit|org|group)s?\b", re.IGNORECASE)


# Where one is for years without working there: "I was at Oxford University for three years".
SCHOOL_WORDS = frozenset("university college school academy institute uni polytechnic conservatory "
                         "seminary kindergarten".split())


# How long the user was or has been somewhere: "three years", "about a decade", "a couple of months".
SPAN = (r"(?:about |almost |nearly |over |more than |just over |just under )?"
        r"(?:{}|a few|several|many|a couple of|a couple|a) (?:years?|yrs?|months?|decades?)").format(NUMBER)
# Where "I quit Stripe" ends: what follows is when, or another clause.
LEFT_END = (r"(?=\s*(?:[^\w\s'&-]|$)|\s+(?:last|this|yesterday|today|recently|after|in|at the end|a (?:week|month|"
            r"year|while|few)|and|but|so|because|to (?:go|start|open|launch|focus|freelance|travel))\b)")
# What tells that a name left is a job, in the sentence: "I quit Pimenton, best job I ever had", "I left
# Acme to start my own company". Without it, "I left Tom" or "I quit Duolingo" is no job (nor is "I
# left Tom after five years").
WORK_SAID = re.compile(
    r"\b(?:jobs?|compan(?:y|ies)|employers?|careers?|colleagues|co-?workers|notice|resigned|last day at work|"
    r"(?:my|our) own (?:place|business|company|restaurant|shop|studio|practice|firm|agency|bakery|cafe|café|"
    r"clinic|startup)|freelanc\w*|self-employed)\b", re.IGNORECASE)


# How the user wants to be answered: the length of an answer, its language, its emojis. Said to the
# assistant, so asked as an imperative ("Please keep your answers short", "Don't use emojis") or
# said of "answers" ("I prefer replies in Spanish"); "keep it short" may be about a toast, and "I
# don't use emojis" is the user's own habit.
ANSWERS = r"(?:answers|replies|responses)"
SHORT = ("short", "shorter", "brief", "briefer", "concise", "to the point", "succinct")
_DETAILED = ("detailed", "long", "longer", "in-depth", "thorough", "more detailed")
LENGTHS = rf"(?i:{alternation(SHORT + _DETAILED)})"
LANGUAGES = rf"(?:{alternation(vocabulary.LANGUAGES)})(?![\w'-])"
_FIELD = rf"(?i:{alternation(vocabulary.FIELDS_OF_STUDY)})(?![\w'-])"
FIELDS_SAID = rf"{_FIELD}(?: and {_FIELD})?"
# A degree by its name; the two-letter ones only with what or where ("an MS" may be a disease, "a BA"
# an airline).
DEGREE = (r"(?:(?i:ph\.?d(?:\.(?= in\b))?|doctorate|master's degree|masters degree|master's|masters|bachelor's degree|"
          r"bachelors degree|bachelor's|bachelors|mba|mphil|dphil|msc|bsc|beng|meng|llb|llm|law degree|medical degree|"
          r"degree|diploma)|(?:MA|MS|BA|BS|JD)(?= (?:in|from) ))(?![\w'-])")
DEGREE_SAID = rf"{DEGREE}(?: in {FIELDS_SAID})?"
# Where a school's name ends: not "studied at Blue Bottle all afternoon" nor "for hours".
SCHOOL_END = (r"(?!\s+for (?:hours|the (?:day|afternoon|morning|evening|weekend)|a (?:bit|while|few hours)))"
              rf"(?=\s*(?:[^\w\s'&-]|$)|\s+(?:in|and|but|so|where|for|from|with|as|since|because|last|{UNTIL_SAID}|before|"
              r"after|when|then)\b)")
# What a trip was for, said between the place and when: "for our honeymoon", "for work".
TRIP_FOR = r"(?: for (?:a |an |the |my |our |his |her )?[\w-]+(?: [\w-]+)?)?"


QUIT_END = strict_end("anymore", "any more", "at all", "altogether", "completely", "entirely", "for good",
                      "these days", "last", "ago", r"\d+", rf"(?:{NUMBER}) (?:years?|months?|weeks?|days?)",
                      r"a (?:year|month|week|while|few|couple)", "either",
                      "in", "since", "when", "after", "on", "back", "cold turkey", "years", "months")
# "I'm 100% sure" is not an age.
AGE_END = strict_end("and", "btw", "tbh", "haha", "lmao", "fyi", "already", "today", "this", punctuation=r"[.,;!)]")
# Someone's age in years, the clause closing on it: "7", "7 years old", "7 yrs old", "7yo", "7 y/o" (a
# child's, a relative's, a pet's; "I'm 7 years of age" is the user's alone).
AGED = rf"(?P<value>{NUMBER})(?: (?:years?|yrs?) old| ?y/?o)?{AGE_END}"
TURNED_END = strict_end("and", "today", "yesterday", "last", "on", "in", punctuation=r"[.,;!)]")
# A birthday ahead, said with when it comes ("I turn 40 next week", "my mum turns 70 in June"): the age
# until then is one less (an_age's `ahead`). Without a time ("I'm turning 40, help") it is not read, a bare
# "turning" may be a wish or a joke; nor is "I turn 40 today" one less: the age rule reads it, as "I turned
# 40 today", as the new age.
TURNING = (rf"(?P<ahead>turns?|turning) (?P<value>{NUMBER})(?= (?:(?:{_WHEN}|soon|in (?:a|one|two|three|a few|a couple of) "
           rf"(?:days?|weeks?|months?)|on (?:the )?\d{{1,2}}(?:st|nd|rd|th)|on {DATE})(?![\w'-])))")
PARTNER_WORD = "|".join(word for word, part in RELATIONS.items() if part == "partner")
# "broke up with my boyfriend Marco" names the partner left, not a partner now.
NOT_AFTER_PARTING = "".join(f"(?<!{verb} {prep} )" for verb in ("broke up", "split up", "split", "separated")
                            for prep in ("with", "from"))
# The same after a thing tried, maybe in the next sentence (_SENTENCES keeps the two together): "I tried
# cilantro once. I hate it.", "I tried sushi once and hated it."
# Read by _SENTENCES too, in the message as typed: hence its ’.
HATED_IT = (r"(?:and |but )?(?:I )?(?:(?:really|absolutely|just|totally|honestly) )*(?:hate|hated|detest|detested|loathe|"
            r"loathed|can't stand|couldn't stand) (?:it|them)(?=\s*(?:[^\w\s'’-]|$))")
DIED = r"(?:passed away|passed on|died|passed(?=\s*(?:[.!,;]|$)))"
PARTNER_DIED = re.compile(rf",? {DIED}")


# Words that open a sentence as a name would and name nobody.
NO_ONE = ("(?:He|She|It|They|We|You|This|That|Who|There|Here|What|Which|Mine|Everyone|Everybody|Someone|Somebody|"
          "Nobody|Noone|Anyone|Anybody)")
WORDS = re.compile(r"\w+")
