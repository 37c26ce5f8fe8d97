"""OfflineExtractor: each user message of a turn read sentence by sentence (statements.py), its
matches filed (matching.py), corrections and retractions applied (corrections.py), and the
candidates of the whole turn made distinct."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Sequence

from memex import supersession
from memex.extraction import plain
from memex.extraction.offline.corrections import (AGED_AGAIN, BIRTHDAY_AGE, CORRECTION, DENIED, FORGET, Facts, GONE_AGAIN,
    MEANT, NAMED_AGAIN, PREGNANT_AGAIN, RESTATED, ROLE_AGAIN, about_topic, age_again, correct, correct_meant, correct_named,
    correct_restated, correct_within, denied, pet_gone_again, pregnant_again, role_again, said_instead, statement_retracted,
    taken_back)
from memex.extraction.offline.matching import asked_matches, matches, plainly
from memex.extraction.offline.rule import Rule, candidate_of
from memex.extraction.offline.statements import asks_about_someone_else, statements, typed
from memex.extraction.offline.values import Fields
from memex.jobs import Candidate, within_key_bound


def _said_beside_a_partner(candidates: list[Candidate]) -> list[Candidate]:
    """A divorce or a spouse's death said as an event ends the current partner (supersession.
    ENDED_BY_EVENT), but not in a message that names a current partner ("My wife and I divorced in
    2019, and my girlfriend Lena moved in last month"): that partner came after, and the event is
    filed as what happened (a fact), as "I'm divorced" is."""
    beside = {(c.source_message_id, c.subject) for c in candidates
              if c.base_key == supersession.PARTNER_KEY and not c.historical}
    return [replace(c, type="fact") if supersession.ends_partnership(c) and (c.source_message_id, c.subject) in beside
            else c for c in candidates]


# A lowercase "the", which a job to come drops before its employer's name ("joining Red Cross next month") and
# a plan keeps as said ("joining the Red Cross next month").
_ARTICLE = re.compile(r"\bthe ")


def _not_also_a_plan(candidates: list[Candidate]) -> list[Candidate]:
    """A job to come is filed as that (`next_job`), not also among the other plans: the plans' rule
    reads "I'm starting at Notion in April" too, as anything else the user is doing months ahead."""
    def said(c: Candidate) -> tuple[str, str, str]:
        return c.source_message_id, c.subject, _ARTICLE.sub("", c.value).casefold()
    jobs = {said(c) for c in candidates if c.base_key == "next_job"}
    return [c for c in candidates if not (c.base_key == "plan" and said(c) in jobs)]


class OfflineExtractor:
    name = "offline-rules"

    def extract(self, messages: list[dict[str, Any]], history: list[dict[str, Any]],
                known: Sequence[Candidate] = ()) -> list[Candidate]:
        found = Facts()
        earlier: Facts | None = None
        correctable: Facts | None = None

        def history_facts() -> Facts:
            """The history's facts, extracted once, when a correction first needs them."""
            nonlocal earlier
            if earlier is None:
                earlier = Facts(self.extract(history, []))
            return earlier

        def corrected_from() -> Facts:
            """What a correction or a pet's death by its name may end: the history's facts, after the
            memories' (`known`, which the pipeline reads for such a turn: said in an earlier session); the
            session's are later."""
            nonlocal correctable
            if correctable is None:
                correctable = Facts([*known, *history_facts().in_order()]) if known else history_facts()
            return correctable

        # A message may say one sentence many times over (a paste, a list, a log): what a sentence matches
        # depends on its words alone, so each is matched once.
        matched_as: dict[tuple[str, bool], list[tuple[int, Rule, Fields]]] = {}
        for i, message in enumerate(messages):
            if message["role"] != "user":
                continue
            # Another named participant's "I work at Acme" is about them (models.speaker_subject).
            subject = message.get("subject") or "user"
            before = messages[i - 1] if i else (history[-1] if history else None)
            about_them = asks_about_someone_else(before, message)
            questions: list[tuple[str, str]] = []
            for n, (sentence, said) in enumerate(statements(message["content"] or "", questions)):
                stated = found.size()
                # Read as the rules read it: "Actually it’s Lisbon" is "Actually it's Lisbon".
                read = plain.plain(sentence)
                forget = FORGET.match(read) if subject == "user" else None
                retracted = statement_retracted(forget, read) if subject == "user" else None
                said_as = (retracted or read, not (about_them and n == 0))
                if said_as not in matched_as:
                    matched_as[said_as] = matches(typed(said_as[0], dropped_is_user=said_as[1]))
                matched = matched_as[said_as]
                for _, rule, fields in matched:
                    candidate = candidate_of(rule, fields, message["id"], said, subject)
                    found.add(taken_back(candidate) if retracted else candidate)
                if forget and forget["topic"] and not matched:
                    for fact in about_topic([*history_facts().in_order(), *found.in_order()], forget["topic"]):
                        found.add(taken_back(replace(fact, source_message_id=message["id"], raw_quote=said)))
                corrections = list(CORRECTION.finditer(said_instead(read)))
                for match in corrections:
                    if not correct(found, corrected_from(), match, message["id"], said, subject) \
                            and not correct_within(found, found, message["id"], match, message["id"], said, subject) \
                            and before is not None and before["role"] == "user":
                        correct_within(found if i else history_facts(), found, before["id"], match, message["id"], said,
                                       subject)
                # The message before, when it is this turn's, is in `found`; else it is the history's last.
                meant = MEANT.fullmatch(read)
                if meant and before is not None and before["role"] == "user":
                    correct_meant(found if i else history_facts(), found, before["id"], meant.group("new"),
                                  message["id"], said, subject)
                elif (named := NAMED_AGAIN.fullmatch(read)) and before is not None and before["role"] == "user":
                    correct_named(found if i else history_facts(), found, before["id"], named, message["id"], said,
                                  subject)
                elif (aged := AGED_AGAIN.match(read) or BIRTHDAY_AGE.match(read)):
                    age_again(history_facts(), found, aged, message["id"], said, subject)
                elif (pregnant := PREGNANT_AGAIN.match(read)):
                    pregnant_again(history_facts(), found, pregnant.group("name"), message["id"], said, subject)
                elif (gone := GONE_AGAIN.match(read)):
                    # The memories' pets before the session's: what the session says of the name is later.
                    pet_gone_again(corrected_from(), found, gone, message["id"], said, subject)
                elif (works := ROLE_AGAIN.match(read)) and plainly(read, works):
                    role_again(history_facts(), found, works, message["id"], said, subject)
                elif (denial := DENIED.fullmatch(read)):
                    denied(corrected_from(), found, denial.group("value"), message["id"], said, subject)
                elif not corrections and RESTATED.match(read) and before is not None and before["role"] == "user":
                    correct_restated(found if i else history_facts(), found, stated, before["id"])
            for question, said in questions:
                for rule, fields in asked_matches(typed(plain.plain(question), dropped_is_user=False)):
                    found.add(candidate_of(rule, fields, message["id"], said, subject))
        # A key made of more words than a key holds names no kind of fact (jobs.within_key_bound).
        return within_key_bound(_distinct(_said_beside_a_partner(_not_also_a_plan(found.in_order()))))


def _distinct(candidates: list[Candidate]) -> list[Candidate]:
    seen: set[tuple[str, str, bool]] = set()
    kept = []
    for c in candidates:
        mark = (c.key, c.value.casefold(), c.historical)
        if mark not in seen:
            seen.add(mark)
            kept.append(c)
    return kept
