"""The request shapes of the v1 wire contract, validated on the way in.

The edge validates and the domain trusts: every id, string, number and timestamp that reaches
Postgres is checked here, so nothing Postgres would refuse (or misread) gets past a request.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from datetime import datetime, timedelta, timezone
from typing import Annotated, Any, Literal, Mapping, Optional, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, StringConstraints, \
    ValidatorFunctionWrapHandler, field_validator, model_validator

from memex.config import load_settings
from memex.episodic import shows_nothing

MemoryType = Literal["episodic", "semantic", "procedural"]
SearchMode = Literal["hybrid", "bm25", "vector"]
# A memory listing's order: the latest written first (the default), or by `valid_from`, the earliest
# first (a year told late, "a turn dated February sent in December", in the order it happened).
ListOrder = Literal["written", "valid_from"]

ID_MAX_LENGTH = 256
LABEL_MAX_LENGTH = 256
# Besides letters, digits and their combining marks: what emails, URNs and slugs use. No "/"
# (an id must fit one path segment), no whitespace or control characters.
ID_PUNCTUATION = "_.:@+-"
METADATA_MAX_DEPTH = 16
METADATA_MAX_BYTES = 16_384
EARLIEST_TIME = datetime(1900, 1, 1, tzinfo=timezone.utc)
# Client clocks run ahead; a time further ahead than this would make a fact outrank every later one.
CLOCK_SKEW = timedelta(seconds=load_settings().max_clock_skew_seconds)


def wire_time(value: datetime) -> str:
    """A time as every answer sends it: RFC 3339 in UTC with `Z` (`2026-12-05T11:40:00.123456Z`),
    whatever the offset Postgres handed it back in, so a client compares the strings of any two
    routes as it compares the times."""
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


class FieldError(ValueError):
    """A problem inside a free-form JSON field; `path` says where, below the field itself."""

    def __init__(self, path: tuple[str, ...], message: str):
        super().__init__(message)
        self.path = path


UNPAIRED_SURROGATES = "must not contain unpaired surrogates (\\ud800-\\udfff)"


def what_is_wrong(detail: Mapping[str, Any]) -> str:
    """One of pydantic's problems with a field (an item of `ValidationError.errors()`) as a 422 words it,
    and a backfill's failed line: the check's own message, without pydantic's "Value error, "."""
    if detail.get("type") == "string_unicode":
        # Python's JSON parser lets "\ud800" through, which pydantic refuses in its own words.
        return UNPAIRED_SURROGATES
    message = detail["msg"].removeprefix("Value error, ")
    if detail.get("type") in ("too_short", "too_long"):
        # A list's bounds: "List should have at least 1 item after validation, not 0", after nothing the
        # caller sent (a string's bound is set in its type, which pydantic words in characters: Name).
        message = message.replace(" after validation", "")
    return message


def _storable(value: str) -> str:
    # Postgres text cannot hold U+0000, and its UTF-8 encoding has no form for a lone surrogate
    # (which Python's JSON parser lets through from "\ud800").
    if "\x00" in value:
        raise ValueError("must not contain the NUL character (U+0000)")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(UNPAIRED_SURROGATES) from None
    return value


def is_id(value: str) -> bool:
    """Whether `value` is a well-formed id: what every id field and path segment accepts."""
    return 0 < len(value) <= ID_MAX_LENGTH and all(
        ch in ID_PUNCTUATION or unicodedata.category(ch)[0] in "LMN" for ch in value
    )


# What is_id accepts, in words: said of an id refused in a field or in a path.
ID_RULE = f"1 to {ID_MAX_LENGTH} letters, digits or {' '.join(ID_PUNCTUATION)}"
# The ASCII characters is_id refuses, as the OpenAPI document's `pattern` of an id, for clients that check
# first: a class of \xHH escapes, which Python's re, ECMA-262 with or without the u flag and the Rust regex
# of JSON Schema validators read alike (a Unicode property class, \p{L}, is refused by Python's re and read
# as the characters "p{L}" by ECMA-262 without the u flag). What is refused beyond ASCII (a symbol, a non-ASCII space, a
# format character) it leaves to is_id, and Python's re reads its `$` as before a final newline too
# ("ada\n" matches there). tests/test_openapi.py holds it to is_id.
ID_PATTERN = r"^[^\x00-\x2a\x2c\x2f\x3b-\x3f\x5b-\x5e\x60\x7b-\x7f]+$"


def _id(value: str) -> str:
    if not is_id(value):
        raise ValueError(f"must be {ID_RULE}")
    return value


def _not_blank(value: str) -> str:
    # A memory of nothing but spaces is found by no question, and a question of nothing but spaces
    # asks nothing: refused where `min_length` alone would let them through. Invisible format
    # characters (zero-width space and joiner, BOM, soft hyphen) show nothing either.
    if shows_nothing(value):
        raise ValueError("must not be blank")
    return value


Text = Annotated[str, AfterValidator(_storable)]
Said = Annotated[str, AfterValidator(_storable), AfterValidator(_not_blank)]
# The pattern is the document's alone: is_id checks, so that a refusal words the rule (ID_RULE).
Id = Annotated[str, StringConstraints(min_length=1, max_length=ID_MAX_LENGTH), AfterValidator(_id),
               Field(json_schema_extra={"pattern": ID_PATTERN})]
# What an erasure keeps of an id (erased_digest, migration 0059): a sha256, in lowercase hex.
Digest = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
# The most `imported_from_digests` an import line carries (ImportedTurn).
IMPORTED_FROM_MAX = 16
# A participant's name, an idempotency key: text of at most LABEL_MAX_LENGTH characters. The bounds
# stand in the type before its check, where pydantic counts characters; set by Field on an Optional
# text they were counted as "items" ("Value should have at most 256 items after validation").
Name = Annotated[str, StringConstraints(max_length=LABEL_MAX_LENGTH), AfterValidator(_storable)]
Label = Annotated[str, StringConstraints(min_length=1, max_length=LABEL_MAX_LENGTH), AfterValidator(_storable)]


def _not_boolean(value: Any) -> Any:
    # pydantic takes true for 1 and false for 0: "top_k": true would ask for one result.
    if isinstance(value, bool):
        raise ValueError(f"must be a number, not {json.dumps(value)}")
    return value


# Every number of a request, `Number[int]`, `Number[Optional[float]]` (around the Optional: inside one,
# Field's bounds went missing from the JSON schema): a JSON number, or a string of one as pydantic reads
# it, never true or false.
_T = TypeVar("_T")
Number = Annotated[_T, BeforeValidator(_not_boolean)]


def _true_or_false(value: Any) -> Any:
    # pydantic takes 1, "yes", "on", "t" for true (and 0, "no", "off", "f" for false): a number is no
    # flag, as a flag is no number (Number); nor is a string, in JSON, which has true and false.
    if isinstance(value, bool):
        return value
    raise ValueError(f"must be true or false, not {json.dumps(value)[:64]}")


def _word_true_or_false(value: Any) -> Any:
    # A query string has no booleans but its words.
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return _true_or_false(value)


# Every true-or-false field of a request's JSON: a body's, an MCP tool's arguments; but the seed routes',
# which take what the seeds took (SeedSearchIn, SeedRecallIn).
Flag = Annotated[bool, BeforeValidator(_true_or_false)]
# Every true-or-false parameter of a query string: "true" or "false", in any case.
QueryFlag = Annotated[bool, BeforeValidator(_word_true_or_false)]


def _path_part(key: Any) -> str:
    # A hostile key is shown escaped and cut short, never echoed raw.
    return json.dumps(str(key))[1:-1][:64]


def _check_json(value: Any, path: tuple[str, ...]) -> None:
    if len(path) > METADATA_MAX_DEPTH:
        raise FieldError(path, f"is nested deeper than {METADATA_MAX_DEPTH} levels")
    if isinstance(value, str):
        try:
            _storable(value)
        except ValueError as exc:
            raise FieldError(path, str(exc)) from None
    elif isinstance(value, float) and not math.isfinite(value):
        # jsonb has no NaN or Infinity, though Python's JSON parser accepts them.
        raise FieldError(path, "must be a finite number")
    elif isinstance(value, dict):
        for key, item in value.items():
            inner = (*path, _path_part(key))
            try:
                _storable(key)
            except ValueError as exc:
                raise FieldError(inner, f"key {exc}") from None
            _check_json(item, inner)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_json(item, (*path, str(index)))


def _storable_json(value: dict[str, Any]) -> dict[str, Any]:
    _check_json(value, ())
    if len(json.dumps(value, ensure_ascii=False).encode()) > METADATA_MAX_BYTES:
        raise ValueError(f"must be at most {METADATA_MAX_BYTES} bytes as JSON")
    return value


Metadata = Annotated[dict[str, Any], AfterValidator(_storable_json)]


def _plausible_time(value: Optional[datetime]) -> Optional[datetime]:
    if value is None:
        return None
    # A timestamp without an offset is taken as UTC rather than the server's local zone.
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    try:
        value = value.astimezone(timezone.utc)
    except OverflowError:
        raise ValueError("is out of range") from None
    if value < EARLIEST_TIME:
        raise ValueError(f"must not be before {EARLIEST_TIME.date().isoformat()}")
    if value > datetime.now(timezone.utc) + CLOCK_SKEW:
        raise ValueError(f"must not be more than {int(CLOCK_SKEW.total_seconds())} s ahead of the server's clock")
    return value


def _asked_time(value: Optional[datetime]) -> Optional[datetime]:
    """A search's or recall's `reference_time` or `as_of`, checked as any time, in the offset it was
    sent with: the user's zone, in which a question's "yesterday" and recall's "(said …)" days are
    read (a timestamp without one stays UTC, as before)."""
    checked = _plausible_time(value)
    if checked is None or value.tzinfo is None:
        return checked
    # datetime's own fixed-offset zone, not pydantic's TzInfo: the arithmetic of a search stays fast
    return checked.astimezone(timezone(value.utcoffset()))


# A number of seconds since 1970, which the wire reads as a time too (a JSON number or a string of
# digits): an instant, with no offset of the user's.
_SECONDS = re.compile(r"[+-]?\d+(?:\.\d*)?")


def _sent_time(value: Any, handler: ValidatorFunctionWrapHandler) -> Optional[datetime]:
    """A turn's `timestamp`, parsed once and checked as any time, in the offset it was sent with; naive
    (read as UTC by TurnIn) when it carries none: a time without an offset, a number of seconds, or
    RFC 3339's "-00:00" (UTC known, the local offset not), none of which says the user's zone."""
    parsed = handler(value)
    checked = _plausible_time(parsed)
    if checked is None:
        return None
    offset = parsed.utcoffset()
    if isinstance(value, str):
        said = not _SECONDS.fullmatch(value) and not value.endswith("-00:00")
    else:
        said = isinstance(value, datetime)  # not a number
    if offset is None or not said:
        return checked.replace(tzinfo=None)
    return checked.astimezone(timezone(offset))


class _Strict(BaseModel):
    # Unknown fields are refused so that a typo ("usr_id") is reported, not silently ignored;
    # NaN and Infinity, which Python's JSON parser accepts, are no number a client means.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class MessageIn(_Strict):
    role: Literal["user", "assistant", "system", "tool"]
    # Empty as a conversation may send it (an assistant message that only called a tool): stored as
    # sent, as a blank one is, rather than refusing the turn and the user's lines beside it.
    content: Text
    name: Optional[Name] = None
    metadata: Metadata = Field(default_factory=dict)


class TurnIn(_Strict):
    user_id: Id
    session_id: Id
    agent_id: Optional[Id] = None
    messages: list[MessageIn] = Field(min_length=1, max_length=1000)
    timestamp: Optional[datetime] = None
    metadata: Metadata = Field(default_factory=dict)
    idempotency_key: Optional[Label] = None
    # The `name` the user's own messages carry, in a conversation with other named participants:
    # a role-user message with another name is that participant's, and what they say of themselves
    # is remembered as theirs. Without it every role-user message is the user's.
    user_name: Optional[Label] = None

    # The offset from UTC the `timestamp` was sent with, in minutes; None for a timestamp that carries
    # none (_sent_time), or none: the user's zone, in which a search or recall without a reference time reads days
    # (user_zone.py). Not a field: `timestamp` is kept in UTC, so a turn sent again with its
    # idempotency key hashes as it did before (db/turns._payload_hash).
    _utc_offset: Optional[int] = PrivateAttr(default=None)

    _time = field_validator("timestamp", mode="wrap")(_sent_time)

    @model_validator(mode="after")
    def _offset_sent(self) -> "TurnIn":
        if self.timestamp is not None:
            sent = self.timestamp.utcoffset()
            self._utc_offset = None if sent is None else round(sent.total_seconds() / 60)
            self.timestamp = self.timestamp.astimezone(timezone.utc) if sent is not None else \
                self.timestamp.replace(tzinfo=timezone.utc)
        return self

    @property
    def utc_offset(self) -> Optional[int]:
        return self._utc_offset

    def subject_of(self, message: MessageIn) -> str | None:
        """Who said `message` when it is not the user: the participant's name, else None."""
        return speaker_subject(message.role, message.name, self.user_name)


class ImportedTurn(TurnIn):
    """A line of an import (`memex backfill`): a POST /v1/turns body, and, written by `memex export`, the
    id of the turn it was exported from, by which its user's import finds the turn stored, or erased, or
    stores it under that id again (db/backfills.insert_turns; docs/backfills.md, Export)."""

    turn_id: Optional[Id] = None
    # What the turn it was exported from kept of the ids it was imported from in its turn (`imported_from_digests`,
    # salted with its user): the turn this line stores keeps them, and its erasure with it, so that a restore of an
    # older backup naming one of them finds it erased. Digests alone, as erased_digest makes them (migration 0059):
    # a line keeps no id in clear through them; and few, as a turn keeps one for the import that moved it.
    imported_from_digests: list[Digest] = Field(default=[], max_length=IMPORTED_FROM_MAX)


# Names that mean the user themself, never another participant.
USER_SUBJECTS = frozenset({"", "user", "the user", "me", "i", "myself", "self"})


def speaker_subject(role: str, name: str | None, user_name: str | None) -> str | None:
    """The participant a message of a turn is from, or None for the user (and for anything said
    by the assistant, a system or a tool, which is not a participant's own statement)."""
    if role != "user" or user_name is None or not name or not name.strip():
        return None
    if name.strip().casefold() == user_name.strip().casefold() or name.strip().casefold() in USER_SUBJECTS:
        return None
    return name.strip()


def sent_user_name(messages: list[dict[str, Any]]) -> str | None:
    """A `user_name` under which `messages` (each `role`, `name` and the `subject` it was stored with)
    are said by whom they were: `user_name` is kept only in its messages' subjects. None when every one
    is the user's; else the name a role-user message of the user's own carries, or "user" when none of
    theirs is named (under it every named one is a participant's, as it was)."""
    if not any(m["subject"] for m in messages):
        return None
    return next((m["name"].strip() for m in messages if m["role"] == "user" and not m["subject"] and m["name"]
                 and m["name"].strip().casefold() not in USER_SUBJECTS), "user")


class MemoryIn(_Strict):
    user_id: Id
    agent_id: Optional[Id] = None
    session_id: Optional[Id] = None
    content: Said = Field(min_length=1)
    memory_type: MemoryType = "semantic"
    importance: Number[float] = Field(default=0.5, ge=0.0, le=1.0)
    metadata: Metadata = Field(default_factory=dict)


class MemoryPostIn(MemoryIn):
    """`POST /v1/memories`: the memex seed's scale of importance went above 1 (its documented
    example sends 1.2), so a larger number is accepted there and stored as 1, the top of memex's."""

    importance: Number[float] = Field(default=0.5, ge=0.0, description="0 to 1; above 1 counts as 1")

    @field_validator("importance")
    @classmethod
    def _at_most_one(cls, value: float) -> float:
        return min(value, 1.0)


class SearchFilters(_Strict):
    memory_type: Optional[MemoryType] = None
    session_id: Optional[Id] = None
    # "user" for the user's own memories, or a participant's name (case-insensitive).
    subject: Optional[Label] = None
    metadata: Optional[Metadata] = None
    # The search's `as_of`, carried with the filters it narrows: every statement of a search gets its
    # scope from them (db/memories._scope). Not on the wire: set by `held_at`.
    _as_of: Optional[datetime] = PrivateAttr(default=None)

    @property
    def as_of(self) -> Optional[datetime]:
        return self._as_of

    def held_at(self, as_of: Optional[datetime]) -> "SearchFilters":
        """These filters over the memories that held at `as_of` (None: those that hold now)."""
        narrowed = self.model_copy()
        narrowed._as_of = as_of
        return narrowed


def _reference_time_as_of(request: Any) -> Any:
    # Read as it stood at `as_of`, a question's "now" is then: recency and "last week" from there.
    if request.as_of is not None and request.reference_time is None:
        request.reference_time = request.as_of
    return request


class SearchIn(_Strict):
    user_id: Id
    query: Said = Field(min_length=1, max_length=10_000)
    agent_id: Optional[Id] = None
    top_k: Number[int] = Field(default=10, ge=1, le=100)
    alpha: Number[Optional[float]] = Field(default=None, ge=0.0, le=1.0)
    # From about a quarter of an hour to a century: shorter ones make every memory's recency 0.
    half_life_days: Number[Optional[float]] = Field(default=None, ge=0.01, le=36_500)
    reference_time: Optional[datetime] = None
    filters: SearchFilters = Field(default_factory=SearchFilters)
    include_inactive: Flag = False
    mode: SearchMode = "hybrid"
    # Memory as it stood then: docs/api.md, "What a request may carry" (Times).
    as_of: Optional[datetime] = None

    _time = field_validator("reference_time", "as_of")(_asked_time)
    _now = model_validator(mode="after")(_reference_time_as_of)


class SeedSearchIn(SearchIn):
    """`POST /search`, the memory-service seed's search: `SearchIn`'s fields, its flag read as the seed read
    it, pydantic's bool ("true", 1, "yes"): a compatibility route takes what the seed took."""

    include_inactive: bool = False


class MemexSeedSearchIn(_Strict):
    """`POST /v1/memories/search`, the memex seed's search: its fields, meaning what they mean in
    `SearchIn` (alpha and its default are memex's: relevance against recency, 0.95)."""

    agent_id: Optional[Id] = None
    user_id: Id
    query: Said = Field(min_length=1, max_length=10_000)
    top_k: Number[int] = Field(default=10, ge=1, le=100)
    alpha: Number[Optional[float]] = Field(default=None, ge=0.0, le=1.0)

    def to_search(self) -> SearchIn:
        return SearchIn(**self.model_dump())


class RecallIn(_Strict):
    user_id: Id
    query: Said = Field(min_length=1, max_length=10_000)
    session_id: Optional[Id] = None
    agent_id: Optional[Id] = None
    max_tokens: Number[int] = Field(default=1024, ge=64, le=32_000)
    reference_time: Optional[datetime] = None
    require_relevant: Flag = Field(default=False, description=(
        "true: a query that finds no memory gets an empty context, without the user's facts and the "
        "session's latest messages (the memory-service seed's recall, where noise questions return nothing)"))
    as_of: Optional[datetime] = None

    _time = field_validator("reference_time", "as_of")(_asked_time)
    _now = model_validator(mode="after")(_reference_time_as_of)


class SeedRecallIn(RecallIn):
    """`POST /recall`, the memory-service seed's recall: its fields, and its answer to a question about
    nothing the user said, an empty context."""

    # As the seed read it, pydantic's bool ("true", 1, "yes"): a compatibility route takes what the seed took.
    require_relevant: bool = True
