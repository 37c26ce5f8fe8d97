"""Rules of likes and opinions: what the user loves, hates or prefers, the team they support, a
favourite thing, an opinion ("I think X is overrated")."""

from __future__ import annotations

import re

from memex.extraction import vocabulary
from memex.extraction.offline.patterns import (ADVERBS, ANSWERS, CAPWORD, HATED_IT, INTENSIFIERS, LANGUAGES, LENGTHS,
    MONTH, NOT_OBJECT, PHRASE_END, PROPER, UPPER, WEEKDAY, WORD, alternation, list_or_phrase, phrase, strict_end)
from memex.extraction.plurals import singular
from memex.extraction.offline.rule import rule
from memex.extraction.offline.values import Fields, as_said, listed_items, snake


_EVALUATIONS = (
    "overrated underrated overhyped overpriced great good bad terrible awful amazing awesome fantastic "
    "wonderful excellent brilliant boring interesting fun useless useful pointless important essential "
    "dangerous stupid silly beautiful ugly better worse harmful healthy unhealthy fascinating exciting "
    "annoying cool nice perfect horrible lovely incredible ridiculous necessary unnecessary productive "
    "hard easy difficult delicious disgusting impressive underwhelming fine fair unfair"
).split() + ["the best", "the worst", "the future", "worth it", "a waste of time", "a scam", "a joke"]
_WORDS_LISTED = rf"{NOT_OBJECT}{WORD}(?:,\s+{NOT_OBJECT}{WORD}){{1,5}},?\s+(?:and|or)\s+{NOT_OBJECT}{WORD}{PHRASE_END}"


def _list_items(m: re.Match[str]) -> list[Fields]:
    """Each item of a list (_LIST: "hiking, camping and kayaking"; values.listed_items), or the one value when no
    comma says it is a list ("apple and cherry" stays whole)."""
    value = m.group("value")
    return [{"value": item} for item in (listed_items(value) if "," in value else [value])]


# Two words and no more, an "and" or "or" between them: a list of two even without a comma ("jazz and hiking"),
# where longer ones may not be ("action and sci-fi movies", "cooking for my husband and kids").
_TWO_WORDS = re.compile(r"[\w'&+-]+ (?:and|or) [\w'&+-]+")


def _liked(m: re.Match[str]) -> list[Fields]:
    """What is liked or disliked: each item of a list (_list_items), or of two words said as one (_TWO_WORDS) unless
    they are one thing ("rock and roll", "Simon and Garfunkel": values.listed_items)."""
    value = m.group("value")
    return [{"value": item} for item in listed_items(value)] if _TWO_WORDS.fullmatch(value) else _list_items(m)


def _favorite(m: re.Match[str]) -> list[Fields]:
    """A favourite thing, or each of a list of them: "My favourite foods are sushi, tacos and ramen" files
    three `favorite_food`, keyed as one favourite food would be."""
    if re.match(r"(?:probably|maybe|perhaps)\b", m.group("value")):
        return []
    thing = m.group("thing")
    if m.group("verb") == "are":
        *before, last = thing.split()
        thing = " ".join([*before, singular(last)])
    return [{**item, "thing": thing, "part": snake(thing)} for item in _list_items(m)]


def _opinion(m: re.Match[str]) -> list[Fields]:
    topic, part = m.group("topic"), snake(m.group("topic"))
    return [{"value": m.group("value"), "topic": topic, "verb": m.group("verb"), "part": part}] if part else []
# What the preference rules for answers take, which "I prefer ..." (the `prefers` key) leaves to them.
_ANSWER_PREFERRED = rf"(?:{LENGTHS} {ANSWERS}\b|{ANSWERS}(?: to be)? in {LANGUAGES})"
_NOT_A_TEAM = (r"(?:Labour|Tories|Tory|Conservatives|Democrats|Republicans|Greens|Lib Dems|Liberals|Reform|SNP|"
               r"Trump|Biden|Harris|Obama|Ukraine|Palestine|Israel|Gaza)(?![\w'&-])")
# A team by its usual name (vocabulary.SPORTS_TEAMS) or shaped as a club's ("Leeds United", "Cork City").
_TEAM_SHAPED = (rf"{CAPWORD}(?: {CAPWORD})? (?:United|City|FC|Rovers|Wanderers|Athletic|Albion|Hotspur|County|Town|"
                r"Rangers|Orient|Argyle|Wednesday|Forest)")
_TEAM = rf"(?:the )?(?P<value>(?:{alternation(vocabulary.SPORTS_TEAMS)})|{_TEAM_SHAPED})(?![\w'&-])"
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


RULES = [
    rule("preference", "likes", "love like enjoy adore fan into", [
        r"\bI (?:(?:really|absolutely|just|also|totally|truly|do|genuinely|kinda) )*(?:love|like|enjoy|adore) "
        rf"(?P<value>{_WORDS_LISTED}|{phrase(8)})",
        rf"\bI(?:'m| am) a (?:big |huge )?fan of (?P<value>{_WORDS_LISTED}|{phrase(8)})",
        rf"\bI(?:'m| am) (?:really |so |very |big |totally )?into (?P<value>{_WORDS_LISTED}|{phrase(6)})",
    ], "The user likes {value}.", _liked, confidence=0.7, importance=0.5),
    rule("preference", "dislikes", "hate dislike detest loathe stand like enjoy fan handle stomach tried tasted", [
        r"\bI (?:(?:really|absolutely|just|also|totally|truly|kinda) )*(?:hate|dislike|detest|loathe|can't stand|"
        rf"cannot stand|don't like|do not like|don't enjoy) (?!to\b)(?P<value>{_WORDS_LISTED}|{phrase(8)})",
        rf"\bI(?:'m| am) not (?:a |a big )?fan of (?P<value>{_WORDS_LISTED}|{phrase(8)})",
        # the thing said first: "I think cilantro tastes like soap, I hate it.", "Olives, I can't stand them."
        rf"\bI (?:really |honestly )?think (?P<value>{_DISLIKED}) (?:tastes?|smells?|looks?|sounds?|feels?) like "
        rf"[^,.;!?]+[,;] (?:and |so )?{_HATE_IT}",
        rf"^(?P<value>{_DISLIKED})(?:,|:|\s+[—–-]) {_HATE_IT}",
        rf"\bI (?:once |finally )?(?:tried|tasted) (?P<value>{_TRIED})(?: (?:once|before|recently|"
        rf"for the first time|last (?:night|week|month|year)))?(?:[,.;!] | ){HATED_IT}",
    ], "The user dislikes {value}.", _liked, confidence=0.7, importance=0.5),
    rule("preference", "prefers", "prefer", [
        r"\bI (?:(?:generally|usually|really|much|strongly|always) )*prefer "
        rf"(?!{_ANSWER_PREFERRED})(?P<value>{NOT_OBJECT}{WORD}(?:\s+{WORD}){{0,7}}?)"
        rf"(?:(?=\s+(?:over|rather than|instead of|than|to)\s)|{PHRASE_END})",
    ], "The user prefers {value}.", as_said, confidence=0.7, importance=0.5),
    # A team supported, by name: "I support Celtic", "I've supported Leeds United since I was six", "I'm a
    # season ticket holder at Leeds United". A party, a politician or a country supported is no team.
    rule("preference", "favorite_team", "support supported season supporter fan follow followed", [
        rf"\bI(?:'ve| have)? {ADVERBS}(?:support|supported) (?P<value>(?!{MONTH}|{WEEKDAY}|{_NOT_A_TEAM}){PROPER})"
        + strict_end("since", "and", "but", "though", "all", "through", "my whole", "ever", "like"),
        # "I support the Green Bay Packers": after "the", a team's plural name or a known team ("the NHS" is none)
        rf"\bI(?:'ve| have)? {ADVERBS}(?:support|supported|follow|followed) {_TEAM}",
        rf"\bI(?:'ve| have)? {ADVERBS}(?:support|supported) the (?P<value>(?:{CAPWORD} ){{0,2}}"
        rf"(?!{_NOT_A_TEAM}){UPPER}[\w-]*[a-z]s)(?![\w'&-])(?!\s+{UPPER})",
        # "Big Arsenal fan since I was a kid", "I'm a die-hard Celtics fan": a fan of a known team or a club
        rf"(?:^|\bI(?:'m| am) )(?:(?i:an?) )?(?:(?i:big|huge|massive|lifelong|life-long|die-hard|diehard|proud|loyal|"
        rf"long-suffering|long-time|longtime) )*{_TEAM} fan(?![\w'-])",
        rf"\bI(?:'m| am)? {ADVERBS}(?:have )?(?:an? )?season ticket(?: holder)? (?:at|for|with) (?P<value>{PROPER})",
        # "I'm a lifelong Liverpool supporter", "Lifelong Celtic supporter here": a supporter is a team's ("a big
        # Arsenal fan" may be a band's: not read)
        rf"(?:^|\bI(?:'m| am) )(?:(?i:an?) )?(?:(?i:big|huge|massive|lifelong|life-long|die-hard|diehard|proud|loyal) )*"
        rf"(?P<value>(?!{_NOT_A_TEAM}){PROPER}) supporter(?![\w'-])",
    ], "The user supports {value}.", confidence=0.7, importance=0.5),
    rule("preference", "favorite_{part}", "favorite favourite", [
        # "of all time" and "in the world" narrow nothing ("My favourite film of all time is Alien": favorite_film),
        # and filed nothing before; not "ever", whose favourite was filed as favorite_book_ever since before: stored
        # so. The thing: three words at most, or one or two said by or from whom with its article ("song by the
        # Beatles": favorite_song_by_beatles, as "book by Tolkien" is favorite_book_by_tolkien)
        rf"\b(?i:my) (?:all[- ]time |absolute )?favou?rite (?P<thing>{WORD}(?:\s+{WORD})? (?:by|from) the {WORD}"
        rf"(?:\s+{WORD})?|{WORD}(?:\s+{WORD}){{0,2}}?)(?: of all time| in the world)?"
        # "is actually X", "is now X": a correction's or a change's word, not the favourite's
        rf"(?: is|'s| (?P<verb>are))(?: (?i:actually|now|still|definitely|really|honestly|currently))? "
        rf"(?P<value>{list_or_phrase(6)})",
    ], "The user's favorite {thing} is {value}.", _favorite, confidence=0.75, importance=0.5),
    rule("opinion", "opinion_about_{part}", "think believe feel reckon mind", [
        r"(?:\bI (?:(?:really|honestly|personally|kinda|now|actually) )*(?:think|believe|feel like|feel that|reckon)"
        r"(?: that)?|\bI(?:'ve| have)? changed my mind[:,;—–-]*) "
        r"(?P<topic>(?!(?:it|that|this|you|he|she|they|we|I|my|our|your|his|her|their|there|what|which|"
        rf"everything|nothing|something|anything|everyone|someone|nobody)\b){WORD}(?:\s+{WORD}){{0,3}}?) "
        r"(?P<verb>is|are) "
        rf"(?:(?:{alternation(INTENSIFIERS)}|kind of|a bit) )?(?P<value>{alternation(_EVALUATIONS)})"
        + strict_end("and", "for", "to", "in", "if", "these days", "nowadays", "honestly", "tbh", "imo", "though"),
    ], "The user thinks {topic} {verb} {value}.", _opinion, confidence=0.6, importance=0.4),
]
