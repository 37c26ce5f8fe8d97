"""A speaker's news (retrieval/news.py): the lines in which someone tells what they did, and the
questions that ask for a list of it; the learned order's "news" feature reads both
(test_learned.py)."""

from __future__ import annotations

import pytest

from memex.retrieval import news


@pytest.mark.parametrize("content", [
    "Melanie: Wow, Caroline! I just signed up for a pottery class yesterday.",
    "Hey Joanna! Lately, I've been doing great - I won a really big video game tournament!",
    "Been busy at the shelter. Just started doing aerial yoga, it's great.",
    "My kids and I painted the fence.",
    "We went camping at the beach.",
    "I've finally finished my first novel.",
    "Last weekend there was a fair downtown.",
    "Took the turtles to the park the other day.",
])
def test_news_is_told(content):
    assert news.tells(content)


@pytest.mark.parametrize("content", [
    "Caroline: That sounds like so much fun!",
    "I need a break from all of it.",  # "-ed", no past
    "I love painting with my kids.",
    "Do you want to go camping next week?",
    "What did you do at the fair?",  # asked, not told
    "She went to the beach.",  # someone else's news
    "Great bookshelf!",
])
def test_other_lines_tell_no_news(content):
    assert not news.tells(content)


@pytest.mark.parametrize("question", [
    "What books has Melanie read?",
    "Which LGBTQ+ events did Caroline attend?",  # a plural with a "+" in its word
    "What transgender-specific events has Caroline attended?",
    "What kinds of art does Melanie make?",
    "How many tournaments has Nate won?",
    "What are Joanna's hobbies?",
    "What has Melanie painted?",  # the perfect: what was done over time
    "Where has Melanie camped?",
])
def test_a_question_asking_for_a_list_or_a_count(question):
    assert news.asks_list(question)


@pytest.mark.parametrize("question", [
    "What did Caroline research?",
    "When did Melanie go camping?",
    "Where does she work?",
    "What is Joanna allergic to?",
    "Why did Gina open her store?",
])
def test_a_question_asking_for_one_thing(question):
    assert not news.asks_list(question)
