"""Ingestion as queued jobs: what one job carries, when a failed one is tried again, and
what a batch of them came to.

A job is plain JSON (a queue row that a worker on another machine reads), so everything
here converts to and from a mapping and refuses one it cannot read, naming the field."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import attrs

from ..errors import ErrorKind, SheafError
from ..fetching.url_normalisation import is_url, normalise_url
from ..store.ingestion import DEFAULT_SPACE, IngestResult, IngestStatus
from ..worded_enum import WordedEnum

TRANSIENT_KINDS = frozenset({
    ErrorKind.RATE_LIMITED, ErrorKind.SERVER_ERROR, ErrorKind.TIMEOUT, ErrorKind.DNS,
    ErrorKind.CONNECTION, ErrorKind.STORAGE, ErrorKind.EMBEDDING_FAILED})
"""Failures that may pass by themselves: an overloaded or unreachable server, a store or
model service that refused for now. Everything else (a 404, a corrupt PDF, a closed
space) fails the same way every time, so it is not tried again."""

DEFAULT_MAX_ATTEMPTS = 5
DEFAULT_RETRY_WAIT = 2.0
MAX_RETRY_WAIT = 600.0


def is_transient(kind: str | ErrorKind | None) -> bool:
    """Whether a failure of this kind is worth trying again later."""
    if kind is None:
        return False
    try:
        return ErrorKind(kind) in TRANSIENT_KINDS
    except ValueError:
        return False


def retry_delay(attempts: int, *, base: float = DEFAULT_RETRY_WAIT,
                retry_after: float | None = None, ceiling: float = MAX_RETRY_WAIT) -> float:
    """Seconds before the next try of a job that failed `attempts` times before this
    failure: `base`, doubling each time, capped at `ceiling`; a server's Retry-After wins
    when it asks for longer."""
    exponential = min(ceiling, base * 2.0 ** max(0, attempts))
    return max(exponential, min(ceiling, retry_after)) if retry_after else exponential


@attrs.frozen
class QueuedFile:
    """A local file read by the machine that enqueued it: its bytes wait in the blob
    store under `sha256`, so a worker anywhere can ingest them as that file."""

    path: str
    """The absolute path, which stays the source's identity (as a local ingest keys it)."""
    sha256: str
    type_hint: str | None = None


def _text(value: object, name: str, *, optional: bool = False) -> Any:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not (value or optional):
        raise SheafError(ErrorKind.INVALID_QUERY, f"a queued job's {name} must be text, "
                                                  f"not {value!r}")
    return value


@attrs.frozen
class IngestJob:
    """One source of a batch, with the options `sheaf ingest` was given for it."""

    batch: str
    source: str
    space: str = DEFAULT_SPACE
    file: QueuedFile | None = None
    metadata: Mapping[str, str] = attrs.field(factory=dict)
    force: bool = False
    resume: bool = False
    password: str | None = None
    prefer: str = "auto"
    enrich: str | None = None
    source_id: str | None = None
    version_id: str | None = None

    @property
    def identity(self) -> str:
        """What the store keys the source by (normalised URL or absolute path), within
        its space: jobs sharing it never run at once, on any worker."""
        key = self.file.path if self.file is not None else (
            normalise_url(self.source) if is_url(self.source) else self.source)
        return f"{self.space}\x1f{key}"

    def as_args(self) -> dict[str, Any]:
        """The job as the queue stores it (JSON)."""
        args: dict[str, Any] = {"batch": self.batch, "source": self.source,
                                "space": self.space}
        if self.file is not None:
            args["file"] = attrs.asdict(self.file)
        if self.metadata:
            args["metadata"] = dict(self.metadata)
        for name in ("force", "resume"):
            if getattr(self, name):
                args[name] = True
        if self.prefer != "auto":
            args["prefer"] = self.prefer
        for name in ("password", "enrich", "source_id", "version_id"):
            if getattr(self, name) is not None:
                args[name] = getattr(self, name)
        return args

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> IngestJob:
        """The job a queue row holds; `invalid_query` naming the field that is wrong."""
        file = args.get("file")
        queued = None
        if file is not None:
            if not isinstance(file, Mapping):
                raise SheafError(ErrorKind.INVALID_QUERY, "a queued job's file must be an "
                                                          f"object, not {file!r}")
            queued = QueuedFile(_text(file.get("path"), "file path"),
                                _text(file.get("sha256"), "file sha256"),
                                _text(file.get("type_hint"), "file type", optional=True))
        metadata = args.get("metadata") or {}
        if not isinstance(metadata, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise SheafError(ErrorKind.INVALID_QUERY, "a queued job's metadata must map "
                                                      f"text to text, not {metadata!r}")
        prefer = args.get("prefer", "auto")
        if prefer not in ("auto", "pdf", "html"):
            raise SheafError(ErrorKind.INVALID_QUERY, "a queued job's prefer must be auto, "
                                                      f"pdf or html, not {prefer!r}")
        return cls(batch=_text(args.get("batch"), "batch"),
                   source=_text(args.get("source"), "source"),
                   space=_text(args.get("space", DEFAULT_SPACE), "space"), file=queued,
                   metadata=dict(metadata), force=args.get("force") is True,
                   resume=args.get("resume") is True,
                   password=_text(args.get("password"), "password", optional=True),
                   prefer=prefer, enrich=_text(args.get("enrich"), "enrich", optional=True),
                   source_id=_text(args.get("source_id"), "source id", optional=True),
                   version_id=_text(args.get("version_id"), "version id", optional=True))


class JobState(WordedEnum):
    """Where a job is in the queue."""

    WAITING = "waiting"
    """Not started yet, or waiting to be tried again."""
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    """Ended with an error: one that would recur, or a transient one on its last try."""
    CANCELLED = "cancelled"

    @property
    def finished(self) -> bool:
        return self in (JobState.SUCCEEDED, JobState.FAILED, JobState.CANCELLED)


@attrs.frozen
class JobOutcome:
    """One job of a batch: its state in the queue and, once a worker tried it, what the
    ingest did (the last try's result)."""

    job_id: int
    source: str
    state: JobState
    attempts: int = 0
    result: IngestResult | None = None

    def as_dict(self) -> dict[str, object]:
        entry: dict[str, object] = {"job": self.job_id, "source": self.source,
                                    "state": self.state.value, "attempts": self.attempts}
        if self.result is not None:
            entry |= {k: v for k, v in self.result.as_dict().items() if k != "source"}
        return entry


@attrs.frozen
class BatchSummary:
    """What the queue says of a batch: each job's state and outcome."""

    batch: str
    jobs: tuple[JobOutcome, ...]

    @property
    def states(self) -> Counter[str]:
        return Counter(job.state.value for job in self.jobs)

    @property
    def outcomes(self) -> Counter[str]:
        """Ingest outcomes (new, unchanged, changed, duplicate, failed) of finished
        jobs."""
        return Counter(job.result.status.value for job in self.jobs
                       if job.result is not None and job.state.finished)

    @property
    def finished(self) -> bool:
        return all(job.state.finished for job in self.jobs)

    @property
    def failures(self) -> tuple[JobOutcome, ...]:
        return tuple(job for job in self.jobs if job.state is JobState.FAILED)

    def as_dict(self, *, with_jobs: bool = False) -> dict[str, object]:
        summary: dict[str, object] = {
            "batch": self.batch, "jobs": len(self.jobs), "finished": self.finished,
            "states": {s.value: self.states.get(s.value, 0) for s in JobState},
            "outcomes": {s.value: self.outcomes.get(s.value, 0) for s in IngestStatus},
            "failures": [job.as_dict() for job in self.failures]}
        if with_jobs:
            summary["each"] = [job.as_dict() for job in self.jobs]
        return summary
