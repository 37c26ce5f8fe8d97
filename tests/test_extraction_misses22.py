"""What the offline rules misread (extract22): a span counted and then "now" says how long a home or a job has
been held, not a stay; a role for a while is no job title, as a job for a while is no employer; a job "until" a
month is a job for a while, as a place until then is a stay. Each beside sentences that must file what they
filed before."""

import pytest

from memex.extraction.offline import OfflineExtractor


def _facts(content: str, *history: str) -> set[tuple[str, str, bool]]:
    earlier = [{"id": f"h{i}", "role": "user", "content": said} for i, said in enumerate(history)]
    found = OfflineExtractor().extract([{"id": "m", "role": "user", "content": content}], earlier)
    return {(c.key, c.value, c.historical) for c in found}


@pytest.mark.parametrize("text, key, expected", [
    # a span counted, then "now": how long so far, the home, the job or the school still held
    ("I'm living in Lisbon for a year now.", "city", {("city", "Lisbon", False)}),
    ("I live in Lisbon for a few months now.", "city", {("city", "Lisbon", False)}),
    ("I work at Google for two years now.", "employer", {("employer", "Google", False)}),
    ("I've been working at Google for a while now.", "employer", {("employer", "Google", False)}),
    ("I'm studying at MIT for two years now.", "school", {("school", "MIT", False)}),
    ("My sister lives in Paris for two years now.", "sister_city", {("sister_city", "Paris", False)}),
    # "the summer now" is still a stay, and a span without "now" still one
    ("I'm living in Lisbon for the summer now.", "city", set()),
    ("I'm working at Google for the summer now.", "employer", set()),
    ("I'm living in Lisbon for a year.", "city", set()),
    ("I work at Google for two years, then I'm off to Meta.", "employer", set()),
])
def test_a_span_counted_now_is_how_long_so_far(text, key, expected):
    assert {f for f in _facts(text) if f[0] == key} == expected
