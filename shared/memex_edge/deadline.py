"""An invocation's chat calls, and the OpenAI-compatible embedder's, end before Lambda stops it."""

from __future__ import annotations

from typing import Any, ContextManager

from memex import llm

# The share of an invocation's time its chat and embedding calls may take, all together. Past the function's
# timeout Lambda stops the invocation where it is: a worker's batch reports nothing, and a last
# delivery goes to the DLQ without the offline rules' facts and without its turn marked failed; an
# HTTP request gets API Gateway's 503 instead of memex's answer. The rest of the time is for what
# follows the LLM: the rules standing in for it, the writes, the next queue's publish.
LLM_SHARE_OF_INVOCATION = 0.75


def llm_within(context: Any) -> ContextManager[None]:
    """The chat calls (and the OpenAI-compatible embedder's) made within this block end within
    LLM_SHARE_OF_INVOCATION of the time the Lambda invocation `context` has left (each job's own
    budget, MEMEX_LLM_BUDGET_SECONDS, still bounds one job's chat calls)."""
    return llm.time_budget(context.get_remaining_time_in_millis() / 1000 * LLM_SHARE_OF_INVOCATION)
