"""The LoCoMo benchmark: its pure parts, and one run end to end on a tiny fixture of our own
(the real LoCoMo file is CC BY-NC and stays out of the repository)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone

import pytest

from bench import locomo
from tests.conftest import ROOT


# --- evidence ids ----------------------------------------------------------------------------

@pytest.mark.parametrize("raw, expected", [
    (["D1:3"], ["D1:3"]),
    (["D8:6; D9:17"], ["D8:6", "D9:17"]),
    (["D:11:26"], ["D11:26"]),
    (["D30:05"], ["D30:5"]),
    (["D1:18", "D", "D1:20"], ["D1:18", "D1:20"]),
    (["D2:4;", " D3:1 "], ["D2:4", "D3:1"]),
    (["D1:2", "D01:2", "D1:02"], ["D1:2"]),
    ([], []),
    ([""], []),
])
def test_normalise_evidence(raw, expected):
    assert locomo.normalise_evidence(raw) == expected


def test_questions_without_evidence_are_skipped():
    sample = {"qa": [
        {"question": "a?", "category": 4, "evidence": ["D1:1"]},
        {"question": "b?", "category": 3, "evidence": []},
        {"question": "c?", "category": 1, "evidence": ["D2:1; D2:2"]},
        {"question": "d?", "category": 5},
    ]}
    kept, skipped = locomo.scored_questions(sample)
    assert skipped == 2
    assert [(q["question"], q["evidence"]) for q in kept] == [("a?", ["D1:1"]), ("c?", ["D2:1", "D2:2"])]


# --- dates -----------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)),
    ("10:37 am on 27 June, 2023", datetime(2023, 6, 27, 10, 37, tzinfo=timezone.utc)),
    ("12:48 am on 1 February, 2023", datetime(2023, 2, 1, 0, 48, tzinfo=timezone.utc)),
    ("12:05 pm on 3 March, 2022", datetime(2022, 3, 3, 12, 5, tzinfo=timezone.utc)),
])
def test_parse_session_date(text, expected):
    assert locomo.parse_session_date(text) == expected


def test_session_date_as_rfc3339():
    assert locomo.rfc3339(locomo.parse_session_date("1:56 pm on 8 May, 2023")) == "2023-05-08T13:56:00Z"


@pytest.mark.parametrize("text", ["", "8 May 2023", "1:56 pm on 8 Mai, 2023", "25:00 pm on 8 May, 2023"])
def test_parse_session_date_refuses_other_shapes(text):
    with pytest.raises(ValueError):
        locomo.parse_session_date(text)


# --- turns -----------------------------------------------------------------------------------

def test_build_turns_one_per_session_in_order_skipping_dates_without_session():
    sample = {"sample_id": "x", "conversation": {
        "speaker_a": "Ana", "speaker_b": "Bo",
        "session_10": [{"speaker": "Bo", "dia_id": "D10:1", "text": "Late."}],
        "session_10_date_time": "9:00 am on 2 January, 2024",
        "session_2": [
            {"speaker": "Ana", "dia_id": "D2:1", "text": "Look at this."},
            {"speaker": "Bo", "dia_id": "D2:2", "text": "Nice!", "blip_caption": "a photo of a red kite"},
        ],
        "session_2_date_time": "1:56 pm on 8 May, 2023",
        "session_3_date_time": "2:00 pm on 9 May, 2023",
    }}
    turns = locomo.build_turns(sample, "tag-x")
    assert [t["session_id"] for t in turns] == ["session_2", "session_10"]
    assert turns[0] == {
        "user_id": "tag-x", "session_id": "session_2", "timestamp": "2023-05-08T13:56:00Z", "user_name": "Ana",
        "messages": [
            {"role": "user", "name": "Ana", "content": "Look at this.", "metadata": {"dia_id": "D2:1"}},
            {"role": "user", "name": "Bo", "content": "Nice! [shares a photo: a photo of a red kite]",
             "metadata": {"dia_id": "D2:2"}},
        ],
    }
    assert locomo.reference_time(sample) == "2024-01-02T09:00:00Z"


# --- the metric ------------------------------------------------------------------------------

def _result(*dia_ids):
    return {"content": "…", "sources": [{"metadata": {"dia_id": d} if d else {}} for d in dia_ids]}


def test_distinct_dia_ids_in_rank_order():
    results = [
        _result("D1:2"),
        {"content": "written directly", "sources": []},
        _result(None),
        _result("D3:1", "D1:2"),
        _result("D1:2"),
        {"content": "no sources key"},
        _result("D2:5"),
    ]
    assert locomo.distinct_dia_ids(results) == ["D1:2", "D3:1", "D2:5"]


def test_recall_at_k():
    retrieved = ["D1:1", "D1:2", "D2:1", "D2:2"]
    assert locomo.recall_at(["D1:2"], retrieved, 1) == 0.0
    assert locomo.recall_at(["D1:2"], retrieved, 2) == 1.0
    assert locomo.recall_at(["D1:1", "D2:2"], retrieved, 3) == 0.5
    assert locomo.recall_at(["D1:1", "D2:2"], retrieved, 50) == 1.0
    # duplicated evidence counts once; evidence never retrieved caps recall below 1
    assert locomo.recall_at(["D1:1", "D1:1", "D9:9"], retrieved, 50) == 0.5
    assert locomo.recall_at(["D9:9"], [], 5) == 0.0
    with pytest.raises(ValueError):
        locomo.recall_at([], retrieved, 5)


def test_aggregate_overall_and_by_category():
    rows = [
        (4, {1: 1.0, 5: 1.0}),
        (4, {1: 0.0, 5: 1.0}),
        (1, {1: 0.0, 5: 0.5}),
        (9, {1: 1.0, 5: 1.0}),
    ]
    summary = locomo.aggregate(rows, ks=(1, 5))
    assert summary["recall@1"] == 0.5
    assert summary["recall@5"] == 0.875
    assert list(summary["by_category"]) == ["multi-hop", "single-hop", "category-9"]
    assert summary["by_category"]["single-hop"] == {"recall@1": 0.5, "recall@5": 1.0, "questions": 2}
    assert summary["by_category"]["multi-hop"] == {"recall@1": 0.0, "recall@5": 0.5, "questions": 1}


def test_percentile():
    assert locomo.percentile([], 50) is None
    assert locomo.percentile([7.0], 95) == 7.0
    assert locomo.percentile([3, 1, 2, 4], 50) == 2.5
    assert locomo.percentile(list(range(1, 101)), 95) == pytest.approx(95.05)
    assert locomo.percentile([10, 20], 0) == 10
    assert locomo.percentile([10, 20], 100) == 20


def test_a_kept_ingests_key_follows_the_code_not_its_comments_or_docstrings(tmp_path, monkeypatch):
    """The key hashed the files whole: a comment or a docstring reworded made every kept ingest stale,
    though the memories it writes are the same."""
    monkeypatch.setattr(locomo, "ROOT", tmp_path)
    monkeypatch.setattr(locomo, "INGEST_CODE", ("writer.py",))

    def key(source: str) -> str:
        (tmp_path / "writer.py").write_text(source)
        return locomo.ingest_key(b"data", ["conv-1"])

    code = "def importance(fact):\n    return fact.weight + 1\n"
    reworded = ('"""What a fact weighs."""\n\n# read by the pipeline\ndef importance(fact):\n'
                '    """One more than its weight."""\n\n    return fact.weight + 1  # never 0\n')
    assert key(code) == key(reworded)
    assert key(code) != key(code.replace("+ 1", "+ 2"))


# --- end to end ------------------------------------------------------------------------------

def _fixture() -> list[dict]:
    """Two made-up conversations in the LoCoMo layout."""
    def turns(session, speakers, texts, captions=None):
        captions = captions or {}
        out = []
        for i, text in enumerate(texts, start=1):
            turn = {"speaker": speakers[(i - 1) % 2], "dia_id": f"D{session}:{i}", "text": text}
            if i in captions:
                turn["blip_caption"] = captions[i]
            out.append(turn)
        return out

    pf = ("Priya", "Felix")
    first = {
        "sample_id": "fx-1",
        "conversation": {
            "speaker_a": "Priya", "speaker_b": "Felix",
            "session_1_date_time": "9:15 am on 4 March, 2024",
            "session_1": turns(1, pf, [
                "Morning Felix! I finally adopted a greyhound called Pickle.",
                "That's lovely. I've been rebuilding the bike shed all week.",
                "Pickle sleeps eighteen hours a day, it's hilarious.",
                "My neighbour lent me a mitre saw for the shed roof.",
                "I start my new job at the observatory next Monday.",
                "Congratulations! You always loved the telescopes.",
            ], captions={2: "a half-built wooden shed in a garden"}),
            "session_2_date_time": "6:40 pm on 19 March, 2024",
            "session_2": turns(2, pf, [
                "The observatory night shifts are tiring but fun.",
                "I finished the shed and painted it teal.",
                "Pickle chewed through my astronomy notebook.",
                "Ha! I'm learning to make sourdough now.",
                "Bring me a loaf when you visit on Saturday.",
                "Deal, I'll bake one Friday night.",
            ]),
            "session_3_date_time": "7:00 pm on 30 March, 2024",
        },
        "qa": [
            {"question": "What is the name of Priya's dog?", "answer": "Pickle", "evidence": ["D1:1"],
             "category": 4},
            {"question": "What colour did Felix paint the shed?", "answer": "teal",
             "evidence": ["D1:2; D2:2"], "category": 1},
            {"question": "When did Priya start at the observatory?", "answer": "March 2024",
             "evidence": ["D1:5"], "category": 2},
            {"question": "Would Priya enjoy a stargazing trip?", "answer": "yes", "evidence": [],
             "category": 3},
        ],
    }
    om = ("Oscar", "Mina")
    second = {
        "sample_id": "fx-2",
        "conversation": {
            "speaker_a": "Oscar", "speaker_b": "Mina",
            "session_1_date_time": "12:30 pm on 2 August, 2023",
            "session_1": turns(1, om, [
                "Hi Mina, I signed up for a marathon in Lisbon.",
                "Wow, when is it?",
                "In October. I run along the canal every morning.",
                "I'm more of a swimmer, the lido opens at seven.",
                "Maybe I'll try swimming to recover after long runs.",
                "Join me on Sunday then!",
            ]),
            "session_2_date_time": "8:05 pm on 14 October, 2023",
            "session_2": turns(2, om, [
                "I finished the Lisbon marathon in four hours ten.",
                "Amazing, how are your legs?",
                "Sore, but the swimming helped a lot.",
                "I adopted two kittens, Miso and Tofu.",
                "Send pictures!",
                "Here they are asleep on the sofa.",
            ], captions={6: "two kittens curled up on a grey sofa"}),
        },
        "qa": [
            {"question": "Where did Oscar run a marathon?", "answer": "Lisbon", "evidence": ["D:1:1", "D2:1"],
             "category": 4},
            {"question": "What are the names of Mina's kittens?", "answer": "Miso and Tofu",
             "evidence": ["D2:04"], "category": 4},
            {"question": "What does Mina do at the lido?", "adversarial_answer": "runs",
             "evidence": ["D1:4"], "category": 5},
            {"question": "How long did Oscar take for the marathon?", "answer": "4h10",
             "evidence": ["D2:1"], "category": 3},
        ],
    }
    return [first, second]


def test_end_to_end_on_a_tiny_fixture(tmp_path):
    data = tmp_path / "fixture.json"
    data.write_text(json.dumps(_fixture()))
    out, per_question = tmp_path / "out.json", tmp_path / "q.jsonl"
    completed = subprocess.run(
        [sys.executable, "-m", "bench.locomo", "--data", str(data), "--out", str(out),
         "--per-question", str(per_question)],
        cwd=ROOT, env=dict(os.environ), capture_output=True, text=True, timeout=150,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr

    report = json.loads(out.read_text())
    assert report["questions"] == 7  # 8 questions, one without evidence
    assert report["conversations"] == 2
    assert report["data"] == str(data)
    assert set(report["modes"]) == {"hybrid", "bm25", "vector"}
    assert report["ingest_seconds"] >= 0 and report["total_seconds"] >= report["ingest_seconds"]
    assert 0 < report["latency_ms"]["p50"] <= report["latency_ms"]["p95"]
    for mode, summary in report["modes"].items():
        for k in locomo.KS:
            assert 0.0 <= summary[f"recall@{k}"] <= 1.0, (mode, k)
        assert sum(c["questions"] for c in summary["by_category"].values()) == 7
        assert set(summary["by_category"]) == {"multi-hop", "temporal", "open-domain", "single-hop", "adversarial"}
    # every turn of a conversation fits in 50 results
    assert report["modes"]["hybrid"]["recall@50"] == 1.0

    lines = [json.loads(line) for line in per_question.read_text().splitlines()]
    assert len(lines) == 7
    shed = next(line for line in lines if line["question"].startswith("What colour"))
    assert shed["evidence"] == ["D1:2", "D2:2"] and shed["category"] == "multi-hop"
    assert set(shed["modes"]) == {"hybrid", "bm25", "vector"}
    assert len(shed["modes"]["hybrid"]["top10"]) == 10
    assert "LoCoMo retrieval: 2 conversations, 7 questions" in completed.stdout
    assert "p50" in completed.stdout


# --- variants, leave-one-conversation-out, the kept data dir ------------------------------------

def _rows(conversation: str, recalls: list[float], category: int = 4) -> list[dict]:
    return [{"conversation": conversation, "category": category,
             "modes": {"hybrid": {"recall": {k: r for k in locomo.KS}}}} for r in recalls]


def test_leave_one_out_picks_each_fold_on_the_other_conversations():
    # "a" is best on c1 and c2, "b" on c3; each fold is decided without its own conversation
    rows = {
        "a": _rows("c1", [1.0, 1.0]) + _rows("c2", [1.0]) + _rows("c3", [0.6]),
        "b": _rows("c1", [0.0, 0.0]) + _rows("c2", [0.5]) + _rows("c3", [1.0]),
    }
    loo = locomo.leave_one_out(rows)
    assert [(f["conversation"], f["chosen"]) for f in loo["folds"]] == [("c1", "a"), ("c2", "a"), ("c3", "a")]
    assert [f["held_out_recall@10"] for f in loo["folds"]] == [1.0, 1.0, 0.6]
    assert loo["recall@10"] == 0.9  # averaged over the held-out questions, as the whole-file figure
    # "b" wins the fold of c1 once c1's own questions, where it fails, are left out
    rows["b"] = _rows("c1", [0.0, 0.0]) + _rows("c2", [1.0]) + _rows("c3", [1.0])
    assert [f["chosen"] for f in locomo.leave_one_out(rows)["folds"]] == ["b", "a", "a"]


def test_variants_are_named_settings():
    assert locomo.parse_variant("nb:MEMEX_SEARCH_NEIGHBOUR_SHARE=0.5,MEMEX_X=y") == \
        ("nb", {"MEMEX_SEARCH_NEIGHBOUR_SHARE": "0.5", "MEMEX_X": "y"})
    for bad in ("nb:SHARE=1", "nb:MEMEX_X", ":MEMEX_X=1", "default:MEMEX_X=1"):
        with pytest.raises(ValueError):
            locomo.parse_variant(bad)


def test_a_kept_dir_is_reused_under_its_key_and_rebuilt_otherwise(tmp_path):
    kept = tmp_path / "kept"
    assert locomo.prepare_kept(kept, "k1") is None and kept.is_dir()
    locomo.write_marker(kept, "k1", "tag1", complete=False)
    (kept / "memex").mkdir()
    assert locomo.prepare_kept(kept, "k1") is None  # incomplete: ingested again, from scratch
    assert not (kept / "memex").exists()
    locomo.write_marker(kept, "k1", "tag1", complete=True)
    assert locomo.prepare_kept(kept, "k1") == "tag1"
    assert locomo.prepare_kept(kept, "k2") is None and not (kept / locomo.MARKER).exists()  # stale
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "notes.txt").write_text("mine")
    with pytest.raises(SystemExit):
        locomo.prepare_kept(stranger, "k1")
    assert (stranger / "notes.txt").read_text() == "mine"


def test_the_ingest_key_follows_the_data_and_the_conversations():
    key = locomo.ingest_key(b"[]", ["conv-1"])
    assert key == locomo.ingest_key(b"[]", ["conv-1"])
    assert key != locomo.ingest_key(b"[ ]", ["conv-1"]) and key != locomo.ingest_key(b"[]", ["conv-2"])


def test_the_per_question_help_says_every_field_of_a_line(capsys):
    row = {"conversation": "conv-1", "question": "When?", "category_name": "temporal", "evidence": ["D1:2"],
           "modes": {"hybrid": {"retrieved": ["D1:2", "D1:3"], "recall": {k: 1.0 for k in locomo.KS}}}}
    line = locomo.per_question_line("default", row)
    with pytest.raises(SystemExit):
        locomo.parse_args(["--help"])
    said = " ".join(capsys.readouterr().out.split())
    said = said[said.rindex("--per-question"):said.rindex("--url")]
    assert [field for field in [*line, *line["modes"]["hybrid"]] if field not in said] == []
