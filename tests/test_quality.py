"""The quality fixture (`make quality`): one run of both modes end to end, and the harness's own checks.

The LLM mode answers from scripted replies, so what the pipeline does with them is deterministic:
every fact_evolution, opinion_arc, corrections and two_hop probe must pass there. Noise must
return nothing in both modes. What the offline rules miss is measured, not asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import deque

import pytest

from bench import quality
from tests.conftest import ROOT

REQUIRED = ("fact_evolution", "opinion_arc", "implicit_facts", "corrections", "two_hop", "noise")
DETERMINISTIC_IN_LLM_MODE = ("fact_evolution", "opinion_arc", "corrections", "two_hop")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("quality") / "q.json"
    completed = subprocess.run(
        [sys.executable, "-m", "bench.quality", "--mode", "both", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-4000:]
    return json.loads(out.read_text()), completed.stdout


def _failures(probes):
    return [f"{p['id']} {p['probe']}: seen {json.dumps(p['seen'], ensure_ascii=False)}" for p in probes
            if not p["passed"]]


def test_the_report_covers_both_modes_and_every_category(run):
    report, stdout = run
    assert set(report["modes"]) == {"offline", "llm"}
    assert set(REQUIRED) <= set(report["categories"])
    assert report["conversations"] >= 5
    offline, llm = report["modes"]["offline"], report["modes"]["llm"]
    assert [p["id"] for p in offline["probes"]] == [p["id"] for p in llm["probes"]]
    assert len(offline["probes"]) == report["probes"]
    for mode in (offline, llm):
        for category in REQUIRED:
            assert mode["by_category"][category]["total"] > 0, category
        for probe in mode["probes"]:
            assert isinstance(probe["passed"], bool), probe
            assert probe["category"] in report["categories"]
        assert mode["passed"] == sum(p["passed"] for p in mode["probes"])
        assert mode["total"] == sum(c["total"] for c in mode["by_category"].values())
    # the printed table: a row per category, a column per mode
    assert "offline" in stdout and "llm" in stdout
    for category in REQUIRED:
        assert category in stdout


def test_the_llm_mode_passes_every_deterministic_probe(run):
    report, _ = run
    probes = [p for p in report["modes"]["llm"]["probes"] if p["category"] in DETERMINISTIC_IN_LLM_MODE]
    assert probes
    assert _failures(probes) == []


@pytest.mark.parametrize("mode", ["offline", "llm"])
def test_noise_returns_nothing_in_both_modes(run, mode):
    report, _ = run
    probes = [p for p in report["modes"][mode]["probes"] if p["category"] == "noise"]
    assert len(probes) >= 3
    assert _failures(probes) == []


# --- the harness's own checks (no server) --------------------------------------------------------

def test_the_fixture_is_well_formed_and_fully_scripted():
    conversations = quality.load_fixture(quality.DEFAULT_FIXTURE)
    quality.check_llm_script(conversations)
    assert len(conversations) >= 6
    assert {p["category"] for c in conversations for p in c["probes"]} >= set(REQUIRED)


def test_a_broken_fixture_is_named(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("conversations:\n  - id: x\n    user: u\n    turns:\n      - session: s1\n"
                    "        at: '2025-01-01T00:00:00'\n        messages: [{role: user, content: hi}]\n"
                    "    probes: [{category: noise, kind: search, query: q, empty: true}]\n")
    with pytest.raises(quality.FixtureError, match="conversation x turn 0: `at` has no offset"):
        quality.load_fixture(path)


class _Double:
    def __init__(self, left=()):
        from bench.openai_double import CHAT

        self.scripts = {CHAT: deque(left)}


def _judge_request(key, value):
    content = "NEW memory:\n" + json.dumps({"key": key, "value": value}) + "\n\nCURRENT memories:\n"
    return {"messages": [{"role": "system", "content": "..."}, {"role": "user", "content": content}]}


EXTRACTION_REQUEST = {"messages": [{"role": "system", "content": "..."}, {"role": "user", "content": "NEW messages:\n[0] user: hi"}]}


def test_the_script_check_names_the_turn_and_the_mismatch():
    turn = {"llm": {"extraction": {"memories": []},
                    "judge": [{"candidate": "city=Lisbon", "verdict": {"action": "supersede", "replaces": ["m1"]}}]}}
    script = quality.Script.of(turn)
    assert len(script.replies) == 2 and script.judged == [("city", "Lisbon")]

    quality.check_script(_Double(), script, [EXTRACTION_REQUEST, _judge_request("city", "Lisbon")], "turn 3")
    with pytest.raises(quality.FixtureError, match=r"turn 3: the double answered 1 chat request\(s\) with 500"):
        quality.check_script(_Double(), script, [EXTRACTION_REQUEST, _judge_request("city", "Lisbon"),
                                                 _judge_request("age", "40")], "turn 3")
    with pytest.raises(quality.FixtureError, match="turn 3: 1 scripted reply was left unconsumed"):
        quality.check_script(_Double(left=["{}"]), script, [EXTRACTION_REQUEST], "turn 3")
    with pytest.raises(quality.FixtureError, match="scripted for city=Lisbon was asked about age=40"):
        quality.check_script(_Double(), script, [EXTRACTION_REQUEST, _judge_request("age", "40")], "turn 3")


def test_held_out_statements_that_repeat_a_tuning_one_are_left_out_of_the_new_column():
    statements = [
        {"cat": "numbers", "text": "I'm thirty-eight.", "expect": ["age=38"]},
        {"cat": "numbers", "text": "I'm thirty-eight years old.", "expect": ["age=38"], "heldout": True},
        {"cat": "numbers", "text": "My age is 52, for the record.", "expect": ["age=52"], "heldout": True},
    ]
    for item in statements:
        item["facts"] = [quality.Fact.parse(e, "test") for e in item["expect"]]
    table = quality.run_extraction(statements)["by_category"]
    assert table["numbers/tuning"]["statements"] == 1
    assert table["numbers/heldout"]["statements"] == 2
    assert table["numbers/new"]["statements"] == 1
    assert "held-out, new" in quality.render_extraction(quality.run_extraction(statements))


def test_a_held_out_round_is_reported_on_its_own():
    """A round (`round: N`) is a blind figure of the rules before it was read: its explicit statements'
    precision and recall, and what its statements that state nothing yielded, apart from the rest."""
    statements = [
        {"cat": "numbers", "text": "I'm thirty-eight.", "expect": ["age=38"], "heldout": True, "round": 2},
        {"cat": "numbers", "text": "I live on the moon, says nobody.", "expect": ["city=Moon"], "heldout": True,
         "round": 2},
        {"cat": "nothing", "text": "If I were 40 I'd retire.", "expect": [], "heldout": True, "round": 2},
        {"cat": "numbers", "text": "I'm 52.", "expect": ["age=52"], "heldout": True},
    ]
    for item in statements:
        item["facts"] = [quality.Fact.parse(e, "test") for e in item["expect"]]
    result = quality.run_extraction(statements)
    assert result["by_category"]["explicit/round 2"]["expected"] == 2
    assert result["by_category"]["nothing/round 2"]["statements"] == 1
    assert "  round 2: 2 explicit, precision 1.00 (1 of 1), recall 0.50 (1 of 2); facts found in the 1 that state " \
           "nothing: 0" in quality.render_extraction(result)
