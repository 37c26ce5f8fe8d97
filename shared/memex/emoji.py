"""Emoji as words. Postgres's text-search parser drops an emoji as it drops punctuation, and
all-MiniLM-L6-v2's vocabulary has none (each is its unknown token), so "🍣" found nothing, not even
"I love 🍣". Here an emoji, or a sequence drawn as one (a ZWJ sequence 👩‍💻, a skin tone 👍🏽, a
flag 🇯🇵 or 🏴󠁧󠁢󠁳󠁣󠁴󠁿, a variation selector ❤️), is read:

- by the keyword channel as one word of ASCII (`words`, mirroring memex_emoji_words, migrations
  0054 and 0058): "emoji" and its code points in hex, "🍕" is emoji1f355. Variation selectors and skin tones
  are how it is drawn, folded away as accents are ("❤️" is "❤", "👍🏽" is "👍"); the joiners go too,
  the code points they join stay ("👩‍💻" is emoji1f469x1f4bb, not 👩 nor 💻).
- by the local embedder as its Unicode name in its place (`named`, embeddings/named_emoji.py): "🍕" as
  "slice of pizza", so "pizza" finds "🍕" and "🍕" finds "pizza". In place, not beside: the unknown
  token beside the name made every text with an emoji near every other (docs/measurements/emoji.md).

A pictograph is one of the blocks below (Unicode's emoji live there), less what compatibility
decomposition already folds to letters ("🄰" is "A", "🈯" is "指": read as before), a lone skin tone
and the ornamental quotes and brackets of the Dingbats block (❝ ❨, punctuation): an emoji drawn either
way ("✓", "★", "☺" with or without VS16). Outside the blocks, Unicode's rule: a character that is text
by default is an emoji when VS16 follows it ("▶️", "©️", "™️"; "🈯️" too) and text without it; a keycap
("1️⃣", "#️⃣") is an emoji."""

from __future__ import annotations

import re
import unicodedata

from memex import emoji_names

# Misc Technical's emoji (⌚ ⏰), Misc Symbols and Dingbats (☕ ❤ ✨), ⬛ ⬜ ⭐ ⭕, and the
# supplementary planes' emoji blocks (🀄, 🆗, the regional indicators, 🌍 to 🫶) but the skin tones
PICTOGRAPH = ("\u231a\u231b\u2328\u23cf\u23e9-\u23f3\u23f8-\u23fa\u2600-\u275a\u2761-\u2767\u2776-\u27bf"
              "\u2b1b\u2b1c\u2b50\u2b55\U0001f000-\U0001f0ff\U0001f16d-\U0001f18f\U0001f191-\U0001f1ff"
              "\U0001f300-\U0001f3fa\U0001f400-\U0001faff")
# Unicode's emoji outside those blocks (emoji-data.txt's Emoji property, less the keycaps' digits, # and *, and
# the skin tones): text by default, an emoji when VS16 follows ("▶️", "©️", "™️", "ℹ️"); "▶" is text, and
# "™" folds to "TM" as before.
PRESENTED = ("\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u2199\u21a9\u21aa\u24c2\u25aa\u25ab\u25b6\u25c0"
             "\u25fb-\u25fe\u2934\u2935\u2b05-\u2b07\u3030\u303d\u3297\u3299\U0001f201\U0001f202\U0001f21a"
             "\U0001f22f\U0001f232-\U0001f23a\U0001f250\U0001f251")
# What starts an emoji: a pictograph, an emoji of PRESENTED with VS16, a keycap ("1️⃣", "#️⃣", also without VS16);
# memex_emoji_words (migration 0058) reads the same expression
HEAD = f"[{PICTOGRAPH}]|[{PRESENTED}]\ufe0f|[#*0-9]\ufe0f?\u20e3"
_INDICATOR = "[\U0001f1e6-\U0001f1ff]"
_DRAWN = "\ufe0e\ufe0f\U0001f3fb-\U0001f3ff"  # variation selectors and skin tones
_ELEMENT = f"(?:{_INDICATOR}{_INDICATOR}|{HEAD})[\U000e0020-\U000e007f]*[{_DRAWN}]*"
# memex_emoji_sequences writes the same expression
SEQUENCE = re.compile(f"{_ELEMENT}(?:\u200d{_ELEMENT})*")
# Every character a SEQUENCE can hold: none crosses any other, so sequences read from one are those a reading
# from the start of the text finds there
_HELD = re.compile(f"[{PICTOGRAPH}{PRESENTED}#*0-9\u20e3\U000e0020-\U000e007f{_DRAWN}\u200d]")
_ANY = re.compile(HEAD)
_FOLDED = str.maketrans(dict.fromkeys([0xfe0e, 0xfe0f, 0x200d, *range(0x1f3fb, 0x1f400)]))


def holds(text: str) -> bool:
    """Whether `text` holds an emoji."""
    return not text.isascii() and _ANY.search(text) is not None


def held(character: str) -> bool:
    """Whether an emoji sequence can hold `character`."""
    return _HELD.match(character) is not None


def word(sequence: str) -> str:
    """The keyword channel's word for one emoji sequence (memex_emoji_words)."""
    return "emoji" + "x".join(f"{ord(c):x}" for c in sequence.translate(_FOLDED))


def words(text: str) -> str:
    """`text` with each emoji sequence its word, spaced apart from what it touches."""
    return SEQUENCE.sub(lambda m: f" {word(m.group())} ", text) if holds(text) else text


def name(sequence: str) -> str:
    """What one emoji sequence is called: the Unicode names of its pictographs ("👩‍💻": "woman personal
    computer"), a flag its two letters ("flag jp"); one Python 3.11's Unicode does not know from emoji_names ("🫨"
    "shaking face"), itself when that has no name for it either."""
    parts = []
    for c in sequence.translate(_FOLDED):
        if "\U0001f1e6" <= c <= "\U0001f1ff":
            parts.append(chr(ord(c) - 0x1f1e6 + ord("a")))
        elif not "\U000e0020" <= c <= "\U000e007f":
            parts.append((unicodedata.name(c, None) or emoji_names.NAMES.get(ord(c), c)).lower())
    if len(parts) == 2 and all(len(p) == 1 and p.isascii() for p in parts):
        return "flag " + "".join(parts)
    return " ".join(parts)


def named(text: str) -> str:
    """`text` with each emoji sequence's name in its place."""
    return SEQUENCE.sub(lambda m: f" {name(m.group())} ", text) if holds(text) else text
