"""bench.search_cpu on a tiny kept ingest of our own: it runs, reports its measures for both
checkouts, and tells answers that differ from answers that do not. Nothing here is timed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from bench import search_cpu
from tests.conftest import ROOT
from tests.test_bench_locomo import _fixture

# A checkout whose search answers the same results in reverse order.
REVERSED = """

_search_as_written = search


def search(*args, **kwargs):
    answer = _search_as_written(*args, **kwargs)
    return {**answer, "results": answer["results"][::-1]}
"""


def _run(args: list[str]) -> subprocess.CompletedProcess:
    completed = subprocess.run([sys.executable, *args], cwd=ROOT, env=dict(os.environ), capture_output=True,
                               text=True, timeout=300)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return completed


def test_both_checkouts_are_measured_and_their_answers_compared(tmp_path):
    data, kept = tmp_path / "fixture.json", tmp_path / "kept"
    data.write_text(json.dumps(_fixture()))
    _run(["-m", "bench.locomo", "--data", str(data), "--keep", str(kept), "--modes", "hybrid",
          "--out", str(tmp_path / "locomo.json")])
    other = tmp_path / "other"
    for folder in ("shared", "bench"):
        shutil.copytree(ROOT / folder, other / folder, ignore=shutil.ignore_patterns("__pycache__"))

    def measured(source, name):
        out = tmp_path / f"{name}.json"
        completed = _run(["-m", "bench.search_cpu", "--data", str(data), "--keep", str(kept), "--rounds", "2",
                          "--profile", "3", "--source", str(source), "--out", str(out)])
        return json.loads(out.read_text()), completed.stdout

    report, printed = measured(other, "same")
    assert report["questions"] == 7 and report["rounds"] == 2
    assert list(report["checkouts"]) == [f"source: {other}", f"this: {ROOT}"]
    for checkout in report["checkouts"].values():
        assert checkout["searches"] == 14 and checkout["stable"]
        assert 0 < checkout["cpu_ms_p50"] and 0 < checkout["wall_ms_p50"] and checkout["round_trips_mean"] >= 1
        assert len(checkout["block_cpu_p50"]) == 2
    assert set(report["ratio"]) == {"CPU", "wall"} and report["ratio"]["CPU"]["low"] <= report["ratio"]["CPU"]["high"]
    assert report["different"] == []
    assert "the same top 10" in printed
    assert all(len(rows) == 3 for rows in report["profiles"].values())

    search_py = other / "shared" / "memex" / "retrieval" / "search.py"
    search_py.write_text(search_py.read_text() + REVERSED)
    report, printed = measured(other, "reversed")
    assert report["different"] and len(report["different"]) == len(report["differing_questions"])
    assert "differ" in printed


def test_differences_are_ids_or_order():
    assert search_cpu.differences([["a", "b"], ["c"]], [["a", "b"], ["c"]]) == []
    assert search_cpu.differences([["a", "b"], ["c"], ["d"]], [["b", "a"], ["c"], ["e"]]) == [0, 2]
