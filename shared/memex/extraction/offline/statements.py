"""A message split into the sentences that state something, each read as the rules read it: questions
set aside (but a statement before a tag question kept), a greeting joined to the sentence it opens, a
sentence taken back ("Not.", "/s") dropped; a lower-case "i", a dropped subject, a person introduced
or a verb joined to the user's own clause given the "I" the rules expect."""

from __future__ import annotations

import re
from typing import Any

from memex import standalone
from memex.extraction import casual, plain, vocabulary
from memex.extraction.offline.patterns import (ABBREVIATIONS, HATED_IT, KIN_ADJECTIVE, PERSON_PARTS, PETS, RELATIONS,
    UNITS, UPPER, alternation)
from memex.literal import caseless
from memex.time_phrases import MONTH_ABBREVIATIONS


# A sentence ends after . ! or ?, but not after "St." or "Dr.", nor after a month's abbreviation before its
# day ("on Sept. 4": one date, which the date patterns read), nor before "His name is ...", which names
# what the sentence before it spoke of (NAMED), typed in lower case or after an emoji too ("just adopted a
# kitten!!! 😻 her name is Mochi").
# One look-behind per length of abbreviation: Python's takes alternatives of one width only.
_ABBREVIATED = [[m for m in MONTH_ABBREVIATIONS if len(m) == n] for n in {len(m) for m in MONTH_ABBREVIATIONS}]
_MONTH_DOT = "".join(rf"(?!(?<=\b(?i:{'|'.join(months)})\.)\s+\d)" for months in _ABBREVIATED)
_TITLE_DOT = "".join(rf"(?<!\b{title}\.)" for title in ABBREVIATIONS)
_SENTENCES = re.compile(rf"(?<=[.!?]){_TITLE_DOT}{_MONTH_DOT}\s+"
                        rf"(?!\s|(?:{casual.PICTOGRAPH}+\s*)?(?i:his|her|its|their) name(?:'s| is)\b|(?:I|We) (?:named|called) (?:him|her|it|them) |{HATED_IT})|\n+")
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
# A sentence of its own that puts the one before it in the past: "I have a dog. Well, had.", "I work at
# Google. Or rather, worked." The sentence before is not filed as current (nor as the past: which of its
# facts ended is not said).
_ONLY_ONCE = re.compile(r"(?i:well|or rather|ok|okay|I mean|correction),?\s+(?i:had|worked|lived|used to|did|was)[.!]*")
_SARCASM_TAG = re.compile(r"(?:^|\s)/s\s*[.!]*$")
# "I'm vegan now 🌱 jk", "Got promoted to CEO, just kidding lol": a joke said so at the sentence's end,
# after its emoji or a comma; only the tags that say nothing else ("I'm not kidding" is meant). "jk" in
# lower case or all capitals ("I live in Oslo JK"), never "Jk", which may be a name ("a cat named Jk").
_KIDDING_TAG = re.compile(r"(?:^|[\s,;.!—–-])(?:(?:lol|haha|lmao)\s+)?(?:jk|JK|j/k|J/K|(?i:just|only) (?i:kidding|joking))"
                          r"(?:\s+(?:lol|haha|lmao))?\W*$")
# A greeting that is a sentence of its own ("Hi!", "Hello there."), and the sentence it may open.
_GREETING = re.compile(r"(?i:hi|hello|hey)(?: there)?[.!]+")
_I_FIRST = re.compile(r"I(?:'(?:m|ve|d|ll)|\b)")


def statements(text: str, questions: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    """The sentences of a message that state something, each as read and as said: questions are
    dropped (into `questions`, when given), except for the statement before a tag question. A
    greeting said as a sentence of its own opens the next one when that one starts with "I" ("Hi!
    I'm Dana." reads "Hi, I'm Dana."): the name rule reads an "I'm" after a greeting as an
    introduction. As read, its apostrophes are ASCII ("Kid’s form." is read as "Kid's form."); as said
    is the message's own words, verbatim (the greeting and the tag question in them), which a fact
    quotes (`raw_quote`)."""
    read = plain.apostrophes(text)
    kept: list[tuple[str, str]] = []
    others_form = False
    previous_from = previous_to = 0
    greeting, greeting_at = "", 0
    start = 0
    for gap in [*_SENTENCES.finditer(read), None]:
        piece = read[start:gap.start() if gap else len(read)]
        at = start + len(piece) - len(piece.lstrip())
        sentence = piece.strip()
        said_from, said_to = at, at + len(sentence)
        start = gap.end() if gap else len(read)
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
        kidding = _KIDDING_TAG.search(sentence)
        alone = _TAKES_BACK.fullmatch(sentence) or _ONLY_ONCE.fullmatch(sentence) \
            or (kidding and not sentence[:kidding.start()].strip())
        unmeant = _SARCASM_TAG.search(sentence) or (kidding and not alone)
        if alone or unmeant:
            # "I just love sitting in traffic. Not.", "I work at Acme. lol jk", "I love Mondays /s", "I'm
            # vegan now jk": the sentence before, or this one, was said not to be meant
            if kept and not unmeant and kept[-1][1] == text[previous_from:previous_to]:
                kept.pop()
            continue
        previous_from, previous_to = said_from, said_to
        # the headings right after someone else's form, one after another, are theirs (unless one says
        # whose it is: "My son's allergies: eggs."); a heading is only looked for there
        if others_form and (heading := _HEADING.match(plain.plain(sentence))) and heading["whose"] is None:
            continue
        others_form = bool(_OTHERS_FORM.search(sentence))
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
_PEOPLE = alternation([*vocabulary.RELATIONS, *vocabulary.OTHER_PEOPLE, *PETS])
_INTRODUCTION = re.compile(
    rf"^(?i:(?:this|that) is|here(?:'s| is)|meet|say (?:hi|hello) to) (?P<who>(?i:my|our) (?i:{_PEOPLE}),? {UPPER}[\w'-]*)"
    r"(?:,? (?:and )?(?:she|he|it)(?:(?P<is>'s| is)\b|(?= [a-z])))?")
# A heading with its list, as a form is filled in ("Allergies: shellfish, penicillin.", "Languages: English,
# Italian"), as the sentence it stands for, its last comma an "and" ("I'm allergic to shellfish and
# penicillin."); not when the list says there are none ("Allergies: none", "Hobbies: not really"), nor when
# a sentence follows the heading ("Allergies: I have none.").
# Someone else's heading is theirs ("My son's allergies: eggs, dairy." as "My son is allergic to eggs and
# dairy."), and only an allergy has a rule of someone's to read it: their languages or hobbies stay as typed.
_HEADINGS = {"allergies": "I'm allergic to", "languages": "I speak", "hobbies": "My hobbies are"}
_THEIR_HEADINGS = {"allergies": "is allergic to"}
_HEADING = re.compile(rf"^(?:(?P<whose>(?i:my|our) {KIN_ADJECTIVE}(?i:{alternation(PERSON_PARTS)})(?: {UPPER}[\w-]*)?)'s )?"
                      rf"(?P<head>(?i:{alternation(_HEADINGS)})): +"
                      r"(?!(?i:none|no|nothing|nil|n/?a|not|unknown|idk|dunno|tbd|i|we|you|she|he|they|it)\b)(?P<items>\w[^:]*)$")
# Someone else's form, named in a sentence of its own before its headings ("Kid's form. Allergies: peanuts.",
# "Filling out my daughter's camp form:"): the headings after it are that person's, whom the sentence may
# not name plainly ("Kid's"), so they are not read as the user's (statements drops them). A day's is no one's
# ("Today's form").
_OTHERS_FORM = re.compile(
    r"\b(?!(?i:today|tomorrow|yesterday|tonight|this|that|one|it|who)(?:'s|s')\s)[A-Za-z][\w-]*(?:'s|s')\s+"
    r"(?:[\w-]+\s+){0,2}(?i:forms?|sheets?|details|info|profile|application|registration|paperwork|"
    r"questionnaire)\s*[.!:]*$")
# "Marco is my brother." as "My brother is Marco.": kin and partners only, for "Coffee is my best
# friend." is said of anything; and only where the sentence or clause ends, not "Sam is my brother's
# friend".
_NAMED_AS_KIN = re.compile(
    rf"^(?!(?:He|She|It|This|That|Who|There|Here|What|Which|Mine|Everyone|Someone|Nobody)\b)(?P<name>{UPPER}[a-z'-]+) is "
    rf"(?P<kin>my (?i:{alternation(k for k, part in vocabulary.RELATIONS.items() if part != 'friend')}))"
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
_GOT_COUNT = re.compile(rf"{_SOON}got (?:\d+|{alternation(UNITS[1:])})\b", re.IGNORECASE)


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
    r"switched|adopted|became|landed|got|have|own|love|like|prefer|play|teach|study|retired|bought|sold)\b)", re.IGNORECASE)


# A question about someone else ("How's your sister doing?", "Where does she work now?") is answered
# without a subject ("Moved to Berlin last year."): that dropped subject is the one asked about.
_ASKED_ABOUT_OTHER = re.compile(
    rf"\b(?:your (?:{alternation(RELATIONS)}|kids|children|{alternation(vocabulary.OTHER_PEOPLE)}|"
    r"family)|he|she)\b[^?.!]*\?\s*$", re.IGNORECASE)


def asks_about_someone_else(before: dict[str, Any] | None, message: dict[str, Any]) -> bool:
    """Whether the line before `message`, said by someone else, asks about a third person."""
    if before is None or standalone.same_speaker(before, message):
        return False
    return bool(_ASKED_ABOUT_OTHER.search(before["content"] or ""))


_JOINED = re.compile(r"\b(?:and|or)\b")
_LAST_COMMA = re.compile(r",\s*(?=[^,]*$)")


def _heading_said(m: re.Match[str]) -> str:
    items, head = m["items"], caseless(m["head"])
    if not _JOINED.search(items):
        items = _LAST_COMMA.sub(" and ", items)
    if m["whose"] is None:
        return f"{_HEADINGS[head]} {items}"
    if head not in _THEIR_HEADINGS:
        return m[0]
    return f"{m['whose'][0].upper()}{m['whose'][1:]} {_THEIR_HEADINGS[head]} {items}"


def typed(read: str, dropped_is_user: bool = True) -> str:
    """A sentence as the rules match it, from the sentence `read` as plain.plain folds it (the extractor
    folds each sentence once, and reads it folded before it is typed)."""
    sentence = _LOWER_I.sub("I", casual.tidy(read))
    sentence = _INTRODUCTION.sub(lambda m: m["who"][0].upper() + m["who"][1:] + (" is" if m["is"] else ""), sentence,
                                 count=1)
    sentence = _HEADING.sub(_heading_said, sentence, count=1)
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
