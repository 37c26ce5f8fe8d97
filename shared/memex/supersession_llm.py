"""The LLM judge: how a candidate memory relates to the user's active memories, asked of a chat model.

The model sees the candidate and the related memories under short ids (m1, m2, ...) and answers
an action, the ids it replaces and a reason (not kept: the decision's reason names the action). Its answer is checked: unknown ids are dropped, a
supersede that names nothing it was shown is no usable answer (the rules judge decides), only
supersede replaces anything,
and a statement about the past never replaces a current value; one that names a current value
ends it, decided by rule without asking (supersession.ending), as are a partner or a job and a status
without one taking each other back, a correction naming the wrong value, and values of a key that
holds several said in one message (supersession.taken_back, .corrected, .said_together). With nothing
related there is nothing to judge (no call); when the model gives no usable answer, the rules judge
decides and the reason says so. The model is not asked about a role said with the employer it
replaces: that role ends with the job by rule, whichever judge decided (supersession.ends_with_employer).
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from memex.jobs import Candidate
from memex.llm import ChatJSON, LLMError
from memex.metrics import LLM_FALLBACKS, NoMetrics
from memex.ports import Metrics
from memex.supersession import (Decision, RulesJudge, corrected, ending, left_alone, pet_ending, said_together,
                                taken_back)

log = logging.getLogger(__name__)

ACTIONS = ("supersede", "coexist", "keep_old", "noop")

SYSTEM = """You maintain a user's long-term memory. A NEW memory was just extracted from what the \
user said; decide how it relates to the user's CURRENT memories listed with it.

Actions:
- "supersede": the new memory replaces one or more current memories, which become history \
(a new employer replaces the old one; "I moved to Lisbon" replaces the old city).
- "coexist": both stay current (a second dog, a new hobby, an unrelated fact that only looks similar).
- "keep_old": the new memory is itself history and the current memories stay (it describes \
the past, or it is older than what is current).
- "noop": the new memory says nothing new (a duplicate or a rewording of a current memory).

Answer with JSON only, no prose:
{"action": "supersede" | "coexist" | "keep_old" | "noop", "replaces": [ids of the current \
memories it replaces, only for supersede], "reason": "one short sentence"}"""


class LLMJudge:
    def __init__(self, chat: ChatJSON, metrics: Metrics | None = None):
        self.chat = chat
        self._metrics = metrics or NoMetrics()
        self._rules = RulesJudge()
        self.name = f"llm:{chat.model}"

    def decide(self, candidate: Candidate, related: list[dict[str, Any]]) -> Decision:
        alone = left_alone(candidate, related) or pet_ending(candidate, related)
        if alone:
            return alone
        if not related:
            if candidate.historical:
                return Decision("keep_old", "a statement about the past, and nothing current to compare with")
            return Decision("coexist", "no related memory")
        ruled = (ending(candidate, [m for m in related if m["key"] == candidate.key])
                 or corrected(candidate, related) or said_together(candidate, related))
        if ruled:
            return ruled
        if taken_back(candidate, related):
            return self._rules.decide(candidate, related)
        by_short_id = {f"m{i}": memory for i, memory in enumerate(related, start=1)}
        try:
            answer = self.chat.ask(SYSTEM, render_prompt(candidate, by_short_id))
        except LLMError as exc:
            return self._fallback(candidate, related, f"LLM judge unavailable ({exc})")
        decision = to_decision(answer, by_short_id, candidate)
        if decision is None:
            # A fixed description, not the answer: the reason is the memory's `metadata.reason`, which clients
            # read, and the model's text may quote the user.
            return self._fallback(candidate, related, "LLM judge answer unusable")
        return decision

    def _fallback(self, candidate: Candidate, related: list[dict[str, Any]], why: str) -> Decision:
        # `why` names the failure's kind (LLMError's message names no endpoint and quotes no answer).
        log.warning("LLM judge gave no usable answer; the rules judge decides")
        self._metrics.record(LLM_FALLBACKS, purpose="judge")
        decision = self._rules.decide(candidate, related)
        return Decision(decision.action, f"rules fallback, {why[:300]}: {decision.reason}", decision.replaces)


def render_prompt(candidate: Candidate, by_short_id: dict[str, dict[str, Any]]) -> str:
    new = {"type": candidate.type, "key": candidate.key, "value": candidate.value, "content": candidate.content,
           "subject": candidate.subject, "about_the_past": candidate.historical,
           **({"corrects": candidate.corrects} if candidate.corrects else {})}
    lines = ["NEW memory:", json.dumps(new, ensure_ascii=False), "", "CURRENT memories:"]
    for short_id, memory in by_short_id.items():
        shown = {"id": short_id, "type": memory.get("type"), "key": memory.get("key"), "value": memory.get("value"),
                 "content": memory.get("content"), "since": memory.get("valid_from")}
        lines.append(json.dumps(shown, ensure_ascii=False))
    return "\n".join(lines)


def to_decision(answer: Any, by_short_id: dict[str, dict[str, Any]], candidate: Candidate) -> Decision | None:
    """The model's answer as a Decision naming only memories it was shown; None if unusable."""
    if not isinstance(answer, dict):
        return None
    action = str(answer.get("action") or "").strip().lower().replace("-", "_").replace(" ", "_")
    if action not in ACTIONS:
        return None
    # The model's own `reason` is not kept: the memory's `metadata.reason` would hold model text that may
    # quote the user or another memory's value, which that memory's erasure does not reach (it mends only
    # the reasons of what replaced it, db/erasure.py). The prompt still asks for one, as it was measured.
    reason = f"LLM judge: {action}"
    if action != "supersede":
        return Decision(action, reason)
    if candidate.historical:
        return Decision("keep_old", f"a statement about the past does not replace a current value ({reason})")
    replaces = []
    raw = answer.get("replaces")
    for ref in raw if isinstance(raw, list) else [raw]:
        memory = by_short_id.get(_short_id(ref))
        if memory is not None and memory not in replaces:
            replaces.append(memory)
    if not replaces:
        # The model meant a replacement but named none it was shown ("m7", another memory's uuid): no
        # answer, rather than "coexist", which left two current cities; the rules judge decides.
        return None
    return Decision("supersede", reason, replaces)


def _short_id(ref: Any) -> str:
    """"m2", "M2", "[m2]", 2 and "2" all name the second memory shown."""
    if isinstance(ref, bool):
        return ""
    if isinstance(ref, int):
        return f"m{ref}"
    text = re.sub(r"[\s\[\]\"']", "", str(ref or "")).lower()
    return f"m{text}" if text.isdigit() else text
