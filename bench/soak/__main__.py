"""The soak: `--users` simulated users of one app chatting at once for `--duration` seconds against
`python -m infra.local` (a fresh home, a free port, default settings), then the check that nothing
they said was lost.

    .venv/bin/python -m bench.soak [--users 40] [--duration 300] [--restart] [--llm-delay 2]
        [--llm-db-connections 2] [--sample 0.5] [--out soak.json]

Each user posts a turn (202, no wait), thinks 2-5 s, now and then searches or recalls what they
said, and goes on; half the users date their turns (`timestamp`, an hour apart), half take the
server's clock. Their lines (bench/soak/chat.py) carry facts that change (moves, new jobs) or stay
(the dog's name). **Freshness**: for a `--sample` share of the fact-bearing turns, the time from
the 202 until a search for the fact returns it as current, polled every second (a fact the user
replaced before it was found is counted apart, not timed). The extraction and supersession
queues' depth is read every 10 s from the loopback SQS. At the end, once every turn is processed
(or `--drain-timeout` passed): every turn `processed` (GET /v1/turns/{id}), every user's last
value of each key current and alone, every earlier value in the history, no key and value
current twice, no 5xx. `--restart` stops the server with SIGINT half-way and starts it again on
the same home and port (the users retry what failed meanwhile, under the same idempotency keys);
`--llm-delay` puts a chat model answering after that many seconds (bench/soak/model.py) behind
the extraction, and `--llm-db-connections` sets the server's MEMEX_LLM_DB_CONNECTIONS. Turns not processed by the end are listed apart from wrong facts (a fact of such a
turn is late, not lost). Exit status 1 when a turn is not processed, a fact is wrong or a request
answered 5xx.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import urlparse

import httpx

from bench import api
from bench.locomo import percentile
from bench.service import serve
from bench.soak.chat import QUESTIONS, User, violations

POLL_SECONDS = 1.0
DEPTH_EVERY = 10.0
RETRY_SECONDS = 1.0
POLLERS = 6


class Soak:
    def __init__(self, url: str, users: int, duration: float, sample: float, seed: int):
        self.url, self.duration, self.sample = url, duration, sample
        self.rng = random.Random(seed)
        self.users = [User(f"soak-{seed}-{i}", dated=i % 2 == 0) for i in range(users)]
        self.client = httpx.Client(base_url=url, timeout=httpx.Timeout(120, connect=5),
                                   limits=httpx.Limits(max_connections=users + POLLERS + 4))
        self.pollers = ThreadPoolExecutor(POLLERS)
        self.lock = threading.Lock()
        self.turns: list[dict[str, Any]] = []  # {turn_id, user, at}
        self.fresh: list[tuple[float, float]] = []  # (seconds into the run of the 202, seconds until found)
        self.overtaken = self.unfound = 0
        self.statuses: dict[str, dict[int, int]] = {}
        self.server_errors: list[str] = []
        self.turns_refused: list[str] = []  # a 4xx to a turn (request() retries a 5xx)
        self.unavailable = 0  # requests that found no server (the restart's downtime)
        self.depths: list[dict[str, Any]] = []
        self.started = time.monotonic()
        self.stopping = threading.Event()

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """The request, retried while no server answers (a restart) or it answers 5xx; each
        5xx is counted and kept."""
        while True:
            try:
                response = self.client.request(method, path, **kwargs)
            except httpx.TransportError:
                with self.lock:
                    self.unavailable += 1
                time.sleep(RETRY_SECONDS)
                continue
            with self.lock:
                counts = self.statuses.setdefault(f"{method} {_route(path)}", {})
                counts[response.status_code] = counts.get(response.status_code, 0) + 1
                if response.status_code >= 500:
                    self.server_errors.append(f"{method} {path}: {response.status_code} {response.text[:200]}")
            if response.status_code < 500:
                return response
            time.sleep(RETRY_SECONDS)

    def user(self, user: User, seed: int) -> None:
        rng = random.Random(seed)
        lines = user.lines(rng)
        end = self.started + self.duration
        time.sleep(rng.uniform(0, 3))  # not all at the same instant
        while time.monotonic() < end:
            line = next(lines)
            body: dict[str, Any] = {"user_id": user.user_id, "session_id": f"{user.user_id}-evening",
                                    "messages": [{"role": "user", "content": line.content}],
                                    "idempotency_key": f"{user.user_id}-{user.turns}"}
            if line.timestamp:
                body["timestamp"] = line.timestamp
            response = self.request("POST", "/v1/turns", json=body)
            at = time.monotonic()
            if response.status_code != 202:
                with self.lock:
                    self.turns_refused.append(f"POST /v1/turns: {response.status_code} {response.text[:200]}")
                continue
            with self.lock:
                self.turns.append({"turn_id": response.json()["turn_id"], "user": user.user_id, "at": at})
            if line.key and rng.random() < self.sample:
                self.pollers.submit(self.freshness, user, line.key, line.value, at)
            time.sleep(rng.uniform(2, 5))
            if user.said and rng.random() < 0.3:
                key = rng.choice(sorted(user.said))
                if rng.random() < 0.5:
                    self.request("POST", "/v1/search", json={"user_id": user.user_id, "query": QUESTIONS[key]})
                else:
                    self.request("POST", "/v1/recall", json={"user_id": user.user_id, "query": QUESTIONS[key]})

    def freshness(self, user: User, key: str, value: str, at: float) -> None:
        while not self.stopping.is_set():
            found = self.request("POST", "/v1/search", json={"user_id": user.user_id, "query": QUESTIONS[key],
                                                               "top_k": 10})
            if found.status_code == 200 and any(r.get("key") == key and r.get("value") == value
                                                for r in found.json()["results"]):
                with self.lock:
                    self.fresh.append((at - self.started, time.monotonic() - at))
                return
            if user.said[key][-1] != value:
                with self.lock:
                    self.overtaken += 1
                return
            time.sleep(POLL_SECONDS)
        with self.lock:
            self.unfound += 1

    def depth(self, log_paths: list[Path]) -> None:
        """Every DEPTH_EVERY s: the messages waiting or in flight in each queue (loopback SQS)."""
        import boto3

        while not self.stopping.wait(DEPTH_EVERY):
            endpoint = _sqs_endpoint(log_paths[-1])
            row: dict[str, Any] = {"t": round(time.monotonic() - self.started), "load": os.getloadavg()[0]}
            try:
                sqs = boto3.client("sqs", endpoint_url=endpoint, region_name="us-east-1",
                                   aws_access_key_id="soak", aws_secret_access_key="soak")
                for url in sqs.list_queues().get("QueueUrls", []):
                    name = url.rsplit("/", 1)[1]
                    if "dlq" in name.lower():
                        continue
                    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=[
                        "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])["Attributes"]
                    row[name] = sum(int(v) for v in attributes.values())
            except Exception as exc:  # the server is restarting: a row without depths says so
                row["error"] = type(exc).__name__
            with self.lock:
                self.depths.append(row)

    def drain(self, timeout: float) -> tuple[float, list[dict[str, Any]]]:
        """Waits until every turn is processed (at most `timeout`): the seconds it took and the turns
        that are not."""
        started = time.monotonic()
        statuses = api.wait_processed(self.get, [t["turn_id"] for t in self.turns], timeout, interval=2)
        for turn in self.turns:
            turn["status"] = statuses[turn["turn_id"]]
        return round(time.monotonic() - started, 1), [t for t in self.turns if t["status"] != "processed"]

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", path, **kwargs)


def _route(path: str) -> str:
    """The path with its ids left out, so that requests count by route."""
    return re.sub(r"/(turns|users)/[^/?]+", r"/\1/{id}", path)


def _sqs_endpoint(log_path: Path) -> str | None:
    found = re.findall(r"SQS: loopback endpoint \(moto\) at (\S+)", log_path.read_text())
    return found[-1] if found else None


def run(args: argparse.Namespace) -> dict[str, Any]:
    env: dict[str, str] = {}
    with ExitStack() as stack:
        if args.llm_delay is not None:
            from bench.soak.model import SlowModel

            model = stack.enter_context(SlowModel(args.llm_delay))
            env = {"MEMEX_LLM_BASE_URL": model.base_url, "MEMEX_LLM_MODEL": "slow-double",
                   "MEMEX_LLM_API_KEY": "soak"}
        if args.llm_db_connections is not None:
            env["MEMEX_LLM_DB_CONNECTIONS"] = str(args.llm_db_connections)
        home = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="memex-soak-")))
        command = ["-m", "infra.local", "--home", str(home / "memex")]

        logs = [home / "first"]
        logs[0].mkdir()
        server = ExitStack()
        url = server.enter_context(serve(command, 0, logs[0], env, defaults_only=True))
        soak = Soak(url, args.users, args.duration, args.sample, args.seed)
        log_paths = [logs[0] / "server.log"]
        threads = [threading.Thread(target=soak.user, args=(user, args.seed * 1000 + i), daemon=True)
                   for i, user in enumerate(soak.users)]
        sampler = threading.Thread(target=soak.depth, args=(log_paths,), daemon=True)
        for thread in [*threads, sampler]:
            thread.start()
        restarted = None
        if args.restart:
            time.sleep(args.duration / 2)
            server.close()  # one SIGINT, then its shutdown
            stopped = time.monotonic()
            logs.append(home / "second")
            logs[1].mkdir()
            # On the port the first one chose: the users' clients go on with the same URL.
            port = urlparse(url).port
            server.enter_context(serve(command, port, logs[1], env, defaults_only=True))
            log_paths.append(logs[1] / "server.log")
            restarted = {"at_s": round(stopped - soak.started), "down_s": round(time.monotonic() - stopped, 1)}
        for thread in threads:
            thread.join()
        drain_s, unprocessed = soak.drain(args.drain_timeout)
        soak.stopping.set()
        soak.pollers.shutdown(wait=True)
        wrong = []
        for user in soak.users:
            wrong += violations(user, api.memories(soak.get, user.user_id))
        server.close()
    fresh = [seconds for _, seconds in soak.fresh]
    minutes: dict[int, list[float]] = {}
    for at, seconds in soak.fresh:
        minutes.setdefault(int(at // 60), []).append(seconds)
    return {
        "users": args.users, "duration_s": args.duration, "llm_delay_s": args.llm_delay,
        "llm_db_connections": args.llm_db_connections, "restart": restarted,
        "turns": len(soak.turns), "facts_timed": len(fresh), "facts_overtaken": soak.overtaken,
        "facts_never_found": soak.unfound,
        "freshness_s": _spread(fresh),
        "freshness_by_minute": {m: _spread(v) for m, v in sorted(minutes.items())},
        "queue_depth": soak.depths, "drain_s": drain_s, "statuses": soak.statuses,
        "unavailable_requests": soak.unavailable, "server_errors": soak.server_errors[:20],
        "server_error_count": len(soak.server_errors), "turns_refused": soak.turns_refused[:20],
        "turns_refused_count": len(soak.turns_refused), "violations": wrong,
        "unprocessed": [f"turn {t['turn_id']} of {t['user']}: {t['status']}" for t in unprocessed],
        "load_average": os.getloadavg(),
    }


def _spread(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {}
    return {"p50": round(percentile(values, 50), 1), "p95": round(percentile(values, 95), 1),
            "max": round(max(values), 1), "n": len(values)}


def render(result: dict[str, Any]) -> str:
    lines = [f"soak: {result['users']} users, {result['duration_s']:.0f} s"
             + (f", an LLM answering in {result['llm_delay_s']} s" if result["llm_delay_s"] is not None else "")
             + (f", MEMEX_LLM_DB_CONNECTIONS={result['llm_db_connections']}"
                if result["llm_db_connections"] is not None else "")
             + (f", restarted at {result['restart']['at_s']} s (down {result['restart']['down_s']} s)"
                if result["restart"] else ""),
             "", "| turns | facts timed | overtaken | never found | fresh p50 s | p95 s | max s | drain s | 5xx | "
             "unprocessed | wrong facts |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    f = result["freshness_s"]
    lines.append(f"| {result['turns']} | {result['facts_timed']} | {result['facts_overtaken']} | "
                 f"{result['facts_never_found']} | {f.get('p50')} | {f.get('p95')} | {f.get('max')} | "
                 f"{result['drain_s']} | {result['server_error_count']} | {len(result['unprocessed'])} | "
                 f"{len(result['violations'])} |")
    lines += ["", "| minute | facts | fresh p50 s | p95 s | max s |", "|---|---|---|---|---|"]
    lines += [f"| {m} | {s['n']} | {s['p50']} | {s['p95']} | {s['max']} |"
              for m, s in result["freshness_by_minute"].items()]
    queues = sorted({k for row in result["queue_depth"] for k in row} - {"t", "load", "error"})
    lines += ["", "| t s | load | " + " | ".join(queues) + " |", "|---" * (len(queues) + 2) + "|"]
    for row in result["queue_depth"][::3]:
        lines.append(f"| {row['t']} | {row['load']:.1f} | " + " | ".join(str(row.get(q, row.get("error", "")))
                                                                        for q in queues) + " |")
    lines += ["", f"requests by status: {json.dumps(result['statuses'])}",
              f"requests that found no server: {result['unavailable_requests']}"]
    lines += [f"5xx: {e}" for e in result["server_errors"]]
    lines += [f"refused: {e}" for e in result["turns_refused"]]
    lines += [f"not processed by the end: {v}" for v in result["unprocessed"][:20]]
    lines += [f"WRONG: {v}" for v in result["violations"][:50]]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=40)
    parser.add_argument("--duration", type=float, default=300.0, help="seconds the users chat")
    parser.add_argument("--sample", type=float, default=0.5, help="share of fact-bearing turns timed")
    parser.add_argument("--restart", action="store_true", help="SIGINT the server half-way and start it again")
    parser.add_argument("--llm-delay", type=float, help="seconds a chat model behind the extraction takes per call")
    parser.add_argument("--llm-db-connections", type=int,
                        help="the server's MEMEX_LLM_DB_CONNECTIONS (its default if not given)")
    parser.add_argument("--drain-timeout", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    result = run(args)
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(render(result))
    return 1 if (result["violations"] or result["unprocessed"] or result["server_error_count"]
                 or result["turns_refused_count"]) else 0


if __name__ == "__main__":
    raise SystemExit(main())
