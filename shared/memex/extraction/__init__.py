"""Extraction of candidate semantic memories from the messages of a turn."""

from __future__ import annotations

from typing import Any, Protocol

from memex.config import Settings
from memex.jobs import Candidate


class Extractor(Protocol):
    name: str

    def extract(self, messages: list[dict[str, Any]], history: list[dict[str, Any]]) -> list[Candidate]:
        """Candidates from `messages` (rows with id, role, content); `history` holds earlier
        messages of the session, for resolving references."""
        ...


def make_extractor(settings: Settings) -> Extractor:
    """The LLM extractor when a chat endpoint is configured, else the offline rules."""
    if settings.llm_configured:
        from memex.extraction.llm import LLMExtractor
        from memex.llm import ChatJSON

        return LLMExtractor(ChatJSON.from_settings(settings))
    from memex.extraction.offline import OfflineExtractor

    return OfflineExtractor()
