"""The relevance floor, both ways: what the user said is found (a word they used, a natural
question about a short history), and what they never talked about finds nothing (a query sharing
only a stem or a stray word with their memories)."""

from __future__ import annotations

import pytest

from bench.floor import OFF_TOPIC as BENCH_OFF_TOPIC
from bench.floor import SHORT_HISTORIES, short_turns

OFF_TOPIC = ["What is the boiling point of mercury?", "How do I configure an nginx reverse proxy?",
             "quantum chromodynamics lecture notes", "Who won the 1998 world cup?",
             "What is the capital of Mongolia?", "How do vaccines train the immune system?"]


def contents(results: list[dict]) -> set[str]:
    return {r["content"] for r in results}


SAID = ["I work at Acme.", "My sister moved to Boston last year.", "I had coffee with Dana from Globex.",
        "Globex is hiring again.", "We flew to Boston for the marathon.", "Too much coffee makes me jittery.",
        "Coffee in Boston is expensive.", "My cat sleeps all day."]


@pytest.fixture
def acme_user(tenant):
    """A new user's short history that says Globex, coffee and Boston in several memories each."""
    for i, text in enumerate(SAID):
        tenant.turn(text, session=f"s{i}")
    return tenant


@pytest.mark.parametrize("word", ["Globex", "coffee", "Boston"])
def test_a_keyword_search_finds_every_memory_that_says_the_word(acme_user, word):
    expected = {c for c in SAID if word.lower() in c.lower()}
    assert len(expected) >= 2
    bm25 = {r["content"] for r in acme_user.search(word, mode="bm25", top_k=50) if r["memory_type"] == "episodic"}
    assert bm25 == expected
    hybrid = contents(acme_user.search(word, top_k=50))  # which may add what is like it
    assert expected <= hybrid, hybrid


def test_a_word_most_of_the_memories_say_is_still_found_by_itself(tenant):
    """Its IDF near zero where most memories hold it, BM25 alone dropped every memory that says it:
    a new user's message and the fact drawn from it both say "divorced", and "divorced" in bm25 mode
    (as with the embedder down) found neither."""
    tenant.turn("We got divorced last year.")
    said = contents(tenant.search("divorced", mode="bm25", top_k=50))
    assert "We got divorced last year." in said, said
    # every word of the query, as written: "divorce" holds "divorced" only through its stem
    assert tenant.search("quantum divorced", mode="bm25") == []


def test_a_word_the_user_never_said_finds_nothing(acme_user):
    for query in ["Initech", "tea", "Chicago"]:
        assert acme_user.search(query, mode="bm25") == [], query
    for query in OFF_TOPIC:
        for mode in ("bm25", "hybrid"):
            assert acme_user.search(query, mode=mode) == [], (query, mode)


def test_a_question_with_no_word_finds_nothing_in_any_mode(tenant):
    """"?" asks about nothing, but its vector is 0.66 from "Huh?" (and "..." 0.37, "!" 0.40, over the
    gate's 0.35): hybrid and vector search answered it, bm25 (no term) did not. Now no mode does, nor
    recall's search."""
    for i, text in enumerate(["Huh?", "Why not?", "I live in Porto."]):
        tenant.turn(text, session=f"s{i}")
    assert "Huh?" in contents(tenant.search("huh?", mode="vector"))  # it is found by what it says
    for query in ["?", " ?? ", "!", "...", "¿?", "?!?", ":)", "-", "👍"]:
        for mode in ("hybrid", "vector", "bm25"):
            assert tenant.search(query, mode=mode) == [], (query, mode)
    recalled = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "?", "require_relevant": True})
    assert recalled.status_code == 200 and recalled.json()["citations"] == [], recalled.text


def test_a_question_of_function_words_alone_finds_no_line_by_its_meaning(tenant):
    """"what?" is 0.93 from "Wait, what?" and 0.80 from "Huh?" in vector mode, "Why?" 0.93 from "Why not?":
    a question that says only what kind of question it is found the lines that say nothing either, in
    hybrid and vector mode. "Who am I?" is such a question, and is answered by the user's facts (its kind's
    in hybrid, topics.py; by meaning in vector mode); "What do I do?" found "Huh?" after the job."""
    wordless = ["Huh?", "Wait, what?", "Why not?", "No way!"]
    for i, text in enumerate([*wordless, "Hi, I'm Dana. I'm a nurse.", "I live in Porto."]):
        tenant.turn(text, session=f"s{i}")
    for query in ["what?", "Why?", "Is it?", "And then?", "the", "How about you?"]:
        for mode in ("hybrid", "vector", "bm25"):
            assert not set(wordless) & contents(tenant.search(query, mode=mode)), (query, mode)
    for mode in ("hybrid", "vector"):
        found = [r["content"] for r in tenant.search("Who am I?", mode=mode)]
        assert found[:1] == ["The user's name is Dana."], (mode, found)
    found = [r["content"] for r in tenant.search("What do I do?")]
    assert found[:1] == ["The user's job title is nurse."] and "Huh?" not in found, found
    assert "Huh?" in contents(tenant.search("huh?", mode="vector"))  # found by what it says


def test_one_word_the_user_said_opens_the_floor(tenant):
    tenant.turn("I work at Acme.")
    assert "I work at Acme." in contents(tenant.search("work"))
    assert "I work at Acme." in contents(tenant.search("work", mode="bm25"))
    assert tenant.search("homework") == [] and tenant.search("lecture") == []


def test_a_match_through_the_stem_alone_counts_for_less_than_the_word(tenant, other_tenant):
    tenant.turn("Noted, green tea it is.")
    for mode in ("hybrid", "bm25"):
        assert tenant.search("quantum chromodynamics lecture notes", mode=mode) == [], mode
    # said as written, the same word opens the floor
    other_tenant.turn("Noted, green tea it is.", session="a")
    other_tenant.turn("I keep my lecture notes in a blue binder.", session="b")
    for mode in ("hybrid", "bm25"):
        found = contents(other_tenant.search("my lecture notes", mode=mode))
        assert "I keep my lecture notes in a blue binder." in found, (mode, found)


def test_a_memory_both_channels_find_opens_the_gate_either_alone_would_not(tenant, other_tenant):
    """"Where am I living?" after "I live in Lisbon." holds its one word through the stem (coverage
    0.5, under the hybrid gate's 0.6) at cosine 0.33 (under 0.35; 0.36 without the "?"): bm25 mode
    found the line, hybrid nothing, and the "?" decided it. A memory holding the coverage that opens
    the keyword-only gate, with the item floor's similarity, now opens the hybrid gate too."""
    tenant.post("/v1/turns?wait=true", {"user_id": tenant.user, "session_id": "s1", "messages": [
        {"role": "user", "content": "I live in Lisbon."}, {"role": "assistant", "content": "Got it."}]})
    for question in ("Where am I living?", "where am I living", "Where am I living now?", "Where is she living?"):
        found = contents(tenant.search(question))
        assert {"I live in Lisbon.", "The user lives in Lisbon."} <= found, (question, found)
    for query in BENCH_OFF_TOPIC:
        assert tenant.search(query) == [], query
    # half the words of the question said as written, the vector agreeing
    other_tenant.turn("This weekend I'm going hiking in Sintra with Marta.", session="s1",
                      timestamp="2026-11-30T10:00:00Z")
    found = other_tenant.search("What's happening this weekend?", reference_time="2026-12-03T15:00:00Z")
    assert "This weekend I'm going hiking in Sintra with Marta." in contents(found), found


def test_the_channels_agree_only_on_one_memory_each_at_its_own_floor():
    from memex.retrieval import floor

    assert floor.query_passes([floor.Signals(similarity=0.2, coverage=0.45)])
    assert not floor.query_passes([floor.Signals(similarity=0.19, coverage=0.5)])
    assert not floor.query_passes([floor.Signals(similarity=0.34, coverage=0.44)])
    # each channel's best on a memory of its own is no agreement
    assert not floor.query_passes([floor.Signals(similarity=0.34), floor.Signals(similarity=0.1, coverage=0.5)])
    assert not floor.query_passes([floor.Signals(bm25=1.0, coverage=0.5)])


@pytest.mark.parametrize("history", sorted(SHORT_HISTORIES))
def test_a_short_history_answers_natural_questions_and_nothing_off_topic(tenant, history):
    """bench.floor's short histories, the ones its calibration must pass, through the API."""
    for turn in short_turns(history):
        tenant.post("/v1/turns?wait=true", {**turn, "user_id": tenant.user})
    for question, answer in SHORT_HISTORIES[history][1].items():
        found = tenant.search(question)
        assert any(answer.lower() in f"{r['content']} {r.get('value')}".lower() for r in found), \
            (question, contents(found))
    for query in BENCH_OFF_TOPIC:
        assert tenant.search(query) == [], query


def test_the_readme_example_finds_what_each_speaker_said_by_one_word(tenant):
    tenant.post("/v1/turns?wait=true", {"user_id": tenant.user, "session_id": "s1", "user_name": "Caroline",
                                        "messages": [{"role": "user", "name": "Caroline", "content": "I work at Acme."},
                                                     {"role": "user", "name": "Melanie",
                                                      "content": "Nice! I work at Globex."}]})
    for query in ("work", "Where do I work?"):
        found = " ".join(contents(tenant.search(query)))
        assert "I work at Acme." in found and "I work at Globex." in found, (query, found)
    for query in OFF_TOPIC:
        assert tenant.search(query) == [], query


def test_rare_enough_scales_with_the_history_and_a_stem_counts_half():
    from memex.retrieval import floor

    # coffee in 3 of 5 memories, in 3 of 6: rare enough only once it is in at most half of them
    assert floor.keyword_signals({"coffe": 3}, ["coffe"], ["coffe"], 6) == (1.0, True)
    assert floor.keyword_signals({"coffe": 3}, ["coffe"], ["coffe"], 5)[1] is False
    assert floor.keyword_signals({"coffe": 30}, ["coffe"], ["coffe"], 1000)[1] is True
    # "notes" matched by "Noted": half the credit of the word itself, and no rare exact hit
    assert floor.keyword_signals({"note": 1}, ["note"], [], 5) == (0.5, False)
    # a query word the user never said weighs as much as their rarest one
    coverage, _ = floor.keyword_signals({"quantum": 0, "note": 1}, ["note"], ["note"], 5)
    assert coverage == 0.5


def test_keyword_only_the_gate_reads_coverage_alone(acme_user):
    """Without a vector (mode bm25, or the embedder down) coverage is the gate's one signal, held to
    the hybrid gate's off-topic leakage rather than to its threshold: half of "Dana interview" is
    enough, where the hybrid gate wants 0.6 of a question's words or a close vector."""
    found = contents(acme_user.search("Dana interview", mode="bm25"))
    assert "I had coffee with Dana from Globex." in found, found
    for query in OFF_TOPIC:
        assert acme_user.search(query, mode="bm25") == [], query


def test_how_many_asks_for_a_number_not_the_word_many(tenant):
    # the answer says "three"; chat says "so many" everywhere (retrieval/keywords.py)
    tenant.turn("We have three kids, all under ten.", session="a")
    tenant.turn("So many plants on the balcony now, it's a jungle.", session="b")
    found = tenant.search("How many kids does the user have?", mode="bm25")
    # the count filed from it answers too: "kids" and "children" are one family (keywords.FAMILIES)
    assert [r["content"] for r in found] == ["The user has 3 children.", "We have three kids, all under ten."]


def test_a_query_word_counts_as_said_where_the_content_holds_it_whole():
    """memories._matched: a term the memory matched is one it says as the query writes it only where
    the word stands whole (`\\bword\\b`), however its pattern is written for speed; the content read
    folded, as the database folds the query's words (migration 0027: "café" is "cafe")."""
    from memex.db import memories
    words = [["hiking", "hike"], ["-5", "-5"], ["cafe", "cafe"], ["3.5", "3.5"], ["art", "art"]]
    terms = ["hike", "-5", "cafe", "3.5", "art"]
    contents = {"a": "Hiking at -5 today", "b": "rehiking x-5", "c": "Café. Version 3.5", "d": "cafés 3.55 art's",
                "e": "state-of-the-art", "f": "hiking"}
    at = {"id": 0, "content": 1, "matched": 2}  # the rows' columns, as a cursor's tuples hold them
    hits = [(key, content, terms) for key, content in contents.items()]
    exact = {key: said for key, (_, said) in memories._matched(hits, at, words).items()}
    assert exact == {"a": {"hike"}, "b": {"-5"}, "c": {"cafe", "3.5"}, "d": {"art"}, "e": {"art"}, "f": {"hike"}}
    # and nothing said of a term the memory did not match
    assert memories._matched([("a", contents["a"], ["art"])], at, words)["a"] == (frozenset({"art"}), frozenset())


def test_the_query_words_are_read_from_the_statements_first_row_whatever_sorts_first():
    """memories._ranking: the keyword statement says the query's words on its first row only; a fact
    tied with the message it was drawn from sorts first here, and still says the word as asked."""
    from datetime import datetime, timezone

    from memex.db import memories
    at = {name: i for i, name in enumerate(("n", "id", "score", "valid_from", "importance", "content", "speaker",
                                            "subject", "turn_id", "message_id", "memory_type", "terms", "words",
                                            "matched"))}
    said = datetime(2026, 12, 5, tzinfo=timezone.utc)
    rows = [(2, "m", 1.5, said, 0.5, "I love hiking.", None, "user", "t", "x", "episodic", {"hike": 2},
             [["hiking", "hike"]], ["hike"]),
            (2, "f", 1.5, said, 0.5, "The user loves hiking.", None, "user", "t", "x", "semantic", None, None,
             ["hike"])]
    ranking = memories._ranking(rows, at, "score")
    assert [item for item, _ in ranking.ranked] == ["f", "m"]  # the fact first: the tie-break
    assert ranking.matched == {item: (frozenset({"hike"}), frozenset({"hike"})) for item in ("f", "m")}
    assert ranking.words == {"hiking": "hike"}
