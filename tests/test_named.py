"""Someone a question asks about by name: a stranger's question is not answered by the user's facts
its frame is near, and the fact that introduces someone comes below what is known of them
(retrieval/named.py)."""

from __future__ import annotations

import itertools

from memex.db.memories import Found
from memex import literal
from memex.retrieval import named

SAID = ("Hi! I'm Maya, I grew up in Leeds.", "I work at Deloitte as a data analyst.", "My best friend is Sarah.",
        "Sarah's birthday is on March 3rd.", "Sarah works at Google.")


def _found(content: str, memory_type: str = "episodic", speaker: str | None = None) -> Found:
    return Found(None, 0.5, content, speaker, memory_type=memory_type)


def test_the_names_a_question_asks_about():
    assert named.names("Where did the Beatles grow up?") == ["Beatles"]
    assert named.names("Where did Gandhi spend his childhood?") == ["Gandhi"]
    assert named.names("When is Sarah's birthday?") == ["Sarah"]
    assert named.names("What's her job?") == []
    assert named.names("Where did she grow up?") == []


def test_a_stranger_is_no_one_the_user_or_a_memory_named():
    found = [_found("Sarah works at Google."), _found("I love the Beatle songs.")]
    assert named.stranger("Where did Gandhi spend his childhood?", ["Maya"], found)
    assert not named.stranger("Where does Sarah work?", ["Maya"], found)  # a memory says her
    assert not named.stranger("Where did the Beatles grow up?", ["Maya"], found)  # one and many alike
    assert not named.stranger("Where did Gandhi grow up?", ["Maya", "Gandhi"], [])  # a participant
    assert not named.stranger("Did Gandhi visit my town?", ["Maya"], [])  # asks about the user too
    assert not named.stranger("Where did Gandhi grow up?", None, [])  # the names were not all read


def test_a_question_naming_someone_known_reads_no_memory_to_know_it_names_no_stranger():
    def unread():
        raise AssertionError("a memory was read")
        yield

    assert not named.stranger("Where did Maya grow up?", ["Maya"], unread())
    assert not named.stranger("Where does Sarah work?", ["Maya"], itertools.chain([_found("Sarah works at Google.")], unread()))


def test_an_introduction_is_read_as_its_patterns_read_it():
    # each of the first two patterns is tried only where a part of it is found (introduction): the
    # same match, in wordings each pattern takes and in lines close to them that it does not
    lines = ("The user's best friend is named Sarah.", "The user's sister's name is Ana Lee.", "Dana is called Dee.",
             "The user's best friend is Sarah.", "Sarah is the user's best friend.", "The user's sister is ana.",
             "The user's NAME IS Bob.", "My friend is named\tBo.", "The user's employer is Sarah.",
             "Caroline: my sister is Ana!", "The user called Sarah.", "Caroline: thanks, Melanie, named it already.",
             "The user's mom is Ana\n", "The user's mom is Ana.\n", "the user's boss is İlker.", "")
    for line in lines:
        expected = next(filter(None, (pattern.match(line) for pattern in named._INTRODUCES)), None)
        found = named.introduction(line)
        assert (found and found.groupdict()) == (expected and expected.groupdict()), line


def test_a_question_about_a_stranger_is_not_answered_by_the_users_own_facts(tenant):
    # On main "Where did Gandhi spend his childhood?" returned "The user is originally from Leeds." (its
    # "his childhood" named the hometown kind) and the message that said it, by their meaning alone.
    for n, text in enumerate(SAID):
        assert tenant.turn(text, session=f"s{n}").status_code == 201
    for question in ("Where did Gandhi spend his childhood?", "Where did the Beatles grow up?"):
        assert tenant.search(question) == [], question
    grew_up = tenant.search("Where did she grow up?")
    assert grew_up and grew_up[0]["key"] == "hometown", [r["content"] for r in grew_up]


def test_an_introduction_comes_below_what_is_known_of_her():
    found = {"intro": _found("The user's best friend is named Sarah.", "semantic"),
             "birthday": _found("Sarah's birthday is on March 3rd."), "mine": _found("My birthday is in May.")}
    scored = [("intro", 0.9, {"score": 0.9}), ("mine", 0.8, {"score": 0.8}), ("birthday", 0.7, {"score": 0.7})]
    order = named.introduced_after("When is Sarah's birthday?", scored, found)
    assert [item for item, _, _ in order] == ["mine", "birthday", "intro"]
    assert order[-1][1] == 0.7 and order[-1][2]["introduces"] == "Sarah"
    # asked who she is, or her place in the user's life, the introduction answers
    for question in ("Who is Sarah?", "Is Sarah my best friend?"):
        assert named.introduced_after(question, scored, found) == scored, question
    # nothing else known of her: it keeps its place
    assert named.introduced_after("When is Sarah's birthday?", scored[:2], found) == scored[:2]


def test_a_friends_introduction_does_not_answer_what_she_did(tenant):
    # On main "The user's best friend is named Sarah." was first for "When is Sarah's birthday?" (its
    # importance), above the message that says it.
    for n, text in enumerate(SAID):
        assert tenant.turn(text, session=f"s{n}").status_code == 201
    for question, said in (("When is Sarah's birthday?", "March 3rd"), ("Where does Sarah work?", "Google")):
        results = [r["content"] for r in tenant.search(question)]
        assert results and said in results[0], (question, results)


def test_the_llm_extractors_wordings_of_a_name_are_introductions():
    # Only the offline rules' "is named" and "name is" were read as introductions; the LLM extractor
    # words a relation's name (sister_name = Ana) in sentences of its own.
    birthday = _found("Sarah's birthday is on March 3rd.")
    for said in ("The user has a best friend named Sarah.", "The user's best friend is Sarah.",
                 "Sarah is the user's best friend.", "The user's best friend's name is Sarah."):
        found = {"intro": _found(said, "semantic"), "birthday": birthday}
        order = named.introduced_after("When is Sarah's birthday?", [("intro", 0.9, {}), ("birthday", 0.7, {})], found)
        assert [item for item, _, _ in order] == ["birthday", "intro"], said
    # what says no place in the user's life is no introduction
    for said in ("The user's employer is Sarah.", "The user called Sarah."):
        found = {"intro": _found(said, "semantic"), "birthday": birthday}
        scored = [("intro", 0.9, {}), ("birthday", 0.7, {})]
        assert named.introduced_after("When is Sarah's birthday?", scored, found) == scored, said


def test_the_users_own_memories_come_below_what_says_whom_a_question_names():
    found = {"mine": _found("The user lives in Chicago.", "semantic"), "hers": _found("My friend Sarah lives in Denver."),
             "msg": _found("I live in Chicago."), "tom": _found("Tom lives in Boston.", speaker="Tom"),
             "me": _found("I'm Marco and I live in Turin.")}
    scored = [("mine", 0.8, {}), ("tom", 0.75, {}), ("hers", 0.7, {}), ("msg", 0.6, {})]
    order = named.theirs_first("Where does Sarah live?", scored, found, [])
    assert [item for item, _, _ in order] == ["tom", "hers", "mine", "msg"]  # another's memory stays
    assert order[2][1] == 0.7 and order[2][2]["below_theirs"] == "Sarah"
    # a participant
    order = named.theirs_first("Where does Tom live?", scored, found, ["Tom"])
    assert [item for item, _, _ in order] == ["tom", "mine", "hers", "msg"]
    # asked about with the user, a name no memory places in the user's life (it may be theirs: "I'm
    # Marco"), or one nothing says
    for question in ("Does Sarah live near me?", "Where does Marco live?", "Where does Tom live?",
                     "Where does Nadia live?"):
        assert named.theirs_first(question, scored, found, []) == scored, question


def test_a_friend_asked_about_by_name_is_answered_by_her_not_the_users_own_facts(tenant):
    # On main "Where does Sarah live?" put "The user lives in Chicago." (a key fact's importance, the
    # word "live") first, Sarah's line second. "Did Gandhi visit my town?" asks about the user too
    # ("my"): the user's town is what memory can answer, and it stays first.
    said = ("Hi! I'm Maya, I grew up in Leeds.", "I live in Chicago.", "My best friend is Sarah.",
            "Sarah lives in Denver.", "Sarah's birthday is on March 3rd.")
    for n, text in enumerate(said):
        assert tenant.turn(text, session=f"s{n}", timestamp=f"2026-01-0{n + 1}T09:00:00Z").status_code == 201
    for question, first in (("Where does Sarah live?", "Denver"), ("Where does Maya live?", "Chicago"),
                            ("Where do I live?", "Chicago"), ("Did Gandhi visit my town?", "Chicago")):
        results = [r["content"] for r in tenant.search(question)]
        assert results and first in results[0], (question, results)


def test_a_name_is_placed_by_any_memory_found_that_introduces_it_or_says_it_after_its_place():
    introduces = _found("The user's best friend is named Sarah.", "semantic")
    after = _found("we met my FRIEND sarah in Denver.")
    only_said = _found("Sarah lives in Denver.")
    elsewhere = _found("My friend Sarahs lives in Denver.")
    assert named._placed("Sarah", [only_said, introduces])
    assert named._placed("Sarah", [only_said, after])  # case-blind, as the question's name may be
    assert not named._placed("Sarah", [only_said, elsewhere])
    # out of ASCII, as the patterns read it: the long s is an s to IGNORECASE, not to lower()
    assert named._placed("Sam", [_found("My friend \u017fam lives in Denver.")])
    assert named._placed("Zoë", [_found("My sister ZOË lives in Denver.")])
    assert not named._placed("Sarah", [])
    # the place read back from each place the name is said: any spaces between, a whole word before
    assert named._placed("Sarah", [_found("Sarah, my BEST  friend\n Sarah.")])
    assert not named._placed("Sarah", [_found("Sarah, my bestfriend Sarah.")])
    assert named._placed("Ann Ann", [_found("x Ann friend Ann Ann")])  # the name said twice, overlapping
    assert not named._placed("Tom", [introduces, after])


def test_one_vocabulary_places_someone_for_whose_and_named_alike():
    # named.py read a place in the user's life by a list of its own, without the kin, a housemate or a
    # co-worker whose.py read by: "my cousin Priya" placed Priya for whose.asked_of, not here, and the LLM
    # extractor's "The user's cousin is Priya." introduced no one
    for said in ("The user's cousin is Priya.", "Priya is the user's cousin.", "The user's co-worker is Priya."):
        assert named.introduction(said) is not None and named.introduction(said).group("name") == "Priya", said
    assert named._placed("Priya", [_found("I visited my cousin Priya in Denver.")])
    assert named._placed("Priya", [_found("My housemate Priya cooks.")])
    assert named._placed("Ava", [_found("My child Ava starts school.")])  # as before


def test_a_name_read_as_data_ignores_case_as_a_pattern_of_the_name_would(letters_one_case_apart):
    # A name is matched by a backreference (named.said_after), which reads a letter's two cases only, where
    # a pattern of the name reads re's extra cases too ("ſ" an s, "ı" an i, "ς" a σ): fold_extra_cases
    # folds those first. Compared here for every pair of letters one case apart, with re's own reading.
    import re

    backreference = re.compile(r"(?P<n>[^\x00])\x00(?P=n)", re.IGNORECASE)
    differ = {(a, b) for group in letters_one_case_apart for a in group for b in group
              if bool(re.fullmatch(re.escape(a), b, re.IGNORECASE))
              != bool(backreference.fullmatch(literal.fold_extra_cases(f"{a}\x00{b}")))}
    assert differ == {(a, b) for a in "\u0345\u0399\u03b9\u1fbe" for b in "\u0345\u0399\u03b9\u1fbe"
                      if (a == "\u0345") != (b == "\u0345")}  # the combining iota subscript, no \w as ι is
    assert named._placed("Νίκος", [_found("My friend ΝΊΚΟΣ lives in Athens.")])
