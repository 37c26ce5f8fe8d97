"""One Powertools Logger, Tracer and Metrics setup shared by every function.

The Logger is the stdlib logger "memex": the layer's module loggers (memex.pipeline, memex.llm,
...) are its children and propagate to it, so their lines come out in its JSON format, with the
Lambda context and the request's correlation id, without a configuration of their own (copying
the configuration to them would only cut them off from it). Each line names the module that
wrote it (`name`). Other libraries' loggers are left alone: httpx logs request URLs at INFO, and
an endpoint's URL may carry a credential.
"""

import functools
import logging
import warnings
from typing import Any, Callable

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics.functions import is_metrics_disabled

from memex.db.connection import connection_lost
from memex.llm import LLMError

# An invocation whose metrics all carry labels leaves the shared metric set empty (each labelled
# metric is its own EMF line, memex_edge.emf); that is normal, not worth a warning per process.
warnings.filterwarnings("ignore", message="No application metrics to publish")

def _failures(exc: BaseException | None) -> list[BaseException | None]:
    """`exc`, or each record's failure when an invocation failed every record."""
    # A batch's failure by its `child_exceptions` (Powertools' BatchProcessingError), not by its class:
    # importing the batch utilities cost every handler ~40 ms at a cold start, those that run no batch too.
    children = getattr(exc, "child_exceptions", None)
    return [error for _, error, _ in children] if children is not None else [exc]


def _named(errors: list[BaseException | None]) -> str:
    return "; ".join(dict.fromkeys(f"{type(error).__name__}: {error}" for error in errors))


def llm_outage(exc: BaseException | None) -> str | None:
    """The LLM's failures (an `LLMError` each: its kind, never the endpoint's URL or the model's answer)
    when `exc` is one, or an invocation failed every record for them, once each; None for any other
    failure."""
    errors = _failures(exc)
    if not errors or not all(isinstance(error, LLMError) for error in errors):
        return None
    return _named(errors)


def database_outage(exc: BaseException | None) -> str | None:
    """The database out of reach (`connection_lost`) when `exc` says so, or an invocation failed every
    record for it, once each; None for any other failure. A traceback a record says nothing more: with
    the server gone, `make dev`'s log grew by a traceback of each of a batch's records, a batch a second."""
    errors = _failures(exc)
    if not errors or not all(connection_lost(error) for error in errors):
        return None
    return _named(errors)


def warn_of_outage(log: logging.Logger | Logger, exc: BaseException | None, failed: str, then: str = "") -> bool:
    """Whether `exc` is an outage, the LLM's or the database's; if so, `failed` for it, said at WARNING naming
    its errors (no user's words), then `then`. Degraded or down, not a bug: one line, without the traceback
    that says nothing more (with the server gone, a traceback a record, a batch a second, filled make dev's log)."""
    if outage := llm_outage(exc):
        log.warning("%s for the LLM (%s)%s", failed, outage, then)
    elif outage := database_outage(exc):
        log.warning("%s, the database out of reach (%s)%s", failed, outage, then)
    else:
        return False
    return True


class _WithoutOutages(logging.Filter):
    """Powertools' Tracer logs every exception a traced function raises at ERROR with its traceback, an
    LLM outage's too, which is degraded, not down, and the database's: the workers say each once, at WARNING."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and (llm_outage(record.exc_info[1]) or database_outage(record.exc_info[1])))


logging.getLogger("aws_lambda_powertools.tracing.tracer").addFilter(_WithoutOutages())

logger = Logger(service="memex")
logger.append_keys(name="%(name)s")
tracer = Tracer(service="memex")
metrics = Metrics(namespace="Memex", service="memex")


def log_metrics(handler: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """Powertools' `log_metrics` with its cold-start metric. Powertools prints the cold-start line
    even when metrics are disabled (the local runtime, `memex invoke`), so it is asked for only
    when they are not."""

    @functools.wraps(handler)
    def run(event: Any, context: Any) -> Any:
        return metrics.log_metrics(handler, capture_cold_start_metric=not is_metrics_disabled())(event, context)

    return run
