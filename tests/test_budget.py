"""The offline cl100k_base encoding gives the token ids OpenAI's published encoding gives."""

from memex.budget import count_tokens, encoding


def test_known_token_ids():
    assert encoding().encode("hello world") == [15339, 1917]
    assert encoding().encode("<|endoftext|>", allowed_special="all") == [100257]


def test_counting_is_total_and_treats_special_tokens_as_text():
    assert count_tokens("") == 0
    assert count_tokens("<|endoftext|>") > 1
    assert count_tokens("Käsespätzle 🧀 東京") > 3
