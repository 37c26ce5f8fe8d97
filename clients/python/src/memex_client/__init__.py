"""A Python client for memex, long-term memory for AI agents: `MemexClient`, `AsyncMemexClient`."""

from memex_client.client import DEFAULT_BASE_URL, AsyncMemexClient, MemexClient, __version__
from memex_client.errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InvalidInputError,
    MemexError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    ServiceUnavailableError,
    UnexpectedResponseError,
)
from memex_client.models import (
    Backfill,
    BackfillFailure,
    BackfillPage,
    Citation,
    Erasure,
    Health,
    Memory,
    MemoryHistory,
    MemoryPage,
    Message,
    RecallResponse,
    ScoreParts,
    SearchFilters,
    SearchHit,
    SearchResponse,
    Session,
    SessionMessage,
    SessionMessagePage,
    SessionPage,
    Source,
    TurnMessage,
    TurnPage,
    TurnResult,
    UserTurn,
)
from memex_client.retries import RetryPolicy

__all__ = [
    "DEFAULT_BASE_URL", "AsyncMemexClient", "MemexClient", "RetryPolicy", "__version__",
    "APIConnectionError", "APIError", "APITimeoutError", "AuthenticationError", "BadRequestError", "ConflictError",
    "InvalidInputError", "MemexError", "NotFoundError", "PayloadTooLargeError", "PermissionDeniedError",
    "RateLimitError", "ServerError", "ServiceUnavailableError", "UnexpectedResponseError",
    "Backfill", "BackfillFailure", "BackfillPage", "Citation", "Erasure", "Health", "Memory", "MemoryHistory", "MemoryPage", "Message",
    "RecallResponse", "ScoreParts", "SearchFilters", "SearchHit", "SearchResponse", "Session", "SessionMessage",
    "SessionMessagePage", "SessionPage",
    "Source", "TurnMessage", "TurnPage", "TurnResult", "UserTurn",
]
