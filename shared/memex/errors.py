"""Domain errors; the HTTP edge maps each to its status and `{"error": {code, message}}`."""


def public_description(exc: BaseException) -> str:
    """What a client may be told of an internal failure: its kind. Its text can hold hosts, URLs,
    SQL or memory content, so it goes to the log only."""
    return type(exc).__name__


class MemexError(Exception):
    status = 500
    code = "internal_error"

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


class IdempotencyConflict(MemexError):
    status = 409
    code = "idempotency_conflict"
