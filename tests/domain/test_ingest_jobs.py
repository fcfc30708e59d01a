"""Queued jobs as JSON, their identity, the retry rules and batch summaries."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.queue.ingest_jobs import (
    TRANSIENT_KINDS,
    BatchSummary,
    IngestJob,
    JobOutcome,
    JobState,
    QueuedFile,
    is_transient,
    retry_delay,
)
from sheaf.domain.store.ingestion import IngestResult, IngestStatus

text = st.text(min_size=1, max_size=30)
maybe = st.none() | text
files = st.none() | st.builds(QueuedFile, text, st.text("0123456789abcdef", min_size=64,
                                                          max_size=64), maybe)
jobs = st.builds(IngestJob, text, text, text, files, st.dictionaries(text, st.text()),
                 st.booleans(), st.booleans(), maybe, st.sampled_from(["auto", "pdf", "html"]),
                 maybe, maybe, maybe)


@given(jobs)
def test_a_job_survives_the_queue_as_json(job: IngestJob) -> None:
    assert IngestJob.from_args(json.loads(json.dumps(job.as_args()))) == job


@pytest.mark.parametrize("args, field", [
    ({"source": "https://x.org"}, "batch"),
    ({"batch": "b", "source": 7}, "source"),
    ({"batch": "b", "source": "f", "file": "/etc/passwd"}, "file"),
    ({"batch": "b", "source": "f", "file": {"path": "/f"}}, "file sha256"),
    ({"batch": "b", "source": "f", "metadata": {"a": 1}}, "metadata"),
    ({"batch": "b", "source": "f", "prefer": "docx"}, "prefer"),
])
def test_a_job_row_it_cannot_read_is_refused_naming_the_field(args: dict[str, object],
                                                              field: str) -> None:
    with pytest.raises(SheafError) as caught:
        IngestJob.from_args(args)
    assert caught.value.kind is ErrorKind.INVALID_QUERY and field in caught.value.message


def test_identity_is_the_stores_key_within_the_space() -> None:
    a = IngestJob("b", "https://Example.org:443/p#x")
    assert a.identity == IngestJob("c", "https://example.org/p").identity
    assert a.identity != IngestJob("b", "https://example.org/p", space="other").identity
    queued = IngestJob("b", "notes/a.md", file=QueuedFile("/home/a/notes/a.md", "0" * 64))
    assert queued.identity.endswith("/home/a/notes/a.md")


def test_only_failures_that_may_pass_are_transient() -> None:
    assert is_transient("timeout") and is_transient(ErrorKind.STORAGE)
    for kind in ErrorKind:
        if kind not in TRANSIENT_KINDS:
            assert not is_transient(kind)
    assert not is_transient(None) and not is_transient("no_such_kind")
    assert not is_transient("not_found") and not is_transient("corrupt")


@given(st.integers(0, 60), st.floats(0.01, 30), st.none() | st.floats(0.1, 5000))
def test_backoff_doubles_is_capped_and_honours_retry_after(attempts: int, base: float,
                                                           after: float | None) -> None:
    wait = retry_delay(attempts, base=base, retry_after=after, ceiling=600)
    assert 0 < wait <= 600
    assert wait >= min(600, base * 2 ** min(attempts, 40))
    if after:
        assert wait >= min(600, after)
    assert retry_delay(attempts + 1, base=base) >= retry_delay(attempts, base=base)


def test_a_summary_counts_states_outcomes_and_failures() -> None:
    failed = IngestResult("u2", IngestStatus.FAILED, error_kind="not_found", message="404")
    summary = BatchSummary("b", (
        JobOutcome(1, "u1", JobState.SUCCEEDED, 1, IngestResult("u1", IngestStatus.NEW)),
        JobOutcome(2, "u2", JobState.FAILED, 1, failed),
        JobOutcome(3, "u3", JobState.WAITING, 1, IngestResult(
            "u3", IngestStatus.FAILED, error_kind="timeout")),  # will be tried again
        JobOutcome(4, "u4", JobState.RUNNING)))
    assert not summary.finished
    assert summary.states == {"succeeded": 1, "failed": 1, "waiting": 1, "running": 1}
    assert summary.outcomes == {"new": 1, "failed": 1}
    payload = summary.as_dict()
    assert payload["failures"] == [{"job": 2, "source": "u2", "state": "failed",
                                    "attempts": 1, "status": "failed",
                                    "error_kind": "not_found", "message": "404"}]
    assert json.loads(json.dumps(payload)) == payload
