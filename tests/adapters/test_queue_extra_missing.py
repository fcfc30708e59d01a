"""Without the queue extra, the queue is a typed error saying what to install."""

from __future__ import annotations

import sys

import pytest

from sheaf.domain.errors import ErrorKind, SheafError


def test_a_missing_queue_extra_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from sheaf.adapters.queue import procrastinate_job_queue

    monkeypatch.setitem(sys.modules, "procrastinate", None)  # import fails as if absent
    with pytest.raises(SheafError) as caught:
        procrastinate_job_queue.ProcrastinateJobQueue("postgresql://127.0.0.1/x")
    assert caught.value.kind is ErrorKind.CONFIGURATION
    assert "pip install 'sheaf[queue]'" in caught.value.message
