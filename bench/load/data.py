"""What the load benchmark replays: LoCoMo conversations from a file, or small synthetic ones in
the same layout (for the smoke test), and the requests each pipeline's virtual users send."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Sequence

from bench.embedder import make_sentences
from bench.load.scenario import Pipeline, Request
from bench.locomo import scored_questions, sessions

SEARCH_TOP_K = 10


def conversations(path: Path | None, limit: int | None = None) -> list[dict[str, Any]]:
    samples = json.loads(path.read_text()) if path is not None else synthetic()
    return samples[:limit] if limit is not None else samples


def synthetic(count: int = 2, sessions_per: int = 2, lines_per: int = 12) -> list[dict[str, Any]]:
    """LoCoMo-shaped conversations of generated sentences; each question asks for one line by
    five of its words, so that its evidence is known."""
    samples = []
    for c in range(count):
        sentences = make_sentences(sessions_per * lines_per, seed=100 + c)
        conversation: dict[str, Any] = {"speaker_a": "Ann", "speaker_b": "Bob"}
        qa = []
        for s in range(1, sessions_per + 1):
            dialog = []
            for t in range(1, lines_per + 1):
                text = sentences[(s - 1) * lines_per + t - 1]
                dialog.append({"speaker": "Ann" if t % 2 else "Bob", "dia_id": f"D{s}:{t}", "text": text})
                if t % 3 == 0:
                    qa.append({"question": f"What about {' '.join(text.split()[1:6])}?", "answer": text,
                               "evidence": [f"D{s}:{t}"], "category": 4})
            conversation[f"session_{s}"] = dialog
            conversation[f"session_{s}_date_time"] = f"1:56 pm on {s} May, 2023"
        samples.append({"sample_id": f"synthetic-{c}", "conversation": conversation, "qa": qa})
    return samples


class Replay:
    """Each request picks a conversation at random: a search asks one of its questions of its
    user, a write says one of its lines again."""

    def __init__(self, samples: Sequence[dict[str, Any]], tag: str):
        self.users = [user_id(tag, s) for s in samples]
        self.questions = [[q["question"] for q in scored_questions(s)[0]] or ["hello"] for s in samples]
        self.lines = [[(t["speaker"], t.get("text") or "ok") for _, dialog, _ in sessions(s["conversation"])
                       for t in dialog] for s in samples]

    def _pick(self, rng: random.Random) -> int:
        return rng.randrange(len(self.users))

    def memex(self, url: str, name: str = "memex") -> Pipeline:
        def write(rng: random.Random) -> Request:
            i = self._pick(rng)
            speaker, text = rng.choice(self.lines[i])
            return Request("POST /v1/turns", "/v1/turns", {
                "user_id": self.users[i], "session_id": "load",
                "messages": [{"role": "user", "name": speaker, "content": text}]})

        def search(rng: random.Random) -> Request:
            i = self._pick(rng)
            return Request("POST /v1/search", "/v1/search", {
                "user_id": self.users[i], "query": rng.choice(self.questions[i]), "top_k": SEARCH_TOP_K})

        return Pipeline(name, url, write, search)

    def s2(self, url: str) -> Pipeline:
        def write(rng: random.Random) -> Request:
            i = self._pick(rng)
            speaker, text = rng.choice(self.lines[i])
            return Request("POST /s2/memories", "/s2/memories",
                           {"user_id": self.users[i], "content": f"{speaker}: {text}"})

        def search(rng: random.Random) -> Request:
            i = self._pick(rng)
            return Request("POST /s2/memories/search", "/s2/memories/search", {
                "user_id": self.users[i], "query": rng.choice(self.questions[i]), "top_k": SEARCH_TOP_K})

        return Pipeline("s2", url, write, search)


def user_id(tag: str, sample: dict[str, Any]) -> str:
    """As bench.locomo names a conversation's user."""
    return f"{tag}-{sample['sample_id']}"
