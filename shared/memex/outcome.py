"""The last outcome of the calls memex really made to a remote dependency (the LLM, an embedding
endpoint). /health weighs it against its own probe, newest first: a provider that lists its
models but fails every completion is not "ok"."""

from __future__ import annotations

import time


class LastOutcome:
    def __init__(self, probe_blind: bool = False) -> None:
        """`probe_blind`: /health's probe cannot see these calls fail (the LLM's lists its models, which
        an overloaded server or one without the model still answers while chat calls hang, fail or are
        refused), so a failure stands until a call succeeds, whatever a later probe meets."""
        self.at: float | None = None  # time.monotonic() of the last call
        self.state = ""  # "ok" or "error: <exception type>"
        self.lasting = False  # the last call failed, and the probe cannot tell whether it still would
        self._probe_blind = probe_blind

    def record(self, error: BaseException | None = None) -> None:
        self.at, self.state = time.monotonic(), "ok" if error is None else f"error: {type(error).__name__}"
        self.lasting = error is not None and self._probe_blind
