"""The last outcome of the calls memex really made to a remote dependency (the LLM, an embedding
endpoint). /health weighs it against its own probe, newest first: a provider that lists its
models but fails every completion is not "ok"."""

from __future__ import annotations

import time


class LastOutcome:
    def __init__(self) -> None:
        self.at: float | None = None  # time.monotonic() of the last call
        self.state = ""  # "ok" or "error: <exception type>"
        # A failure a probe cannot see, which stands until a call succeeds: the endpoint refused the
        # request itself (a model name it does not serve answers 404 while the models list is fine).
        self.lasting = False

    def record(self, error: BaseException | None = None, lasting: bool = False) -> None:
        self.at, self.state = time.monotonic(), "ok" if error is None else f"error: {type(error).__name__}"
        self.lasting = error is not None and lasting
