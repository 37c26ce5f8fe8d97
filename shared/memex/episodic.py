"""What an episodic memory says: the message as sent, prefixed by its speaker's name when the client
gave one, so that "what did Caroline say about…" finds Caroline's words. The pipeline stores it so;
recall reads a message whose turn is not processed yet the same way. Its own module: the recall
handler needs it without the pipeline's imports (extraction, the LLM client).

A message that shows nothing (empty, spaces, invisible format characters: an assistant message that
only called a tool) makes no episodic memory: no question is about it, and embedded with the line it
answers it would be found in that line's place and recalled as an empty bullet. It stays among the
session's messages as sent."""

from __future__ import annotations

import re

# What shows nothing: the characters str.isspace() takes and the invisible format characters (Unicode
# category Cf: zero-width space and joiner, BOM, soft hyphen), as ranges of code points, Unicode 14.0
# (Python 3.11's unicodedata, which tests/test_recall.py reads them from again). Listed, not read
# from unicodedata at import (0.6 s over every code point), so that Postgres can tell them too.
INVISIBLE = ((0x09, 0x0D), (0x1C, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0xAD, 0xAD), (0x600, 0x605),
             (0x61C, 0x61C), (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2), (0x1680, 0x1680),
             (0x180E, 0x180E), (0x2000, 0x200F), (0x2028, 0x202F), (0x205F, 0x2064), (0x2066, 0x206F),
             (0x3000, 0x3000), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
             (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F))
_INVISIBLE_CLASS = "[" + "".join(chr(low) if low == high else f"{chr(low)}-{chr(high)}" for low, high in INVISIBLE) + "]"
# A text that shows nothing, as a regular expression Postgres reads (`content ~ SHOWS_NOTHING`).
SHOWS_NOTHING = f"^{_INVISIBLE_CLASS}*$"
_NOTHING_SHOWN = re.compile(f"{_INVISIBLE_CLASS}*")


def episodic_text(message: dict) -> str:
    return f"{message['name']}: {message['content']}" if message["name"] else message["content"]


def own_words(content: str, name: str | None) -> str:
    """What the message of an episodic memory said: its `content` without the speaker's name before it."""
    return content.removeprefix(f"{name}: ") if name else content


def shows_nothing(text: str) -> bool:
    return _NOTHING_SHOWN.fullmatch(text) is not None
