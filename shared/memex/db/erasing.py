"""Whether a user is being erased: the mark (user_erasures, migration 0034) a user's erasure sets in its
first transaction and clears in its last (db/erasure.py), as SQL: a search's first round trip and a
turn's tenant check fold it into a statement they run anyway, a worker's turns and a re-embedding's
rows are read or written only where their user is unmarked, and the other routes ask it on its own
(erasure.refuse_if_erasing). A request refuses such a user (409); a worker, an import, a consolidation or a
re-embedding skips their rows as it skips rows erased meanwhile: what it read before the mark is not
written, and the message that brought it is done, not retried."""

from __future__ import annotations

from typing import Any

from memex.errors import UserBeingErased

# Whether the user named by the parameters %(t)s (tenant) and %(u)s (user) is being erased.
MARKED = "EXISTS (SELECT 1 FROM user_erasures WHERE tenant_id = %(t)s AND user_id = %(u)s)"


def unmarked(alias: str) -> str:
    """A condition on the rows `alias` (with tenant_id and user_id): their user is not being erased."""
    return (f"NOT EXISTS (SELECT 1 FROM user_erasures e WHERE e.tenant_id = {alias}.tenant_id"
            f" AND e.user_id = {alias}.user_id)")


def refuse(row: dict[str, Any], user_id: str) -> None:
    """UserBeingErased when a row read with `MARKED AS erasing` says the user is being erased."""
    if row["erasing"]:
        raise UserBeingErased.of(user_id)
