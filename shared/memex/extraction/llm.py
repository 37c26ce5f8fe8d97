"""The LLM extractor: atomic memories from a turn's user messages, asked of a chat model as JSON.

The model sees the new messages numbered, and up to HISTORY_LIMIT earlier messages of the
session as context only (so that "she loved it" can become "the user's wife loved it"), and for a
turn that says a pet's death by its name alone the speaker's current pets, or a correction the current
facts holding the wrong value it names (`known`: "Pickle" is the dog of a session months before). Each
item it returns is checked on its own; a malformed item is dropped, never the batch, and so is one
the message does not say (neither its quote nor its value is in it: the model invented it). When the
model gives no usable answer at all (no JSON, JSON without a memories list, or a list every item of
which is dropped; an empty list is its "nothing to remember"), `LLMError` propagates: the extraction job fails and the queue delivers it again (its last delivery extracted
by the offline rules), rather than the turn being marked done with nothing extracted.
"""

from __future__ import annotations

import logging
import math
import re
from typing import Any, Sequence

from memex import literal, supersession, time_phrases
from memex.config import Settings
from memex.extraction import aliases, families
from memex.extraction.placement import ABOUT_ANOTHER_IMPORTANCE, RELATION_NAMES, placed, relation_key
from memex.jobs import Candidate, key_words, own_key, subject_key, subject_prefix
from memex.llm import ChatJSON, LLMError
from memex.models import USER_SUBJECTS

log = logging.getLogger(__name__)

TYPES = ("fact", "preference", "opinion", "event", "relation")
HISTORY_LIMIT = 10
MESSAGE_CHARS = 4000
HISTORY_CHARS = 1000
DEFAULT_CONFIDENCE = 0.8
# A confidence said in words, as small models answer the 0-to-1 field: the middle of each third.
CONFIDENCE_WORDS = {"low": 1 / 6, "medium": 0.5, "moderate": 0.5, "high": 5 / 6}

# What a memory of each type is worth in ranking, when its key is of no declared family (families.py).
TYPE_IMPORTANCE = {"fact": 0.7, "relation": 0.75, "preference": 0.6, "opinion": 0.5, "event": 0.5}

# A sentence of a message: up to its closing mark (with any closing quote or bracket) or a line's end.
_SENTENCE = re.compile(r"[^\s.!?…][^\n]*?(?:[.!?…]+[\"'”’)\]]*(?=\s|$)|(?=\n)|$)")

SYSTEM_TEMPLATE = """You extract long-term memories about a user from a conversation, for a memory service.

Read the NEW messages. EARLIER messages are context only, to resolve references such as "she", \
"there" or "it"; never extract from them.
KNOWN facts, when listed, are current memories of the user from earlier sessions that the NEW messages \
may name alone; context only too. A pet's death or loss said by a known name alone is that name as \
history: "Pickle passed away", with "pet_dog_name: Pickle" known, is pet_dog_name Pickle, historical. \
A correction of a known value is that key with the right value: "I said Tuesday but I meant Thursday", \
with "event_appointment: Tuesday" known, is event_appointment Thursday, corrects Tuesday. A denial of a \
known value ends it: "I'm not vegan.", with "dietary_restriction: vegan" known, is dietary_restriction vegan, \
historical and ends_only.

Extract what the USER states (messages with role user): facts about themselves, and facts about \
people in their life whom they name or describe. Ignore what the assistant says unless the user \
confirms it. One memory per atomic fact. Skip greetings, thanks, small talk, questions, \
hypotheticals and anything uncertain. Noise such as "ok" or "lol thanks" yields no memories.
A message from a "participant" is another person in the conversation, not the user: what they \
say of themselves ("I work at Acme") is about them (subject: their name), and so is what anyone \
says of them. Anyone else the user mentions is not a participant: a fact about them is the \
user's, naming them.

Each memory is an object with these fields, in this order:
- "message": the number of the NEW message it comes from.
- "type": one of fact, preference, opinion, event, relation.
- "key": a canonical snake_case name of what the memory is about, the same for every value it \
may take. Use these when they fit, where {placeholders}:
{families}
For another kind of fact, a key of the same shape: preference_<topic>, event_<what>. For a fact \
about a person the user mentions, prefix the key with their relation and name in snake_case: \
"partner_sam_role", "sister_anna_city", "child_max_age" (or the one you know: "anna_city", \
"sister_employer"). For a participant's fact, prefix it with their name: "melanie_employer".
- "value": the value alone, short ("Notion", "Berlin", "vegetarian"); a key that holds several \
values takes one memory per value. An employer's name drops a lowercase "the": "I work at the Red Cross" \
is employer Red Cross ("The Guardian" keeps its capital The).
- "subject": "user", or the name of the participant the fact is about. Only a participant is a \
subject: "My partner Sam is a nurse" is the user's fact naming Sam (partner_sam_role = nurse, \
subject user, content "The user's partner Sam is a nurse."); "My sister Anna" is a relation of \
the user (sister_name = Anna, subject user).
- "historical": true when the user says it is no longer so, else false: "I used to live in Paris" \
(city Paris), "I left Stripe" (employer Stripe), "I broke up with Sam" (partner_name Sam). It is kept \
as history, and it ends the current value it names: Sam is no longer the partner, and what was said \
of Sam as the partner ends with that.
- "ends_only": true, with historical, when the words say only that something named is over and not \
what it was ("I left Feedzai": a job, or a person?; "I'm no longer with Sam"): it is kept only if it \
names the current value under its key, which it ends. Else false. A statement of their own the user \
takes back ("Please forget that I'm allergic to peanuts", "Forget what I said about moving to Berlin", \
"Scratch that, I don't have a cat") is that statement's memory with historical and ends_only true, \
content "The user took this back: The user is allergic to peanuts.": it ends the fact it names. \
Not "I always forget my keys", "Don't forget to buy milk", "Forget it". \
A denial ("I'm not vegan.", "I'm not a smoker") is the value denied, never a value with "not" ("not vegan"): \
dietary_restriction vegan, historical and ends_only true, content "The user used to be vegan.". It ends \
that value when it is current (said in EARLIER or NEW messages, or KNOWN: "I'm vegan now." then "I'm not \
vegan." ends it), and files nothing when it is not: "not" alone says nothing was ever so. Answer it \
whether or not you see the value: it is kept only if it names the current value.
- "only_replacing": when the words say only that one name took another's place, not what the names \
are ("I switched from Adobe to Figma": a job, or a tool?), the earlier name ("Adobe"): it is kept only \
if that name is the current value under its key, which it replaces. Else omit it.
- "corrects": when the user corrects a value they gave ("My dog is Rollo, not Rolo"; "I meant \
Porto, not Braga"), the wrong value ("Rolo"), which the memory replaces. Else omit it.
- "when": the message's words that say when it became true, as said, when that time is past: \
"I moved to Paris last week" (city Paris) is "last week"; also "in 2010", "two years ago", "since 2019", \
"yesterday", "on 3 March". Else omit it, and for a plan or a time to come ("next month").
- "content": one canonical sentence in the third person, understandable without the \
conversation: "The user's employer is Notion.", "The user's wife Maria loved the trip to Lisbon."
- "confidence": 0 to 1, how clearly the user stated it.
- "quote": the exact words of the message it comes from.

Answer with JSON only, no prose: {"memories": [ ... ]}. With nothing to remember: {"memories": []}."""


def _system() -> str:
    """The prompt with the declared key families (families.py) spelt out: the keys the offline rules
    file under, so that either path files one fact under one key."""
    placeholders = "; ".join(f"<{name}> is {meaning}" for name, meaning in families.PLACEHOLDERS.items())
    listed = "\n".join(f"  {family.key}: {family.holds}" for family in families.FAMILIES)
    return SYSTEM_TEMPLATE.replace("{placeholders}", placeholders).replace("{families}", listed)


SYSTEM = _system()


class LLMExtractor:
    def __init__(self, chat: ChatJSON, facts_per_turn: int = Settings.llm_facts_per_turn,
                 chars_per_fact: int = Settings.llm_chars_per_fact):
        """A turn keeps at most max(`facts_per_turn`, its user characters / `chars_per_fact`) facts
        (`capped`)."""
        self.chat = chat
        self.name = f"llm:{chat.model}"
        self.facts_per_turn = facts_per_turn
        self.chars_per_fact = chars_per_fact

    def extract(self, messages: list[dict[str, Any]], history: list[dict[str, Any]],
                known: Sequence[Candidate] = ()) -> list[Candidate]:
        # `known` (the pets a death said by a name alone may name, the diets "I'm not vegan." may end, the
        # facts a correction's wrong value may name: pipeline._known) is shown as KNOWN facts: the session may never name the dog, and the
        # model could not tell what "Pickle" was, or that Tuesday was an appointment's.
        if not any(m["role"] == "user" and (m.get("content") or "").strip() for m in messages):
            return []  # nothing the user said: no call
        found = self.chat.ask(SYSTEM, render_prompt(messages, history, known), every=True,
                              read=lambda answers: self._usable(answers, messages, history))
        return self.capped(found, messages)

    def _usable(self, answers: list[Any], messages: list[dict[str, Any]],
                history: list[dict[str, Any]]) -> list[tuple[bool, Candidate]]:
        """The candidates the answer gives, each with whether its quote is the message's own words;
        `LLMError` for an answer that gives none it could (`ChatJSON.ask` counts it as a failure)."""
        # Each JSON document of the answer that has the shape asked for: a small model may answer
        # `{"memories": []}` and then the real one.
        lists = [items for answer in answers
                 if isinstance(items := answer.get("memories") if isinstance(answer, dict) else answer, list)]
        # Logs say how many and of what kind, never what: the answer quotes the user.
        if not lists:
            # Not "nothing to remember" (`{"memories": []}`): an answer of another shape is no answer,
            # retried as one (and extracted by the offline rules on the job's last delivery).
            raise LLMError(f"{self.chat.model}: an extraction answer without a memories list "
                           f"(a {type(answers[0]).__name__})")
        items = [each for items in lists for item in items for each in _each_value(item)]
        # A value and its end are two memories ("I'm vegan now. ... I'm not vegan."), kept in the order answered.
        found: dict[tuple[str, str, str, bool], tuple[bool, Candidate]] = {}
        dropped = 0
        known = relations(items)
        for item in items:
            candidate = to_candidate(item, messages, history, known)
            if candidate is None:
                dropped += 1
                continue
            found[(candidate.key, candidate.value.casefold(), candidate.subject.casefold(), candidate.historical)] = (
                _said(item.get("quote") or item.get("raw_quote")) == _said(candidate.raw_quote), candidate)
        if items and dropped == len(items):
            # Every item dropped is no answer either, not "nothing to remember": the turn's facts would be
            # lost with it. Asking again is likely to be answered alike (a small model inventing a fact for
            # "lol thanks" does so at every delivery), so the offline rules read the turn at once, on
            # every path, a re-extraction's too (pipeline._extracted), not after every redelivery.
            log.warning("dropped all %d extraction items: malformed, or not in the words of the message they name",
                        dropped)
            raise LLMError(f"{self.chat.model}: an extraction answer none of whose {dropped} items is usable",
                           as_asked=True)
        if dropped:
            log.info("dropped %d extraction items of %d: malformed, or not in the words of the message they name",
                     dropped, len(items))
        return list(found.values())

    def capped(self, found: list[tuple[bool, Candidate]], messages: list[dict[str, Any]]) -> list[Candidate]:
        """The candidates a turn keeps, of (quote found in the message?, candidate): a model may answer a
        hundred facts for "I live in Berlin", each stored and searched. A user's sentence states a fact
        or two; a turn keeps one per `chars_per_fact` of what the user said (rounded up in each message:
        sixty participants' "I'm a teacher." are sixty facts), at least `facts_per_turn`. Past that, the
        best supported: the model's quote is the message's own words (not just a sentence holding its
        value), then the most confident, kept in the order answered."""
        lengths = [len((m.get("content") or "").strip()) for m in messages if m["role"] == "user"]
        said = sum(lengths)
        most = max(self.facts_per_turn, sum(math.ceil(length / self.chars_per_fact) for length in lengths))
        if len(found) <= most:
            return [candidate for _, candidate in found]
        ranked = sorted(range(len(found)), key=lambda i: (not found[i][0], -found[i][1].confidence, i))
        kept = sorted(ranked[:most])
        # Counts only: the facts quote the user.
        log.warning("kept %d of %d extracted facts: a turn of %d characters keeps at most %d",
                    most, len(found), said, most)
        return [found[i][1] for i in kept]


def _said(quote: Any) -> str:
    """A quote as compared with the message's words: case and spacing aside."""
    return " ".join(_text(quote).casefold().split())


def _each_value(item: Any) -> list[Any]:
    """An item whose `value` is a list (`"value": ["tennis", "golf"]`) as one item per value, where its
    key holds several values at once (supersession.holds_several: one memory each, as the prompt
    asks); elsewhere, or for values that are not all text or numbers, the item as it is (dropped)."""
    values = item.get("value") if isinstance(item, dict) else None
    if not isinstance(values, list) or not values or not supersession.holds_several(_key(item)):
        return [item]
    if not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in values):
        return [item]
    return [{**item, "value": value} for value in values]


def render_prompt(messages: list[dict[str, Any]], history: list[dict[str, Any]],
                  known: Sequence[Candidate] = ()) -> str:
    lines = []
    if known:
        lines.append("KNOWN facts (context only):")
        # keyed as the model files them ("melanie_pet_dog_name" a participant's); the memories' pets and
        # those the batch named before may repeat one another
        lines += dict.fromkeys(f"- {c.key}: {_clip(c.value, HISTORY_CHARS)}" for c in known)
        lines.append("")
    earlier = history[-HISTORY_LIMIT:]
    if earlier:
        lines.append("EARLIER messages (context only):")
        lines += [f"- {_speaker(m)}: {_clip(m.get('content'), HISTORY_CHARS)}" for m in earlier]
        lines.append("")
    lines.append("NEW messages:")
    lines += [f"[{i}] {_speaker(m)}: {_clip(m.get('content'), MESSAGE_CHARS)}" for i, m in enumerate(messages)]
    return "\n".join(lines)


def _speaker(message: dict[str, Any]) -> str:
    if message.get("subject"):
        return f"participant ({message['subject']})"
    return f"{message['role']} ({message['name']})" if message.get("name") else message["role"]


def _clip(text: str | None, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[:limit] + "…"


def relations(items: Any) -> dict[str, str]:
    """Who the people the answer names as the user's current relations are to the user, by name
    ("sam": "partner" for partner_name = Sam): a fact the model files under one of them then gets the
    key the offline rules give it (partner_sam_role), which ends with the partnership."""
    found: dict[str, str] = {}
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or _flag(item.get("historical")):
            continue
        key, value = _key(item), _text(item.get("value"))
        if value and key in RELATION_NAMES:
            found.setdefault(value.casefold(), key.removesuffix("_name"))
    return found


def to_candidate(item: Any, messages: list[dict[str, Any]], history: list[dict[str, Any]] = (),
                 known: dict[str, str] | None = None) -> Candidate | None:
    """One item of the model's answer as a Candidate, or None when it is malformed or invented (neither
    its quote nor its value is in the message it names: `quoted` finds no words of the user). Its subject is
    the user or a participant of the conversation (one who speaks in `messages` or `history`); a
    fact the model filed under anyone else is the user's fact naming them, as the offline rules file
    it ("The user's partner Sam is a nurse.", partner_sam_role, when `known` (`relations`) says who
    Sam is): issue 11. Its endings, corrections and changes are carried as the offline rules carry
    them: `historical`, `ends_only` with it, `corrects`, `only_replacing`; a fact's value answered denied
    ("not vegan") as the prompt's denial (`_denied`)."""
    if not isinstance(item, dict):
        return None
    type_ = _text(item.get("type")).lower()
    key = _said_key(item)
    value = _text(item.get("value"))
    content = _text(item.get("content"))
    if type_ not in TYPES or not _snake_case(key) or not value or not content:
        return None
    confidence = _confidence(item.get("confidence"))
    if confidence is None:
        return None
    quote = _text(item.get("quote") or item.get("raw_quote"))
    source = _source(item.get("message"), quote, messages)
    if source is None:
        return None
    raw_quote = quoted(quote, value, source.get("content") or "")
    if not raw_quote:
        # Neither the model's quote nor the value is in the message: nothing the user said stands
        # behind it, and a small model that invents ("My dog Rex" of a turn about moving) is not heard.
        return None
    subject, named = _about(_text(item.get("subject")), source, [*history, *messages])
    # An alias after a person's name: "melanie_location" is Melanie's city, filed as her "I live in Rome" is.
    # After the subject's own name, the kind alone: "mum_city" of Mum is her city, not her "mother_city".
    people = {m["subject"] for m in [*history, *messages] if m.get("subject")} | set(known or {}) | {named or ""}
    key = aliases.canonical(own_key(subject, key), [subject_prefix(person) for person in people])
    # Another person's city is not the user's city: the key must not collide with the user's own.
    key = subject_key(subject, _naming(key, named, (known or {}).get(named.casefold())) if named else key)
    historical = _flag(item.get("historical"))
    denied = _denied(value) if type_ == "fact" else None
    if denied:
        # The value with "not" the prompt asks not to answer ("not vegan"), as the prompt's denial: current,
        # it would stand beside the diet it denies.
        value, historical = denied, True
    candidate = Candidate(
        type=type_,
        key=key,
        value=value[:500],
        content=content[:1000],
        confidence=confidence,
        importance=_importance(type_, key, historical, about_another=subject != "user" or named is not None),
        source_message_id=source["id"],
        raw_quote=raw_quote[:1000],
        subject=subject,
        historical=historical,
        ends_only=historical and (denied is not None or _flag(item.get("ends_only"))),
        corrects=None if historical else _text(item.get("corrects"))[:500] or None,
        only_replacing=None if historical else _text(item.get("only_replacing"))[:500] or None,
        happened=_when(item.get("when"), raw_quote),
    )
    # Not bounded as answered: "<a participant's 68-character name>_city" is their city, once placed (the pipeline
    # files only what jobs.within_key_bound keeps).
    return placed(candidate, [m["subject"] for m in [*history, *messages] if m.get("subject")], known or {})


def _when(words: Any, quote: str) -> str | None:
    """The times the model's `when` names, as the offline rules keep a clause's (time_phrases.named), when
    the words the memory quotes say them: a time the user did not say is not heard, nor one said of
    something else ("I live in Paris and I've been vegan since 2019": not the city's)."""
    said = _text(words)
    if not said or not literal.says(said, quote, ignore_case=True, spaced=True):
        return None
    return time_phrases.named(said)


# A value a model answers as denied ("not vegan", "no longer a smoker"), historical or not: the prompt's
# denial is the value itself, historical and ends_only, as the offline rules file "I'm not vegan."
# (corrections.diet_denied). A status of one word, lower case ("gluten-free" is one): not a title ("No
# Longer at Ease") nor what a phrase says ("no longer drinks alcohol", kept as the model filed it).
_DENIED = re.compile(r"(?i:not|no longer)\s+(?:(?i:an?)\s+)?(?P<value>[a-z][\w-]*)")


def _denied(value: str) -> str | None:
    """The value a denied one denies ("vegan" of "not vegan"), or None when it is no denial."""
    match = _DENIED.fullmatch(value)
    return match.group("value") if match else None


def _about(said: str, source: dict[str, Any], conversation: list[dict[str, Any]]) -> tuple[str, str | None]:
    """Who a fact is about, from the subject the model answered, and the person it names when that
    is someone only mentioned: the participant it names (as they are named in `conversation`), or
    the user (by any of their names); anyone else is named in a fact of whoever said it."""
    speaker = source.get("subject") or "user"
    if said.casefold() in USER_SUBJECTS:
        # What another participant says of "me" is about them, whatever the model answered.
        return speaker, None
    participants = {m["subject"].casefold(): m["subject"] for m in conversation if m.get("subject")}
    if said.casefold() in participants:
        return participants[said.casefold()], None
    if any(m["role"] == "user" and not m.get("subject") and (m.get("name") or "").strip().casefold() == said.casefold()
           for m in conversation):
        return "user", None
    return speaker, said[:80]


def _naming(key: str, person: str, relation: str | None = None) -> str:
    """`key` naming `person`, someone only mentioned, so that it never collides with the key of a
    fact of the user's own: "partner_sam_role" for "role" or "sam_role" when Sam is the partner
    (`relation`), else "sam_role"; a key that names them already ("partner_sam_role") as it is."""
    name = subject_prefix(person)
    if name and relation and key.startswith(f"{name}_"):
        return relation_key(relation, key)
    if not name or f"_{name}_" in f"_{key}_":
        return key
    return relation_key(f"{relation} {person}", key) if relation else subject_key(person, key)


def _snake_case(key: str) -> bool:
    """Whether `key` is words of lowercase letters and digits (of any script, as jobs.key_words spells a
    name: "sister_zoë_city") joined by underscores, not opening with a digit."""
    return bool(key) and key == "_".join(key_words(key)) and not key[0].isdigit()


def _key(item: dict[str, Any]) -> str:
    """An item's key (_said_key) as the families file it where it is an alias of theirs ("current_city":
    city, aliases.py)."""
    return aliases.canonical(_said_key(item))


def _said_key(item: dict[str, Any]) -> str:
    """An item's key in snake_case, as a model may space or hyphenate it ("pet-dog name")."""
    return re.sub(r"[\s\-]+", "_", _text(item.get("key")).lower())


def _text(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, (int, float)):
        return str(value)
    return value.strip() if isinstance(value, str) else ""


def _confidence(value: Any) -> float | None:
    """The model's confidence as a number from 0 to 1, as small models also say it ("high", "90%");
    None when it is something else (the item is dropped: its other fields may be as garbled)."""
    if value is None or value == "":
        return DEFAULT_CONFIDENCE
    if isinstance(value, bool):
        return None
    scale = 1.0
    if isinstance(value, str):
        said = " ".join(value.lower().split())
        if said in CONFIDENCE_WORDS:
            return CONFIDENCE_WORDS[said]
        if said.endswith("%"):
            value, scale = said.removesuffix("%"), 100.0
    try:
        number = float(value) / scale
    except (TypeError, ValueError):
        return None
    if math.isnan(number):
        return None
    return min(1.0, max(0.0, number))


def _flag(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() in {"true", "yes", "1"})


def _source(reference: Any, quote: str, messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The user message an item came from: by its number, else by where its quote appears, else
    the only user message of the turn. Items pointing elsewhere (the assistant) are dropped."""
    users = [m for m in messages if m["role"] == "user"]
    index = None
    if isinstance(reference, int) and not isinstance(reference, bool):
        index = reference
    elif isinstance(reference, str) and reference.strip().strip("[]").isdigit():
        index = int(reference.strip().strip("[]"))
    if index is not None:
        if 0 <= index < len(messages) and messages[index]["role"] == "user":
            return messages[index]
        return None
    if quote:
        needle = " ".join(quote.casefold().split())
        holders = [m for m in users if needle in " ".join((m.get("content") or "").casefold().split())]
        if len(holders) == 1:
            return holders[0]
    return users[0] if len(users) == 1 else None


def quoted(quote: str, value: str, message: str) -> str:
    """The words `quote` stands for, as `message` says them: the model's quote where the message holds
    it (up to whitespace and case), else the message's sentence that holds the value (the one sharing
    the most words with the quote), else nothing; a quote is the user's words, never the model's."""
    if quote:
        # found as data, not compiled into a pattern (literal.py says why)
        found = next(literal.spans(quote, message, ignore_case=True, spaced=True), None)
        if found is not None:
            return message[found[0]:found[1]]
    # Whole words, in the quote as in the value: "Rex" is not in "Rexford", nor "2" in "2024".
    holders = [s for s in _SENTENCE.findall(message)
               if value.strip() and literal.says(value, s, ignore_case=True, spaced=True)]
    words = set(quote.casefold().split())
    return max(holders, key=lambda s: len(words & set(s.casefold().split())), default="")


def _importance(type_: str, key: str, historical: bool, about_another: bool) -> float:
    family = families.family_of(key)
    importance = family.importance if family is not None else TYPE_IMPORTANCE[type_]
    if historical:
        importance = min(importance, families.HISTORICAL_IMPORTANCE)
    if about_another:
        importance = min(importance, ABOUT_ANOTHER_IMPORTANCE)
    return importance
