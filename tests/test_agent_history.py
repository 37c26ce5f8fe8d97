"""An agent's scope holds the current facts that replaced, directly or through others, one it heard
that no longer holds (history.replaces_heard, walked back from each fact): the same facts, in the
same order, as the closure of every such fact of the agent's through its successors, computed here
from the rows on histories of random shape (chains across agents, merges, facts of another subject,
procedural memories, ended facts nothing replaced). And bench.agent_history runs and compares."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import uuid
from datetime import datetime, timedelta, timezone

import numpy as np

from tests.conftest import ROOT

AGENTS = ("coach", "planner", "writer", None)
KEYS = ("employer", "city", "k1", "k2")


def _history(ctx, seed: int) -> tuple[str, list[dict], list[tuple[str, str]]]:
    """A user's memories and links (newer, older) as the pipeline writes them, in a tenant of their own."""
    from memex.db import history, tenants
    from memex.db import memories as memory_rows

    rng = random.Random(seed)
    tenant = f"t-{uuid.uuid4().hex[:10]}"
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    memories, links = [], []
    with ctx.db.transaction() as conn:
        tenants.ensure_tenant(conn, tenant)
        for i in range(60):
            memory = {"id": f"m{i:02d}", "user_id": "u", "agent_id": rng.choice(AGENTS),
                      "memory_type": rng.choice(("semantic",) * 5 + ("procedural",)), "type": "fact",
                      "key": rng.choice(KEYS), "value": f"v{i}", "content": f"The user's fact {i}.",
                      "importance": rng.choice((0.3, 0.5, 0.8)), "active": rng.random() < 0.4,
                      "subject": rng.choice(("user",) * 4 + ("Sam",)),
                      "valid_from": start + timedelta(hours=rng.randrange(1000)),
                      "embedding": np.asarray(np.random.default_rng(i).normal(size=ctx.settings.embedding_dim))}
            memory_rows.insert(conn, tenant, memory)
            memories.append(memory)
            for older in rng.sample(range(i), min(i, rng.choice((0, 1, 1, 1, 2)))):
                history.link(conn, tenant, memory["id"], f"m{older:02d}")
                links.append((memory["id"], f"m{older:02d}"))
    return tenant, memories, links


def _replacing(memories: list[dict], links: list[tuple[str, str]], agent: str) -> set[str]:
    """The agent's ended semantic facts and every memory that replaced one, however many links later."""
    later = {m["id"] for m in memories if m["agent_id"] == agent and not m["active"] and m["memory_type"] == "semantic"}
    while True:
        more = {newer for newer, older in links if older in later} - later
        if not more:
            return later
        later |= more


def test_an_agents_facts_are_its_own_and_the_current_ones_that_replaced_one_it_heard(ctx):
    from memex.db import memories as memory_rows
    from memex.db import recall_buckets
    from memex.models import SearchFilters

    taken_in = 0
    for seed in range(6):
        tenant, memories, links = _history(ctx, seed)
        conn = ctx.db.connection()
        stored = {r["id"]: r for r in conn.execute(
            "SELECT id, importance, valid_from, created_at FROM memories WHERE tenant_id = %s", (tenant,)).fetchall()}
        for agent in ("coach", "planner", "nobody"):
            successors = _replacing(memories, links, agent)
            facts = [m for m in memories if m["active"] and m["subject"] == "user"
                     and (m["agent_id"] == agent or m["id"] in successors)]
            taken_in += sum(m["agent_id"] != agent for m in facts)
            standing = sorted(facts, key=lambda m: (-stored[m["id"]]["importance"], -stored[m["id"]]["valid_from"].timestamp(),
                                                    -stored[m["id"]]["created_at"].timestamp(), m["id"]))
            for limit in (3, 100):
                assert recall_buckets.current_facts(conn, tenant, "u", agent, limit) \
                    == [m["id"] for m in standing[:limit]], (seed, agent, limit)
            for include_inactive in (False, True):
                kind = [m for m in memories if (m["active"] or include_inactive) and m["key"] in ("employer", "city")
                        and (m["agent_id"] == agent or m["id"] in successors)]
                ranked = memory_rows.topic_statement(tenant, "u", agent, SearchFilters(), include_inactive,
                                                     "^(employer|city)$", 100).run(conn).ranked
                expected = sorted(kind, key=lambda m: (-stored[m["id"]]["importance"],
                                                       -stored[m["id"]]["valid_from"].timestamp(), m["id"]))
                assert [memory_id for memory_id, _ in ranked] == [m["id"] for m in expected], (seed, agent)
    assert taken_in > 0  # another agent's facts came in by the walk: it was put to the test


def test_the_bench_measures_each_user_scoped_and_unscoped(tmp_path):
    out = tmp_path / "agent-history.json"
    completed = subprocess.run(
        [sys.executable, "-m", "bench.agent_history", "--sizes", "0,40", "--chains", "1,4", "--others", "40", "--repeats", "1",
         "--explain", "--out", str(out)],
        cwd=ROOT, env={k: v for k, v in os.environ.items() if k != "DATABASE_URL"}, capture_output=True,
        text=True, timeout=600)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    report = json.loads(out.read_text())
    [checkout] = report["checkouts"].values()
    assert sorted(checkout) == ["n40-l1", "n40-l4", "none", "other40-l1", "other40-l4"]
    assert {what for user in checkout.values() for what in user} == {
        f"{name} {scope}" for name in ("standing", "topic", "search", "recall") for scope in ("coach", "unscoped")}
    # the coach asked where she works has the employer the planner heard last, in place of its own
    assert checkout["n40-l4"]["topic coach"]["answers"] == 1
    # the planner's history is none of the coach's: the coach heard no employer
    assert checkout["other40-l4"]["topic coach"]["answers"] == checkout["none"]["topic coach"]["answers"] == 0
    assert checkout["other40-l4"]["topic unscoped"]["answers"] == 1
    assert all("Execution Time" in plan for plans in report["plans"].values()
               for user in plans.values() for plan in user.values())
