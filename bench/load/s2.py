"""The S2-style pipeline, served for the load benchmark only (not part of memex's API).

    DATABASE_URL=... python -m bench.load.s2 --port 8090   (--port 0: a free port, said at start)

What the memex seed ("S2", ../shared/SEEDS-API.md part B) does for a search: embed the query,
take the user's top_k x 3 memories by cosine distance, re-score them in Python with
`alpha * cos + (1 - alpha) * exp(-lambda * age_days)` (alpha 0.7, half-life 30 days), keep top_k.
A write embeds the content and inserts one row. It runs on memex's own parts so that the two
pipelines differ only in what they do: the same embedder (make_embedder: the MiniLM model, one
BLAS thread, concurrent calls batched), one Postgres connection per request thread as memex's
local runtime keeps, and the same server (uvicorn with as many processes as memex's local runtime
runs under the same settings, FastAPI's thread pool).

Its table is its own (`s2_memories`, S2's columns), filled by `load_memories` with memex's
memories of the benchmark's users: the same rows, texts, vectors and times. The vector search
filters by user while it walks the HNSW index (pgvector's iterative scan, set once per session),
in one round trip, so that scoping to a user does not starve the result: no handicap on recall.
"""

from __future__ import annotations

import argparse
import math
import threading
import uuid
from datetime import datetime, timezone
from typing import Any, Optional, Sequence

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg.rows import dict_row
from pydantic import BaseModel, Field

ALPHA = 0.7
HALF_LIFE_DAYS = 30.0
FETCH_FACTOR = 3
# Enough candidates for top_k x 3 of one user on a walk that filters as it goes.
SESSION_OPTIONS = "-c hnsw.iterative_scan=relaxed_order -c hnsw.ef_search=200"

SCHEMA = """
CREATE TABLE IF NOT EXISTS s2_memories (
    id          text PRIMARY KEY,
    agent_id    text,
    user_id     text NOT NULL,
    content     text NOT NULL,
    memory_type text NOT NULL,
    importance  real NOT NULL DEFAULT 0.5,
    embedding   vector({dim}) NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS s2_memories_user ON s2_memories (user_id, agent_id);
CREATE INDEX IF NOT EXISTS s2_memories_embedding ON s2_memories
    USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64);
"""


def load_memories(dsn: str, tenant_id: str, user_ids: Sequence[str], dim: int) -> int:
    """Creates S2's table and copies memex's active memories of these users into it (a memory's
    time is when it was said: its valid_from). Returns how many rows S2 then holds for them."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SCHEMA.format(dim=int(dim)))
        conn.execute(
            """INSERT INTO s2_memories (id, agent_id, user_id, content, memory_type, importance, embedding, created_at)
               SELECT id, agent_id, user_id, content, memory_type, importance, embedding, valid_from
               FROM memories WHERE tenant_id = %s AND user_id = ANY(%s) AND active
               ON CONFLICT (id) DO NOTHING""",
            (tenant_id, list(user_ids)))
        conn.execute("ANALYZE s2_memories")
        return conn.execute("SELECT count(*) FROM s2_memories WHERE user_id = ANY(%s)",
                            (list(user_ids),)).fetchone()[0]


def rescore(rows: Sequence[dict[str, Any]], now: datetime, top_k: int, alpha: float = ALPHA,
            half_life_days: float = HALF_LIFE_DAYS) -> list[dict[str, Any]]:
    """S2's scoring of its vector candidates, best first, top_k kept."""
    decay = math.log(2) / half_life_days
    scored = []
    for row in rows:
        age_days = max(0.0, (now - row["created_at"]).total_seconds() / 86_400)
        score = alpha * float(row["cos"]) + (1 - alpha) * math.exp(-decay * age_days)
        scored.append({"id": row["id"], "content": row["content"], "memory_type": row["memory_type"],
                       "created_at": row["created_at"].isoformat(), "score": round(score, 6)})
    scored.sort(key=lambda r: r["score"], reverse=True)
    return scored[:top_k]


class MemoryIn(BaseModel):
    user_id: str = Field(min_length=1)
    content: str = Field(min_length=1, max_length=10_000)
    agent_id: Optional[str] = None
    memory_type: str = "episodic"
    importance: float = Field(default=0.5, ge=0, le=1)


class SearchIn(BaseModel):
    user_id: str = Field(min_length=1)
    query: str = Field(min_length=1, max_length=10_000)
    agent_id: Optional[str] = None
    top_k: int = Field(default=10, ge=1, le=100)
    alpha: float = Field(default=ALPHA, ge=0, le=1)
    # Not in S2's API: the LoCoMo questions are asked as of their conversation's end, as memex's are.
    reference_time: Optional[datetime] = None


def create_app():
    """The app of one server process, on DATABASE_URL."""
    import os

    from fastapi import FastAPI

    from memex.config import load_settings
    from memex.embeddings import make_embedder

    dsn = os.environ["DATABASE_URL"]
    embedder = make_embedder(load_settings())
    local = threading.local()
    app = FastAPI()

    def connection() -> psycopg.Connection:
        conn = getattr(local, "conn", None)
        if conn is None or conn.closed or conn.broken:
            conn = psycopg.connect(dsn, autocommit=True, prepare_threshold=None, row_factory=dict_row,
                                   options=SESSION_OPTIONS)
            register_vector(conn)
            local.conn = conn
        return conn

    @app.get("/health")
    def health() -> dict:
        return {"status": "ok"}

    @app.post("/s2/memories")
    def post_memory(memory: MemoryIn) -> dict:
        vector = np.asarray(embedder.embed([memory.content])[0], dtype=np.float32)
        row = connection().execute(
            """INSERT INTO s2_memories (id, agent_id, user_id, content, memory_type, importance, embedding)
               VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id, created_at""",
            (str(uuid.uuid4()), memory.agent_id, memory.user_id, memory.content, memory.memory_type,
             memory.importance, vector)).fetchone()
        return {"id": row["id"], "agent_id": memory.agent_id, "user_id": memory.user_id, "content": memory.content,
                "importance": memory.importance, "memory_type": memory.memory_type,
                "created_at": row["created_at"].isoformat(), "score": None}

    @app.post("/s2/memories/search")
    def search(request: SearchIn) -> dict:
        vector = np.asarray(embedder.embed_query(request.query), dtype=np.float32)
        agent = "" if request.agent_id is None else "AND agent_id = %(agent)s"
        rows = connection().execute(
            f"""SELECT id, content, memory_type, created_at, 1 - (embedding <=> %(v)s) AS cos
                FROM s2_memories WHERE user_id = %(user)s {agent}
                ORDER BY embedding <=> %(v)s LIMIT %(n)s""",
            {"v": vector, "user": request.user_id, "agent": request.agent_id,
             "n": request.top_k * FETCH_FACTOR}).fetchall()
        now = request.reference_time or datetime.now(timezone.utc)
        results = rescore(rows, now, request.top_k, request.alpha)
        return {"results": results, "query": request.query, "total": len(results)}

    return app


def main() -> None:
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from infra.local.__main__ import address, listening_socket
    from memex.config import load_settings

    parser = argparse.ArgumentParser(prog="python -m bench.load.s2", description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True, help="0: a free port, said at start as memex's is")
    args = parser.parse_args()
    sock = listening_socket(args.host, args.port, "--port")
    # In memex's words, so that the benchmark reads where it serves as it reads memex's (bench.service.said_url).
    print(f"memex: serving on {address(sock)} (the S2 pipeline)", flush=True)
    # As many server processes as memex's local runtime runs with the same settings.
    processes = load_settings().local_http_processes
    if processes > 1:
        Multiprocess(uvicorn.Config("bench.load.s2:create_app", factory=True, workers=processes, log_level="warning"),
                     sockets=[sock]).run()
    else:
        uvicorn.Server(uvicorn.Config(create_app(), log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    main()
