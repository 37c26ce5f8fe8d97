"""What says nothing of its own: filler, and greetings that name whom they greet (memex/filler.py)."""

import pytest

from memex.filler import is_filler, names_nothing, says_nothing


@pytest.mark.parametrize("text", ["Got it!", "Nice to meet you, Maya!", "Thanks, Tom!", "Maya, great to see you!",
                                  "Nice to meet you!", "👍", "...", "Hey, Maya!", "Bye, Tom!",
                                  # the name right after the greeting, no comma between (LoCoMo's way)
                                  "Thanks Mel!", "Bye Caroline", "Hey Jon", "Hey Mel! Good to see you!",
                                  "Thank you Maya.", "Hey Mel, how are you?", "Good morning Tom!"])
def test_a_greeting_or_an_acknowledgement_says_nothing(text):
    assert says_nothing(text)


@pytest.mark.parametrize("text", ["Nice to meet you, Maya! I work at Google.", "I work at Spotify, Maya.",
                                  "Hi! I'm Maya.", "Maya, I moved to Paris.", "Lisbon, Portugal!",
                                  "Nice to meet you at the Google office, Maya!",
                                  # an answer, not a name greeted
                                  "Sintra, definitely!", "Yes, Lisbon!", "Tokyo, yes.", "Sure, Saturday!",
                                  "Yes Lisbon!", "See you in Lisbon!",
                                  # the greeting goes on to say more
                                  "Thanks Mel for the book recommendation, I'll read Dune.", "Hey Paris is lovely",
                                  "Hi Caroline! I adopted a dog last week."])
def test_a_line_that_says_anything_else_says_something(text):
    assert not says_nothing(text)


@pytest.mark.parametrize("text", ["👍", "👍🏽", "😂😂", "❤️", "🙏🏽", "🤷\u200d♀️", "🎉🎉🎉", "✅", "lol 😂", "Got it! 👍"])
def test_a_line_of_reactions_is_filler(text):
    assert is_filler(text)


@pytest.mark.parametrize("text", ["🍕🍕", "🇯🇵!", "🐶", "Thanks! 🍕", "▶️"])
def test_an_emoji_that_names_something_is_a_word(text):
    """"🍕🍕" answered to "What should we eat?" says what, as "Pizza!" would."""
    assert not is_filler(text) and not names_nothing(text)
