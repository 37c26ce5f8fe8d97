"""Rules of places: the city the user lives in (and the employer of a move to one), where they were
born, in what year and on what day, their hometown."""

from __future__ import annotations

import re

from memex.extraction.offline.patterns import (ADVERBS, BIRTH_DAY, BIRTH_YEAR, BORN_WHERE, HOME, INTRODUCED, MONTH, ORG,
    ORG_END, PROPER, ROLE)
from memex.extraction.offline.rule import rule
from memex.extraction.offline.values import (Fields, a_birthday, a_department, a_name, a_place, a_year, an_organisation,
    not_an_organisation, organisation, unless_a_stay)


def _known_place(m: re.Match[str]) -> list[Fields]:
    return a_name(m) if a_place(m.group("value")) else []


def _place(m: re.Match[str]) -> list[Fields]:
    """A place of a move, unless a name of the move is an organisation or a department ("I moved to
    Google last year", "I moved to Sales" are no city), or the move is between two names neither of
    which is a known place."""
    names = [name for name in m.groupdict().values() if name]
    if any(an_organisation(n) or a_department(n) for n in names) or (len(names) > 1 and not any(a_place(n) for n in names)):
        return []
    return a_name(m)


def _department_move(m: re.Match[str]) -> list[Fields]:
    """The place of a move to a department or an employer there ("I moved to Sales in Denver", "I moved
    to IBM in Austin"): the department or the employer is no city, the place is."""
    where = m.group("dept")
    return not_an_organisation(m) if a_department(where) or an_organisation(where) else []


def _employer_moved_to(m: re.Match[str]) -> list[Fields]:
    """The employer of a move to one ("I moved to IBM in Austin"): a name shaped like an organisation
    or a well-known employer, never a place or a department ("I moved to Sales")."""
    return organisation(m) if an_organisation(m.group("value")) and not a_department(m.group("value")) else []


def _from_place(m: re.Match[str]) -> list[Fields]:
    """Where the user is from, when it is a known place: "I'm from Acme" is no hometown."""
    return a_name(m) if a_place(m.group("value")) else []
# When one was born, said before where ("I was born on March 4, 1990 in Leeds").
_BORN_WHEN = rf"(?:in|on) (?:{BIRTH_DAY}(?:,? {BIRTH_YEAR})?|{BIRTH_YEAR})"
# The user's own birth, said alone or with someone's born with them ("Tom and I were both born in Leeds", "We were
# both born in 1990"): with another's, it was lost.
_I_WAS_BORN = r"\b(?:I was|and I were(?: both)?|[Ww]e were both) born"
# Time spent somewhere, or back from it, is a trip to a town or region no list holds ("We spent August in
# Hossegor", "back from a week in Tarifa"): a capitalised name there, ending its clause, is the place.
_PLACE_CALLED = r"an? (?:[a-z]+ ){0,2}(?:village|town|city|hamlet|island|suburb|place) (?:called|named) "
# The end of a clause calling a place home, "now" or "these days" said last.
_HOME_ENDS = r"(?: (?:now|these days))?\s*(?:[.!,;]|$)"


RULES = [
    # where the user lives, unless it is a stay for a while (values.unless_a_stay): the home kept is elsewhere
    rule("fact", "city", "live lived based living moved relocated bought new settled back", [
        rf"\b(?:I|[Ww]e) (?:now |currently |still )?live (?:and (?:I |[Ww]e )?work )?in (?P<value>{PROPER})",
        rf"\b(?:I|[Ww]e)(?:'ve| have) (?:always )?lived in (?P<value>{PROPER})",
        rf"\b(?:I|[Ww]e)(?:'ve| have) been living in (?P<value>{PROPER})",
        rf"\bI(?:'m| am) (?:now |currently )?(?:based|living) in (?P<value>{PROPER})",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) (?:back |here |over )?to "
        rf"(?P<value>{PROPER})(?=(?: from (?P<old>{PROPER}))?)",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) from (?P<old>{PROPER}) to "
        rf"(?P<value>{PROPER})",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?bought (?:a|our|my) (?:first )?"
        rf"(?:house|home|flat|apartment|condo) in (?P<value>{PROPER})",
        # a new home said by itself: "We just moved into a flat in Manchester", "Our new place is in
        # Brooklyn", "the new flat we're renting is in Camden" (not someone else's: "My sister's new place")
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?moved into (?:a|an|our|my|the) (?:new |own )?"
        rf"{HOME} in (?P<value>{PROPER})",
        rf"(?:\b(?i:our|my) new {HOME}|(?:^|[.!?] )(?i:the) new {HOME} (?:we|I)(?:'re| are|'m| am|'ve| have) "
        rf"(?:renting|bought|moved into)) is (?:in|over in|down in|up in) (?P<value>{PROPER})",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:finally |now )?settled (?:down )?in (?P<value>{PROPER})",
        # "I moved back to my hometown, Cork": the hometown rule files it as where the user is from too
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?moved back to (?i:my|our) home ?town(?:,| of) "
        rf"(?P<value>{PROPER})",
        rf"\bI(?:'m| am) back in (?P<value>{PROPER}),? where I grew up\b",
        # the user's clause going on without its "I": "I left London in 2020 and now live in Lisbon"
        rf"^(?:I|[Ww]e)\b[^.;]*? and (?:now |currently )?live in (?P<value>{PROPER})",
    ], "The user lives in {value}.", unless_a_stay(_place), importance=0.75),
    # a home worked from: "I work from home in Bristol", "I'm a designer, freelance, working from home in
    # Lisbon"; a known place only, as "home" says ("I work from home in August" is when), not for a while
    # ("working from home in Lisbon this week"), nor the subject of what follows ("I quit, working from home
    # in Leeds was lonely")
    rule("fact", "city", "work working", [
        rf"(?:\b(?:I|[Ww]e)(?:'m| am|'re| are)? (?:now |currently |mostly |still )?|^(?:I|[Ww]e)\b[^.;]*?, )"
        rf"(?:work|working) from home in (?P<value>{PROPER})"
        rf"(?! (?:this|today|tonight|tomorrow|next|until|till|was|were|is|has|had|felt|feels|got|gets)\b)",
    ], "The user lives in {value}.", unless_a_stay(_known_place), importance=0.75),
    # a move to a department in a place: "I moved to Sales in Denver", "I relocated to the Finance team
    # in Leeds" (the place, not the department: _department_move)
    rule("fact", "city", "moved relocated", [
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) (?:over )?to "
        rf"(?:the )?(?P<dept>{PROPER})(?: (?:team|department|division|office))? in (?P<value>{PROPER})",
    ], "The user lives in {value}.", _department_move, importance=0.75),
    # the employer of that move: "I moved to IBM in Austin", "I transferred to Deloitte in March"
    rule("fact", "employer", "moved relocated transferred", [
        rf"\bI(?:'ve| have)? {ADVERBS}(?:moved|relocated|transferred) (?:over )?to (?:the )?(?P<value>{ORG})"
        rf"(?= in (?:{PROPER}|{MONTH}|\d{{4}})|{ORG_END})",
    ], "The user's employer is {value}.", _employer_moved_to, importance=0.8),
    # "Home is Glasgow these days", "Porto is home now": a known place only ("Home is Acme", "Home is
    # Netflix" are none), and home closing its clause, "now" or "these days" apart ("Lisbon is home to the best
    # pastries", "Porto is home now for my sister" are none).
    rule("fact", "city", "home", [
        rf"(?:^|[.!?] )[Hh]ome(?:'s| is) (?:now )?(?P<value>{PROPER})(?={_HOME_ENDS})",
        rf"(?:^|[.!?] )(?P<value>{PROPER}) is (?:now )?(?:my |our )?home(?={_HOME_ENDS})",
    ], "The user lives in {value}.", _known_place, importance=0.75),
    # a home left, unless the move away is a stay (values.unless_a_stay): "I moved from Bergen to Oslo for a
    # year" leaves Bergen home, and files nothing
    rule("fact", "city", "live lived living moved relocated longer left", [
        rf"\b(?:I|[Ww]e) (?:used to live|previously lived|once lived|lived|was living|were living) in (?P<value>{PROPER})",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) "
        rf"(?:to (?P<new>{PROPER}) |away |here )?from (?P<value>{PROPER})(?= to (?P<then>{PROPER}))?",
        rf"\b(?:I|[Ww]e) no longer live in (?P<value>{PROPER})",
        # "I moved out of Boston in 2018", "I left London in 2020 and now live in Lisbon" (a place left
        # for another home; "I left Google" is a job, "I left Paris" alone a known place, _place_left)
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |finally )?(?:moved out of|left) (?P<value>{PROPER})"
        rf"(?=[^.;]*?\b(?:I|[Ww]e)?(?: now| currently)? (?:live|moved|relocated) (?:in|to)\b)",
        rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |finally )?moved out of (?P<value>{PROPER})",
        rf"\b(?:I|[Ww]e) (?:don't|do not) live in (?P<value>{PROPER}) (?=any ?more\b)",
    ], "The user used to live in {value}.", unless_a_stay(_place), confidence=0.7, importance=0.6, historical=True),
    # A month is when, not where: "I was born in Mar. 1990" (or "in March", "in Sept. 4, 1990") files the
    # year, and no birthplace "Mar"; "Marseille" and "Decatur" are places. Where and when may both be said, either
    # way round: "I was born in Leeds in Mar. 1990", "I was born on March 4, 1990 in Leeds".
    rule("fact", "birthplace", "born", [
        rf"{_I_WAS_BORN} (?:{_BORN_WHEN},? )?in (?!{MONTH})(?P<value>{PROPER})",
    ], "The user was born in {value}.", importance=0.6),
    rule("fact", "birth_year", "born", [
        rf"{_I_WAS_BORN} {BORN_WHERE}(?:in|on) (?:{BIRTH_DAY},? )?(?P<value>{BIRTH_YEAR})",
    ], "The user was born in {value}.", a_year, importance=0.6),
    # the day said with the birth is the birthday, as "My birthday is March 4" says it (plans.py)
    rule("fact", "birthday", "born", [
        rf"{_I_WAS_BORN} {BORN_WHERE}(?:on|in) {BIRTH_DAY}",
    ], "The user's birthday is {value}.", a_birthday, importance=0.7),
    rule("fact", "hometown", "originally grew come raised hometown home from", [
        rf"\b(?i:my) home ?town(?:,| of| is) (?P<value>{PROPER})",
        rf"\bI(?:'m| am) back in (?P<value>{PROPER}),? where I grew up\b",
        rf"\bI(?:'m| am) originally from (?P<value>{PROPER})",
        rf"\bI(?:'m| am) from (?P<value>{PROPER}),? originally\b",
        rf"\b(?:I come|[Oo]riginally,? I(?:'m| am)) from (?P<value>{PROPER})",
        rf"\bI (?:grew up|was (?:born and )?raised) in (?P<value>{PROPER})",
        # a place no one knows, introduced by its kind: "I grew up in a tiny village called Ballydehob"
        rf"\b(?:I (?:grew up|was (?:born and )?raised) in|I come from|I(?:'m| am) (?:originally )?from) {_PLACE_CALLED}"
        rf"(?P<value>{PROPER})",
    ], "The user is originally from {value}.", importance=0.6),
    # "I'm from Cairo", "I'm Omar, a chef from Cairo": where the user is from, which may not be where
    # they live now; a known place only ("I'm from Acme, calling about your order").
    rule("fact", "hometown", "from", [
        rf"\bI(?:'m| am) {INTRODUCED}(?:(?:an?|the) {ROLE} )?from (?:the )?(?P<value>{PROPER})",
        rf"^(?i:hi|hello|hey)(?: there)?[,!]? I(?:'m| am) {PROPER} from (?:the )?(?P<value>{PROPER})",
    ], "The user is from {value}.", _from_place, importance=0.6),
]
