"""bench.probes: one conversation end to end against the real stack, the report's shape, and the
scoring of a noise probe."""

from __future__ import annotations

import pytest

from bench import probes


def test_one_conversation_end_to_end(tenant):
    [conversation] = probes.load(ids=["nurse"])
    outcomes = probes.run(tenant._http, [conversation], tenant.headers)
    assert len(outcomes) == len(conversation["probes"]) * len(probes.ROUTES)
    table = probes.report(outcomes)
    assert set(table) == {"dev"}
    for route in probes.ROUTES:
        row = table["dev"][route]
        assert row["probes"] == len(conversation["probes"])
        assert set(row) - {"overall", "probes"} <= set(probes.CATEGORIES)
        assert all(0.0 <= row[c] <= 1.0 for c in row if c != "probes")
    rendered = probes.render(table)
    assert "recall" in rendered and "search" in rendered and "overall" in rendered
    for outcome in outcomes:
        assert len(outcome.cited) <= probes.K
        if outcome.category == "noise":
            assert outcome.passed == (not outcome.cited)


def test_a_noise_probe_that_returns_something_fails():
    assert probes.passed([], [], [])
    assert not probes.passed(["t3"], [], [])
    assert not probes.passed([None], [], [])  # a citation of no known turn is still an answer


def test_evidence_within_k_and_not_after_a_stale_line():
    assert probes.passed(["t1", "t2", "t3", "t4", "t8"], ["t8"], [])
    assert not probes.passed(["t1", "t2", "t3", "t4", "t5", "t8"], ["t8"], [])
    assert not probes.passed(["t1", "t8"], ["t8"], ["t1"])
    assert probes.passed(["t8", "t1"], ["t8"], ["t1"])
    assert not probes.passed([], ["t8"], [])


def test_the_splits_are_whole_and_disjoint():
    dev, held_out = probes.load(split="dev"), probes.load(split="held_out")
    assert dev and held_out
    assert not {c["id"] for c in dev} & {c["id"] for c in held_out}
    assert len(dev) + len(held_out) == len(probes.load(split="all"))
    for conversation in dev + held_out:
        turns = {t["id"] for t in conversation["turns"]}
        for probe in conversation["probes"]:
            assert probe["category"] in probes.CATEGORIES
            assert set(probe["evidence"]) | set(probe.get("stale", [])) <= turns
            assert (probe["category"] == "noise") == (not probe["evidence"])


def test_a_setting_that_is_not_memex_x_equals_value_stops_the_run_before_any_server():
    for bad in ("MEMEX_X", "SHARE=1"):
        with pytest.raises(SystemExit):
            probes.main(["--env", bad])
