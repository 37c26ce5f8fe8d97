"""A sentence as the offline rules read it: typography that looks the same on screen made the same.

The rules are written in ASCII punctuation and single spaces. People type "I’m" or, on some
keyboards, "I´m"; a phone puts a no-break space after "at"; text copied from a web page carries
zero-width spaces and soft hyphens inside words; macOS and some keyboards send "é" as "e" and a
combining accent (NFD). Read as typed, "I‘m a nurse" and "I work at\u00a0Stripe" filed nothing,
"My favourite band is Rad\u200biohead" filed "Rad", "I live in Zu\u0308rich" filed "Zu", and
quoted speech in „“ or «» was read as said ("He texted „I got the job at Google!“" filed Google).
Only what the rules read changes: a fact's `raw_quote` stays the message's own words, and its value
is the words as read here (NFC: "Zürich").
"""

from __future__ import annotations

import re
import unicodedata

_APOSTROPHES = str.maketrans({"‘": "'", "’": "'", "ʼ": "'", "＇": "'", "‚": "'", "‹": "'", "›": "'",
                              "“": '"', "”": '"', "„": '"', "‟": '"', "«": '"', "»": '"', "＂": '"'})
# An acute accent or a backtick between letters is an apostrophe typed on a keyboard without one.
_ACCENT_FOR_APOSTROPHE = re.compile(r"(?<=\w)[´`](?=\w)")
# Invisible in any text; a joiner (U+200C, U+200D) only between letters, where it is in no emoji.
_INVISIBLE = re.compile("[\u200b\u2060\ufeff\u00ad]")
_JOINER = re.compile("(?<=\\w)[\u200c\u200d](?=\\w)")
# Every space separator but the space itself (no-break, thin, ideographic, ...), and tabs.
_SPACES = re.compile("[\t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")


def plain(sentence: str) -> str:
    """`sentence` in NFC, with ASCII apostrophes, quotes and spaces, and nothing invisible.

    One call gives the fixed point (plain(plain(s)) == plain(s)), so each step reads what the one
    before it left: the joiners and the accent-for-apostrophe are kept or changed by the letters
    beside them, which are known only once the invisibles between are gone ("a\u200b\u200cb") and
    the accents composed ("e\u200b\u0301\u200cb"); a joiner dropped between Hangul jamo lets them
    compose, hence the second NFC."""
    letters = unicodedata.normalize("NFC", _INVISIBLE.sub("", sentence))
    letters = unicodedata.normalize("NFC", _JOINER.sub("", letters))
    return _SPACES.sub(" ", apostrophes(letters))


def apostrophes(text: str) -> str:
    """`text` with ASCII apostrophes and quotes, character for character: an offset into it is one into
    `text`, so a message can be split as read ("Kid’s form." as "Kid's form.") and quoted as typed."""
    return _ACCENT_FOR_APOSTROPHE.sub("'", text.translate(_APOSTROPHES))
