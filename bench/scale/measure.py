"""The timed parts: searches through the project's own search function per mode, the physical
floor beside them, the vector channel's two paths, and one user alone against the same user among
a million memories."""

from __future__ import annotations

import re
import time
from typing import Callable

import numpy as np

from bench.scale.database import TENANT, User

MODES = ("hybrid", "bm25", "vector")
FLOOR = "floor"
TOP_K = 10
VECTOR_DEPTH = 100  # what search asks the vector channel for (CANDIDATES_PER_CHANNEL)

Progress = Callable[[str], None]


def percentiles(samples: list[float]) -> tuple[float, float]:
    return float(np.percentile(samples, 50)), float(np.percentile(samples, 95))


def _search(ctx, user: User, query: str, mode: str) -> int:
    from memex.models import SearchIn
    from memex.retrieval.search import search

    return len(search(ctx, TENANT, SearchIn(user_id=user.id, query=query, mode=mode, top_k=TOP_K))["results"])


def _floor(ctx, user: User, query: str, rng: np.random.Generator) -> int:
    """One query embedding and one indexed round trip: ten of the user's memories by primary key."""
    ctx.embedder.embed_query(query)
    ids = [f"{user.id}-{n}" for n in rng.choice(user.size, size=min(TOP_K, user.size), replace=False)]
    return len(ctx.db.connection().execute(
        "SELECT id, content FROM memories WHERE tenant_id = %s AND id = ANY(%s)", (TENANT, ids)).fetchall())


def _timed(fn, *args) -> tuple[float, int]:
    started = time.perf_counter()
    found = fn(*args)
    return (time.perf_counter() - started) * 1000, found


def by_size(ctx, users: dict[int, list[User]], warm: list[str], questions: list[str],
            progress: Progress) -> dict[int, dict[str, dict[str, list[float]]]]:
    """size -> mode (and the floor) -> {"ms": latencies, "hits": results returned}. For each
    question the modes run one after the other, in an order that rotates, so that the machine's
    noise falls on all of them alike."""
    rng = np.random.default_rng(7)
    kinds = (*MODES, FLOOR)
    found: dict[int, dict[str, dict[str, list[float]]]] = {}
    for size, members in sorted(users.items()):
        found[size] = {kind: {"ms": [], "hits": []} for kind in kinds}
        for user in members:
            for query in warm:
                for mode in MODES:
                    _search(ctx, user, query, mode)
            for i, query in enumerate(questions):
                for kind in kinds[i % len(kinds):] + kinds[:i % len(kinds)]:
                    ms, hits = (_timed(_floor, ctx, user, query, rng) if kind == FLOOR
                                else _timed(_search, ctx, user, query, kind))
                    found[size][kind]["ms"].append(ms)
                    found[size][kind]["hits"].append(hits)
        summary = ", ".join(f"{kind} p50 {percentiles(found[size][kind]['ms'])[0]:.1f} ms" for kind in kinds)
        progress(f"searched users of {size:,} memories: {summary}")
    return found


def isolation(ctx_shared, ctx_alone, user: User, warm: list[str], questions: list[str]) -> dict[str, list[float]]:
    """Hybrid search latency of the same user (same rows) in the full database and in a database
    holding only that user, alternating between the two for each question."""
    found: dict[str, list[float]] = {"shared": [], "alone": []}
    for query in warm:
        _search(ctx_shared, user, query, "hybrid")
        _search(ctx_alone, user, query, "hybrid")
    for i, query in enumerate(questions):
        pair = (("shared", ctx_shared), ("alone", ctx_alone))
        for name, ctx in (pair if i % 2 == 0 else pair[::-1]):
            found[name].append(_timed(_search, ctx, user, query, "hybrid")[0])
    return found


def vector_paths(ctx, users: dict[int, User], warm: list[str], questions: list[str], ef_searches: list[int],
                 preselects: list[int], progress: Progress) -> dict[int, dict]:
    """For each scope size: the vector channel's exact ranking, its HNSW walk with iterative scan
    at each `ef_searches`, and its binary-quantised pre-selection of each `preselects` candidates
    re-ranked exactly (memories.vector_ranked, each path forced, the depth search asks for):
    their latencies and each approximate path's recall@10 and @100 against the exact ranking.
    size -> {"exact": ms, "hnsw used by exact": [0/1], "hnsw": {ef: {"ms", "recall@10",
    "recall@100", "hnsw used"}}, "preselect": {n: {"ms", "recall@10", "recall@100"}}}."""
    from memex.db import memories as memory_rows
    from memex.models import SearchFilters

    conn = ctx.db.connection()
    hnsw = conn.execute(
        """SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_am a ON a.oid = i.relam
           WHERE x.indrelid = 'memories'::regclass AND a.amname = 'hnsw'""").fetchone()["relname"]
    # (name, walk_above, ef_search, preselect); walk_above 0: always through the index (if the
    # planner takes it); never past any scope's size: as a search runs the scope's other paths,
    # gated by its size, without parallel workers
    never, unused = 10**9, min(ef_searches)
    paths = ([("exact", never, unused, 0)] + [(("hnsw", ef), 0, ef, 0) for ef in ef_searches]
             + [(("preselect", n), never, unused, n) for n in preselects])
    found: dict[int, dict] = {}
    for size, user in sorted(users.items()):
        scope = (TENANT, user.id, None, SearchFilters(), False)
        found[size] = {"exact": [], "hnsw used by exact": [],
                       "hnsw": {ef: {"ms": [], "recall@10": [], "recall@100": [], "hnsw used": []}
                                for ef in ef_searches},
                       "preselect": {n: {"ms": [], "recall@10": [], "recall@100": []} for n in preselects}}
        for vector in [ctx.embedder.embed_query(q) for q in warm]:
            for _, walk_above, ef, n in paths:
                memory_rows.vector_ranked(conn, *scope, vector, VECTOR_DEPTH, walk_above, ef, n)
        for i, vector in enumerate([ctx.embedder.embed_query(q) for q in questions]):
            ranked = {}
            for name, walk_above, ef, n in paths[i % len(paths):] + paths[:i % len(paths)]:
                # In a transaction of its own, whose counters tell whether the planner walked the
                # HNSW index (it may prefer the user's b-tree and a sort for a small scope).
                with conn.transaction():
                    ms, ranked[name] = _timed(memory_rows.vector_ranked, conn, *scope, vector,
                                              VECTOR_DEPTH, walk_above, ef, n)
                    walked = conn.execute("SELECT pg_stat_get_xact_numscans(%s::regclass) AS n", (hnsw,)).fetchone()["n"]
                if name == "exact":
                    found[size]["exact"].append(ms)
                    found[size]["hnsw used by exact"].append(float(walked > 0))
                else:
                    kind, value = name
                    found[size][kind][value]["ms"].append(ms)
                    if kind == "hnsw":
                        found[size][kind][value]["hnsw used"].append(float(walked > 0))
            exact = [item for item, _ in ranked["exact"]]
            for name in ranked:
                if name == "exact":
                    continue
                got = [item for item, _ in ranked[name]]
                for k in (10, 100):
                    if exact[:k]:
                        found[size][name[0]][name[1]][f"recall@{k}"].append(
                            len(set(exact[:k]) & set(got[:k])) / len(exact[:k]))
        progress(f"vector paths at {size:,} memories: exact p50 {percentiles(found[size]['exact'])[0]:.1f} ms, "
                 + ", ".join(f"{kind} {value} p50 {percentiles(found[size][kind][value]['ms'])[0]:.1f} ms "
                             f"recall@100 {np.mean(found[size][kind][value]['recall@100']):.2f}"
                             for kind, value in (p[0] for p in paths[1:])))
    return found


def keyword_caps(ctx, user: User, questions: list[str], caps: list[int], progress: Progress) -> dict:
    """The keyword channel alone (memories.keyword_ranked, depth 100) for one user at each cap on
    its candidates (settings.keyword_max_postings), beside no cap: cap -> {"ms", "recall@10",
    "recall@100"} against the uncapped ranking, and how many questions the cap changed."""
    from memex.db import memories as memory_rows
    from memex.models import SearchFilters

    conn = ctx.db.connection()
    scope = (TENANT, user.id, None, SearchFilters(), False)
    uncapped = 10**9
    kinds = [*caps, uncapped]
    found = {cap: {"ms": [], "recall@10": [], "recall@100": []} for cap in kinds}
    for i, query in enumerate(questions):
        ranked = {}
        for cap in kinds[i % len(kinds):] + kinds[:i % len(kinds)]:
            ms, (ranked[cap], _) = _timed(memory_rows.keyword_ranked, conn, *scope, query, VECTOR_DEPTH, cap)
            found[cap]["ms"].append(ms)
        full = [item for item, _ in ranked[uncapped]]
        for cap in kinds:
            got = [item for item, _ in ranked[cap]]
            for k in (10, 100):
                if full[:k]:
                    found[cap][f"recall@{k}"].append(len(set(full[:k]) & set(got[:k])) / len(full[:k]))
    progress(f"keyword caps at {user.size:,} memories: " + ", ".join(
        f"{cap if cap != uncapped else 'none'} p50 {percentiles(found[cap]['ms'])[0]:.1f} ms" for cap in kinds))
    return {("none" if cap == uncapped else cap): value for cap, value in found.items()}


def crossover(sizes: list[int], exact: list[float], hnsw: list[float]) -> float | None:
    """The scope size from which the HNSW walk's p50 stays below the exact ranking's at every
    larger measured size, interpolated on a log scale between the two sizes around it; None when
    it is not below at the largest."""
    gaps = [float(np.log(h) - np.log(e)) for e, h in zip(exact, hnsw)]
    if not gaps or gaps[-1] >= 0:
        return None
    first = len(gaps) - 1
    while first > 0 and gaps[first - 1] < 0:
        first -= 1
    if first == 0:
        return float(sizes[0])
    (s0, g0), (s1, g1) = (sizes[first - 1], gaps[first - 1]), (sizes[first], gaps[first])
    fraction = g0 / (g0 - g1)
    return float(np.exp(np.log(s0) + fraction * (np.log(s1) - np.log(s0))))


def user_indexes(ctx, users: dict[int, list[User]], warm: list[str], questions: list[str], ef_searches: list[int],
                 progress: Progress) -> dict:
    """The per-user HNSW indexes (memex/vector_indexes.py), measured in one run: built by the index
    job with the configured threshold, then each user searched alternately with their index listed
    and unlisted (the index stays built; the list decides whether search walks it), hybrid and
    vector, beside the floor, in a rotating order; users without an index run the same twice (a
    control for the noise). Then the vector channel alone (depth 100) through the user's index at
    each of `ef_searches`, its recall against the exact ranking, beside the configured pre-selection's; the plan of each
    size's vector statement; and the indexes dropped again, so that the kept data stays as loaded.
    -> {"build_seconds", "indexes": [(user, bytes)], "drop_seconds", "latency": size -> kind ->
    ms, "paths": size -> {"own": {ef: {...}}, "preselect": {"ms", "recall@10", "recall@100"}, "exact": ms},
    "plans": size -> the plan's index names}"""
    from dataclasses import replace

    from memex.db import memories as memory_rows
    from memex.db import vector_indexes as index_rows
    from memex.models import SearchFilters
    from memex.vector_indexes import maintain

    conn = ctx.db.connection()
    started = time.perf_counter()
    built = maintain(ctx)
    build_seconds = time.perf_counter() - started
    listed = {r["user_id"]: r["index_name"] for r in conn.execute(
        "SELECT user_id, index_name FROM user_vector_indexes WHERE tenant_id = %s", (TENANT,))}
    indexes = [(user, index_rows.size_bytes(conn, name)) for user, name in sorted(listed.items())]
    progress(f"built {built.built} user indexes in {build_seconds:.1f} s: "
             + ", ".join(f"{user} {size / 2**20:.1f} MB" for user, size in indexes))

    def listing(user: User, on: bool) -> None:
        if user.id in listed:
            (index_rows.relist if on else index_rows.unlist)(conn, TENANT, user.id)

    s = ctx.settings
    plans: dict[int, list[str]] = {}
    for size, members in sorted(users.items()):
        vector = ctx.embedder.embed_query(questions[0])
        statement = memory_rows.vector_statement(TENANT, members[0].id, None, SearchFilters(), False, vector,
                                                 VECTOR_DEPTH, s.vector_exact_max, s.vector_ef_search,
                                                 s.vector_preselect, s.vector_preselect_above,
                                                 s.user_vector_index_ef_search)
        plan = statement.explain(conn)
        plans[size] = sorted(set(re.findall(r"using (\w+)", plan, flags=re.IGNORECASE)))
    progress("indexes in the vector statement's plans: " + "; ".join(f"{k:,}: {', '.join(v)}" for k, v in plans.items()))

    rng = np.random.default_rng(11)
    kinds = [(mode, listed_) for mode in ("hybrid", "vector") for listed_ in (True, False)] + [(FLOOR, None)]
    latency: dict[int, dict[str, list[float]]] = {}
    for size, members in sorted(users.items()):
        latency[size] = {_kind_name(k): [] for k in kinds}
        for user in members:
            for query in warm:
                for on in (True, False):
                    listing(user, on)
                    for mode in ("hybrid", "vector"):
                        _search(ctx, user, query, mode)
            for i, query in enumerate(questions):
                for kind in kinds[i % len(kinds):] + kinds[:i % len(kinds)]:
                    mode, on = kind
                    if mode == FLOOR:
                        ms, _ = _timed(_floor, ctx, user, query, rng)
                    else:
                        listing(user, on)
                        ms, _ = _timed(_search, ctx, user, query, mode)
                    latency[size][_kind_name(kind)].append(ms)
            listing(user, True)
        progress(f"users of {size:,} memories, with / without their index: " + ", ".join(
            f"{name} p50 {percentiles(ms)[0]:.1f}" for name, ms in latency[size].items()))

    never = 10**9
    exact_only = replace(s, vector_preselect=0)
    paths: dict[int, dict] = {}
    for size, members in sorted(users.items()):
        user = members[0]
        if user.id not in listed:
            continue
        scope = (TENANT, user.id, None, SearchFilters(), False)
        approximate = [("own", ef) for ef in ef_searches] + ["preselect"]
        found = {"exact": [], **{k: {"ms": [], "recall@10": [], "recall@100": []} for k in approximate}}
        runs = {"exact": (never, exact_only.vector_ef_search, 0, None),
                **{("own", ef): (never, ef, 0, ef) for ef in ef_searches},
                "preselect": (never, s.vector_ef_search, s.vector_preselect, None)}
        for i, vector in enumerate([ctx.embedder.embed_query(q) for q in warm + questions]):
            ranked = {}
            names = list(runs)
            for name in names[i % len(names):] + names[:i % len(names)]:
                walk_above, ef, preselect, own_ef = runs[name]
                ms, ranked[name] = _timed(memory_rows.vector_ranked, conn, *scope, vector, VECTOR_DEPTH,
                                          walk_above, ef, preselect, s.vector_preselect_above, own_ef)
                if i < len(warm):
                    continue
                (found[name] if name == "exact" else found[name]["ms"]).append(ms)
            if i < len(warm):
                continue
            exact = [item for item, _ in ranked["exact"]]
            for name in approximate:
                got = [item for item, _ in ranked[name]]
                for k in (10, 100):
                    found[name][f"recall@{k}"].append(len(set(exact[:k]) & set(got[:k])) / len(exact[:k]))
        paths[size] = {**{k: v for k, v in found.items() if k[0] != "own"},
                       "own": {k[1]: v for k, v in found.items() if k[0] == "own"}}
        progress(f"vector channel at {size:,} memories: exact p50 {percentiles(found['exact'])[0]:.1f} ms, "
                 + ", ".join(f"{k} p50 {percentiles(found[k]['ms'])[0]:.1f} ms recall@10 "
                             f"{np.mean(found[k]['recall@10']):.3f}" for k in approximate))

    writes = write_cost(conn, users, set(listed), progress)
    started = time.perf_counter()
    maintain(replace(ctx, settings=replace(s, user_vector_index_min=0)))
    drop_seconds = time.perf_counter() - started
    return {"threshold": s.user_vector_index_min, "build_seconds": build_seconds, "indexes": indexes,
            "drop_seconds": drop_seconds, "plans": plans, "latency": latency, "paths": paths, "writes": writes,
            "samples_per_size": sum(len(m) for m in users.values()) // len(users) * len(questions)}


def write_cost(conn, users: dict[int, list[User]], indexed: set[str], progress: Progress,
               rows: int = 200) -> dict | None:
    """What a user's own index costs each write: one memory inserted and committed at a time, in
    turns into the largest indexed user (whose rows go into the shared graph and their own) and the
    largest user without an index (the shared graph only), each a copy of one of the user's rows
    under a new id; the copies are deleted afterwards. -> {"indexed": (user, ms per insert),
    "control": (user, ms per insert)}, or None when every measured user (or none) has an index."""
    from memex.db import memories as memory_rows

    everyone = [user for _, members in sorted(users.items(), reverse=True) for user in members]
    with_index = next((u for u in everyone if u.id in indexed), None)
    control = next((u for u in everyone if u.id not in indexed), None)
    if with_index is None or control is None:
        return None
    copies = {user.id: conn.execute(
        "SELECT * FROM memories WHERE tenant_id = %s AND user_id = %s AND active ORDER BY id LIMIT %s",
        (TENANT, user.id, rows)).fetchall() for user in (with_index, control)}
    timings: dict[str, list[float]] = {with_index.id: [], control.id: []}
    written: list[str] = []
    for i in range(rows):
        for user in (with_index, control) if i % 2 else (control, with_index):
            source = copies[user.id][i % len(copies[user.id])]
            memory = {**source, "id": f"{user.id}-write-{i}", "dedupe_key": None,
                      "embedding": source["embedding"].to_numpy()}
            started = time.perf_counter()
            with conn.transaction():
                memory_rows.insert(conn, TENANT, memory)
            timings[user.id].append((time.perf_counter() - started) * 1000)
            written.append(memory["id"])
    with conn.transaction():
        conn.execute("DELETE FROM memories WHERE tenant_id = %s AND id = ANY(%s)", (TENANT, written))
    found = {"indexed": (with_index.id, timings[with_index.id]), "control": (control.id, timings[control.id])}
    progress("insert of one memory, p50: " + ", ".join(
        f"{name} ({user}) {percentiles(ms)[0]:.2f} ms" for name, (user, ms) in found.items()))
    return found


def _kind_name(kind: tuple[str, bool | None]) -> str:
    mode, listed = kind
    return mode if listed is None else f"{mode} {'with' if listed else 'without'}"
