"""bench/scale: its pure parts, and one run end to end at a tiny size (no timing is asserted)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from bench.scale import corpus, database, measure
from bench.scale.__main__ import parse_args
from tests.conftest import ROOT


def test_layout_fills_the_total_with_fillers():
    users = database.layout(50_000, [1_000, 10_000], 2, [3_000, 10_000], 5_000)
    assert sum(u.size for u in users) == 50_000
    assert [u.id for u in users[:5]] == ["u1000-0", "u1000-1", "u10000-0", "u10000-1", "t3000"]
    assert all(u.size <= 5_000 for u in users[5:]) and all(u.id.startswith("f") for u in users[5:])
    assert len({u.seed for u in users}) == len(users)


def test_layout_refuses_a_total_below_the_measured_users():
    with pytest.raises(SystemExit):
        database.layout(10_000, [10_000], 2, [], 5_000)


def test_a_user_comes_out_the_same_in_any_database():
    texts = corpus.pool(50, seed=3)
    vectors = corpus.noisy(np.random.default_rng(0).standard_normal((50, 8)).astype(np.float32),
                           np.random.default_rng(1))
    user = database.User("u", 30, seed=4)

    def rows():
        generated = database.UserRows(user, texts, vectors, base_seed=9)
        return [row for burst in range(database.BURSTS) for row in generated.burst(burst)]

    first, second = rows(), rows()
    assert len(first) == 30 and len({row[1] for row in first}) == 30
    assert [row[:11] for row in first] == [row[:11] for row in second]
    assert all(np.array_equal(a[11], b[11]) for a, b in zip(first, second))
    assert all(abs(np.linalg.norm(row[11]) - 1) < 1e-5 for row in first)


def test_words_follow_zipf_over_the_vocabulary():
    words = corpus.Words(np.random.default_rng(0)).draw(20_000)
    assert words.count("the") > 1_000  # the most frequent word
    assert len(set(words)) > 3_000  # and a long tail


def test_crossover_is_interpolated_between_the_sizes_around_it():
    assert measure.crossover([1_000, 10_000], [1.0, 10.0], [2.0, 5.0]) == pytest.approx(10 ** 3.5, rel=0.01)
    assert measure.crossover([1_000, 10_000], [1.0, 2.0], [2.0, 3.0]) is None
    assert measure.crossover([1_000, 10_000], [2.0, 4.0], [1.0, 3.0]) == 1_000


def test_only_the_readmes_command_draws_the_readmes_plot():
    assert parse_args([]).plot is None  # a run for scratch leaves docs/perf/scale.png alone
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Search at a million memories"):readme.index("### Under load")]
    shown = re.findall(r"!\[[^]]*\]\(([^)]+)\)", section)
    drawn = re.findall(r"bench\.scale [^`\n]*--plot (\S+)", section)
    assert shown == ["docs/perf/scale.png"] and (ROOT / shown[0]).exists()
    assert drawn and set(drawn) == set(shown)


def test_end_to_end_at_a_tiny_size(tmp_path):
    plot, out = tmp_path / "scale.png", tmp_path / "scale.json"
    completed = subprocess.run(
        [sys.executable, "-m", "bench.scale", "--total", "2500", "--sizes", "100,500", "--users-per-size", "1",
         "--threshold-sizes", "100,500,1000", "--filler-size", "600", "--pool", "120", "--questions", "3",
         "--warmup", "1", "--ef-search", "200", "--keyword-caps", "50", "--user-indexes",
         "--plot", str(plot), "--out", str(out), "--cache-dir", str(tmp_path / "cache")],
        # the 500-memory user and the fillers get an index of their own, the 100-memory user none
        cwd=ROOT, env={**os.environ, "MEMEX_USER_VECTOR_INDEX_MIN": "300"}, capture_output=True, text=True, timeout=240,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr[-3000:]

    tables = completed.stdout
    assert "| COPY of 2,500 memories |" in tables
    for size in ("100", "500"):
        assert f"\n| {size} | " in tables, size  # a latency row per measured user size
    for size in ("100", "500", "1,000"):
        # a vector-path row per scope size: exact, then the walk at ef_search 200 and 400 (configured)
        assert any(line.startswith(f"| {size} | ") and line.count("|") == 9 for line in tables.splitlines()), size
    assert "hybrid p50 / floor p50" in tables and "this user alone" in tables and "Crossover" in tables
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    run = json.loads(out.read_text())
    assert set(run["latency"]) == {"100", "500"}
    for kinds in run["latency"].values():
        assert set(kinds) == {"hybrid", "bm25", "vector", "floor"}
        assert all(len(kind["ms"]) == 3 for kind in kinds.values())
        assert all(hits == 10 for hits in kinds["floor"]["hits"])  # ten rows fetched by primary key
    caps = run["keyword_caps"]
    assert caps["size"] == 500 and set(caps["caps"]) == {"50", "2000", "none"}
    assert all(caps["caps"]["none"]["recall@10"]) and all(r == 1.0 for r in caps["caps"]["none"]["recall@10"])
    assert "| max candidates |" in tables
    for paths in run["vector_paths"].values():
        assert set(paths["hnsw"]) == {"200", "400"}
        assert all(0.0 <= r <= 1.0 for walk in paths["hnsw"].values() for r in walk["recall@100"])
        assert all(len(walk["ms"]) == 3 for walk in paths["hnsw"].values()) and len(paths["exact"]) == 3
    assert len(run["isolation"]["shared"]) == len(run["isolation"]["alone"]) == 3

    indexes = run["user_indexes"]
    assert "u500-0" in {user for user, _ in indexes["indexes"]} and "u100-0" not in {user for user, _ in indexes["indexes"]}
    writes = indexes["writes"]
    assert writes["indexed"][0] == "u500-0" and writes["control"][0] == "u100-0"
    assert len(writes["indexed"][1]) == len(writes["control"][1]) == 200
    assert "One memory inserted and committed" in tables
