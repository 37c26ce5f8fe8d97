"""Extraction of candidate semantic memories from the messages of a turn."""

from __future__ import annotations

from typing import Any, Protocol, Sequence

from memex.config import Settings
from memex.jobs import Candidate
from memex.metrics import NoMetrics
from memex.ports import Metrics


class Extractor(Protocol):
    name: str

    def extract(self, messages: list[dict[str, Any]], history: list[dict[str, Any]],
                known: Sequence[Candidate] = ()) -> list[Candidate]:
        """Candidates from `messages` (rows with id, role, content); `history` holds earlier
        messages of the session, for resolving references; `known`, current facts of the user's
        memories that the session may name alone (a pet named in an earlier session, or in a turn of the
        batch said before; the fact holding the value a correction names as wrong: pipeline._read_all)."""
        ...


def make_extractor(settings: Settings, metrics: Metrics | None = None) -> Extractor:
    """The LLM extractor when a chat endpoint is configured, else the offline rules; its LLM calls
    recorded in `metrics`."""
    if settings.llm_configured:
        from memex.extraction.llm import LLMExtractor
        from memex.llm import ChatJSON

        return LLMExtractor(ChatJSON.from_settings(settings, metrics=metrics or NoMetrics(), purpose="extract"),
                            facts_per_turn=settings.llm_facts_per_turn, chars_per_fact=settings.llm_chars_per_fact)
    return OfflineOnFirstUse()


class OfflineOnFirstUse:
    """The offline rules, imported at the first extraction: their import (~0.17 s of CPU with the first
    extraction, bench.coldstart's; 1.4 s while it compiled all ~490 patterns) was paid by every HTTP
    handler's first request when the Context was built, search and recall included, which never extract."""

    name = "offline-rules"

    def __init__(self) -> None:
        self._rules: Extractor | None = None

    def extract(self, messages: list[dict[str, Any]], history: list[dict[str, Any]],
                known: Sequence[Candidate] = ()) -> list[Candidate]:
        if self._rules is None:
            from memex.extraction.offline import OfflineExtractor

            self._rules = OfflineExtractor()
        return self._rules.extract(messages, history, known)
