"""The services one execution environment shares: settings, database, embedder, publisher, metrics."""

from __future__ import annotations

from dataclasses import dataclass, field

from memex.config import Settings
from memex.db.connection import Database
from memex.embeddings.base import Embedder
from memex.extraction import Extractor, OfflineOnFirstUse
from memex.metrics import NoMetrics
from memex.ports import Metrics, Publisher
from memex.supersession import Judge


@dataclass
class Context:
    settings: Settings
    db: Database
    embedder: Embedder
    publisher: Publisher
    extractor: Extractor
    judge: Judge
    metrics: Metrics = field(default_factory=NoMetrics)
    # What extracts a turn whose LLM extraction fails on its job's last delivery, rather than none.
    rules: Extractor = field(default_factory=OfflineOnFirstUse)
