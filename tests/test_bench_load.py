"""The load benchmark: the S2-style scoring, and one tiny run end to end on synthetic
conversations (a few users for a few seconds) that must report both pipelines and write the plot."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from urllib.parse import urlparse

import httpx

from bench.load import s2
from bench.load.__main__ import parse_args
from bench.load.data import synthetic
from bench.load.scenario import Endpoint, summarise
from bench.locomo import scored_questions
from bench.service import serve
from tests.conftest import ROOT

NOW = datetime(2024, 1, 31, tzinfo=timezone.utc)


def _row(memory_id: str, cos: float, days_old: float) -> dict:
    return {"id": memory_id, "content": memory_id, "memory_type": "episodic", "cos": cos,
            "created_at": NOW - timedelta(days=days_old)}


def test_s2_rescoring_blends_cosine_and_a_30_day_half_life():
    [only] = s2.rescore([_row("a", 0.8, 30)], NOW, top_k=1)
    assert math.isclose(only["score"], 0.7 * 0.8 + 0.3 * 0.5, abs_tol=1e-6)


def test_s2_rescoring_lets_recency_reorder_and_keeps_top_k():
    rows = [_row("old-close", 0.9, 365), _row("new-farther", 0.8, 0), _row("old-far", 0.5, 365)]
    ranked = s2.rescore(rows, NOW, top_k=2)
    assert [r["id"] for r in ranked] == ["new-farther", "old-close"]
    assert ranked[0]["score"] > ranked[1]["score"]


def test_s2_rescoring_never_rewards_a_time_after_now():
    [future] = s2.rescore([_row("f", 0.5, -10)], NOW, top_k=1)
    assert math.isclose(future["score"], 0.7 * 0.5 + 0.3, abs_tol=1e-6)


def test_the_s2_server_binds_a_port_of_its_own_and_says_which(tmp_path):
    # --port 0, the URL read from what it says at start as memex's is: a port picked free here and
    # passed on could be taken by another server before the child binds it
    with serve(["-m", "bench.load.s2"], 0, tmp_path, {"DATABASE_URL": "postgresql://unused"},
               timeout=120) as url:
        assert urlparse(url).port
        assert httpx.get(f"{url}/health", timeout=30).json() == {"status": "ok"}


def test_summary_counts_errors_and_percentiles_per_endpoint():
    ok, bad = Endpoint(), Endpoint()
    for seconds in (0.1, 0.2, 0.3):
        ok.record(seconds, None)
    bad.record(0.5, "500 boom")
    report = summarise({"search": ok, "write": bad}, wall=2.0)
    assert report["search"]["requests"] == 3 and report["search"]["errors"] == 0
    assert report["search"]["p50_ms"] == 200.0 and report["search"]["rps"] == 1.5
    assert report["write"]["errors"] == 1 and report["write"]["error_samples"] == ["500 boom"]
    assert report["total"]["requests"] == 4 and report["total"]["errors"] == 1


def test_synthetic_conversations_have_scored_questions():
    samples = synthetic()
    assert len(samples) == 2
    for sample in samples:
        questions, skipped = scored_questions(sample)
        assert questions and skipped == 0


def test_only_the_readmes_commands_draw_the_readmes_plot():
    assert parse_args([]).plot is None  # a run for scratch leaves docs/perf/load.png alone
    readme = (ROOT / "README.md").read_text()
    start = readme.index("### Under load, beside an S2-style pipeline")
    section = readme[start:readme.index("\n## ", start)]
    shown = re.findall(r"!\[[^]]*\]\(([^)]+)\)", section)
    drawn = re.findall(r"bench\.load [^`]*?--plot ([^\s`]+)", section)
    make = re.search(r"^bench-load:.*?\n\n", (ROOT / "Makefile").read_text(), re.MULTILINE | re.DOTALL)[0]
    assert shown == ["docs/perf/load.png"] and (ROOT / shown[0]).exists()
    assert len(drawn) == 2 and set(drawn) == set(shown)  # the first command and the curve's
    assert f"--plot {shown[0]}" in make  # `make bench-load`, "the same" as the first command


def test_tiny_run_reports_both_pipelines_and_writes_the_plot(tmp_path):
    plot, out = tmp_path / "load.png", tmp_path / "load.json"
    completed = subprocess.run(
        [sys.executable, "-m", "bench.load", "--users", "3", "--spawn-rate", "3", "--duration", "2",
         "--curve", "1,3", "--curve-duration", "1", "--levers", "keyword-first", "--plot", str(plot), "--out", str(out)],
        cwd=ROOT, env=dict(os.environ), capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]

    results = json.loads(out.read_text())
    assert results["data"] == "synthetic" and results["conversations"] == 2
    assert results["s2_rows"] > 0
    for pipeline, search, write in (("memex", "POST /v1/search", "POST /v1/turns"),
                                    ("s2", "POST /s2/memories/search", "POST /s2/memories")):
        main = results[pipeline]["main"]["endpoints"]
        assert main[search]["requests"] > 0 and main[write]["requests"] >= 0, pipeline
        assert main["total"]["errors"] == 0, (pipeline, main)
        assert [p["users"] for p in results[pipeline]["curve"]] == [1, 3]
    for recall in (results["memex_recall"], results["s2_recall"]):
        assert recall["questions"] == 16
        assert 0.0 < recall["recall@10"] <= 1.0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| | memex hybrid | S2-style | memex / S2 |" in completed.stdout
    assert "LoCoMo recall@10 (16 questions)" in completed.stdout
    assert "Goal:" in completed.stdout
    # each pipeline's server and Postgres spent CPU on the run, read per request; the S2-style
    # pipeline's few light queries in two seconds of a loaded machine may cost its Postgres less than
    # one clock tick (10 ms), read as 0.0
    for pipeline in ("memex", "s2"):
        cpu = results[pipeline]["main"]["cpu_ms_per_request"]
        assert cpu["server"] > 0 and cpu["postgres"] >= 0, (pipeline, cpu)
    assert results["memex"]["main"]["cpu_ms_per_request"]["postgres"] > 0
    assert "| CPU ms per request, Postgres |" in completed.stdout
    # a lever: its own recall beside its run and the default's just after it
    lever = results["levers"]["keyword-first"]
    assert lever["recall"]["questions"] == 16 and 0.0 < lever["recall"]["recall@10"] <= 1.0
    assert lever["variant"]["endpoints"]["total"]["errors"] == lever["default"]["endpoints"]["total"]["errors"] == 0
    assert "| keyword-first |" in completed.stdout
