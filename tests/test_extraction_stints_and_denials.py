"""A stay or a job for a while read by one vocabulary wherever it is said (after the place, or after what a
move was for)."""

import pytest

from memex.extraction.offline import OfflineExtractor


def _facts(content: str, *history: str) -> set[tuple[str, str, bool]]:
    earlier = [{"id": f"h{i}", "role": "user", "content": said} for i, said in enumerate(history)]
    found = OfflineExtractor().extract([{"id": "m", "role": "user", "content": content}], earlier)
    return {(c.key, c.value, c.historical) for c in found}


@pytest.mark.parametrize("span", [" for the summer", " for a while", " for eighteen months", " for this semester",
                                  " until March"])
def test_a_stay_and_a_job_for_a_while_are_read_alike(span):
    """The same span makes a move no home and the job it was made for no employer, whichever side it is
    said after."""
    assert _facts(f"I moved to Oslo{span}.") == set()
    assert _facts(f"I moved to Oslo to work at Equinor{span}.") == set()
    assert _facts(f"I moved to Oslo for a job at Equinor{span}.") == set()


@pytest.mark.parametrize("text, expected", [
    # a stay said after what the move was for: no home, no employer
    ("I moved to Oslo to work at Equinor for the summer.", set()),
    ("I moved to Oslo for the summer to work at Equinor.", set()),
    ("I relocated to Kyoto to study Japanese for a semester.", set()),
    ("I moved to Lisbon for my job at Feedzai for a while.", set()),
    # a home: no span, a span of another clause, a span of how long it has been home, "over" a time the move
    # was made in, a summer job as why
    ("I moved to Oslo to work at Equinor.", {("city", "Oslo", False), ("employer", "Equinor", False)}),
    ("I moved to Madrid because my wife has lived there for years.", {("city", "Madrid", False)}),
    ("I moved to Denver last year and have been there for a while.", {("city", "Denver", False)}),
    ("I've lived in Oslo for a while.", {("city", "Oslo", False)}),
    ("I moved to Oslo over the summer.", {("city", "Oslo", False)}),
    ("I moved to Oslo for a summer job at Equinor.", {("city", "Oslo", False)}),
])
def test_a_stay_said_after_what_the_move_was_for(text, expected):
    assert {f for f in _facts(text) if f[0] in ("city", "employer")} == expected
