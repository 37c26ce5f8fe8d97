"""A sentence typed the way people type to a chat agent, read as the tidy sentence the offline rules
know: apostrophes left out ("im", "dont"), chat abbreviations ("bf", "w/", "yrs"), filler that is
no part of a fact ("lol", "tbh", "btw", "by the way" said aside), emoji for a stop, a known carmaker and its model
after "a", "my" or "our" ("sold my honda civic") or a sold "the" ("sold the skoda"), and, in a sentence
typed without a single capital, the names the rules need capitalised: a known place or a well-known
employer ("moved to denver", "i work at amazon"), and a word in a name's slot ("a dog named max", "my son
jake is 7").

Only words that cannot be read otherwise are rewritten: "its", "ill", "wont", "id" and "were" are
words too, and are left alone; a word in a sentence with capitals keeps its case, for the typist
who uses capitals uses them for names, but for a carmaker from the closed list after "a", "my" or "our"
("I drive a volvo to work in Oslo.")."""

from __future__ import annotations

import re

from memex.extraction import vocabulary

# Contractions typed without their apostrophe that are no other word.
_CONTRACTIONS = {
    "im": "I'm", "ive": "I've", "dont": "don't", "cant": "can't", "didnt": "didn't", "doesnt": "doesn't",
    "isnt": "isn't", "wasnt": "wasn't", "werent": "weren't", "arent": "aren't", "havent": "haven't",
    "hasnt": "hasn't", "wouldnt": "wouldn't", "couldnt": "couldn't", "shouldnt": "shouldn't",
    "thats": "that's", "whats": "what's", "youre": "you're", "theyre": "they're", "shes": "she's",
}
# Chat abbreviations of words the rules read.
_ABBREVIATIONS = {
    "bf": "boyfriend", "gf": "girlfriend", "bro": "brother", "sis": "sister", "w/": "with", "w/o": "without",
    "yrs": "years", "yr": "year",
    "mos": "months", "fav": "favorite", "fave": "favorite", "bc": "because", "cuz": "because",
    "bday": "birthday", "rn": "right now", "sm": "so much",
    # chat spelling: "i luv hiking n camping", "i hav a cat"
    "luv": "love", "hav": "have", "n": "and",
}
_TYPED_WORD = re.compile(r"(?<![\w'/])(?:w/o|w/|[a-z]+)(?='s\b|[^\w'/]|$)", re.IGNORECASE)
# The words _TYPED_WORD spells out, as a sentence's words in lower case hold them ("w/" as "w"): most
# sentences have none, and a set lookup costs less than a call per word.
_SPELLED = frozenset(word for word in {*_CONTRACTIONS, *_ABBREVIATIONS} if "/" not in word) | {"w"}
_WORD = re.compile(r"\w+")
# Filler that says how, not what: a clause break where it stands, and nothing at a sentence's ends.
_FILLER = re.compile(
    r"(?<![\w'])(?:lol+|lmf?ao+|rofl|ha(?:ha)+h?|he(?:he)+|tbh|btw|ngl|imo|imho|tho|so yeah|anyway)(?![\w'])"
    r"[,.!]*", re.IGNORECASE)
# Filler said in words, which may be a title too ("I love the song By the Way"): filler only as a clause of its
# own (_said_aside).
_FILLER_WORDS = re.compile(r"(?<![\w'])(?:by the way|to be honest|fyi)(?![\w'])(?P<stop>[,.!]*)", re.IGNORECASE)
# What may follow filler said aside within a sentence: its end, or a clause joined on ("nuts by the way so no").
_ASIDE_ENDS = re.compile(r"\s*(?:[.!?;:]|$|(?:so|and|but|because|cause)\b)", re.IGNORECASE)
# Emoji and other pictographs, read as a stop.
PICTOGRAPH = "[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D]"
_EMOJI = re.compile(f"\\s*{PICTOGRAPH}+")
# How often, typed short: "3x a week" for "3 times a week".
_TIMES_SHORT = re.compile(r"\b(\d+)x(?= (?:a|per) (?:day|week|month|year)\b)", re.IGNORECASE)
_CLAUSE_EDGES = re.compile(r"^[\s,;]+|[\s,;]+$|(?<=[,.!])[\s,]*,|\s+(?=,)")

# Words that may follow "my son", "our dog" or "named" without being a name ("my son just turned 7",
# "named after my dad", "called out by the vet").
_NOT_A_NAME = frozenset(
    "just also still now never always sometimes often usually even only finally recently actually "
    "literally basically really totally honestly seriously currently clearly barely hardly mostly nearly kinda "
    "who which that this these those probably definitely apparently already too is was has had and "
    "but or so the a an my our his her their isn't wasn't can can't will won't would does did got "
    "after for in out up off on at by to of from with about over into back down away "
    "him them it me us you something someone anything nothing".split())
_SAID_AFTER_NAME = r"(?:is|was|'s|turned|just|died|passed|works|worked|lives|lived|has|got|started|moved)\b"
_RELATIVES = "|".join(sorted((*vocabulary.RELATIONS, *vocabulary.PETS), key=len, reverse=True))
_NAME_CUES = r"named|called|name is|name's|married to|engaged to"
_NAME_SLOTS = re.compile(rf"(?:\b(?:{_NAME_CUES})\s+|\b(?:my|our) (?:{_RELATIVES}),? )([a-z][a-z'-]*)",
                         re.IGNORECASE)
_NAME_LOOKAHEAD = re.compile(rf",? {_SAID_AFTER_NAME}")
_CUE_FIRST = re.compile(rf"\b(?:{_NAME_CUES})\s+$")
# Children or pets counted, then named: "2 cats, milo and luna".
_COUNTED = "|".join(sorted((*vocabulary.CHILDREN, *(f"{pet}s" for pet in vocabulary.PETS)), key=len, reverse=True))
_LISTED_NAME = r"[a-z][a-z'-]*"
_NAMES_LISTED = re.compile(
    rf"\b(?:\d+|two|three|four|five) (?:{_COUNTED}),? ({_LISTED_NAME}(?:, {_LISTED_NAME})*,? and {_LISTED_NAME})"
    r"(?![\w'-])", re.IGNORECASE)
# Known names that are everyday words too ("nice", "turkey", "apple", "us"): never capitalised.
_EVERYDAY = frozenset("nice turkey china chile cork apple intel oracle citadel uber stripe adobe us la "
                      "georgia jordan phoenix bain".split())
_KNOWN_NAMES = frozenset(name for name in vocabulary.PLACES | vocabulary.WELL_KNOWN_EMPLOYERS
                         if name not in _EVERYDAY and not name.startswith("the "))
_LONGEST = max(len(name.split()) for name in _KNOWN_NAMES)
_FIRST_WORDS = frozenset(name.split()[0] for name in _KNOWN_NAMES)
_LOWER_WORD = re.compile(r"[a-z][\w&-]*")
# A known carmaker typed lowercase after "a", "my" or "our" ("sold my honda civic", "i drive a tesla"), or the
# one parted with ("sold the skoda", "got rid of the skoda"),
# as the maker spells itself ("bmw": "BMW"), and its model's one or two words when they end the clause
# ("civic", "model 3"); not the makers that are everyday words ("a mini fridge", "a lucid dream").
_MAKES = {make.lower(): make for make in vocabulary.CAR_MAKES if make.lower() not in {"mini", "lucid", "jaguar"}}
_CAR_TYPED = re.compile(
    rf"\b(?:an?|my|our|{'|'.join(f'(?<={re.escape(done)} )the' for done in vocabulary.CARS_PARTED_WITH)}) "
    r"(?:[a-z0-9-]+ )?"
    rf"(?P<make>{'|'.join(sorted(map(re.escape, _MAKES), key=len, reverse=True))})"
    r"(?![\w-])(?: (?P<model>[a-z][\w-]*(?: [a-z0-9][\w-]*)?)"
    r"(?=\s*(?:[.,;!?)]|$)|\s+(?:and|but|so|because|since|last|this|for|every)\b))?")
# Words after a make that are no model: when, or how often ("i drive a honda lately").
_NOT_A_MODEL = _NOT_A_NAME | frozenset("lately today yesterday tonight tomorrow anymore again either nowadays every each "
                                       "everyday daily".split())


def tidy(sentence: str) -> str:
    """`sentence` as a tidy typist would have written it (see the module's docstring)."""
    if not sentence.isascii():  # no pictograph is ASCII
        sentence = _EMOJI.sub(".", sentence)
    sentence = _FILLER_WORDS.sub(_said_aside, _FILLER.sub(",", sentence))
    sentence = _CLAUSE_EDGES.sub("", sentence).rstrip(",")
    if not _SPELLED.isdisjoint(_WORD.findall(sentence.lower())):
        sentence = _TYPED_WORD.sub(_spelled_out, sentence)
    sentence = _TIMES_SHORT.sub(r"\1 times", sentence)
    if not _capitals(_THE_I.sub("", sentence)):
        sentence = _capitalise_names(sentence)
    # A maker from the closed list after "a", "my" or "our" is a car whatever else the typist capitalised
    # ("I drive a honda around Lisbon.").
    return _CAR_TYPED.sub(_car_capitalised, sentence)


def _said_aside(m: re.Match[str]) -> str:
    """Filler said in words, a clause break where it stands as a clause of its own: at the sentence's start,
    set off by a comma, or before the sentence's end or a clause joined on. Title-cased within the sentence
    ("My favourite book is By the Way.") it is a name, and stays ("FYI" is an acronym, and no title)."""
    before, said = m.string[:m.start()].rstrip(), m[0].rstrip(",.!")
    started = not before or before[-1] in ".!?"
    if not started and said[0].isupper() and not said.isupper():
        return m[0]
    if started or before[-1] in ",;:" or "," in m["stop"] or _ASIDE_ENDS.match(m.string, m.end()):
        return ","
    return m[0]


_THE_I = re.compile(r"\bI\b|\bI'")
_ASCII_CAPITAL = re.compile("[A-Z]")


def _capitals(sentence: str) -> bool:
    """Whether a character of `sentence` is a capital (str.isupper), looked for by a regex when all are ASCII."""
    if sentence.isascii():
        return _ASCII_CAPITAL.search(sentence) is not None
    return any(c.isupper() for c in sentence)


def _spelled_out(m: re.Match[str]) -> str:
    word = m.group()
    lowered = word.lower()
    if lowered in _CONTRACTIONS and (word.islower() or word.istitle()):
        said = _CONTRACTIONS[lowered]
        return said if word.islower() or said.startswith("I") else said[0].upper() + said[1:]
    if word.islower() and lowered in _ABBREVIATIONS:
        return _ABBREVIATIONS[lowered]
    return word


def _capitalise_names(sentence: str) -> str:
    # Most sentences hold no known name: the words are walked only when one may start there.
    named = not _FIRST_WORDS.isdisjoint(_LOWER_WORD.findall(sentence))
    words = list(_LOWER_WORD.finditer(sentence)) if named else []
    spans = []
    i = 0
    while i < len(words):
        if words[i].group() not in _FIRST_WORDS:
            i += 1
            continue
        for size in range(min(_LONGEST, len(words) - i), 0, -1):
            run = words[i:i + size]
            if all(sentence[a.end():b.start()] == " " for a, b in zip(run, run[1:])) \
                    and " ".join(w.group() for w in run) in _KNOWN_NAMES:
                spans.extend(w.span() for w in run)
                i += size
                break
        else:
            i += 1
    for m in _NAME_SLOTS.finditer(sentence):
        name = m.group(1)
        if name.lower() in _NOT_A_NAME:
            continue
        # After "my son" a name is told by what follows it ("my son jake is 7"); after "named", by its place.
        if _CUE_FIRST.search(sentence, 0, m.start(1)) or _NAME_LOOKAHEAD.match(sentence, m.end(1)):
            spans.append(m.span(1))
    for m in _NAMES_LISTED.finditer(sentence):
        names = list(re.finditer(_LISTED_NAME, m.group(1)))
        if not any(name.group().lower() in _NOT_A_NAME for name in names if name.group() != "and"):
            spans.extend((m.start(1) + n.start(), m.start(1) + n.end()) for n in names if n.group() != "and")
    for start, end in spans:
        sentence = sentence[:start] + sentence[start].upper() + sentence[start + 1:end] + sentence[end:]
    return sentence


def _car_capitalised(m: re.Match[str]) -> str:
    said = m.group()[:m.start("make") - m.start()] + _MAKES[m["make"]]
    model = m["model"]
    if model is None or any(word in _NOT_A_MODEL for word in model.split()):
        return said + m.group()[m.end("make") - m.start():]
    return f"{said} {' '.join(word[0].upper() + word[1:] for word in model.split())}"
