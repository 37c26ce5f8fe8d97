"""A user's words found in a text as data, as a pattern of them would find them, never compiled into one:
re's cache is process-wide and keyed by a pattern's text, and would keep an erased user's words (a name,
a value, a quote) until 512 other patterns pushed them out (tests/test_whose.py)."""

from __future__ import annotations

from typing import Callable, Iterator

# The letters IGNORECASE reads as a third case of another letter (re's extra cases: "ſ" is an s, "ı" an
# i, "ς" a σ), each as that letter, which a backreference (reading a letter's two cases only) then
# matches as a pattern of the name would; all but the combining iota subscript (U+0345, no letter to
# \w, which ι is): tests/test_named.py compares them with re's own reading.
_EXTRA_CASES = str.maketrans("ıſµϐϵϑϴϰϖϱςϕᲀᲁᲂᲃᲄᲅᲆᲇᲈẛ\u1fbe", "isμβεθθκπρσφвдосттъѣꙋṡι")
# re lowers a character by its simple mapping, one character; str.lower gives "İ" two (i and a dot).
_SIMPLE_LOWER = {"\u0130": "i"}


def fold_extra_cases(text: str) -> str:
    """`text`, each letter IGNORECASE reads as a third case of another as that letter, one for one."""
    return text if text.isascii() else text.translate(_EXTRA_CASES)


def caseless(text: str) -> str:
    """`text` as re.IGNORECASE compares it, one character for one: two characters are the same to it
    when these are. Each is lowered alone (str.lower of a whole text writes a final sigma "ς")."""
    if text.isascii():
        return text.lower()
    return "".join(_SIMPLE_LOWER.get(c) or c.lower() for c in fold_extra_cases(text))


def word_character(char: str) -> bool:
    r"""re's `\w` (of a str pattern): alphanumeric or "_"."""
    return char.isalnum() or char == "_"


def boundary(text: str, at: int) -> bool:
    r"""Whether `\b` holds at `at`: a word character on one side only."""
    return word_character(text[at - 1:at]) != word_character(text[at:at + 1])


def starts(words: str, text: str, *, bounded_before: bool = True) -> Iterator[int]:
    r"""Every place `text` says `words`, case ignored as re.IGNORECASE does, overlapping too: the starts of
    `\b(?=words\b)` (`(?=words\b)` when not `bounded_before`). One scan of the text (a pattern that read
    the words from the text's end at each place was quadratic in its length)."""
    seen, sought = caseless(text), caseless(words)
    if not sought:
        return
    for at in places(seen, sought):
        if (not bounded_before or boundary(text, at)) and boundary(text, at + len(sought)):
            yield at


def places(text: str, word: str) -> Iterator[int]:
    """Every place `text` has `word` as written, left to right, overlapping too."""
    at = text.find(word)
    while at >= 0:
        yield at
        at = text.find(word, at + 1)


def spans(words: str, text: str, *, ignore_case: bool = False, spaced: bool = False,
          joins: Callable[[str], bool] = word_character) -> Iterator[tuple[int, int]]:
    r"""Where `text` says `words` with no character `joins` holds of right before or after, left to right
    and not overlapping: the matches of `(?<!\w)words(?!\w)` (`joins` for `\w`, `words` escaped; with
    `ignore_case`, re.IGNORECASE's), or `spaced`, of `(?<!\w)w1\s+w2...(?!\w)`, its words with any
    whitespace between them."""
    parts = words.split() if spaced else [words]
    seen = caseless(text) if ignore_case else text
    if ignore_case:
        parts = [caseless(part) for part in parts]
    after = 0  # where the last match ended: the next begins there or later
    for at in places(seen, parts[0] if parts else ""):
        if at < after:
            continue
        end = said_at(seen, parts, at)
        if end is not None and not joins(text[at - 1:at]) and not joins(text[end:end + 1]):
            yield at, end
            after = end


def said_at(seen: str, parts: list[str], at: int) -> int | None:
    r"""Where `parts` said from `at` in `seen` end (`w1\s+w2...`: a run of whitespace between two), or None
    (no parts: `at`). Case is as `seen` and `parts` have it: both through caseless, it is ignored."""
    for number, part in enumerate(parts):
        start = at
        while number and at < len(seen) and seen[at].isspace():
            at += 1
        if (number and at == start) or not seen.startswith(part, at):
            return None
        at += len(part)
    return at


def says(words: str, text: str, *, ignore_case: bool = False, spaced: bool = False,
         joins: Callable[[str], bool] = word_character) -> bool:
    """Whether `text` says `words` (spans)."""
    return next(spans(words, text, ignore_case=ignore_case, spaced=spaced, joins=joins), None) is not None
