"""The stage recorder keeps the latest events, not every one a long process made."""

from __future__ import annotations

from sheaf.application.ingestion.stage_events import KEPT_EVENTS, StageRecorder


def test_a_recorder_keeps_only_the_latest_events() -> None:
    seen = []
    recorder = StageRecorder(seen.append)
    for n in range(KEPT_EVENTS + 50):
        with recorder.stage(f"s{n}", "fetch"):
            pass
    assert len(recorder.events) == KEPT_EVENTS
    assert recorder.events[0].source == "s50" and recorder.events[-1].source == f"s{n}"
    assert len(seen) == KEPT_EVENTS + 50  # the listener still hears every one
