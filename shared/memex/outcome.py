"""The last outcome of the calls memex really made to a remote dependency (the LLM, an embedding
endpoint). /health weighs it against its own probe, newest first: a provider that lists its
models but fails every completion is not "ok"."""

from __future__ import annotations

import time


class LastOutcome:
    def __init__(self) -> None:
        self.at: float | None = None  # time.monotonic() of the last call
        self.state = ""  # "ok" or "error: <exception type>"

    def record(self, error: BaseException | None = None) -> None:
        self.at, self.state = time.monotonic(), "ok" if error is None else f"error: {type(error).__name__}"
