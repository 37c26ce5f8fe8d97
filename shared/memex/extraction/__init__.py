"""Extraction of candidate semantic memories from the messages of a turn."""

from __future__ import annotations

from typing import Any, Protocol

from memex.config import Settings
from memex.jobs import Candidate
from memex.metrics import NoMetrics
from memex.ports import Metrics


class Extractor(Protocol):
    name: str

    def extract(self, messages: list[dict[str, Any]], history: list[dict[str, Any]]) -> list[Candidate]:
        """Candidates from `messages` (rows with id, role, content); `history` holds earlier
        messages of the session, for resolving references."""
        ...


def make_extractor(settings: Settings, metrics: Metrics | None = None) -> Extractor:
    """The LLM extractor when a chat endpoint is configured, else the offline rules; its LLM calls
    recorded in `metrics`."""
    if settings.llm_configured:
        from memex.extraction.llm import LLMExtractor
        from memex.llm import ChatJSON

        return LLMExtractor(ChatJSON.from_settings(settings, metrics=metrics or NoMetrics(), purpose="extract"))
    from memex.extraction.offline import OfflineExtractor

    return OfflineExtractor()
