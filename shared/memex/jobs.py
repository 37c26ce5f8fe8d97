"""The messages the workers exchange over the queues, and their strict parsing.

A body that does not parse is a poison message: parsing raises ValueError, the worker reports
that record as failed, and after maxReceiveCount deliveries the queue moves it to its DLQ.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from dataclasses import asdict, dataclass
from typing import Any, Iterable


@dataclass(frozen=True)
class ExtractionJob:
    tenant_id: str
    turn_id: str

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, body: str) -> "ExtractionJob":
        data = _object(body)
        return cls(tenant_id=_text(data, "tenant_id"), turn_id=_text(data, "turn_id"))


@dataclass(frozen=True)
class Candidate:
    """A semantic memory proposed by extraction, waiting for the supersession decision."""

    type: str
    key: str
    value: str
    content: str
    confidence: float
    importance: float
    source_message_id: str | None
    raw_quote: str = ""
    # Who the fact is about: "user", or the name of another person in the conversation.
    subject: str = "user"
    # A statement about the past ("I used to live in Paris"): history, not the current value.
    historical: bool = False
    # For a correction ("Rollo, not Rolo"): the wrong value it replaces, even under a key that
    # holds several values.
    corrects: str | None = None
    # Said of a name that may be no fact at all ("I left Feedzai." / "I left Tom."): kept only if it
    # names the current value, which it then ends (supersession.left_alone).
    ends_only: bool = False
    # Said of a change between two names that may be no job at all ("I switched from Adobe to
    # Figma": an employer's, or a tool's): the old name. The candidate is kept only if that name is
    # the current value, which it then replaces (supersession.left_alone).
    only_replacing: str | None = None
    # For a fact said with its own time ("I moved to Paris last week", "We got divorced in 2010"): those
    # words (time_phrases.named). Read against the turn's time, they say when it began to hold rather than
    # when it was said, and a time far back places it in the user's history at that time (timeline.py).
    happened: str | None = None
    # What read it from the messages, as /health names the extractor ("offline-rules", "llm:<model>"):
    # the rules stand in for an LLM that gives no answer, and a user who wants the LLM's reading of
    # such facts needs to find them (memex backfill --reextract). None on candidates stored before.
    extractor: str | None = None

    @property
    def base_key(self) -> str:
        """The key without its subject's prefix ("likes" for "melanie_likes"): what kind of fact it is."""
        return own_key(self.subject, self.key)


def subject_prefix(subject: str) -> str:
    """What prefixes the keys of a participant's facts ("melanie" for "Melanie"; nothing for the
    user): another person's city is not the user's city, and every fact keyed by its key (its
    history, its dedupe key, its erasure tombstone) stays apart from the user's."""
    if subject == "user":
        return ""
    return "_".join(key_words(subject))


def key_words(text: str) -> list[str]:
    """The words of `text` as a key spells them: casefolded runs of letters, marks and digits of any
    script, every other character a break. ASCII alone ("[a-z0-9]+") dropped the other letters of a
    name: Zoë's keys began "zo", Łukasz's "ukasz", and Θεοδώρα's nothing."""
    folded = unicodedata.normalize("NFC", text).casefold()
    return "".join(c if unicodedata.category(c)[0] in "LMN" else " " for c in folded).split()


# The longest key a fact is filed under, by either extractor: a key is in several b-tree indexes (the dedupe
# key's, the user's keys in order, the tombstones'), whose entries Postgres refuses past ~2,700 bytes, and the
# offline rules build some from the words said ("My favourite <950 Han letters> is Alien." made a 2,889-byte
# key, and its turn failed at every delivery).
KEY_MAX_CHARS = 64


def within_key_bound(candidates: Iterable[Candidate]) -> list[Candidate]:
    """Those of `candidates` a fact may be filed under: a key past KEY_MAX_CHARS, once placed (subject_key),
    names no kind of fact a question asks by."""
    return [c for c in candidates if len(c.key) <= KEY_MAX_CHARS]


# How many hex digits of a SHA-256 of a subject's prefix stand for it in a key its whole prefix does not fit
# (subject_key): 32 bits, for the few participants of one user whose shortened names read the same.
KEY_DIGEST_CHARS = 8


def subject_key(subject: str, key: str) -> str:
    """`key` (a kind of fact, or one of `subject`'s keys already) as the key of `subject`'s fact: their
    prefix and the kind. A key that would be longer than KEY_MAX_CHARS keeps the kind whole and shortens
    the prefix to the whole words of it that fit and a digest of all of it: a participant with a 68-character
    name has "bartholomew_…_be47ecc9_city" and "…_be47ecc9_pet_rex_name", two keys, and redelivery or re-extraction
    gives the same. (Cut at the bound instead, both were "bartholomew_…_smythe_j": one fact superseded the
    other.) A kind too long for even a digest before it gives a key past the bound, which no fact is filed
    under (within_key_bound drops it)."""
    prefix = subject_prefix(subject)
    if not prefix:
        return key
    own = own_key(subject, key)
    whole = f"{prefix}_{own}"
    room = KEY_MAX_CHARS - len(own) - KEY_DIGEST_CHARS - 1
    if len(whole) <= KEY_MAX_CHARS or room < 0:
        return whole
    # The whole words that fit with their "_" (a word cut short may read as another: "partner" of "partnership").
    words = prefix[:room].rpartition("_")[0]
    return f"{words}_{_digest(prefix)}_{own}" if words else f"{_digest(prefix)}_{own}"


def own_key(subject: str, key: str) -> str:
    """`key` of `subject`'s fact without their prefix, whole or shortened (subject_key): the kind of fact
    ("city" of "melanie_city"); a key without it as it is."""
    prefix = subject_prefix(subject)
    if not prefix:
        return key
    if key.startswith(prefix + "_"):
        return key[len(prefix) + 1:]
    words, mark, own = key.partition(f"{_digest(prefix)}_")
    return own if mark and own and (not words or (prefix + "_").startswith(words)) else key


def _digest(prefix: str) -> str:
    return hashlib.sha256(prefix.encode()).hexdigest()[:KEY_DIGEST_CHARS]


def user_hash(tenant_id: str, user_id: str) -> str:
    """A user named without their ids: the supersession queue's group id, and how a log line names them."""
    return hashlib.sha256(json.dumps([tenant_id, user_id]).encode()).hexdigest()


@dataclass(frozen=True)
class SupersessionJob:
    """Decide the candidates extraction stored on the turn. Ids only: what the user said never
    sits in a queue or a DLQ, and erasing the turn leaves nothing for a late message to act on."""

    tenant_id: str
    user_id: str
    turn_id: str
    # How many times the sweep sent this turn again: part of the FIFO deduplication id, so that a
    # re-send is not dropped as a copy of the lost message, while redeliveries of one are.
    resend: int = 0

    @property
    def group_id(self) -> str:
        """One user's decisions are serialised; different users proceed in parallel. A hash, since
        SQS takes at most 128 printable ASCII characters here and ids may hold any others."""
        return user_hash(self.tenant_id, self.user_id)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, body: str) -> "SupersessionJob":
        data = _object(body)
        resend = data.get("resend", 0)
        if not isinstance(resend, int) or isinstance(resend, bool) or resend < 0:
            raise ValueError("resend must be a non-negative integer")
        return cls(tenant_id=_text(data, "tenant_id"), user_id=_text(data, "user_id"), turn_id=_text(data, "turn_id"),
                   resend=resend)


@dataclass(frozen=True)
class BackfillJob:
    """One chunk of a bulk job. `offset` is where this chunk starts (for an import, a byte offset
    into the source, where a line begins; otherwise the last id done); a job re-enqueues itself
    with the next offset until the work is done."""

    kind: str  # "import", "reembed" or "reextract"
    tenant_id: str
    backfill_id: str
    path: str | None = None
    s3_uri: str | None = None
    user_id: str | None = None
    offset: str = ""

    @property
    def source(self) -> str | None:
        return self.s3_uri or self.path

    def next(self, offset: str) -> "BackfillJob":
        return BackfillJob(self.kind, self.tenant_id, self.backfill_id, self.path, self.s3_uri, self.user_id, offset)

    def to_json(self) -> str:
        return json.dumps({k: v for k, v in asdict(self).items() if v not in (None, "")})

    @classmethod
    def from_json(cls, body: str) -> "BackfillJob":
        data = _object(body)
        kind = _text(data, "kind")
        if kind not in ("import", "reembed", "reextract"):
            raise ValueError("kind must be import, reembed or reextract")
        if kind == "import" and not (data.get("path") or data.get("s3_uri")):
            raise ValueError("an import needs a path or an s3_uri")
        optional = {name: data.get(name) for name in ("path", "s3_uri", "user_id")}
        for name, value in optional.items():
            if value is not None and not isinstance(value, str):
                raise ValueError(f"{name} must be a string")
        offset = data.get("offset") or ""
        if not isinstance(offset, str) or (kind == "import" and offset and not offset.isdecimal()):
            raise ValueError("offset must be a string (for an import, a byte offset)")
        return cls(kind=kind, tenant_id=_text(data, "tenant_id"), backfill_id=_text(data, "backfill_id"),
                   offset=offset, **optional)


def _object(body: str) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except (TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"body is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError("body is not a JSON object")
    return data


def _text(data: dict[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a non-empty string")
    return value
