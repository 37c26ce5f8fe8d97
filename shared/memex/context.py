"""The services one execution environment shares: settings, database, embedder, publisher."""

from __future__ import annotations

from dataclasses import dataclass

from memex.config import Settings
from memex.db.connection import Database
from memex.embeddings.base import Embedder
from memex.extraction import Extractor
from memex.ports import Publisher
from memex.supersession import Judge


@dataclass
class Context:
    settings: Settings
    db: Database
    embedder: Embedder
    publisher: Publisher
    extractor: Extractor
    judge: Judge
