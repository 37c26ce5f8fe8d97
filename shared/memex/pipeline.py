"""The slow path of a turn: extraction (episodic memories, then candidates) and supersession.

SQS delivers at least once, so every step is idempotent: rows carry dedupe keys derived from
the turn, each write commits in one transaction, and a step that already ran is skipped. The
steps are ordered so that a failing LLM loses nothing: a turn's messages are stored as episodic
memories (searchable at once) before the LLM is asked for candidates; the candidates are kept on
the turn, so a lost supersession message is sent again without asking the LLM again.
"""

from __future__ import annotations

import enum
import itertools
import logging
import threading
import time
import uuid
import weakref
from collections import Counter, defaultdict
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterator, TypeVar

import numpy as np
import psycopg

from memex import dedupe, embedded_text, embeddings, filler, job_start, llm, standalone, timeline, user_zone, vectorless
from memex.at_once import at_once
from memex.context import Context
from memex.db import history as history_rows
from memex.db import jobs_to_come as jobs_rows
from memex.db import locks
from memex.db import memories as memory_rows
from memex.db import turns as turn_rows
from memex.db import validity
from memex.db.erasure import value_digest
from memex.embeddings.recent import RecentVectors
from memex.episodic import episodic_text, shows_nothing
from memex.errors import public_description
from memex.extraction import Extractor, families, plain
from memex.extraction.aliases import family_key, filed_before, same_fact_before
from memex.extraction.placement import RELATION_NAMES, may_name_someone, placed
from memex.jobs import Candidate, ExtractionJob, SupersessionJob, subject_key, user_hash, within_key_bound
from memex.metrics import (CANDIDATES_PER_TURN, EXTRACTION_LATENCY, JOB_STARTS_FAILED, JOB_STARTS_LOCK_HELD,
                           LLM_FALLBACKS, SUPERSESSION_VERDICTS)
from memex.supersession import (EMPLOYER_KEY, PARTNER_KEY, Decision, RulesJudge, about_former_partner,
                                about_partner_keys, ends_with_employer, held_at_reason, named_by_make,
                                partner_ended_reason, related_keys)
from memex.transaction_time import TransactionTime

log = logging.getLogger(__name__)
T = TypeVar("T")

EPISODIC_IMPORTANCE = 0.3
HISTORY_MESSAGES = 10
# What one turn can add to the user's semantic memory: a pasted list of a thousand "I love X"
# lines would otherwise cost a thousand supersession decisions. Its words stay searchable in the
# episodic memories whatever the cap keeps.
MAX_CANDIDATES_PER_TURN = 100


def extract(ctx: Context, job: ExtractionJob, last_delivery: bool = False,
            delivered: bool = True) -> SupersessionJob | None:
    """Store the turn's messages as episodic memories and its candidates on the turn; return the
    supersession job (None when the turn is gone, done, or said nothing to remember). On the job's
    `last_delivery` the offline rules extract when the LLM gives no answer: a turn failed for an
    outage would keep none of its facts, and the rules keep most (degraded, not down). `delivered`:
    the job came from a queue (see extract_many)."""
    jobs = extract_many(ctx, job.tenant_id, [job.turn_id], rules_if_the_llm_fails=last_delivery, delivered=delivered)
    return jobs[0] if jobs else None


def extract_many(ctx: Context, tenant_id: str, turn_ids: list[str], again: bool = False,
                 rules_if_the_llm_fails: bool = False, delivered: bool = True) -> list[SupersessionJob]:
    """`extract` for many turns at once, embedding all their messages in shared batches. `again`
    re-extracts turns already processed (after a model change). If the extractor fails for a
    turn, the others are still stored, then the failure is raised so the job is retried, unless
    the failure is the LLM's and `rules_if_the_llm_fails`: then the offline rules extract it.
    A queue's delivery (`delivered`) first notes on its turns that a try began, so that the sweep
    waits for SQS to deliver them again if this try is stopped (db/turns.py, claim_lost)."""
    conn = ctx.db.connection()
    follow_ups, todo = [], []
    for turn in sorted(turn_rows.get_turns(conn, tenant_id, list(set(turn_ids))), key=_said):
        if turn["status"] == "processed" and not again:
            continue
        if turn["candidates"] is not None and not again:
            follow_ups.append(turn)  # extracted already
            continue
        todo.append(turn)
    if not todo:  # a repeated message (the sweep's, a redelivery) for turns extracted since: no more reads
        return _jobs(follow_ups)
    ids = [t["id"] for t in todo]
    if delivered:
        # One statement on the autocommit connection, committed as it returns: a stopped try leaves its
        # note. No earlier transaction to fold it into (the reads above are statements of their own) and
        # not the episodic memories' below: it commits after the embedding, which a stopped try may not reach.
        turn_rows.note_tries(conn, tenant_id, ids)
    messages = turn_rows.messages_of_turns(conn, tenant_id, ids)
    histories = turn_rows.session_histories(conn, tenant_id, ids, HISTORY_MESSAGES)
    work = [(turn, messages.get(turn["id"], []), histories[turn["id"]]) for turn in todo]
    _store_episodic(ctx, tenant_id, work)
    extracted, failure = [], None
    for (turn, _, _), (found, seconds) in zip(work, _read_all(ctx, conn, work, follow_ups, rules_if_the_llm_fails)):
        if isinstance(found, Exception):  # the other turns are stored; this one is retried
            failure = failure or found
            continue
        try:
            # What the turn says is current is decided before what it says is over: "I left
            # Stripe and now work at Notion" makes Notion replace Stripe, rather than ending
            # Stripe and leaving Notion without a history.
            candidates = sorted(_without_earlier_ends(within_key_bound(_placed(conn, turn, found))),
                                key=lambda c: c.historical)[:MAX_CANDIDATES_PER_TURN]
        except Exception as exc:  # noqa: BLE001 - the other turns are stored; this one is retried
            failure = failure or exc
            continue
        ctx.metrics.record(EXTRACTION_LATENCY, seconds)
        ctx.metrics.record(CANDIDATES_PER_TURN, len(candidates))
        extracted.append((turn, candidates))
    with ctx.db.transaction() as conn:
        present = turn_rows.lock_turns(conn, tenant_id, [turn["id"] for turn, _ in extracted])
        # The claim: a turn is this extraction's if no other stored one since it was read (the sweep's
        # message, a redelivery, an import chunk that found it stored, each reading it unextracted
        # at once). The first stored stands; an LLM may read a turn differently twice, and both
        # readings would become memories. Another's candidates are decided here too, in order.
        mine, overtaken = [], []
        for turn, candidates in extracted:
            now = present.get(turn["id"])  # None: erased meanwhile
            if now is not None and now["extracted_at"] == turn["extracted_at"]:
                mine.append((turn, candidates))
            elif now is not None:
                overtaken.append(now)
        extracted = mine
        turn_rows.store_many_candidates(conn, tenant_id, [(t["id"], [asdict(c) for c in candidates])
                                                          for t, candidates in extracted])
        follow_ups += [turn for turn, candidates in extracted if candidates]
        follow_ups += [turn for turn in overtaken if turn["candidates"] is not None]
    if failure is not None:
        raise failure
    return _jobs(follow_ups)


def _read_all(ctx: Context, conn, work: list[tuple[dict, list[dict], list[dict]]], extracted: list[dict[str, Any]],
              rules_if_the_llm_fails: bool) -> list[tuple[list[Candidate] | Exception, float]]:
    """Each turn's candidates (or what its read raised) and the seconds the read took, read at once
    (at_once.py): one after another, a full batch waited ten of a slow model's answers, and the
    queue behind it backed up (bench/soak --llm-delay 2). A turn that says a pet's death by its name
    is read with its speakers' current pets, one that denies a diet with their diets ("I'm not vegan." a
    month after "I'm vegan.", in another session; both `keyed`), and one that says a correction with their
    current facts holding the wrong value it names (`wrong`: "I said Tuesday but I meant Thursday" a week
    after the appointment, in another session): those stored (`_known`), and those the turns of the batch
    said before it (`extracted` ones' stored candidates too: a rerun after a kill), which are not stored yet:
    an import chunk names the dog, or the employer, and says it died, or was another, months later. So
    such a turn is read after the others; each user's n-th such turn in the n-th round, as it may name
    what an earlier one brought (a pet, a corrected value)."""
    keyed, wrong = _named_facts(work)
    known = _known(conn, work, keyed, wrong)
    later = keyed.keys() | wrong.keys()
    readings: dict[str, tuple[list[Candidate] | Exception, float]] = {}

    def read(item: tuple[dict, list[dict], list[dict]]) -> tuple[list[Candidate] | Exception, float]:
        turn, messages, history = item
        facts = [*known.get(turn["id"], []), *(_said_before(turn, _named(turn["id"], keyed, wrong), extracted, work,
                                                             readings) if turn["id"] in later else [])]
        started = time.perf_counter()
        try:
            # Each turn its own job's budget (as its supersession has), not one for all of them: a
            # re-extraction chunk of 100 turns would otherwise fail past it every time. The
            # invocation's (memex_edge/deadline.py) still bounds them all.
            with llm.time_budget(ctx.settings.llm_budget_seconds):
                found = _extracted(ctx, messages, history, facts, rules_if_the_llm_fails)
        except Exception as exc:  # noqa: BLE001 - handed back: the caller stores the other turns
            return exc, time.perf_counter() - started
        return found, time.perf_counter() - started

    rounds: dict[int, list[tuple[dict, list[dict], list[dict]]]] = defaultdict(list)
    said: Counter[tuple[str, str]] = Counter()
    for item in work:  # in the order said
        if item[0]["id"] in later:
            whose = (item[0]["tenant_id"], item[0]["user_id"])
            said[whose] += 1
            rounds[said[whose]].append(item)
        else:
            rounds[0].append(item)
    for n in sorted(rounds):
        readings.update(zip([item[0]["id"] for item in rounds[n]], at_once(ctx, "extract", read, rounds[n])))
    return [readings[turn["id"]] for turn, _, _ in work]


def _named(turn_id: str, keyed: dict[str, dict[str, frozenset[str]]], wrong: dict[str, dict[str, list[str]]]) \
        -> Callable[[Candidate], bool]:
    """Which current facts a turn's death, denial or correction may name, as `_known` reads them
    stored: its speakers' pets, diets or work status, and their facts holding a wrong value it names
    (case ignored)."""
    keys = keyed.get(turn_id, {})
    values = {subject: {v.lower() for v in named} for subject, named in wrong.get(turn_id, {}).items()}
    return lambda c: not c.historical and not c.ends_only and (
        c.base_key in keys.get(c.subject, ()) or c.value.lower() in values.get(c.subject, ()))


def _said_before(turn: dict[str, Any], named: Callable[[Candidate], bool], extracted: list[dict[str, Any]],
                 work: list[tuple[dict, list[dict], list[dict]]],
                 readings: dict[str, tuple[list[Candidate] | Exception, float]]) -> list[Candidate]:
    """The facts `named` in the batch's turns of the same user said before `turn`, in the order said:
    extracted before (their candidates kept on the turn) or read already."""
    before = sorted([t for t in [*extracted, *(w[0] for w in work)] if (t["tenant_id"], t["user_id"])
                     == (turn["tenant_id"], turn["user_id"]) and _said(t) < _said(turn)], key=_said)
    said = []
    for earlier in before:
        if earlier["id"] in readings:
            found = readings[earlier["id"]][0]
            candidates = [] if isinstance(found, Exception) else found
        else:
            candidates = _stored_candidates(earlier)
        said += [c for c in candidates if named(c)]
    return said


def _extracted(ctx: Context, messages: list[dict], history: list[dict], known: list[Candidate],
               rules_if_the_llm_fails: bool) -> list[Candidate]:
    try:
        return _read_by(ctx.extractor, messages, history, known)
    except llm.LLMError as exc:
        if not (rules_if_the_llm_fails or exc.as_asked):
            raise
        # A turn the endpoint refuses as asked (too long for the model's context) is refused on every
        # delivery: the rules extract it now, not after the last one.
        log.warning("the LLM extractor gave no answer %s (%s); the offline rules extract",
                    "to this turn as asked" if exc.as_asked else "on the job's last delivery", public_description(exc))
        ctx.metrics.record(LLM_FALLBACKS, purpose="extract")
        return _read_by(ctx.rules, messages, history, known)


def _read_by(extractor: Extractor, messages: list[dict], history: list[dict], known: list[Candidate]) -> list[Candidate]:
    return [replace(c, extractor=extractor.name) for c in extractor.extract(messages, history, known)]


def _named_facts(work: list[tuple[dict, list[dict], list[dict]]]) \
        -> tuple[dict[str, dict[str, frozenset[str]]], dict[str, dict[str, list[str]]]]:
    """The turns that say a pet's death by its name alone ("Pickle passed away last week") or deny a diet
    or being retired ("I'm not vegan.", "I'm not retired."), each with its speakers who say it (the user, a
    participant) and the base keys of the facts it may end (the pets', the diet's, the work status); and
    those that say a correction naming the wrong value ("I said Tuesday but I meant Thursday", "I meant
    Leeds, not York"), each with its speakers and the wrong values they name. Each user message read once
    for all three."""
    # Imported here, not with the module: the handlers that never extract would compile the rules' patterns.
    from memex.extraction.offline.corrections import GONE_AGAIN, PET_NAME_KEYS, wrong_values_and_denials

    keyed: dict[str, dict[str, frozenset[str]]] = {}
    wrong: dict[str, dict[str, list[str]]] = {}
    for turn, messages, _ in work:
        for m in messages:
            if m["role"] != "user":
                continue
            speaker, text = m.get("subject") or "user", m["content"] or ""
            values, denied = wrong_values_and_denials(text)
            keys = (PET_NAME_KEYS if GONE_AGAIN.search(plain.plain(text)) else frozenset()) | denied
            if keys:
                said = keyed.setdefault(turn["id"], {})
                said[speaker] = said.get(speaker, frozenset()) | keys
            if values:
                wrong.setdefault(turn["id"], {}).setdefault(speaker, []).extend(values)
    return keyed, wrong


def _known(conn, work: list[tuple[dict, list[dict], list[dict]]], keyed: dict[str, dict[str, frozenset[str]]],
           wrong: dict[str, dict[str, list[str]]]) -> dict[str, list[Candidate]]:
    """Each turn's current facts of its speakers that the session may never have said: their pets, for the
    turns that say a pet's death by its name alone (`keyed`: the user named Pickle months before, offline
    corrections.pet_gone_again), their diets or work status, for those that deny one (`keyed`: "I'm vegan."
    or "I'm retired." a month before, corrections.denied), and those holding a wrong value a correction
    names (`wrong`: corrections.correct). Read only for those turns, the keys once a speaker (all the batch's
    turns ask of them at once), the values in one statement a speaker and turn: the other turns cost no
    round trip."""
    wanted: dict[tuple[str, str, str], frozenset[str]] = defaultdict(frozenset)
    for turn, _, _ in work:
        for subject, keys in keyed.get(turn["id"], {}).items():
            wanted[(turn["tenant_id"], turn["user_id"], subject)] |= keys
    read = {whose: [Candidate(type="fact", key=r["key"], value=r["value"] or "", content="",
                              confidence=r["confidence"], importance=0.5, source_message_id=None, subject=whose[2])
                    for r in history_rows.current_under(conn, *whose, [subject_key(whose[2], k) for k in sorted(keys)])]
            for whose, keys in wanted.items()}
    known: dict[str, list[Candidate]] = {}
    for turn, _, _ in work:
        for subject, keys in keyed.get(turn["id"], {}).items():
            known.setdefault(turn["id"], []).extend(
                c for c in read[(turn["tenant_id"], turn["user_id"], subject)] if c.base_key in keys)
        for subject, values in wrong.get(turn["id"], {}).items():
            rows = history_rows.current_valued(conn, turn["tenant_id"], turn["user_id"], subject, values)
            # as the memory says it: a correction re-states the fact's content with the right value
            known.setdefault(turn["id"], []).extend(
                Candidate(type=r["type"], key=r["key"], value=r["value"], content=r["content"],
                          confidence=r["confidence"], importance=r["importance"], source_message_id=None,
                          subject=subject) for r in rows)
    return known


def _without_earlier_ends(candidates: list[Candidate]) -> list[Candidate]:
    """A turn's candidates, in the order said, without a value's end said before the value itself ("I
    used to be vegan, and I'm vegan again now"): the value said after it is current, and its end, sorted
    after it to be decided (extract_many), would end it. An end said after the value ("I'm vegan now. ...
    I'm not vegan.") stays, and ends it (_with_dedupe_keys). Nor a car named by its make beside one of that
    make said current, in either order ("I sold the Skoda and bought a Skoda Octavia"): the make names the
    car replaced, and would end the new one (supersession.named_by_make)."""
    said: set[tuple[str, str]] = set()
    kept = []
    for c in reversed(candidates):
        if not (c.historical and (c.key, c.value.casefold()) in said):
            kept.append(c)
        if not c.historical:
            said.add((c.key, c.value.casefold()))
    return [c for c in kept[::-1] if not (c.historical and any(
        not new.historical and new.key == c.key and named_by_make(c, new.value) for new in candidates))]


def _placed(conn, turn: dict[str, Any], candidates: list[Candidate]) -> list[Candidate]:
    """The candidates filed under a person's name alone placed by who the user's memories say that
    person is (extraction.placement.placed): a participant of an earlier session ("melanie_role" said of
    her is her fact), a relation named in an earlier turn ("sam_role" while Sam is the partner is
    partner_sam_role). The extractor sees one session; read only when a candidate's key may open with a
    name (may_name_someone): a key of no family, or a family's naming someone after a relation's word
    ("sister_act_city", the participant Sister Act's city, or the user's sister Act's)."""
    if not any(may_name_someone(c) for c in candidates):
        return candidates
    tenant_id, user_id = turn["tenant_id"], turn["user_id"]
    names: dict[str, set[str]] = {}
    for row in history_rows.current_under(conn, tenant_id, user_id, "user", sorted(RELATION_NAMES)):
        names.setdefault((row["value"] or "").casefold(), set()).add(row["key"].removesuffix("_name"))
    # a name two relations bear (a sister and a friend, both Sam) says neither
    relations = {name: next(iter(parts)) for name, parts in names.items() if name and len(parts) == 1}
    people = memory_rows.participants(conn, tenant_id, user_id)
    return [placed(c, people, relations) for c in candidates]


def _said(turn: dict[str, Any]) -> tuple:
    """Turns said at the same time in the order they came (turns.created_at), not of their random ids:
    "I work at Stripe." then "I work at Notion." at one timestamp leave Notion current, in one batch or two."""
    return turn["occurred_at"], turn["created_at"], turn["id"]


def _jobs(turns: list[dict[str, Any]]) -> list[SupersessionJob]:
    """Supersession jobs for these turns, in the order they were said: decided in that order,
    each one joins its key's history at the end, without a walk back through it."""
    return [SupersessionJob(t["tenant_id"], t["user_id"], t["id"]) for t in sorted(turns, key=_said)]


def _leans_on(message: dict, previous: dict | None) -> bool:
    """Whether `message` is indexed with `previous`: the line it answers (another speaker's, or a
    question), or its own speaker's line before it when it does not stand alone (memex/standalone.py)."""
    text = message["content"] or ""
    # a "Got it!", or a line with no word ("👍", "?"), indexed with the line it answers would be found in
    # that line's place; a line before with no word ("", "...", "👍") gives the message nothing to be
    # found by, only a vector moved off its own. An emoji that names something is a word: "🍕🍕" is indexed
    # with "What should we eat?", and gives the line after it its words
    if previous is None or filler.is_filler(text) or filler.names_nothing(previous["content"] or ""):
        return False
    if not standalone.same_speaker(message, previous) or standalone.asks(previous["content"] or ""):
        return True
    return not standalone.stands_alone(text)


def _store_episodic(ctx: Context, tenant_id: str, work: list[tuple[dict, list[dict], list[dict]]]) -> None:
    """One episodic memory per message, indexed with the line it answers; no LLM involved. When the
    embedder fails, the messages are stored without their vectors all the same (keyword-searchable at
    once: degraded, not down) and the failure is raised, so the job is retried and its facts, which
    supersession compares by vector, wait for it; the retry (or a re-extraction) fills the vectors in."""
    contexts: dict[str, str | None] = {}  # message id -> the message said just before it
    leaned_on: dict[str, str] = {}  # message id -> the id of the message it is indexed with
    for _, messages, history in work:
        for previous, message in zip([history[-1] if history else None] + messages, messages):
            leans = _leans_on(message, previous)
            contexts[message["id"]] = episodic_text(previous) if leans else None
            if leans:
                leaned_on[message["id"]] = previous["id"]
    conn = ctx.db.connection()
    done = memory_rows.written(conn, tenant_id, [f"message:{m['id']}" for _, messages, _ in work
                                                 for m in messages])
    pending = [(turn, m) for turn, messages, _ in work for m in messages
               if not done.get(f"message:{m['id']}") and not shows_nothing(m["content"])]
    if not pending:
        return
    texts = [embedded_text.of(episodic_text(m), contexts[m["id"]], memory_type="episodic", subject=m["subject"])
             for _, m in pending]
    try:
        distinct = embed_distinct(ctx, tenant_id, texts)
        vectors, failure = [distinct[text] for text in texts], None
    except Exception as exc:  # noqa: BLE001 - raised once the messages are stored without their vectors
        log.warning("the embedder failed (%s): the turns' messages are stored without their vectors, "
                    "which the job's retry fills in", public_description(exc))
        vectors, failure = [None] * len(pending), exc
        if all(f"message:{m['id']}" in done for _, m in pending):
            raise  # stored without their vectors by an earlier delivery: nothing to write
    refused: dict[str, list[str]] = {}
    with _once_committed(ctx) as storing, ctx.db.transaction() as conn:
        for user_id in sorted({turn["user_id"] for turn, _ in pending}):  # in one order: no deadlock
            locks.lock_user(conn, tenant_id, user_id)
        present = turn_rows.lock_turns(conn, tenant_id, list({turn["id"] for turn, _ in pending}))
        # The user's first turn on or after the day a job to come starts makes it the job, whether or
        # not the turn says anything to decide ("Busy first week."): before its candidates are. It
        # embeds the employer it writes: with the embedder down, the retry that fills the vectors starts it.
        for user_id in sorted({turn["user_id"] for turn, _ in pending}) if failure is None else ():
            refused[user_id] = start_jobs(conn, storing, tenant_id, user_id, embed_here=True).refused
        stored = [(turn, message, vector) for (turn, message), vector in zip(pending, vectors)
                  if turn["id"] in present]  # else erased meanwhile
        # The line a message is indexed with, erased since it was read (its erasure holds this lock): the
        # message is stored without it, nor the vector made from it, which memex/vectorless.py makes anew.
        # Only a line of an earlier turn is looked up: one of a turn stored here has no memory yet that an
        # erasure could name, and its turn, locked above, is still there.
        here = {message["id"] for _, message, _ in stored}
        lines = {message["id"]: line for _, message, _ in stored
                 if (line := leaned_on.get(message["id"])) is not None and line not in here}
        kept = turn_rows.messages_kept(conn, tenant_id, sorted(set(lines.values()))) if lines else set()
        unleaned = {message_id for message_id, line in lines.items() if line not in kept}
        memory_rows.insert_many(conn, tenant_id, [{
            "id": str(uuid.uuid4()),
            "user_id": turn["user_id"],
            "agent_id": turn["agent_id"],
            "session_id": turn["session_id"],
            "memory_type": "episodic",
            "subject": message["subject"] or "user",
            "type": "message",
            "content": episodic_text(message),
            "context": None if message["id"] in unleaned else contexts[message["id"]],
            "importance": EPISODIC_IMPORTANCE,
            "embedding": None if message["id"] in unleaned else vector,
            "valid_from": turn["occurred_at"],
            "source_turn_id": turn["id"],
            "source_message_id": message["id"],
            "dedupe_key": f"message:{message['id']}",
            "metadata": {"role": message["role"], **({"name": message["name"]} if message["name"] else {})},
        } for turn, message, vector in stored if f"message:{message['id']}" not in done])
        if failure is None:  # those stored without a vector by an earlier delivery
            memory_rows.fill_vectors(conn, tenant_id, [
                (f"message:{message['id']}", contexts[message["id"]], vector)
                for turn, message, vector in stored if f"message:{message['id']}" in done])
    for user_id, failures in refused.items():
        _refused(ctx, tenant_id, user_id, failures)
    # stored or filled without a vector
    if failure is not None or unleaned or any(f"message:{m['id']}" in done for _, m in pending):
        vectorless.record_waiting(ctx)
    if failure is not None:
        raise failure


# A value this close in meaning under another key may be the same fact under a new name
# (city vs hometown); the judge sees it and decides.
RELATED_MIN_SIMILARITY = 0.8
RELATED_LIMIT = 8
# What a fact that ended with another (a role with its job, a partner's job with the partnership) is
# worth, as a statement about the past (the offline rules' "used to be").
ENDED_IMPORTANCE = 0.6
# Decisions taken outside the lock are re-checked under it; when what they were based on keeps
# changing (many writers for one user), the last try decides with the rules, under the lock.
DECIDE_ATTEMPTS = 3


def resolve(ctx: Context, job: SupersessionJob) -> None:
    """Decide each candidate stored on the turn against the user's current memories, write it,
    then mark the turn processed."""
    turn = turn_rows.get_turn(ctx.db.connection(), job.tenant_id, job.turn_id)
    if turn is not None:
        _resolve_turns(ctx, [turn])


def resolve_many(ctx: Context, jobs: list[SupersessionJob]) -> None:
    """`resolve` for many turns, their candidates embedded together: each user's in the order they
    were said (_said), whatever order the batch's records came in."""
    conn = ctx.db.connection()
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for tenant_id in {j.tenant_id for j in jobs}:
        ids = [j.turn_id for j in jobs if j.tenant_id == tenant_id]
        found.update(((tenant_id, t["id"]), t) for t in turn_rows.get_turns(conn, tenant_id, ids))
    turns = [found[(j.tenant_id, j.turn_id)] for j in jobs if (j.tenant_id, j.turn_id) in found]
    _resolve_turns(ctx, sorted(turns, key=lambda t: (t["tenant_id"], t["user_id"], *_said(t))))


# How many of one user's turns the rules decide in one transaction (and one hold of the user's lock).
TURNS_PER_TRANSACTION = 50


def _resolve_turns(ctx: Context, turns: list[dict[str, Any]]) -> None:
    """A judge that calls out (an LLM) is asked with no lock held, then the write takes the user's
    lock and re-checks that what was decided on has not changed. The rules answer at once: they
    decide and write under the lock, consecutive turns of one user in one transaction."""
    turns = [t for t in turns if t["candidates"] is not None]  # the others are done
    vectors = candidate_vectors(ctx, turns)
    runs = [list(run) for _, run in itertools.groupby(turns, key=lambda t: (t["tenant_id"], t["user_id"]))]
    if isinstance(ctx.judge, RulesJudge):
        for run in runs:
            for start in range(0, len(run), TURNS_PER_TRANSACTION):
                _resolve_locked(ctx, run[start:start + TURNS_PER_TRANSACTION], vectors)
        return
    def resolve_user(run: list[dict[str, Any]]) -> None:
        # a job whose day has come starts before the run's first turn is decided; each turn's finish
        # starts those its decision lets start, as of the next one
        tenant_id, user_id = run[0]["tenant_id"], run[0]["user_id"]
        _start_jobs_alone(ctx, tenant_id, user_id)
        for turn in run:
            with llm.time_budget(ctx.settings.llm_budget_seconds):
                for candidate, dedupe_key in _undecided(ctx, turn):
                    _decide_and_write(ctx, turn, candidate, dedupe_key, vectors[_embedded(candidate)])
            _start_jobs_alone(ctx, tenant_id, user_id, finishing=turn["id"])

    # One user's turns in the order said; different users' at once, as the FIFO queue's message
    # groups run in AWS: one after another, a judge answering in 2 s backed the local runtime's
    # supersession queue up (bench/soak --llm-delay 2). Each user's writes take their own lock.
    at_once(ctx, "judge", resolve_user, runs)


def _undecided(ctx: Context, turn: dict[str, Any]) -> list[tuple[Candidate, str]]:
    """The turn's candidates after the last one a delivery before this one wrote. The LLM path decides them
    in order, each in a transaction of its own, and marks the turn done after the last: a delivery stopped
    half-way (its Lambda's timeout) leaves them all for the next. Those before the last written were decided,
    a noop too ("I live in Paris" while Paris was current), and decided again against what came after them
    (Berlin, said after it) a noop may become a value current again. Only what was written since these
    candidates were stored counts: a re-extraction (`memex backfill --reextract`) keeps the turn's memories of
    the reading before, and the new candidates listed before one of those were left undecided. A key stated
    twice counts at its first place: the second wrote nothing, whatever was decided between them. Each
    with its dedupe key (_with_dedupe_keys)."""
    keyed = _with_dedupe_keys(turn)
    first: dict[str, int] = {}
    for place, (_, key) in enumerate(keyed):
        first.setdefault(key, place)
    with ctx.db.borrowed() as conn:
        written = memory_rows.written(conn, turn["tenant_id"], list(first), since=turn["extracted_at"])
    return keyed[max((first[key] + 1 for key in written), default=0):]


def candidate_vectors(ctx: Context, turns: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The vector of every candidate stored on these turns, by the text embedded for it
    (_embedded), each distinct text embedded once."""
    texts: dict[str, list[str]] = defaultdict(list)
    for t in turns:
        texts[t["tenant_id"]] += [_embedded(Candidate(**c)) for c in (t["candidates"] or [])]  # the key unread
    return {text: vector for tenant_id, of_tenant in texts.items()
            for text, vector in embed_distinct(ctx, tenant_id, of_tenant).items()}


def _stored_candidates(turn: dict[str, Any]) -> list[Candidate]:
    """The candidates stored on `turn` (_stored). A key longer than a key may be (jobs.KEY_MAX_CHARS) once
    filed is no fact's: the offline rules no longer file one, and one stored on a turn by an earlier version
    failed its turn at every delivery (its dedupe key past what a b-tree entry may hold), the turn's other facts
    with it. One an earlier version stored under a participant's whole long name ("<68 characters>_city") is
    filed as extraction files it now, its prefix shortened (jobs.subject_key)."""
    return within_key_bound(map(_stored, turn["candidates"] or []))


def _stored(candidate: dict[str, Any]) -> Candidate:
    """A candidate stored on a turn, under its family's key: a worker still on a version before the
    aliases (mid-deploy, after migration 0033 re-keyed what was stored) may have stored it as
    "current_city", which would otherwise be decided beside the stored `city` rather than against it."""
    return Candidate(**{**candidate, "key": family_key(candidate.get("subject") or "user", candidate["key"])})


def _embedded(candidate: Candidate) -> str:
    """What is embedded for the memory a candidate becomes (embedded_text.py)."""
    return embedded_text.of(candidate.content, memory_type="semantic", subject=candidate.subject)


# Texts the write path embedded lately, with their vectors, per embedder and tenant (recent.py).
# What people say repeats ("The user lives in Lisbon." again and again in a year of history,
# "Thanks!" after a question), and an import is cut into chunks that would each embed it again.
# Bounded: about 12 MB of 384-dimension vectors, each text for MEMEX_RECENT_TEXTS_MAX_AGE_SECONDS at most.
RECENT_VECTORS_KEPT = 8192
_recent_vectors: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_recent_lock = threading.Lock()


def embed_distinct(ctx: Context, tenant_id: str, texts: list[str]) -> dict[str, np.ndarray]:
    """The vector of each of these texts of the tenant's, by text: each distinct text embedded
    once, and those embedded lately for the tenant by the same embedder not embedded again."""
    distinct = list(dict.fromkeys(texts))
    recent = _recent(ctx)
    found = recent.get_many(tenant_id, distinct)
    missing = [text for text in distinct if text not in found]
    if missing:
        try:
            vectors = ctx.embedder.embed(missing)
        except Exception as exc:
            # Marked where it is raised: a job start's failure is the embedder refusing a text of its only if
            # an embedding call raised it (_start_failure), whatever its type. True for every caller the
            # coalescing embedder raises the same object to: each got it from an embedding call.
            exc.while_embedding = True
            raise
        found.update(recent.put_many(tenant_id, dict(zip(missing, vectors))))
    return found


def forget_recent(ctx: Context, tenant_id: str) -> None:
    """Drop the texts the write path keeps for the tenant (an erasure's: recent.py); a process that
    never wrote keeps none."""
    with _recent_lock:
        recent = _recent_vectors.get(ctx.embedder)
    if recent is not None:
        recent.forget(tenant_id)


def _recent(ctx: Context) -> RecentVectors:
    with _recent_lock:
        recent = _recent_vectors.get(ctx.embedder)
        if recent is None:
            recent = _recent_vectors[ctx.embedder] = RecentVectors(RECENT_VECTORS_KEPT,
                                                                   ctx.settings.recent_texts_max_age_seconds)
        return recent


def _resolve_locked(ctx: Context, turns: list[dict[str, Any]], vectors: dict[str, np.ndarray]) -> None:
    """Decide and write the candidates of these turns of one user, in order, in one transaction."""
    tenant_id, user_id = turns[0]["tenant_id"], turns[0]["user_id"]
    refused: list[str] = []
    with _once_committed(ctx) as writing, ctx.db.transaction() as conn:
        locks.lock_user(conn, tenant_id, user_id)
        locked = turn_rows.lock_turns(conn, tenant_id, [t["id"] for t in turns])
        # erased, or decided by a delivery that got the lock first
        todo = [locked[t["id"]] for t in turns if t["id"] in locked and locked[t["id"]]["candidates"] is not None]
        decided = [(turn, _with_dedupe_keys(turn)) for turn in todo]
        # Read once for the whole transaction: under the user's lock only this transaction adds to them.
        written = set(memory_rows.written(conn, tenant_id, [key for _, keyed in decided for _, key in keyed]))
        erased = _by_family(turn_rows.tombstones(conn, tenant_id, [t["id"] for t in todo]))
        for current, keyed in decided:
            # a batch of a user's turns (an import's chunk) may hold the job's day and, after it, the next
            # job: as of this turn, those before it decided here
            refused += start_jobs(conn, writing, tenant_id, user_id, current["occurred_at"],
                                  deciding=[t["id"] for t in todo], embed_here=True).refused
            for candidate, dedupe_key in keyed:
                if dedupe_key in written:
                    continue  # written by an earlier delivery that decided one candidate at a time
                if _erased(erased, current, candidate):
                    continue  # the user erased it
                vector = vectors.get(_embedded(candidate))
                if vector is None:  # re-extracted since the vectors were computed
                    vector = ctx.embedder.embed([_embedded(candidate)])[0]
                related = _related(conn, current, candidate, vector)
                # the rules decide at once: on the worker's own connection, what it ends is embedded here
                if _write(conn, writing, current, candidate, vector, dedupe_key, ctx.judge.decide(candidate, related),
                          related, embed_here=True):
                    written.add(dedupe_key)
        turn_rows.finish(conn, tenant_id, [t["id"] for t in todo])
        # its turns decided, a job said in them may start as of a later turn stored before they were
        refused += start_jobs(conn, writing, tenant_id, user_id, embed_here=True).refused
    _refused(ctx, tenant_id, user_id, refused)


def _by_family(tombstones: set[tuple[str, str, str, str]]) -> dict[tuple[str, str], list[tuple[str, str, str]]]:
    """The tombstones (turn_rows.tombstones) by turn and their key's family key, each with the key it
    was written with: one written before migration 0033 may name an alias ("current_city"), and its
    digest is salted with that key."""
    families = {(subject, key): family_key(subject, key) for _, key, subject, _ in tombstones}
    erased: dict[tuple[str, str], list[tuple[str, str, str]]] = defaultdict(list)
    for turn_id, key, subject, digest in tombstones:
        erased[(turn_id, families[(subject, key)])].append((key, subject, digest))
    return erased


def _erased(tombstones: dict[tuple[str, str], list[tuple[str, str, str]]], turn: dict[str, Any],
            candidate: Candidate) -> bool:
    """Whether the user erased this value (_by_family), under its key or an alias of it, or the key of
    this turn (a tombstone from before migration 0031: subject and digest empty), or the key an earlier
    version filed it under (aliases.filed_before: a participant's fact erased then is not filed again)."""
    if not tombstones:
        return False  # the usual turn: nothing to read the earlier version's key for
    keys = dict.fromkeys([candidate.key, filed_before(candidate.subject, candidate.key)])
    return any(not digest or (subject == candidate.subject and digest == value_digest(
                   turn["tenant_id"], turn["user_id"], key, subject, candidate.value))
               for filed in keys for key, subject, digest in tombstones.get((turn["id"], filed), ()))


def _with_dedupe_keys(turn: dict[str, Any]) -> list[tuple[Candidate, str]]:
    """The turn's stored candidates (_stored), in order, each with what its memory is written under: a
    redelivery finds it written. The end of a value the same turn said current ("I'm vegan now. ... I'm not
    vegan.", _without_earlier_ends) is a memory of its own, not the value said again; any other end keeps the
    key it always had, which a turn decided before finds. A value too long for the keys' index is named by its
    digest (dedupe.py). The values said current are gathered once for the turn: looked for again for each end,
    a turn of many candidates cost their number squared."""
    candidates = _stored_candidates(turn)
    current = {(c.key, c.value.casefold()) for c in candidates if not c.historical}
    keyed = []
    for candidate in candidates:
        key = f"candidate:{turn['id']}:{candidate.key}:{dedupe.value_named(candidate.value)}"
        over = candidate.historical and (candidate.key, candidate.value.casefold()) in current
        keyed.append((candidate, f"{key}:over" if over else key))
    return keyed


def _related(conn, turn: dict[str, Any], candidate: Candidate, vector) -> list[dict[str, Any]]:
    """The user's active memories the candidate may replace (memory_rows.related_active), those filed under the
    key an earlier version gave their fact (aliases.same_fact_before: Mum's "mother_city", "mother_likes") read
    as under the key it has now: her new city replaces the one filed then, in its history, and her dislike takes
    back the liking, rather than standing beside them."""
    keys = related_keys(candidate)
    before = {old: key for key in keys if (old := same_fact_before(candidate.subject, key)) not in keys}
    related = memory_rows.related_active(conn, turn["tenant_id"], turn["user_id"], [*keys, *before], vector,
                                         RELATED_MIN_SIMILARITY, RELATED_LIMIT, candidate.subject)
    return [{**m, "key": before[m["key"]]} if m["key"] in before else m for m in related]


def _decide_and_write(ctx: Context, turn: dict[str, Any], candidate: Candidate, dedupe_key: str, vector) -> None:
    tenant_id = turn["tenant_id"]
    for attempt in range(1, DECIDE_ATTEMPTS + 1):
        # run at once with other users' (at_once.py), a connection is borrowed for each stretch of
        # database work and given back before the judge is asked
        with ctx.db.borrowed() as conn:
            if memory_rows.already_written(conn, tenant_id, dedupe_key):
                return  # decided by an earlier delivery
            seen = _related(conn, turn, candidate, vector)
        decision = ctx.judge.decide(candidate, seen)
        if _embedding_unlocked(ctx, tenant_id, lambda ctx, embed_here: _write_decided(
                ctx, turn, candidate, dedupe_key, vector, seen, decision, attempt, embed_here)):
            return


def _write_decided(ctx: Context, turn: dict[str, Any], candidate: Candidate, dedupe_key: str, vector,
                   seen: list[dict[str, Any]], decision: Decision, attempt: int, embed_here: bool) -> bool:
    """Under the user's lock, write what was decided on `seen`; False when that changed meanwhile (decide
    again), until the last attempt, when the rules decide under the lock. `embed_here`: as for `_write`."""
    tenant_id, user_id = turn["tenant_id"], turn["user_id"]
    with ctx.db.transaction() as conn:
        locks.lock_user(conn, tenant_id, user_id)
        if turn_rows.lock_turn(conn, tenant_id, turn["id"]) is None:
            return True  # erased meanwhile
        if _erased(_by_family(turn_rows.tombstones(conn, tenant_id, [turn["id"]])), turn, candidate):
            return True  # the user erased it
        related = _related(conn, turn, candidate, vector)
        if _state(related) != _state(seen):
            if attempt < DECIDE_ATTEMPTS:
                return False  # another write for this user got in first: decide again, unlocked
            decision = RulesJudge().decide(candidate, related)
            decision = Decision(decision.action, f"rules under the lock after {attempt} changed tries: "
                                f"{decision.reason}", decision.replaces)
        _write(conn, ctx, turn, candidate, vector, dedupe_key, decision, related, embed_here)
        return True


# Rounds of a write with no lock held (_embedding_unlocked), each embedding what the one before lacked. What a
# write needs is learnt a step at a time: a job start's employer text first, and only once its vector has found
# what it replaces, the statements of what ended with it (the role held at the old employer); two jobs starting
# at once (the user's and a participant's) need four. Each round is a transaction that takes the lock and reads
# the user's jobs and memories before it is rolled back, so they are bounded: past them, what is still missing
# is embedded under the lock, as it always was.
UNLOCKED_ROUNDS = 4


def _embedding_unlocked(ctx: Context, tenant_id: str, write: Callable[[Context, bool], T]) -> T:
    """The LLM path's and the sweep's `write(ctx, embed_here)` (a transaction that takes the user's lock), with
    `embed_here` False: if it needs texts not embedded lately, it is rolled back, the connection given
    back, they are embedded with none held (an embedder's round trip on one of MEMEX_LLM_DB_CONNECTIONS
    kept every other user's write waiting for it), and it is run again, the vectors among the recent
    texts, until it needs none (at most UNLOCKED_ROUNDS). It is then run with `embed_here` True, what it
    still needs embedded under the lock, when a round asks for texts this call embedded already: the recent
    texts dropped them meanwhile (an erasure of the tenant's, their age), and another round would only ask
    again. What a rolled-back run recorded in its metrics is not counted."""
    embedded: set[str] = set()
    for _ in range(UNLOCKED_ROUNDS):
        try:
            with _once_committed(ctx) as writing:
                return write(writing, False)
        except _Unembedded as unembedded:
            if embedded.issuperset(unembedded.texts):
                break
            embedded.update(unembedded.texts)
            embed_distinct(ctx, tenant_id, unembedded.texts)
    with _once_committed(ctx) as writing:
        return write(writing, True)


@contextmanager
def _once_committed(ctx: Context) -> Iterator[Context]:
    """`ctx` with what is recorded in its metrics kept until the block ends without raising, the transaction
    begun in it committed: a write rolled back (a failure after it, a round of _embedding_unlocked) counted its
    SupersessionVerdicts all the same, and its retry counted them again."""
    deferred = _DeferredMetrics()
    yield replace(ctx, metrics=deferred)
    for metric, value, labels in deferred.records:
        ctx.metrics.record(metric, value, **labels)


class _DeferredMetrics:
    """What a write that may be rolled back records, kept until it commits (_once_committed)."""

    def __init__(self) -> None:
        self.records: list[tuple[Any, float, dict[str, str]]] = []

    def record(self, metric, value: float = 1, **labels: str) -> None:
        self.records.append((metric, value, labels))


def _vectors_of(ctx: Context, tenant_id: str, texts: list[str], embed_here: bool) -> dict[str, np.ndarray]:
    """The vectors of texts a write under the user's lock needs: embedded here if `embed_here`, else those
    embedded lately (embed_distinct's), raising _Unembedded for the others."""
    if embed_here:
        return embed_distinct(ctx, tenant_id, texts)
    distinct = list(dict.fromkeys(texts))
    vectors = _recent(ctx).get_many(tenant_id, distinct)
    missing = [text for text in distinct if text not in vectors]
    if missing:
        raise _Unembedded(missing)
    return vectors


class _Unembedded(Exception):
    """A write under the user's lock needs the vectors of texts not embedded lately (`_write`'s `embed_here`)."""

    def __init__(self, texts: list[str]):
        super().__init__(f"{len(texts)} texts to embed")
        self.texts = texts
        self.job_id: str | None = None  # the job to come whose start lacks them (start_jobs), if a start's


def _state(related: list[dict[str, Any]]) -> list[tuple]:
    return [(m["id"], m["active"], m["valid_from"]) for m in related]


def _write(conn, ctx: Context, turn: dict[str, Any], candidate: Candidate, vector, dedupe_key: str,
           decision: Decision, related: list[dict[str, Any]], embed_here: bool) -> bool:
    """Write what was decided; whether a memory was written. What else it writes (the statement of
    what ended with it, _write_ended) is embedded here, under the lock, if `embed_here`; if not, it
    takes the vectors of the texts embedded lately (embed_distinct's) and raises _Unembedded for the others."""
    if decision.action == "noop":
        ctx.metrics.record(SUPERSESSION_VERDICTS, action="noop")
        return False
    # A time the statement gives ("we broke up in May") is read in the user's days; one said without
    # any needs no read of the user's zone.
    times = timeline.times(candidate, _said_in_zone(conn, turn) if candidate.happened else turn["occurred_at"])
    times = timeline.as_decided(times, candidate, decision)
    same_key = [m for m in related if m["key"] == candidate.key]
    later = [m for m in same_key if timeline.stands_after(m, times.stands_at)]
    if decision.action == "keep_old" and not candidate.historical and later:
        # Not about the past, only stated before the current value: it goes in the history at
        # its own time, with a real interval, rather than as a statement about the past.
        decision = Decision("supersede", decision.reason, later)
    placement = timeline.plan(conn, turn["tenant_id"], turn["user_id"], decision, candidate, times, same_key)
    if placement.already_known:
        ctx.metrics.record(SUPERSESSION_VERDICTS, action=decision.action)
        return False
    if decision.action == "supersede" and placement.replaced_by:
        # The judge compared it with the current value, which was said later (or said after the event
        # happened): the reason it gave ("'Porto' replaces 'Berlin'") is the reverse of where the memory goes.
        before = (f"{candidate.value!r} happened {candidate.happened}, before what is current was said"
                  if times.stands_at < times.said else
                  f"holds one value: {candidate.value!r} was said before a later value, which replaces it")
        decision = Decision(decision.action, f"{candidate.key} {before}: kept in its history at its own time",
                            decision.replaces)
    if placement.continues is not None:
        # "first value of role" read wrong in a history that lists the role that ended before it
        decision = Decision(decision.action, f"{candidate.key} had no current value: {candidate.value!r} follows "
                            f"{placement.continues!r}, which ended, in its history", decision.replaces)
    memory_id = str(uuid.uuid4())
    inserted = memory_rows.insert(conn, turn["tenant_id"], {
        "id": memory_id,
        "user_id": turn["user_id"],
        "agent_id": turn["agent_id"],
        "session_id": turn["session_id"],
        "memory_type": "semantic",
        "subject": candidate.subject,
        "type": candidate.type,
        "key": candidate.key,
        "value": candidate.value,
        "content": candidate.content,
        "importance": candidate.importance,
        "confidence": candidate.confidence,
        "embedding": vector,
        "active": placement.current,
        "valid_from": times.said,
        "holds_from": placement.holds_from,
        "valid_to": placement.valid_to,
        "source_turn_id": turn["id"],
        "source_message_id": candidate.source_message_id,
        "dedupe_key": dedupe_key,
        "metadata": {"decision": decision.action, "reason": decision.reason, "judge": ctx.judge.name,
                     "raw_quote": candidate.raw_quote, "subject": candidate.subject, **_read_with(candidate),
                     **({"historical": True} if decision.action in ("keep_old", "end") else {})},
    })
    timeline.apply(conn, turn["tenant_id"], memory_id, placement)
    if inserted is not None:
        _end_what_ended_with(conn, ctx, turn, times, candidate, memory_id, decision, placement, embed_here)
    # counted once written: a write that raised _Unembedded is rolled back and tried again
    ctx.metrics.record(SUPERSESSION_VERDICTS, action=decision.action)
    return inserted is not None


def _said_in_zone(conn, turn: dict[str, Any]) -> datetime:
    """When the turn was said, in the user's days (user_zone.said_at): read once for the turn, whichever of
    its candidates name a time of their own (a turn sent without an offset reads the user's latest)."""
    if "said_in_zone" not in turn:
        turn["said_in_zone"] = user_zone.said_at(conn, turn)
    return turn["said_in_zone"]


def _read_with(candidate: Candidate) -> dict[str, str]:
    return {"extractor": candidate.extractor} if candidate.extractor else {}


def _end_what_ended_with(conn, ctx: Context, turn: dict[str, Any], times: timeline.Times, candidate: Candidate,
                         memory_id: str, decision: Decision, placement: timeline.Placement,
                         embed_here: bool) -> None:
    """What ends with a value the memory just written replaced or ended, whichever judge decided: the
    roles said with an employer (supersession.ends_with_employer) and what was said of a partner by
    name (supersession.about_partner_keys). Each gets a statement of its end as its history, the
    reason naming the change, made by that memory (`ended_by`: erasing it erases them). Keyed on the
    turn and the fact, so a redelivery writes nothing twice."""
    if not placement.ends:
        return  # nothing ended: most writes leave here, before the turn's candidates are rebuilt
    tenant_id = turn["tenant_id"]
    whose = "The user's" if candidate.subject == "user" else f"{candidate.subject}'s"
    ended: list[tuple[dict[str, Any], str, str]] = []  # (fact, its end as a statement, why)
    key = ends_with_employer(candidate, decision.action, _stored_candidates(turn))
    if key is not None:
        ended += [(r, f"{whose} job title used to be {r['value']}.",
                   held_at_reason(r, r["with_value"], candidate, decision.action))
                  for r in history_rows.held_with(conn, tenant_id, list(placement.ends), key)
                  if not timeline.stands_after(r, times.stands_at)]
    partner_key = subject_key(candidate.subject, PARTNER_KEY)
    about = {key: (m["value"], said) for m in decision.replaces if m["id"] in placement.ends and m["key"] == partner_key
             for key, said in about_partner_keys(candidate.subject, m["value"] or "").items()}
    if about:
        for fact in history_rows.current_under(conn, tenant_id, turn["user_id"], candidate.subject, list(about)):
            partner, said = about[fact["key"]]
            if not timeline.stands_after(fact, times.stands_at):
                ended.append((fact, about_former_partner(whose, partner, said, fact["value"]),
                              partner_ended_reason(fact, partner, candidate, decision.action)))
    if ended:
        _write_ended(conn, ctx, turn, times, placement.holds_from, candidate, memory_id, ended, embed_here)


def _write_ended(conn, ctx: Context, turn: dict[str, Any], times: timeline.Times, holds_from: datetime | None,
                 candidate: Candidate, memory_id: str, ended: list[tuple[dict[str, Any], str, str]],
                 embed_here: bool) -> None:
    """The statements of what ended with the memory (said at `times.said`), each ending its fact when the value
    it was said with did: when the memory began to hold (`holds_from`), else where it stands in history. A
    fact that began after that ("I left Stripe last week." ends the role said with Stripe yesterday) held at no
    moment, rather than until before it began."""
    ends_at = holds_from or times.stands_at
    tenant_id = turn["tenant_id"]
    texts = {fact["id"]: embedded_text.of(content, memory_type="semantic", subject=candidate.subject)
             for fact, content, _ in ended}
    vectors = _vectors_of(ctx, tenant_id, list(texts.values()), embed_here)
    for fact, content, reason in ended:
        ended_at = max(ends_at, validity.moment(validity.began_at(fact)))
        ended_id = str(uuid.uuid4())
        inserted = memory_rows.insert(conn, tenant_id, {
            "id": ended_id, "user_id": turn["user_id"], "agent_id": turn["agent_id"], "session_id": turn["session_id"],
            "memory_type": "semantic", "subject": candidate.subject, "type": "fact", "key": fact["key"],
            "value": fact["value"], "content": content, "importance": ENDED_IMPORTANCE,
            "confidence": min(float(fact["confidence"]), candidate.confidence), "embedding": vectors[texts[fact["id"]]],
            "active": False, "valid_from": times.said, "holds_from": ends_at if ends_at < times.said else None,
            "valid_to": ends_at,
            "source_turn_id": turn["id"],
            "source_message_id": candidate.source_message_id, "dedupe_key": f"ended:{turn['id']}:{fact['id']}",
            "metadata": {"decision": "end", "reason": reason, "judge": ctx.judge.name, "raw_quote": candidate.raw_quote,
                         "subject": candidate.subject, **_read_with(candidate), "historical": True, "ended_by": memory_id},
        })
        if inserted is not None:
            history_rows.link(conn, tenant_id, ended_id, fact["id"])
            history_rows.end(conn, tenant_id, fact["id"], ended_at)


@dataclass
class _Started:
    """What start_jobs did: how many jobs to come became the job, and the types of the failures of those whose
    start failed for its own (noted for JOB_START_BACKOFF), told by the caller once its transaction commits
    (_refused): one rolled back noted nothing, and its retry fails the start again and tells it then."""

    jobs: int = 0
    refused: list[str] = field(default_factory=list)


@dataclass
class _Failed:
    """How many jobs due the latest start_jobs took, for the sweep's count (start_jobs_due) should its transaction
    fail (none started: it is rolled back). Told here, not on the exception: the coalescing embedder raises one
    exception object to every caller that waited on its call, and each one's start_jobs set its own count on it,
    the sweep reading another user's."""

    jobs_due: int | None = None
    # jobs whose text the embedder refused in an earlier round of the same call (_start_jobs_alone): noted failed
    # in the latest round, they are not among its jobs_due, and their note is rolled back with it
    refused: int = 0

    def jobs(self, read: int) -> int:
        """The starts a failed transaction failed: those the latest start_jobs took and those refused before it;
        `read`, the jobs due the sweep read of the user, when it failed before start_jobs took any."""
        return read if self.jobs_due is None else self.jobs_due + self.refused


def start_jobs(conn, ctx: Context, tenant_id: str, user_id: str, now: datetime | None = None,
               deciding: list[str] | tuple = (), *, embed_here: bool, failed: _Failed | None = None) -> _Started:
    """Each of the user's jobs to come whose day has come (job_start.py) becomes the employer, as of
    `now` (the sweep's clock, a turn being decided), else of the user's latest turn; never past a turn of
    theirs not yet decided but those the caller is `deciding` (jobs_rows.said_until: it may name the
    employer that takes the job back first):
    written as the job's turn would have written "I work at Twilio." said at the start's midnight, by
    the rules (the employer replaces the old one, which keeps its chain, and takes back the job to
    come), so `as_of` a moment before the start still answers the old job. Keyed on the job to come, and
    it is no longer current once written: a second run writes nothing. A job to come no longer
    current (taken back by an employer named since, or called off) is not read; one whose value names no
    day stays; one at the employer already current ends at its day, with nothing written; one whose start
    failed for its own within JOB_START_BACKOFF waits for it (jobs_rows.of_user).
    The caller holds the user's lock; `embed_here` as for `_write` (the rules path's transactions, which store
    or decide the user's turns, embed under it: they hold up to TURNS_PER_TRANSACTION turns' writes, which a
    redo would repeat; the sweep's and the LLM path's embed with no lock held, _start_jobs_alone).
    Each job's start runs under a savepoint: one failing for its own (_start_failure: a text the embedder
    refuses, which it would refuse again) is rolled back alone and noted for JOB_START_BACKOFF, and the
    others and the caller's turns go on. Rolling the whole transaction back for it failed the turn, and each
    later turn of the user's, to the dead-letter queue, and left every other job of theirs due (a
    participant's) an hour for another's text. Any other failure (the database's, the embedder's on its side, a
    fault of memex's own) fails the caller's transaction, whose retry starts the job; `failed` counts the starts it
    fails."""
    started, due = _Started(), _jobs_due(conn, tenant_id, user_id, now, deciding)
    if failed is not None:  # should the transaction fail, the starts it fails are those taken here
        failed.jobs_due = len(due)
    for job, start, name in due:
        try:
            with conn.transaction():
                started.jobs += _start_job(conn, ctx, tenant_id, user_id, job, start, name, embed_here)
        except _Unembedded as unembedded:
            # embedded with no lock held, and the transaction run again (_embedding_unlocked); the job named, should
            # the embedder refuse them (_start_jobs_alone)
            unembedded.job_id = job["id"]
            raise
        except Exception as exc:  # noqa: BLE001 - classed below: only the start's own failure stays here
            # A 5xx's probe (embeddings.down, one short attempt) is asked under the user's lock, as the
            # endpoint's attempts before it were: told apart from an outage, the turns are not failed for it.
            if _start_failure(ctx, exc) is not _StartFailure.REFUSED:
                raise  # it fails every start of the caller's transaction: the sweep counts them (`failed`)
            jobs_rows.start_failed(conn, tenant_id, [job["id"]])
            started.refused.append(type(exc).__name__)
    return started


def _start_jobs_alone(ctx: Context, tenant_id: str, user_id: str, now: datetime | None = None,
                      finishing: str | None = None, wait: bool = True, failed: _Failed | None = None
                      ) -> _Started | None:
    """The LLM path's and the sweep's `start_jobs`, in a transaction of its own that embeds with no lock held
    (_embedding_unlocked). The LLM path's first marks the turn `finishing` processed. The sweep's does not
    `wait`: None, at once, when another transaction holds the user's lock (a long import chunk): waiting for it
    would spend the run's time share. A text the embedder refused with no lock held was asked for one job's
    start, but its failure leaves the transaction, and every job's start with it: that job is then noted failed
    in the transaction run again, which its back-off leaves out of the starts (jobs_rows.of_user), and the others
    start. Asked again under the lock, the text cost the endpoint's attempts and a probe once more with the
    user's writes waiting. What start_jobs noted refused is told once committed; a failure, in `failed`."""
    refused: dict[str, str] = {}  # job id -> the type of the failure that refused a text of its start
    lacking: str | None = None  # the job whose start lacked texts, last

    def write(ctx: Context, embed_here: bool) -> _Started | None:
        nonlocal lacking
        if failed is not None:  # a round failing before start_jobs took any fails those the sweep read
            failed.jobs_due = None
        with ctx.db.transaction() as conn:
            if wait:
                locks.lock_user(conn, tenant_id, user_id)
            elif not locks.try_lock_user(conn, tenant_id, user_id):
                return None
            if finishing is not None:
                turn_rows.finish(conn, tenant_id, [finishing])
            if refused:
                jobs_rows.start_failed(conn, tenant_id, list(refused))
            try:
                started = start_jobs(conn, ctx, tenant_id, user_id, now, embed_here=embed_here, failed=failed)
            except _Unembedded as unembedded:
                lacking = unembedded.job_id
                raise
            started.refused += refused.values()
            return started

    while True:
        try:
            started = _embedding_unlocked(ctx, tenant_id, write)
            break
        except Exception as exc:  # noqa: BLE001 - classed below: only a text refused is tried again here
            # refused in embedding the texts the last round lacked: its job's (each job once, then left out)
            if _start_failure(ctx, exc) is not _StartFailure.REFUSED or lacking in refused:
                raise
            refused[lacking] = type(exc).__name__
            if failed is not None:
                failed.refused = len(refused)
    if started is not None:
        _refused(ctx, tenant_id, user_id, started.refused)
    return started


def _refused(ctx: Context, tenant_id: str, user_id: str, failures: list[str]) -> None:
    """Job starts of the user's that failed for their own (start_jobs, the failures' types), noted and committed:
    each counted and logged; the other starts and the turns went on, and each is left for JOB_START_BACKOFF."""
    for failure in failures:
        ctx.metrics.record(JOB_STARTS_FAILED)
        # The exception's type only: its message may quote what the user said.
        log.warning("starting a job to come of user %s failed (%s), a text of it refused by the embedder; the other "
                    "starts and the turns went on, and its start tries again in %d minutes",
                    user_hash(tenant_id, user_id), failure, JOB_START_BACKOFF.total_seconds() // 60)


def _jobs_due(conn, tenant_id: str, user_id: str, now: datetime | None,
              deciding: list[str] | tuple) -> list[tuple[dict[str, Any], datetime, str]]:
    """The user's jobs to come that start_jobs starts as of `now` (or their latest turn, never past one not
    yet decided), each with its start and the employer it names."""
    jobs = jobs_rows.of_user(conn, tenant_id, user_id, JOB_START_BACKOFF)
    if not jobs:  # most users have none: the turns are read only for those who do
        return []
    undecided, latest = jobs_rows.said_until(conn, tenant_id, user_id, deciding)
    now = min(filter(None, (now or latest, undecided)))
    due = []
    for job in jobs:
        start, name = _start(job)
        if start is not None and start <= now and name:
            due.append((job, start, name))
    return due


def _start_job(conn, ctx: Context, tenant_id: str, user_id: str, job: dict[str, Any], start: datetime, name: str,
               embed_here: bool) -> bool:
    """One job to come becomes the employer at its `start` (start_jobs); whether it was written."""
    subject = job["subject"]
    whose = "The user's" if subject == "user" else f"{subject}'s"
    candidate = Candidate(type="fact", key=subject_key(subject, EMPLOYER_KEY), value=name,
                          content=f"{whose} employer is {name}.", confidence=float(job["confidence"]),
                          importance=families.family_of(EMPLOYER_KEY).importance,
                          source_message_id=job["source_message_id"],
                          raw_quote=(job["metadata"] or {}).get("raw_quote") or "", subject=subject,
                          extractor=(job["metadata"] or {}).get("extractor"))
    turn = {"id": job["turn_id"], "tenant_id": tenant_id, "user_id": user_id, "agent_id": job["agent_id"],
            "session_id": job["session_id"], "occurred_at": start, "utc_offset": job["utc_offset"],
            "candidates": job["candidates"]}
    if _erased(_by_family(turn_rows.tombstones(conn, tenant_id, [turn["id"]])), turn, candidate):
        return False  # the user erased the job it became
    text = _embedded(candidate)
    vector = _vectors_of(ctx, tenant_id, [text], embed_here)[text]
    related = _related(conn, turn, candidate, vector)
    decided = RulesJudge().decide(candidate, related)
    if decided.action == "noop":
        # The employer already is the job's company (said again since, or the job was at it): nothing
        # to write, but the job to come is over at its start, else every sweep would read it again.
        history_rows.end(conn, tenant_id, job["id"], start)
        return False
    decision = Decision(decided.action, f"the job to come {job['value']!r} began on {start.date()}: "
                                        f"{decided.reason}", decided.replaces)
    return _write(conn, ctx, turn, candidate, vector, f"started:{job['id']}", decision, related, embed_here)


def _start(job: dict[str, Any]) -> tuple[datetime | None, str]:
    """When a job to come starts (None: its value names no day) and the employer it names."""
    value = job["value"] or ""
    return job_start.starts(value, job["valid_from"].astimezone(user_zone.zone(job["utc_offset"]))), \
        job_start.employer(value)


@dataclass
class JobsDue:
    started: int = 0  # jobs to come that became the job
    # jobs to come whose start failed (logged): the next sweep tries them again, or after JOB_START_BACKOFF for a
    # text the embedder refused
    failed: int = 0
    # users due whom the time or the embedder did not reach, or whose lock another transaction held: the
    # next sweep's, the earliest day first
    left: int = 0
    lock_held: int = 0  # of `left`, those whose lock another transaction held (logged, JobStartsLockHeld)
    # A start failed with the embedder down (embeddings.down): the starts stopped, and what else the
    # run would embed waits for its next run (vectorless.fill), not for the embedder's attempts again.
    embedder_down: bool = False


# How long the sweep and the user's turns leave a job to come whose start failed for its own failure (a text of
# theirs the embedder refuses): at every run (5 minutes) it cost a call and a JobStartsFailed for as long as the
# job was due, and at each of the user's turns an endpoint's attempts and a probe under their lock. An hour is 12
# runs' calls in one, and still starts the job the same day once the embedder takes the text (a model changed, a
# limit raised); JobStartsFailed still moves each hour, so a start failing for good stays in sight.
JOB_START_BACKOFF = timedelta(hours=1)


class _StartFailure(enum.Enum):
    """Whose failure a job start's is (_start_failure)."""

    DOWN = "the embedder's on its side, a probe failing too: every other start would wait out its attempts"
    AGAIN = "one that may be gone at the next try: the database's, or the embedder's passing"
    REFUSED = "the embedder refusing a text of the start's, which it would refuse again"
    DEFECT = "raised by no embedding call and not the database's: memex's own fault, which no back-off hides"


def _start_failure(ctx: Context, exc: BaseException) -> _StartFailure:
    """What a job start's failure `exc` is, for the sweep and the turns' transactions alike: the embedder down
    (embeddings.down: its failure on its side, confirmed by a probe); one that may be gone at the next try (the
    database's, a deadlock, a connection lost, or the embedder's that may be gone by then: a rate limit, a
    timeout, embeddings.OnItsSide.PASSING); the embedder refusing a text of the start's (a 400, a 5xx to that
    text while it answers the probe, a local embedder's error), which it will refuse again; else a defect. Only
    an exception raised within an embedding call (marked `while_embedding` by embed_distinct) is a refusal: a
    TypeError in the rules taken for one finished the turns and left the job unstarted, an hour at a time, with
    nothing but its type logged."""
    if embeddings.down(ctx.embedder, exc):
        return _StartFailure.DOWN
    if isinstance(exc, psycopg.Error) or embeddings.on_its_side(exc) is embeddings.OnItsSide.PASSING:
        return _StartFailure.AGAIN
    if getattr(exc, "while_embedding", False):
        return _StartFailure.REFUSED
    return _StartFailure.DEFECT


def start_jobs_due(ctx: Context, seconds: float) -> JobsDue:
    """The sweep's: `start_jobs` now for each user with a job to come whose day has come (a user who
    says nothing on or after the day gets the new job all the same, within the sweep's period), the
    earliest day first. Who is due is read in one statement and told here, on the jobs' words, so that
    a user whose job names no day or a day to come is neither locked nor given a transaction every 5
    minutes; under the lock start_jobs reads and decides again. A user whose lock another transaction holds
    is left for the next run, not waited for. What a start embeds is embedded with no lock held
    (_start_jobs_alone). A job's start the embedder refuses a text of fails alone (start_jobs), left for
    JOB_START_BACKOFF; any other failure of a user's starts (a deadlock, a fault of memex's own) fails that
    user's, logged, and the others go on, but the embedder down (_start_failure) stops the starts: each of the
    others would wait out its attempts in turn (an endpoint down on the 1st of a month, with every "next month"
    due), so they are left, counted in `left`, for the next run, which tries them all again. Transactions begin
    within `seconds` (TransactionTime), so that what comes after in the run keeps its time."""
    now, due, jobs = datetime.now(timezone.utc), {}, Counter()
    for job in jobs_rows.everyones(ctx.db.connection(), JOB_START_BACKOFF):
        start, name = _start(job)
        if start is not None and start <= now and name:
            user = (job["tenant_id"], job["user_id"])
            due[user] = min(start, due.get(user, start))
            jobs[user] += 1
    within, result, held = TransactionTime(seconds), JobsDue(), []
    for n, (tenant_id, user_id) in enumerate(sorted(due, key=due.__getitem__)):
        if not within.allows():
            result.left += len(due) - n
            break
        began, failed = time.monotonic(), _Failed()
        try:
            started = _start_jobs_alone(ctx, tenant_id, user_id, now, wait=False, failed=failed)
            if started is None:
                result.left += 1
                held.append(user_hash(tenant_id, user_id))
            else:
                result.started += started.jobs
                result.failed += len(started.refused)
        except Exception as exc:  # noqa: BLE001 - one user's failure is not the others'
            # none of the jobs due that start_jobs took started: their transaction was rolled back. Those it left
            # (a day past a turn of the user's not yet decided) did not fail; a failure before it read them (the
            # lock's) fails those this run read.
            jobs_failed = failed.jobs(jobs[(tenant_id, user_id)])
            result.failed += jobs_failed
            if jobs_failed:
                ctx.metrics.record(JOB_STARTS_FAILED, jobs_failed)
            failure = _start_failure(ctx, exc)
            # The exception's type only: its message may quote what the user said.
            if failure is _StartFailure.DOWN:
                result.left, result.embedder_down = result.left + len(due) - n - 1, True
                log.warning("the embedder failed (%s) starting the jobs to come of user %s; the %d users due after "
                            "them are left for the next sweep", type(exc).__name__, user_hash(tenant_id, user_id),
                            len(due) - n - 1)
                break
            log.log(logging.ERROR if failure is _StartFailure.DEFECT else logging.WARNING,
                    "starting the jobs to come of user %s failed (%s); the next sweep tries again",
                    user_hash(tenant_id, user_id), type(exc).__name__,
                    exc_info=exc if failure is _StartFailure.DEFECT else None)
        within.took(time.monotonic() - began)
    if held:
        # A user left run after run is one a transaction keeps locked (an import that does not end): said
        # once a run, the users as hashes.
        result.lock_held = len(held)
        ctx.metrics.record(JOB_STARTS_LOCK_HELD, len(held))
        log.warning("the jobs to come of %d users were left for the next sweep: another transaction held their "
                    "lock (%s)", len(held), ", ".join(held))
    return result


def process_inline(ctx: Context, tenant_id: str, turn_id: str) -> None:
    """The whole pipeline in this process, without the queues (`POST /v1/turns?wait=true`)."""
    # no queue holds the turn while it runs: failed, it is published, and a lost publish is re-sent
    follow_up = extract(ctx, ExtractionJob(tenant_id, turn_id), delivered=False)
    if follow_up is not None:
        resolve(ctx, follow_up)


def note_retry(ctx: Context, tenant_id: str, turn_id: str, error: str) -> None:
    """A try at the turn failed and its queue message will come again: its GET says why (the sweep
    knows the try from its `tried_at`, db/turns.py, claim_lost)."""
    with ctx.db.transaction() as conn:
        turn_rows.note_error(conn, tenant_id, turn_id, f"{error}; retried when its queue message comes back")


def mark_failed(ctx: Context, tenant_id: str, turn_id: str, error: str) -> None:
    with ctx.db.transaction() as conn:
        turn_rows.set_status(conn, tenant_id, turn_id, "failed", error[:2000])
