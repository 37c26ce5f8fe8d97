"""Where a decided memory goes in its history: by the time it was said, not the time it arrived.

Turns arrive out of order (a backfill, two devices, a retried message), so a fact stated in
February can be decided after one stated in March. It then takes its place between them: the
March value replaces it, it replaces the January one, and each carries a real validity interval
(from when it was said until the next value was). The current value's history lists every value
the key ever had, whatever order they arrived in.

A fact said with its own time ("I moved to Paris last week") began to hold then, not when it was said
(`Placement.holds_from`, the answers' `valid_from`): what it replaces held until then. Its `valid_from`
stays when it was said, and it stands in its key's history there (`Times`), so that of two values the
later said is current, and a value said before it that its words' time goes back past keeps the time it
was said to hold ("I live in Berlin" said yesterday, then "I moved to Paris last week": Paris, from when it
was said; the same when "I live in Lyon", said yesterday, arrives after Paris): two values of a key never
held at once. A statement of the present replaces the current value whatever its time ("I've lived in
Lyon since 2019.", "I moved to Lyon three months ago.", said after "I live in Paris."). Only a story of the
past, a fact said as over ("I lived in Rome in 2015.", "I left Google in 2019.") or a partnership's end
("We got divorced back in 2010."), with a time far back (a year, a month, months or years ago), stands in
history at that time (db/validity.stands): a partner named as current in 2025 was named after it, so the
divorce was of an earlier spouse and goes in the history before them, ending nothing current; a city said
in 2024 stays current. A parting that names a value said since ("I left Google in 2019." after "I work at
Google.") ends it when said (`as_decided`). A plan's time, or a birthday's, is not when the fact began.

Everything here runs under the user's lock (db/locks.py), after the judge has decided.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import psycopg

from memex import time_phrases
from memex.db import history as history_rows
from memex.db import validity
from memex.jobs import Candidate
from memex.supersession import Decision, holds_several, parts, same_value


@dataclass
class Placement:
    current: bool
    valid_to: datetime | None = None
    replaces: list[str] = field(default_factory=list)      # older memories the new one replaces
    replaced_by: list[str] = field(default_factory=list)   # newer memories that replace the new one
    ends: dict[str, datetime] = field(default_factory=dict)  # memory id -> when it stopped being current
    unlinks: list[tuple[str, str]] = field(default_factory=list)  # (newer, older) links the new one goes between
    already_known: str | None = None  # set when history already holds this value for that time
    continues: str | None = None  # the ended value whose chain a first value now continues
    # when it began to hold, when its words say a time before it stands in history; what it replaces or
    # ends stops then (`ends`)
    holds_from: datetime | None = None
    after: datetime | None = None  # when the latest value it replaces or follows began to hold
    # later values whose own time went back past when it was said: they hold from when they were said
    said_as_held: list[str] = field(default_factory=list)


# Families whose times are not when the fact began: a plan's or a job to come's are to come ("I'm moving to
# Lisbon in May."), a birthday's, a birth year's ("My daughter was born in 2019."), an anniversary's or an
# appointment's are its value.
_TIMES_NOT_ITS_OWN = re.compile(r"plan|next_job|birthday|(?:\w+_)?birth_year|anniversary|event_\w+_appointment")


@dataclass(frozen=True)
class Times:
    """A candidate's times (`times`), each read in the user's days."""
    said: datetime  # when it was said: its `valid_from`
    stands_at: datetime  # where it stands in its key's history
    began: datetime  # when it began to hold


def times(candidate: Candidate, said_at: datetime) -> Times:
    """When the candidate was said, where it stands in its key's history and when it began to hold: when it
    was said, or when its words say it began (time_phrases.began: "I moved to Paris last week": the Monday
    of the week it was said in), when that is before. A story of the past (`_of_the_past`) named by a year,
    a month or months or years back ("in 2010", "two years ago") stands there too: a value of its key said
    since is later. Anything else stands where it was said: a husband spoken of this morning and "we
    divorced yesterday" are one husband, and "I've lived in Lyon since 2019." is where the user lives now."""
    if not candidate.happened or _TIMES_NOT_ITS_OWN.fullmatch(candidate.base_key):
        return Times(said_at, said_at, said_at)
    began, far = time_phrases.began(candidate.happened, said_at)
    if began is None:
        return Times(said_at, said_at, said_at)
    return Times(said_at, began if far and _of_the_past(candidate) else said_at, began)


# Words that say a value ended, not only that it held once: "I left Google in 2019." is a parting, "I worked at
# Google in 2015." a story of the past (both "The user used to work at Google."). Said in the value's clause, before
# it ("I moved away from St. Louis"), or after it for a partner ("Sam and I split up"), and not denied right before
# ("I never left"); a clause ends at a stop, a comma or a word joining another ("…, the year I quit smoking", "… and
# lost a lot of weight", "… when my wife and I divorced").
_PARTING = re.compile(r"\b(?:left|quit|resigned|stopped|retired|moved (?:away|out)|broke up|split(?: up)?|separated"
                      r"|divorced|sold|gave up|lost)\b", re.IGNORECASE)
_PARTED_FROM = re.compile(r"\b(?:broke up|split(?: up)?|separated|divorced)\b", re.IGNORECASE)
_DENIED_BEFORE = re.compile(r"(?:\b(?:never|not|no longer)|n't)\s+(?:\w+\s+)?$", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[;!?]|[.,](?=\s|$)|\b(?:and|but|so|when|while|because|after|before)\b(?! I\b)",
                           re.IGNORECASE)


def as_decided(times: Times, candidate: Candidate, decision: Decision) -> Times:
    """The candidate's `times` once the judge decided: a parting that names a value said since its words' time
    ("I left Google in 2019." said after "I work at Google.") stands where it was said, ending that value then;
    the history holds no end of it before. A story of the past naming it ("I worked at Google in 2015.") stays
    before it, which stays current."""
    if decision.action == "end" and _parting(candidate) and any(
            times.stands_at < validity.stands_at(m) <= times.said for m in decision.replaces):
        return Times(times.said, times.said, times.began)
    return times


def _parting(candidate: Candidate) -> bool:
    """Whether the candidate says a value ended: a partnership's end, a name left, or leaving words said of its
    value in its clause ("I worked at Google in 2015, the year I quit smoking." is none). A value not written as
    its quote says it (a model's "New York" for "NYC") is read by the quote's leaving words alone."""
    if parts(candidate) or candidate.ends_only:
        return True
    quote, value = candidate.raw_quote, (candidate.value or "").strip()
    said = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", quote, re.IGNORECASE) if value else None
    if said is None:
        return bool(_PARTING.search(quote))
    begins = max((b.end() for b in _CLAUSE_BREAK.finditer(quote, 0, said.start())), default=0)
    ends = next((b.start() for b in _CLAUSE_BREAK.finditer(quote, said.end())), len(quote))
    verb = _PARTING.search(quote, begins, said.start())
    if verb is None and candidate.base_key.startswith(_PARTNERS):
        verb = _PARTED_FROM.search(quote, said.end(), ends)
    return verb is not None and not _DENIED_BEFORE.search(quote, begins, verb.start())


_PARTNERS = ("partner", "spouse", "husband", "wife", "boyfriend", "girlfriend")


def _of_the_past(candidate: Candidate) -> bool:
    """A fact said as over ("I lived in Rome in 2015.", "I left Google in 2019.") or a partnership's end
    ("We got divorced back in 2010.", "We broke up in 2019."): a story of the past, which does not take the
    present back."""
    return candidate.historical or parts(candidate)


def plan(conn: psycopg.Connection, tenant_id: str, user_id: str, decision: Decision, candidate: Candidate,
         times: Times, same_key_active: list[dict[str, Any]]) -> Placement:
    """How the candidate's memory, standing in history and holding from its `times`, joins history, given the
    judge's decision."""
    placement = _placed(conn, tenant_id, user_id, decision, candidate, times.stands_at, same_key_active)
    if decision.action == "keep_old" and not placement.already_known and placement.valid_to < times.said:
        # "I used to live in Rome.", "I lived in Rome in 2015.": over before the value current then began,
        # where it stands in history (holding at no moment), said when it was said
        placement.holds_from = placement.valid_to
    if times.began >= times.said or placement.already_known or decision.action == "keep_old" or (
            decision.action == "end" and not placement.ends):
        return placement  # said as holding then, known, or about the past (which holds at no moment)
    if placement.after is not None and times.began < placement.after:
        # before what it replaces began: that value was said as holding then, which its words' time does not
        # take back (two values of a key never held at once); it holds from when it was said
        return placement
    placement.holds_from = times.began
    placement.ends = {older: times.began for older in placement.ends}
    if decision.action == "end":  # "I left Stripe last week": the statement of its end holds at no moment
        placement.valid_to = times.began
    return placement


def _placed(conn: psycopg.Connection, tenant_id: str, user_id: str, decision: Decision, candidate: Candidate,
            said_at: datetime, same_key_active: list[dict[str, Any]]) -> Placement:
    """How the candidate's memory, standing at `said_at` in its key's history, joins it, given the judge's
    decision."""
    value = candidate.value
    if decision.action == "coexist":
        return _after_end(conn, tenant_id, user_id, candidate, said_at, same_key_active)
    if decision.action == "keep_old":
        return _past(conn, tenant_id, value, said_at, same_key_active)
    if decision.action == "end":
        return _end(conn, tenant_id, decision, value, said_at, same_key_active)
    placement = Placement(current=True)
    for replaced in decision.replaces:
        if not stands_after(replaced, said_at):
            _replaces(placement, replaced, said_at)
            continue
        # Said before the value it would replace: it goes in that value's history, at its time.
        later, earlier = _gap(conn, tenant_id, replaced, said_at)
        if same_value(later["value"] or "", value) or any(same_value(p["value"] or "", value) for p in earlier):
            return Placement(current=False, already_known=f"{value!r} is already in the history for that time")
        placement.current = False
        placement.replaced_by.append(later["id"])
        ends = validity.moment(validity.began_at(later))
        if ends < said_at:
            # "I moved to Paris last week." said after this, dated before it: Paris held from when it was said
            placement.said_as_held.append(later["id"])
            ends = validity.moment(later["valid_from"])
        placement.valid_to = ends if placement.valid_to is None else min(placement.valid_to, ends)
        for previous in earlier:
            placement.unlinks.append((later["id"], previous["id"]))
            _replaces(placement, previous, said_at)
    return placement


def _replaces(placement: Placement, older: dict[str, Any], said_at: datetime) -> None:
    """The memory replaces `older` (said before it), which ends when it is said."""
    placement.replaces.append(older["id"])
    placement.ends[older["id"]] = said_at
    began = validity.moment(validity.began_at(older))
    placement.after = began if placement.after is None else max(placement.after, began)


def apply(conn: psycopg.Connection, tenant_id: str, memory_id: str, placement: Placement) -> None:
    for newer, older in placement.unlinks:
        history_rows.unlink(conn, tenant_id, newer, older)
    for older in placement.replaces:
        history_rows.link(conn, tenant_id, memory_id, older)
    for newer in placement.replaced_by:
        history_rows.link(conn, tenant_id, newer, memory_id)
    for older, valid_to in placement.ends.items():
        history_rows.end(conn, tenant_id, older, valid_to)
    for newer in placement.said_as_held:
        history_rows.held_from_said(conn, tenant_id, newer)


def _gap(conn: psycopg.Connection, tenant_id: str, newest: dict[str, Any], said_at: datetime
         ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Walk back from `newest` to the earliest memory stated after `said_at`; return it and its
    predecessors stated at or before `said_at` (the links the new memory goes between)."""
    later = {key: newest[key] for key in ("id", "value", "valid_from", "holds_from", "valid_to")}
    while True:
        before = history_rows.predecessors(conn, tenant_id, later["id"])
        newer = [p for p in before if stands_after(p, said_at)]
        if not newer:
            return later, before
        later = newer[0]


def _after_end(conn: psycopg.Connection, tenant_id: str, user_id: str, candidate: Candidate, said_at: datetime,
               same_key_active: list[dict[str, Any]]) -> Placement:
    """A value beside the others, or the first one of its key; the first value of a single-valued key
    said after its last value ended ("I quit Stripe", then "I work at Notion") continues that chain,
    so that the current value's history still lists every value the key had. The statement that
    ended it keeps the end's time: nothing is ended again."""
    if same_key_active or holds_several(candidate.base_key):
        return Placement(current=True)
    ended = history_rows.ended_head(conn, tenant_id, user_id, candidate.subject, candidate.key, said_at)
    if ended is None:
        return Placement(current=True)
    return Placement(current=True, replaces=[ended["id"]], continues=ended["value"], after=ended["valid_to"])


def _past(conn: psycopg.Connection, tenant_id: str, value: str, said_at: datetime,
          same_key_active: list[dict[str, Any]]) -> Placement:
    """A statement about the past ("I used to live in Paris"): history of the value that was
    current when it was said, ended when that value began (its start is unknown); nothing new
    when that value or one before it already says so ("I left Stripe" after Stripe → Notion)."""
    if len(same_key_active) != 1:
        return Placement(current=False, valid_to=said_at)
    later, earlier = _gap(conn, tenant_id, same_key_active[0], said_at)
    then = earlier[0] if stands_after(later, said_at) and earlier else later  # current when it was said
    if _said_before(conn, tenant_id, then, value):
        return Placement(current=False, already_known=f"{value!r} is already in the history")
    return Placement(current=False, valid_to=min(validity.moment(then["valid_from"]), said_at), replaced_by=[then["id"]])


def _end(conn: psycopg.Connection, tenant_id: str, decision: Decision, value: str, said_at: datetime,
         same_key_active: list[dict[str, Any]]) -> Placement:
    """A statement that the current value is over ("I left Stripe"): the value ends when it is said,
    the statement is its history (not current). Said before that value began (a late backfill), it
    is about an earlier time, a statement about the past like any other."""
    ended = [m for m in decision.replaces if not stands_after(m, said_at)]
    if not ended:
        return _past(conn, tenant_id, value, said_at, same_key_active)
    placement = Placement(current=False, valid_to=said_at)
    for older in ended:
        _replaces(placement, older, said_at)
    return placement


# How far back a value is looked for before the whole history is read: a value said again was
# mostly said lately, and a year of history can hold thousands of values of one key.
NEAR_HISTORY = 64


def _said_before(conn: psycopg.Connection, tenant_id: str, memory: dict[str, Any], value: str) -> bool:
    """Whether the memory or one before it in its history says `value`: looked for among the
    nearest first, in the whole history only when none of them does."""
    if same_value(memory["value"] or "", value):
        return True
    near = history_rows.earlier(conn, tenant_id, memory["id"], NEAR_HISTORY)
    if any(same_value(m["value"] or "", value) for m in near):
        return True
    return len(near) == NEAR_HISTORY and any(
        same_value(m["value"] or "", value) for m in history_rows.earlier(conn, tenant_id, memory["id"]))


def stands_after(memory: dict[str, Any], at: datetime) -> bool:
    """Whether the memory stands after `at` in its key's history (db/validity.stands)."""
    return validity.stands_at(memory) > at
