"""The request shapes of the v1 wire contract, validated on the way in."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator

Id = Field(min_length=1, max_length=256)
MemoryType = Literal["episodic", "semantic", "procedural"]
SearchMode = Literal["hybrid", "bm25", "vector"]


def _as_utc(value: Optional[datetime]) -> Optional[datetime]:
    # A timestamp without an offset is taken as UTC rather than the server's local zone.
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value


class _Strict(BaseModel):
    # Unknown fields are refused so that a typo ("usr_id") is reported, not silently ignored.
    model_config = ConfigDict(extra="forbid")


class MessageIn(_Strict):
    role: Literal["user", "assistant", "system", "tool"]
    content: str = Field(min_length=1)
    name: Optional[str] = Field(default=None, max_length=256)
    metadata: dict[str, Any] = Field(default_factory=dict)


class TurnIn(_Strict):
    user_id: str = Id
    session_id: str = Id
    agent_id: Optional[str] = Field(default=None, min_length=1, max_length=256)
    messages: list[MessageIn] = Field(min_length=1, max_length=1000)
    timestamp: Optional[datetime] = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    idempotency_key: Optional[str] = Field(default=None, min_length=1, max_length=256)

    _utc = field_validator("timestamp")(_as_utc)


class MemoryIn(_Strict):
    user_id: str = Id
    agent_id: Optional[str] = Field(default=None, min_length=1, max_length=256)
    session_id: Optional[str] = Field(default=None, min_length=1, max_length=256)
    content: str = Field(min_length=1)
    memory_type: MemoryType = "semantic"
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    metadata: dict[str, Any] = Field(default_factory=dict)


class SearchFilters(_Strict):
    memory_type: Optional[MemoryType] = None
    session_id: Optional[str] = None
    metadata: Optional[dict[str, Any]] = None


class SearchIn(_Strict):
    user_id: str = Id
    query: str = Field(min_length=1, max_length=10_000)
    agent_id: Optional[str] = None
    top_k: int = Field(default=10, ge=1, le=100)
    alpha: Optional[float] = Field(default=None, ge=0.0, le=1.0)
    half_life_days: Optional[float] = Field(default=None, gt=0)
    reference_time: Optional[datetime] = None
    filters: SearchFilters = Field(default_factory=SearchFilters)
    include_inactive: bool = False
    mode: SearchMode = "hybrid"

    _utc = field_validator("reference_time")(_as_utc)


class RecallIn(_Strict):
    user_id: str = Id
    query: str = Field(min_length=1, max_length=10_000)
    session_id: Optional[str] = None
    agent_id: Optional[str] = None
    max_tokens: int = Field(default=1024, ge=64, le=32_000)
    reference_time: Optional[datetime] = None

    _utc = field_validator("reference_time")(_as_utc)
