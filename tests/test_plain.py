"""plain.plain reads a sentence once: what it returns it would return unchanged."""

from hypothesis import example, given, settings, strategies as st

from memex.extraction.plain import plain

# Letters (with a decomposed accent and Hangul jamo, which NFC composes), the invisibles and
# joiners plain drops, the marks it reads as apostrophes, and spaces.
_PIECES = st.sampled_from(["a", "b", "e", "\u0301", "\u1100", "\u1161", "\u200b", "\u200c", "\u200d", "\u2060",
                           "\ufeff", "\u00ad", "´", "`", "\u1ffd", "’", "'", " ", "\u00a0", "\t", "1"])


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=8).map("".join))
@example("a\u200b\u200cb")
@example("a\u200b´b")
@example("e\u200b\u0301\u200cb")
def test_plain_is_its_own_fixed_point(text):
    assert plain(plain(text)) == plain(text)


def test_an_invisible_beside_a_joiner_or_an_accent_goes_in_one_pass():
    assert plain("a\u200b\u200cb") == "ab"
    assert plain("a\u200b´b") == "a'b"
