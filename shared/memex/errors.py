"""Domain errors; the HTTP edge maps each to its status and `{"error": {code, message}}`."""


def public_description(exc: BaseException) -> str:
    """What a client may be told of an internal failure: its kind. Its text can hold hosts, URLs,
    SQL or memory content, so it goes to the log only."""
    return type(exc).__name__


class MemexError(Exception):
    status = 500
    code = "internal_error"
    retry_after: int | None = None  # seconds, sent as `Retry-After`: a request worth sending again then

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class NotFound(MemexError):
    status = 404
    code = "not_found"


class Unauthorized(MemexError):
    status = 401
    code = "unauthorized"


class TenantDeleted(Unauthorized):
    """A write for a tenant deleted (`memex tenants delete`) after its request was let in, or queued
    before: refused, so that nothing of the tenant is stored again."""


class InvalidInput(MemexError):
    status = 422
    code = "validation_error"


class UserBeingErased(MemexError):
    """A read or a write naming a user whose erasure began and has not finished (db/erasure.py)."""
    status = 409
    code = "user_being_erased"

    @classmethod
    def of(cls, user_id: str) -> "UserBeingErased":
        return cls(f"user {user_id} is being erased: DELETE /v1/users/{user_id} again goes on with it "
                   "and answers 200 once it has finished")


class AmbiguousSession(MemexError):
    """A session erased without its user (the memory-service seed's DELETE /sessions/{id}) whose id
    names sessions of several users: erasing them all is not what a caller naming one session meant."""
    status = 409
    code = "ambiguous_session"

    @classmethod
    def of(cls, session_id: str, users: int) -> "AmbiguousSession":
        return cls(f"session {session_id} is a session of {users} users of this tenant: send ?user_id= to erase "
                   f"one user's (DELETE /sessions/{session_id}?user_id=...)")


class IdempotencyConflict(MemexError):
    status = 409
    code = "idempotency_conflict"


class TurnErased(MemexError):
    """A turn sent again with the idempotency key of one its user erased (a session's erasure, or the user's):
    erasure is final, and a client's retry after it must not bring the turn back."""
    status = 409
    code = "turn_erased"

    @classmethod
    def of(cls, key: str) -> "TurnErased":
        return cls(f"idempotency_key {key!r} names a turn this user erased: it is not stored again (a new turn "
                   "takes a new key)")


class EmbedderUnavailable(MemexError):
    """What must be embedded before it is stored (a memory written directly) met an embedder that
    failed: nothing was stored, and the same request may be sent again."""
    status = 503
    code = "embedder_unavailable"
    retry_after = 5

    @classmethod
    def of(cls, exc: BaseException) -> "EmbedderUnavailable":
        return cls(f"the embedder is unavailable ({public_description(exc)}): nothing was stored; send it again "
                   "later, or as a turn, which is stored at once and embedded when the embedder answers")
