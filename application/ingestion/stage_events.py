"""Stage events: what each ingestion stage did, for logs, progress and tests."""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from functools import cache
from typing import Any

import attrs

from ...domain.errors import SheafError
from ...domain.text.undecodable_names import storable_name

logger = logging.getLogger("sheaf.ingest")
KEPT_EVENTS = 10_000
"""How many of the latest stage events a recorder keeps (about a thousand documents')."""


@attrs.frozen
class StageEvent:
    """One stage of one source: what ran, how long, and how it ended."""

    source: str
    stage: str
    outcome: str
    duration_ms: float
    document_id: str | None = None


def _tracer() -> Any:
    """OpenTelemetry's tracer when the `otel` extra is installed, else None."""
    trace = _trace_module()
    return trace.get_tracer("sheaf.ingest") if trace is not None else None


@cache
def _trace_module() -> Any:
    """`opentelemetry.trace`, or None: looked for once, not at every stage (a failed
    import searches the whole path each time)."""
    try:
        from opentelemetry import trace
    except ImportError:
        return None
    return trace


class StageRecorder:
    """Times stages and hands each event to the log, to an optional listener and, when
    OpenTelemetry is installed, to a span per stage."""

    def __init__(self, listener: Callable[[StageEvent], None] | None = None) -> None:
        # The latest events only: a long-running process ingests without end, and every
        # event kept would be memory that grew with the documents ingested.
        self.events: deque[StageEvent] = deque(maxlen=KEPT_EVENTS)
        self._listener = listener

    @contextmanager
    def stage(self, source: str, stage: str, document_id: str | None = None
              ) -> Iterator[dict[str, str]]:
        """Time a stage; the caller may set `outcome` in the yielded dict."""
        # Logs, spans and listeners take text: a file name that is not UTF-8 is escaped.
        source = storable_name(source)
        started = time.perf_counter()
        state = {"outcome": "ok"}
        tracer = _tracer()
        span_context = (tracer.start_as_current_span(f"sheaf.{stage}", attributes={
            "sheaf.source": source, "sheaf.document": document_id or ""})
            if tracer is not None else nullcontext())
        try:
            with span_context as span:
                yield state
                if span is not None:
                    span.set_attribute("sheaf.outcome", state["outcome"])
        except BaseException as exc:
            state["outcome"] = failed_outcome(exc)
            raise
        finally:
            self._emit(StageEvent(source, stage, state["outcome"],
                                  round((time.perf_counter() - started) * 1000, 2),
                                  document_id))

    def add(self, source: str, stage: str, duration_ms: float,
            document_id: str | None = None, *, outcome: str = "ok") -> None:
        """Record a stage timed elsewhere (in a child process, say): its span, when
        OpenTelemetry is installed, ends now and lasted `duration_ms`."""
        event = StageEvent(storable_name(source), stage, outcome, round(duration_ms, 2),
                           document_id)
        tracer = _tracer()
        if tracer is not None:
            now = time.time_ns()
            tracer.start_span(f"sheaf.{stage}", start_time=now - int(duration_ms * 1e6),
                              attributes={"sheaf.source": event.source,
                                          "sheaf.document": document_id or "",
                                          "sheaf.outcome": outcome}).end(end_time=now)
        self._emit(event)

    def _emit(self, event: StageEvent) -> None:
        self.events.append(event)
        logger.info("source=%s stage=%s outcome=%s duration_ms=%s document=%s",
                    event.source, event.stage, event.outcome, event.duration_ms,
                    event.document_id or "-")
        if self._listener is not None:
            self._listener(event)


def failed_outcome(exc: BaseException) -> str:
    """A failed stage's outcome: `failed: ` and the error's kind (or its type)."""
    reason = exc.kind.value if isinstance(exc, SheafError) else type(exc).__name__
    return f"failed: {reason}"
