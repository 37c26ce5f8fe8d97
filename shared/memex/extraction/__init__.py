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
    from memex.extraction.offline import OfflineExtractor

    return OfflineExtractor()
