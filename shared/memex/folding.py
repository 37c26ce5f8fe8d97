"""The keyword channel's reading of text, as Postgres's memex_text (migrations 0027, 0043, 0054) does
it: each emoji a word (memex.emoji), characters that show nothing dropped, accents folded, each Han or
Kana character a word of its own, and a Korean word's stems without its particles added. The database
folds what it stores and each query; this mirror finds, in a memory's content, the words of a query
as the query wrote them (the relevance floor's "said as written": memories._matched)."""

from __future__ import annotations

import re
import unicodedata

from memex import emoji

_MARKS = re.compile("[\u0300-\u036f]+")
_STROKES = str.maketrans({"Ł": "L", "ł": "l", "Ø": "O", "ø": "o", "Đ": "D", "đ": "d", "Ħ": "H", "ħ": "h",
                          "ı": "i", "Ŀ": "L", "ŀ": "l", "ß": "ss", "ẞ": "SS"})
# A Han or Kana character, a word of its own wherever it stands: memex_text spaces them apart, and
# a query word of one is said wherever the content holds it (memories._said), not spaced here (a
# substitution per character took a second for a memory of 300,000).
APART = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_INVISIBLE = str.maketrans(dict.fromkeys("\u200b\u200c\u200d\u2060\ufeff\u00ad"))
# memex_hangul_stems (migration 0043): a run of Hangul syllables, and the one or two particles a stem
# of it is read without
_HANGUL = re.compile("[가-힣]{2,}")
_SYLLABLE = re.compile("[가-힣]")
_PARTICLES = re.compile("(?:이|가|은|는|을|를|에|의|도|만|와|과|로|으로|에서|에게|한테|께|께서|부터|까지|처럼|보다|하고|랑|"
                        "이랑|마다|조차|밖에|이에요|예요|이야|입니다|이다){1,2}")


def fold(text: str, *, stemmed: bool = True) -> str:
    """`text` read as memex_text reads it, but for the spaces it puts around a Han or Kana character;
    without the Korean stems unless `stemmed`: a reader looking in it for no word that holds Hangul
    (hangul) finds nothing in them, and they are most of the work of a Korean text's folding.
    ASCII is its own folding (most text: no work)."""
    if text.isascii():
        return text
    # the emoji first: their joiners are among the characters that show nothing
    folded = unicodedata.normalize("NFC", _MARKS.sub("", unicodedata.normalize(
        "NFKD", emoji.words(text).translate(_INVISIBLE))))
    folded = folded.translate(_STROKES)
    if not stemmed:
        return folded
    return folded + "".join(" " + stem for word in _HANGUL.findall(folded) for stem in stems(word))


def hangul(word: str) -> bool:
    """Whether `word` holds a Hangul syllable: only such a word is found among the stems fold adds."""
    return _SYLLABLE.search(word) is not None


def stems(word: str) -> list[str]:
    """The stems a folded Korean `word` is also read as, longest first: what is left when one or two
    particles are taken off its end (memex_hangul_stems). None for a word of another script."""
    if not _HANGUL.fullmatch(word):
        return []
    # two particles are at most six syllables (memex_hangul_stems)
    return [word[:i] for i in range(len(word) - 1, max(len(word) - 7, 0), -1) if _PARTICLES.fullmatch(word, i)]
