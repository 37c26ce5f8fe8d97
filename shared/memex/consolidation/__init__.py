"""Consolidation: a user's old near-duplicate or same-topic episodic memories become one summary.

The job is in `job.py`, the grouping in `grouping.py`; a summariser writes each group's summary
(one module per implementation, chosen by `make_summariser`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from memex.config import Settings


# How a summary was written, kept in its metadata: "extractive", "llm", or this.
LLM_FALLBACK = "extractive (llm failed)"


@dataclass(frozen=True)
class Summary:
    content: str
    method: str


class Summariser(Protocol):
    def summarise(self, lines: list[str]) -> Summary:
        """One memory saying what `lines` (a group's contents, oldest first) say together."""
        ...


def make_summariser(settings: Settings) -> Summariser:
    """The LLM summariser when a chat endpoint is configured, else the extractive one."""
    from memex.consolidation.extractive import ExtractiveSummariser

    if settings.llm_configured:
        from memex.consolidation.llm import LLMSummariser
        from memex.llm import ChatJSON

        return LLMSummariser(ChatJSON.from_settings(settings), ExtractiveSummariser())
    return ExtractiveSummariser()
