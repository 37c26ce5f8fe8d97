"""bench.locomo_misses: the tallies of one question's missed evidence lines (made-up lines)."""

from bench.locomo_misses import band, tally_question

LINES = {
    "D1:1": {"speaker": "Ana", "text": "I took up pottery this spring."},
    "D1:2": {"speaker": "Ana", "text": "The pottery class meets on Mondays."},
    "D3:4": {"speaker": "Ana", "text": "We went camping by the lake."},
    "D5:2": {"speaker": "Ben", "text": "Running clears my head."},
}


def test_band():
    assert band(12, (10, 25, 50, 100)) == "11-25"
    assert band(51, (10, 25, 50, 100)) == "51-100"
    assert band(None, (10, 25, 50, 100)) == "beyond 100"


def test_a_missed_line_is_placed_and_compared_with_the_found_one():
    qa = {"question": "What hobbies does Ana have besides pottery?", "evidence": ["D1:1", "D1:2", "D3:4"]}
    hybrid = ["D1:1", *[f"D9:{i}" for i in range(1, 12)], "D1:2"]  # D1:2 at 13, D3:4 not ranked
    tally, missed = tally_question(qa, LINES, hybrid, vector=["D3:4"])
    assert tally["in the top 10"] == 1 and tally["missed"] == 2
    assert tally["missed: hybrid rank 11-25"] == 1 and tally["missed: hybrid rank beyond 100"] == 1
    assert tally["missed: vector rank 1-10"] == 1 and tally["missed: vector rank beyond 100"] == 1
    assert tally["missed, another line found: same session as one"] == 1  # D1:2 beside D1:1
    assert tally["missed, another line found: other session"] == 1  # D3:4
    assert tally["missed, another line found: shares a word with it"] == 1  # "pottery"
    assert tally["missed: shares a word with the question"] == 1
    assert tally["missed: its speaker named"] == 2
    assert [(m["dia_id"], m["rank"]) for m in missed] == [("D1:2", 13), ("D3:4", None)]


def test_a_question_with_nothing_found():
    qa = {"question": "What does Ben do to relax?", "evidence": ["D5:2"]}
    tally, _ = tally_question(qa, LINES, hybrid=["D1:1"], vector=[])
    assert tally["missed, no line of the question found"] == 1
    assert tally["missed: no word of the question"] == 1
