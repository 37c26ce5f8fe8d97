"""bench.ltr's fitting and its leave-one-conversation-out, on made-up candidates (the LoCoMo file
stays out of the repository): where one feature marks the evidence that the blend ranks low, the
learned order finds it, fitted on the other conversations as on all of them."""

from __future__ import annotations

import random

import pytest

from bench import ltr
from memex.retrieval import learned


def _question(conversation: str, number: int, chance: random.Random) -> dict:
    """Ten candidates in the blend's order; the evidence, one of the last five, alone has a BM25 rank."""
    evidence_at = chance.randrange(5, 10)
    candidates = []
    for place in range(10):
        parts = {"score": 1 - place / 20, "relevance": 1 - place / 20 + chance.uniform(-0.01, 0.01),
                 "recency": 0.5, "importance": 0.5, "bm25_rank": 1 if place == evidence_at else None,
                 "vector_rank": place + 1}
        candidates.append({"dia_ids": [f"D{number}:{place}"], "score_parts": parts, "memory_type": "episodic",
                           "content": "a line of some words", "speaker": None, "subject": "user",
                           "valid_from": "2024-01-01T00:00:00Z", "turn_id": f"t{number}:{place}",
                           "message_id": f"m{number}:{place}"})
    return {"conversation": conversation, "question": f"question {number}?", "category": 4,
            "evidence": [f"D{number}:{evidence_at}"], "reference_time": "2024-06-01T00:00:00Z",
            "candidates": candidates}


def test_the_learned_order_finds_what_one_feature_marks_held_out_too():
    chance = random.Random(7)
    questions = ltr.prepared([_question(f"c{i % 3}", i, chance) for i in range(30)])
    result = ltr.report(questions)
    assert result["current"]["recall@1"] == 0.0  # the blend never puts the evidence first
    assert result["leave_one_out"]["recall@1"] == 1.0 and result["whole_file"]["recall@1"] == 1.0
    assert [fold["conversation"] for fold in result["leave_one_out"]["folds"]] == ["c0", "c1", "c2"]
    assert max(result["weights"], key=result["weights"].get) == "bm25_rank"
    assert set(result["weights"]) == set(learned.FEATURES)


def test_collect_takes_the_services_settings_as_the_other_benches_do(tmp_path):
    args = ltr.parse_args(["--collect", "--data", "d.json", "--keep", str(tmp_path), "--candidates", "c.jsonl",
                           "--env", "MEMEX_SEARCH_NEIGHBOUR_SHARE=0.5", "--env", "MEMEX_X=a=b"])
    assert args.env == {"MEMEX_SEARCH_NEIGHBOUR_SHARE": "0.5", "MEMEX_X": "a=b"}
    assert ltr.parse_args(["--candidates", "c.jsonl"]).env == {}
    for bad in (["--collect", "--env", "SHARE=1"], ["--collect", "--env", "MEMEX_X"],
                ["--env", "MEMEX_X=1"],  # no service is started without --collect
                ["--collect", "--env", "MEMEX_SEARCH_LEARNED=1"]):  # the order collected is the blend's own
        with pytest.raises(SystemExit):
            ltr.parse_args(["--data", "d.json", "--keep", str(tmp_path), "--candidates", "c.jsonl", *bad])
