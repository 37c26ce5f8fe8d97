"""A search result that is a message whose fact has since changed says so (`no_longer_current`), as
recall notes it on the message's line: an agent that searches instead of recalling is not left to
tell the user something stale."""

from __future__ import annotations

import pytest

from tests.conftest import round_trips


def _by_content(results: list[dict]) -> dict[str, list[str]]:
    return {r["content"]: r["no_longer_current"] for r in results}


def _moved(tenant, **extra) -> None:
    tenant.turn("I live in Lisbon.", session="s1", timestamp="2026-01-10T09:00:00Z", **extra.get("old", {}))
    tenant.turn("We moved to Berlin.", session="s2", timestamp="2026-05-02T09:00:00Z", **extra.get("new", {}))


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "vector"])
def test_a_message_whose_city_was_replaced_says_which_value_is_no_longer_current(tenant, mode):
    _moved(tenant)
    for query in ("where does she live?", "Lisbon", "Berlin"):
        results = tenant.search(query, mode=mode, top_k=10)
        marks = _by_content(results)
        assert marks.get("I live in Lisbon.", ["Lisbon"]) == ["Lisbon"], (query, marks)
        # the message that said the current city is not stale, nor is any fact
        assert marks.get("We moved to Berlin.", []) == [], (query, marks)
        assert all(r["no_longer_current"] == [] for r in results if r["memory_type"] != "episodic"), marks
    assert "I live in Lisbon." in _by_content(tenant.search("Lisbon", mode=mode, top_k=10))


def test_a_question_about_the_past_marks_the_message_it_returns(tenant):
    _moved(tenant)
    marks = _by_content(tenant.search("where did she live before?", top_k=10))
    assert marks.get("I live in Lisbon.") == ["Lisbon"], marks


def test_a_message_whose_job_was_ended_is_marked_and_the_news_is_not(tenant):
    """Recall's rule: "I left Feedzai." ended the employer with nothing after it; the message that
    named it is stale, the one that ended it is not stale for saying so."""
    tenant.turn("I work at Feedzai.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I left Feedzai.", session="s2", timestamp="2026-03-02T09:00:00Z")
    for query in ("where does she work?", "Feedzai"):
        marks = _by_content(tenant.search(query, top_k=10))
        assert marks["I work at Feedzai."] == ["Feedzai"], (query, marks)
        assert marks["I left Feedzai."] == [], (query, marks)


def test_another_subjects_change_does_not_mark_the_users_message(tenant):
    tenant.turn("I live in Lisbon.", session="s1", timestamp="2026-01-10T09:00:00Z")
    tenant.turn("My brother Tom moved to Berlin.", session="s2", timestamp="2026-05-02T09:00:00Z")
    marks = _by_content(tenant.search("Lisbon", top_k=10))
    assert marks["I live in Lisbon."] == [], marks


def test_a_change_another_agent_heard_marks_the_agents_message(tenant):
    """The user's facts are one set whichever agent heard the change (current_first.py)."""
    _moved(tenant, old={"agent_id": "coach"}, new={"agent_id": "planner"})
    marks = _by_content(tenant.search("Lisbon", agent_id="coach", top_k=10))
    assert marks["I live in Lisbon."] == ["Lisbon"], marks
    assert "We moved to Berlin." not in marks  # the planner's message stays the planner's


def test_a_user_with_nothing_replaced_has_every_result_unmarked(tenant):
    tenant.turn("I live in Lisbon.", "I work at Stripe.", session="s1", timestamp="2026-01-10T09:00:00Z")
    results = tenant.search("Lisbon", top_k=10)
    assert results and all(r["no_longer_current"] == [] for r in results), results


def test_a_question_about_a_period_marks_the_messages_said_in_it(tenant):
    _moved(tenant)
    marks = _by_content(tenant.search("what did I tell you in January 2026?", top_k=10,
                                      reference_time="2026-06-01T00:00:00Z"))
    assert marks == {"I live in Lisbon.": ["Lisbon"]}, marks


ASKED = {"reference_time": "2026-06-01T09:00:00Z"}


def _recalled(tenant, question: str, **extra) -> list[str]:
    response = tenant.post("/v1/recall", {"user_id": tenant.user, "query": question, **ASKED, **extra})
    assert response.status_code == 200, response.text
    return response.json()["context"].splitlines()[1:]


def test_a_line_said_again_carries_the_value_its_first_saying_made_stale(tenant):
    """February's "I live in York." draws no fact (York already held: a noop), yet it says what
    January's said: once she moved to Berlin, both lines are stale, in a search and in recall."""
    tenant.turn("I live in York.", session="a", timestamp="2026-01-10T09:00:00Z")
    tenant.turn("I live in York.", session="b", timestamp="2026-02-10T09:00:00Z")
    tenant.turn("Yes, I live in York. The walls are lovely.", session="c", timestamp="2026-02-20T09:00:00Z")
    tenant.turn("We moved to Berlin.", session="d", timestamp="2026-03-01T09:00:00Z")
    for mode in ("hybrid", "bm25", "vector"):
        said = [r for r in tenant.search("where do I live?", mode=mode, **ASKED) if "York" in r["content"]]
        assert len(said) == 3 and all(r["no_longer_current"] == ["York"] for r in said), (mode, said)
    assert sorted(line for line in _recalled(tenant, "where do I live?") if "York" in line) == [
        "- I live in York. (said 2026-01-10 and 2026-02-10; no longer current: York)",  # one line, said twice
        "- Yes, I live in York. The walls are lovely. (said 2026-02-20; no longer current: York)"]


def test_a_line_said_again_is_stale_only_for_what_held_when_it_was_said_and_ended_since(tenant):
    """The rule's limits: as of a time before the move, neither York line is stale; said by another
    participant, or by the assistant, the same words are not the user's fact; said again after moving
    back, "I live in York." states the York current then (its own fact), and the lines said before
    the move hold again: York is current."""
    def said(session: str, timestamp: str, *lines: tuple[str, str | None, str]) -> None:
        body = {"user_id": tenant.user, "session_id": session, "timestamp": timestamp, "user_name": "Caroline",
                "messages": [{"role": role, "content": text, **({"name": name} if name else {})}
                             for role, name, text in lines]}
        assert tenant.post("/v1/turns?wait=true", body).status_code == 201, body

    def marks(**extra) -> dict[tuple[str, str], list[str]]:
        return {(r["valid_from"][:10], r["content"]): r["no_longer_current"]
                for r in tenant.search("York", top_k=20, **extra) if r["memory_type"] == "episodic"}

    said("a", "2026-01-10T09:00:00Z", ("user", "Caroline", "I live in York."))
    said("b", "2026-02-10T09:00:00Z", ("user", "Caroline", "I live in York."), ("user", "Melanie", "I live in York."),
         ("assistant", None, "I live in York."))
    said("c", "2026-03-01T09:00:00Z", ("user", "Caroline", "We moved to Berlin."))
    moved = marks()
    assert moved[("2026-01-10", "Caroline: I live in York.")] == ["York"], moved
    assert moved[("2026-02-10", "Caroline: I live in York.")] == ["York"], moved
    assert moved[("2026-02-10", "Melanie: I live in York.")] == [], moved
    assert moved[("2026-02-10", "I live in York.")] == [], moved  # the assistant's
    before = marks(as_of="2026-02-20T09:00:00Z")
    assert before[("2026-01-10", "Caroline: I live in York.")] == [] == before[("2026-02-10", "Caroline: I live in York.")]

    said("d", "2026-05-01T09:00:00Z", ("user", "Caroline", "Moving back home. I live in York."))
    back = marks()
    assert all(back[(day, "Caroline: I live in York.")] == [] for day in ("2026-01-10", "2026-02-10")), back
    assert back[("2026-05-01", "Caroline: Moving back home. I live in York.")] == [], back
    assert marks(as_of="2026-03-20T09:00:00Z")[("2026-02-10", "Caroline: I live in York.")] == ["York"]


def test_a_line_said_again_is_read_in_the_same_statement(tenant, monkeypatch):
    """Its stale values come in the statement that reads the drawn facts' (history.send_replacements):
    a search of the user who said the line twice makes the round trips and statements of one who
    said it once."""
    counts = []
    for times in (1, 2):
        user = f"{tenant.user}-{times}"
        for n in range(times):
            tenant.turn("I live in York.", session=f"a{n}", user=user, timestamp=f"2026-01-1{n}T09:00:00Z")
        tenant.turn("We moved to Berlin.", session="b", user=user, timestamp="2026-03-01T09:00:00Z")
        with round_trips(monkeypatch) as trips:
            response = tenant.post("/v1/search", {"user_id": user, "query": "where do I live?", **ASKED})
        assert response.status_code == 200, response.text
        said = [r["no_longer_current"] for r in response.json()["results"] if r["content"] == "I live in York."]
        assert said == [["York"]] * times, said
        counts.append((len(trips), sum(map(len, trips))))
    assert counts[0] == counts[1], counts


def test_current_first_lifts_the_replacement_above_a_line_said_again(tenant):
    """Current-first reads what a message states as the note does: the coach heard the job said again
    (its fact already held, drawn from the planner's line), the planner the new one; a search scoped to
    the coach that finds the line said again gets the current employer just above it."""
    tenant.turn("I work at Acme Corp.", session="a", agent_id="planner", timestamp="2026-01-10T09:00:00Z")
    tenant.turn("Busy week. I work at Acme Corp.", session="b", agent_id="coach", timestamp="2026-02-10T09:00:00Z")
    tenant.turn("I now work at Globex.", session="c", agent_id="planner", timestamp="2026-03-01T09:00:00Z")
    results = tenant.search("Acme Corp", agent_id="coach", **ASKED)
    contents = [r["content"] for r in results]
    said = contents.index("Busy week. I work at Acme Corp.")
    assert said > 0 and results[said - 1]["value"] == "Globex", contents
    assert results[said - 1]["score_parts"]["current_for"] == results[said]["id"]
    assert results[said]["no_longer_current"] == ["Acme Corp"], results[said]
