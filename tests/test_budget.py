"""The offline cl100k_base encoding gives the token ids OpenAI's published encoding gives."""

import pytest

from memex import budget
from memex.budget import count_tokens, encoding


def test_known_token_ids():
    assert encoding().encode("hello world") == [15339, 1917]
    assert encoding().encode("<|endoftext|>", allowed_special="all") == [100257]


def test_counting_is_total_and_treats_special_tokens_as_text():
    assert count_tokens("") == 0
    assert count_tokens("<|endoftext|>") > 1
    assert count_tokens("Käsespätzle 🧀 東京") > 3


@pytest.mark.parametrize("text", [
    "北" * 3000,  # CJK without punctuation: one piece of 9,000 bytes
    "x" * 4000,
    "=" * 2000 + " then words " + " " * 1500 + "\n" + "Käsespätzle" * 300,
    "I’m here. " + "饺子" * 600 + "，我在北京工作。" + "👩‍💻" * 300,
])
def test_a_text_with_a_long_piece_counts_what_tiktoken_counts(text):
    """Such a text is counted piece by piece, the long pieces by the heap merge (tiktoken's own
    merge takes time quadratic in a piece's length: a memory of 1 MB of CJK took it most of an hour)."""
    assert budget._LONG_RUN.search(text)
    assert count_tokens(text) == len(encoding().encode(text, disallowed_special=()))


def test_the_byte_floor_is_a_floor():
    assert max(len(token) for token in budget._ranks()) == budget.LONGEST_TOKEN_BYTES
    for text in ["", "hello world", " " * 1000, "北" * 2000, "-" * 500, "Käsespätzle 🧀 東京"]:
        assert budget.at_least(text) <= count_tokens(text)
