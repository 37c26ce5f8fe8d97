"""bench/year: its pure parts (the year generated, the questions' answers on a day, how a result is
judged, the chain check); the run itself needs a server and minutes, and is the benchmark's own."""

from __future__ import annotations

from datetime import datetime, timezone

from bench.year.__main__ import alike, chains
from bench.year.life import Life, generate
from bench.year.questions import Question, questions, rank

START = datetime(2025, 1, 1, tzinfo=timezone.utc)


def test_the_year_is_the_same_for_a_seed_and_its_changes_come_in_order():
    life = generate(7)
    assert [[t.user for t in day] for day in life.days] == [[t.user for t in day] for day in generate(7).days]
    assert len(life.days) == 365 and all(3 <= len(day) <= 10 for day in life.days)
    assert len(life.employers) == 10 and len({e for _, e in life.employers}) == 10
    assert [d for d, _ in life.employers] == sorted(d for d, _ in life.employers)
    assert len(life.cities) == 5
    # the first dog is named on day 2 and never again
    assert [t.day for day in life.days for t in day if life.first_dog in t.user] == [1, 210]


def test_the_questions_on_a_day_have_that_days_answers():
    life = generate(1)
    asked = {q.query: q for q in questions(life, 29)}
    assert asked["where does she work?"].answer == life.employers[0][1]
    assert "who is her partner?" not in asked  # not met yet
    late = {q.query: q for q in questions(life, 364)}
    assert late["where does she work?"].answer == life.employers[-1][1]
    assert late["what diet does she follow?"].answer == "vegan"
    assert sum(q.kind == "history" and q.query.startswith("where did she work") for q in late.values()) == 9


def test_a_when_answer_must_be_dated_the_day_of_the_move():
    question = Question("history", "when did she move to Oslo?", "Oslo", day=80)
    moved = {"content": "I moved to Oslo this weekend.", "valid_from": "2025-03-22T08:00:00Z"}
    later = {"content": "I love Oslo.", "valid_from": "2025-06-01T08:00:00Z"}
    assert rank(question, [later, moved], START) == 2
    assert rank(question, [later], START) is None
    assert rank(Question("early", "q", "oslo"), [later], START) == 1


def test_the_chain_check_finds_a_missing_link_and_an_old_value_left_current():
    life = Life(name="N", hometown="H", first_dog="D", employers=[(0, "A"), (5, "B"), (9, "C")],
                cities=[(0, "X")])
    facts = [{"id": "1", "key": "employer", "value": "A", "memory_type": "semantic", "active": False},
             {"id": "2", "key": "employer", "value": "B", "memory_type": "semantic", "active": True,
              "supersedes": "1"},
             {"id": "3", "key": "employer", "value": "C", "memory_type": "semantic", "active": True,
              "supersedes": None}]
    found = chains(life, facts)["employer"]
    assert found["links"] == 1 and found["of"] == 2 and found["active"] == ["B", "C"]
    assert found["problems"] == ["B -> C: old still active; C supersedes [None]"]


def test_alike_counts_the_active_summaries_reading_another_ones_text():
    def summary(content, active=True):
        return {"content": content, "active": active, "type": "summary"}

    memories = [summary("Noted."), summary("Noted."), summary("Noted.", active=False), summary("Sure, done."),
                summary("I had a long day at work."), summary("I had a long day at work."),
                {"content": "Noted.", "active": True, "type": "message"}]
    assert alike(memories) == {"summaries": 5, "alike": 4, "texts_repeated": 2}
