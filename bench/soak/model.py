"""A slow chat model for the soak: bench/openai_double.py's loopback server, answering every chat after
`delay` seconds (a provider under load). An extraction prompt is answered with the facts the soak's
chat lines carry (bench/soak/chat.py), as a model would file them; any other prompt (the supersession
judge, a multi-hop split) gets an answer of no use, so the rules decide, as they do when a model
answers badly."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from bench.openai_double import CHAT, OpenAIDouble, completion
from bench.soak.chat import CITIES, DOGS, EMPLOYERS

NEW_MESSAGE = re.compile(r"^\[(\d+)\] user: (.*)$", re.M)
PATTERNS = [("city", re.compile(r"(?:live in|moved to) ([A-Z]\w+)"), "The user lives in {}."),
            ("employer", re.compile(r"(?:work at|started at) ([A-Z]\w+)"), "The user works at {}."),
            ("pet_dog_name", re.compile(r"dog is called ([A-Z]\w+)"), "The user's dog is called {}.")]
KNOWN = set(CITIES) | set(EMPLOYERS) | set(DOGS)


class SlowModel(OpenAIDouble):
    def __init__(self, delay: float):
        super().__init__()
        self.delay = delay

    def _default(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if path != CHAT:
            return super()._default(path, body)
        time.sleep(self.delay)
        prompt = "\n".join(m.get("content") or "" for m in body.get("messages", []))
        if "NEW messages:" not in prompt:
            return 200, completion(body.get("model", ""), '{"action": "unsure"}')
        return 200, completion(body.get("model", ""), json.dumps({"memories": extracted(prompt)}))


def extracted(prompt: str) -> list[dict[str, Any]]:
    memories = []
    for index, text in NEW_MESSAGE.findall(prompt.split("NEW messages:", 1)[1]):
        for key, pattern, content in PATTERNS:
            found = pattern.search(text)
            if found and found.group(1) in KNOWN:
                memories.append({"message": int(index), "type": "fact", "key": key, "value": found.group(1),
                                 "subject": "user", "historical": False, "content": content.format(found.group(1)),
                                 "confidence": 0.9, "quote": found.group(0)})
    return memories
