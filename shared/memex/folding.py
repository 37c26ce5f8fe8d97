"""The keyword channel's reading of text, as Postgres's memex_text (migration 0027) does it: accents
folded, and each Han or Kana character a word of its own. The database folds what it stores and
each query; this mirror finds, in a memory's content, the words of a query as the query wrote them
(the relevance floor's "said as written": memories._matched)."""

from __future__ import annotations

import re
import unicodedata

_MARKS = re.compile("[\u0300-\u036f]+")
_STROKES = str.maketrans({"Ł": "L", "ł": "l", "Ø": "O", "ø": "o", "Đ": "D", "đ": "d", "Ħ": "H", "ħ": "h",
                          "ı": "i", "Ŀ": "L", "ŀ": "l", "ß": "ss", "ẞ": "SS"})
# A Han or Kana character, a word of its own wherever it stands: memex_text spaces them apart, and
# a query word of one is said wherever the content holds it (memories._said), not spaced here (a
# substitution per character took a second for a memory of 300,000).
APART = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def fold(text: str) -> str:
    """`text` with its accents folded as memex_text folds them. ASCII is its own folding (most text:
    no work)."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", _MARKS.sub("", unicodedata.normalize("NFKD", text))).translate(_STROKES)
