"""The LLM summary: the group's lines rewritten by a chat model as one memory.

The model is asked to keep every fact, name, date and number. An answer that is not a non-empty
string, or no answer at all, gives the extractive summary instead (its method says so): a
consolidation run never fails for want of a model. But no answer because the invocation's time is
spent (llm.spent) is raised: a summary is never grouped again, so the group is left whole for the next
run and its model rather than summarised extractively for good. A group of one line (said again and
again) is its own summary, written without asking the model.
"""

from __future__ import annotations

import json
import logging

from memex import llm
from memex.consolidation import LLM_FALLBACK, Summary
from memex.consolidation.extractive import ExtractiveSummariser
from memex.llm import ChatJSON, LLMError

log = logging.getLogger(__name__)

SYSTEM = """You maintain a user's long-term memory. The LINES below are things said in the user's \
conversations that repeat each other or are about one topic. Write them as ONE memory, in one to \
three sentences, keeping every fact, name, date and number they hold and who said what. Add nothing.

Answer with JSON only, no prose: {"summary": "..."}"""

# A summary longer than the lines it replaces is not a summary.
MAX_GROWTH = 1.2


class LLMSummariser:
    def __init__(self, chat: ChatJSON, fallback: ExtractiveSummariser):
        self.chat = chat
        self.fallback = fallback

    def summarise(self, lines: list[str]) -> Summary:
        if len(lines) == 1:
            # One line (said once or a hundred times: the group shows it once) is its own summary:
            # nothing to rewrite, and a rewriting could only lose a word of it.
            return self.fallback.summarise(lines)
        try:
            answer = self.chat.ask(SYSTEM, json.dumps({"lines": lines}, ensure_ascii=False))
        except LLMError as exc:
            if llm.spent():
                raise
            log.warning("summary by LLM failed (%s); extractive summary instead", type(exc).__name__)
            return Summary(self.fallback.summarise(lines).content, LLM_FALLBACK)
        text = answer.get("summary") if isinstance(answer, dict) else None
        limit = MAX_GROWTH * sum(len(line) for line in lines) + 200
        if not isinstance(text, str) or not text.strip() or len(text) > limit:
            log.warning("summary by LLM unusable; extractive summary instead")
            return Summary(self.fallback.summarise(lines).content, LLM_FALLBACK)
        return Summary(text.strip(), "llm")
