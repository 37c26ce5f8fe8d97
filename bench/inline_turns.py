"""How long `POST /v1/turns?wait=true` takes by the size of its one message, against a fresh local
service (`python -m infra.local`, as `make dev` runs it): what MEMEX_INLINE_MAX_CHARS is set from.

    python -m bench.inline_turns [--sizes 100000,200000,400000,900000] [--shapes prose,repeated]

Each shape (bench.extractor_speed's messages) and size is posted once with `?wait=true`, a session
each, after a small turn that loads the rules and the model; the answer's status and wall time are
printed. The service runs with MEMEX_INLINE_MAX_CHARS above the largest size, so that every turn is
processed inline. Wall time on a shared machine moves with its load: the output says the load.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any, Sequence

import httpx

from bench.extractor_speed import shapes
from bench.service import local_server


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,200000,400000,900000", help="characters, comma-separated")
    parser.add_argument("--shapes", default="prose,repeated", help="of bench.extractor_speed's, comma-separated")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    env = {"MEMEX_EMBEDDINGS_PROVIDER": "local", "MEMEX_INLINE_MAX_CHARS": str(max(sizes) + 1)}
    with local_server(env, defaults_only=True) as url, httpx.Client(base_url=url, timeout=600) as client:
        def post(session: str, content: str) -> httpx.Response:
            return client.post("/v1/turns", params={"wait": "true"}, json={
                "user_id": "bench", "session_id": session, "messages": [{"role": "user", "content": content}]})

        post("warm", "I live in Lisbon.").raise_for_status()
        print(f"load average {os.getloadavg()[0]:.1f}")
        for shape in args.shapes.split(","):
            for size in sizes:
                content = shapes(size)[shape]  # made before the clock starts: the turn's time alone is timed
                started = time.perf_counter()
                answer = post(f"{shape}-{size}", content)
                rows.append({"shape": shape, "chars": size, "status": answer.status_code,
                             "seconds": round(time.perf_counter() - started, 2)})
                print(f"{shape:<10} {size:>8} chars  {answer.status_code}  {rows[-1]['seconds']:>6.2f} s", flush=True)
        print(f"load average {os.getloadavg()[0]:.1f}")
    return rows


if __name__ == "__main__":
    main()
