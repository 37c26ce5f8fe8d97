"""Migration 0057: the memories written before migration 0054 that hold an emoji, indexed again with its
memex_text (emoji as words): db/reindex_words.py, over the class of pictographs 0054 reads."""

from __future__ import annotations

import psycopg

from memex import emoji
from memex.db import reindex_words


def migrate(cur: psycopg.Cursor, until: float | None = None) -> bool:
    return reindex_words.reindex(cur, f"[{emoji.PICTOGRAPH}]", until)
