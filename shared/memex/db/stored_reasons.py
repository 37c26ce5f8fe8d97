"""Migration 0060: the reasons (`metadata.reason`) stored before it that may hold another memory's words, written
as today's code writes them. A reason names another memory's value only when erasing that memory mends it (it
replaced that memory, or ended with it: db/erasure.py); these did not, and kept a copy past the erasure:

- an LLM judge's own text, stored as the reason of its verdict until the verdict was named by its action
  alone ("unrelated to the user working at Stripe" on a coexist): a reason of an LLM-judged row that is none
  of the forms memex writes becomes `LLM judge: <decision>` (for a statement about the past the judge said
  replaces something, the history wording with it). A form memex writes is a fixed one, or names the row's
  own key and value (`employer 'Notion' ...`) or the user's opinion, as the rules' reasons do;
- the towns a region said as an origin was kept beside ("'Italy' is a region, which 'Naples' may lie
  within"), not linked to it: named no more (supersession.region_reason);
- the server's error message in a rules fallback's reason ("LLM judge unavailable (m refused the request:
  HTTP 400 <its body>): ..."), which some servers fill by echoing the prompt: the status only, and the
  rules' reason after it when it can be told from the message (it names the row's key), else nothing.

Each user's rows change in a transaction of their own under the user's lock (db/locks.py), a row only if its
reason is still the one read. Safe to run again: a rewritten reason is one of today's forms, which none of
these rules changes.
"""

from __future__ import annotations

import re
import time

import psycopg
from psycopg.rows import dict_row

from memex.db import locks
from memex.db.erasure import ENDED_WITH_ERASED, NAMED_ERASED, REPLACED_ERASED
from memex.supersession import region_reason
from memex.supersession_llm import (ACTIONS, FALLBACK, NOTHING_RELATED, PAST_ALONE, PAST_NOT_REPLACING, UNAVAILABLE,
                                    verdict_reason)

_VERDICTS = [verdict_reason(action) for action in ACTIONS] + [f"{PAST_NOT_REPLACING} ({verdict_reason('supersede')})"]
_FIXED = frozenset(_VERDICTS + [NOTHING_RELATED, PAST_ALONE, REPLACED_ERASED, ENDED_WITH_ERASED, NAMED_ERASED])
# What the model decided: the only decisions it gives (an end is decided by rule, a noop stores nothing).
_MODEL_DECISIONS = ("supersede", "coexist", "keep_old")
_OPINION = re.compile(r"the .+'s opinion changed: ")
# The kind of an LLMError as a fallback's reason named it, up to its status, then the server's message.
_WITH_MESSAGE = re.compile(re.escape(f"{FALLBACK}{UNAVAILABLE} (") + r"(?P<kind>(?:(?!HTTP \d{3}).)*HTTP \d{3})(?!\))",
                           re.DOTALL)
_REGION_KEPT_BESIDE = " may lie within: both kept"
_REGION_REPLACED = " may lie within it"

# The rows any rule above may change, read user by user; a verdict of today's form is left unread.
_MAY_HOLD = """memory_type = 'semantic' AND metadata ? 'reason'
               AND ((metadata->>'judge' LIKE 'llm:%%' AND NOT metadata->>'reason' = ANY(%(verdicts)s))
                    OR metadata->>'reason' LIKE '%%may lie within%%' OR metadata->>'reason' LIKE 'rules fallback, %%')"""


def migrate(cur: psycopg.Cursor, until: float | None = None) -> bool:
    """Rewrite the reasons; `cur`'s connection is in autocommit. With `until` (a time.monotonic() deadline), no
    user's transaction begins after it (the first always does): False then, with what is done committed."""
    conn = cur.connection
    reading = conn.cursor(row_factory=dict_row)
    users = reading.execute(f"SELECT DISTINCT tenant_id, user_id FROM memories WHERE {_MAY_HOLD} ORDER BY 1, 2",
                            {"verdicts": _VERDICTS}).fetchall()
    for begun, user in enumerate(users):
        if begun and until is not None and time.monotonic() >= until:
            return False
        with conn.transaction():
            locks.lock_user(conn, user["tenant_id"], user["user_id"])
            rows = reading.execute(
                f"""SELECT id, key, value, metadata->>'reason' AS reason, metadata->>'judge' AS judge,
                           metadata->>'decision' AS decision
                    FROM memories WHERE tenant_id = %(t)s AND user_id = %(u)s AND {_MAY_HOLD}""",
                {"t": user["tenant_id"], "u": user["user_id"], "verdicts": _VERDICTS}).fetchall()
            changed = [(row["id"], row["reason"], new) for row in rows
                       if (new := rewritten(row["reason"], row["key"] or "", row["value"] or "", row["judge"] or "",
                                            row["decision"] or "")) != row["reason"]]
            if changed:
                ids, old, new = (list(column) for column in zip(*changed))
                conn.execute(
                    """UPDATE memories m SET metadata = m.metadata || jsonb_build_object('reason', r.new)
                       FROM unnest(%(ids)s::text[], %(old)s::text[], %(new)s::text[]) AS r(id, old, new)
                       WHERE m.tenant_id = %(t)s AND m.id = r.id AND m.metadata->>'reason' = r.old""",
                    {"ids": ids, "old": old, "new": new, "t": user["tenant_id"]})
    return True


def rewritten(reason: str, key: str, value: str, judge: str, decision: str) -> str:
    """The reason as today's code writes it (the module's rules); `reason` itself when it is already."""
    if judge.startswith("llm:") and decision in _MODEL_DECISIONS and not _written_by_memex(reason, key, value):
        if reason.startswith(f"{PAST_NOT_REPLACING} ("):
            return f"{PAST_NOT_REPLACING} ({verdict_reason('supersede')})"
        return verdict_reason(decision)
    return _without_towns(_without_server_message(reason, key), key, value)


def _written_by_memex(reason: str, key: str, value: str) -> bool:
    if reason in _FIXED or reason.startswith(FALLBACK):
        return True
    return (key in reason or bool(_OPINION.match(reason))) and repr(value) in reason


def _without_server_message(reason: str, key: str) -> str:
    said = _WITH_MESSAGE.match(reason)
    if said is None:
        return reason
    kept = f"{FALLBACK}{UNAVAILABLE} ({said['kind']})"
    # The rules' reason follows the message, which may hold anything: it is found by the row's key it begins
    # with, the last place that does (the message comes before it).
    rules = max(reason.rfind(f": {start}") for start in (f"{key} ", f"{key}:", f"first value of {key}:"))
    opinion = [m.start() for m in re.finditer(r": (?=the [^:]+'s opinion changed: )", reason)]
    start = max([rules] + opinion[-1:])
    return f"{kept}: {reason[start + 2:]}" if start > said.end() else kept


def _without_towns(reason: str, key: str, value: str) -> str:
    """The region wordings that named the towns kept beside it, as supersession.region_reason says them now;
    whatever came before (a fallback's or a retry's words) kept."""
    said = f"{key} {value!r} is a region, which "
    at = reason.rfind(said)
    if at >= 0 and reason.endswith(_REGION_KEPT_BESIDE):
        return reason[:at] + region_reason(key, value, "")
    said = f"{key} {value!r} replaces the region "
    at = reason.rfind(said)
    if at >= 0 and reason.endswith(_REGION_REPLACED):
        # "{regions}; {towns}": a region's name holds no "; " (vocabulary.REGIONS)
        regions = reason[at + len(said):-len(_REGION_REPLACED)].split("; ", 1)[0]
        return reason[:at] + region_reason(key, value, regions)
    return reason
