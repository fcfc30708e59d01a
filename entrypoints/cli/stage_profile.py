"""`sheaf ingest --stages`: each ingestion stage's event as a JSON line, and at the end a
profile of where the time went (ADR-0041).

The events are those the stage recorder logs on `sheaf.ingest` (one per stage of each
source, with its duration), taken from the log so that every way of running ingestion
reports them alike. Stages of concurrent sources overlap: a stage's total is the time
documents spent in it, not a share of the wall time, which the profile gives beside it.
"""

from __future__ import annotations

import logging
import resource
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_LOGGER = "sheaf.ingest"


class StageProfile(logging.Handler):
    """Gathers the stage events logged while it is installed; `echo` gets each one."""

    def __init__(self, echo: Callable[[dict[str, Any]], None] | None) -> None:
        super().__init__(logging.INFO)
        self._echo = echo
        self._counts: dict[str, int] = defaultdict(int)
        self._totals: dict[str, float] = defaultdict(float)
        self._outcomes: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self._started = time.perf_counter()
        self._cpu = _cpu_seconds()

    def emit(self, record: logging.LogRecord) -> None:
        if not isinstance(record.args, tuple) or len(record.args) != 5:
            return
        source, stage, outcome, duration_ms, document = record.args
        stage, outcome = str(stage), str(outcome)
        self._counts[stage] += 1
        self._totals[stage] += float(duration_ms)  # type: ignore[arg-type]
        self._outcomes[stage][outcome.split(":")[0]] += 1
        if self._echo is not None:
            self._echo({"stage": stage, "source": source, "ms": duration_ms,
                        "outcome": outcome,
                        "document_id": None if document == "-" else document})

    def summary(self) -> dict[str, Any]:
        """The profile: wall and CPU time since installed, and per stage its count, total
        and mean milliseconds and outcomes, largest total first."""
        stages = {stage: {"count": self._counts[stage],
                          "total_ms": round(total, 1),
                          "mean_ms": round(total / self._counts[stage], 3),
                          "outcomes": dict(self._outcomes[stage])}
                  for stage, total in sorted(self._totals.items(), key=lambda kv: -kv[1])}
        return {"stage_profile": {
            "wall_ms": round((time.perf_counter() - self._started) * 1000, 1),
            "cpu_ms": round((_cpu_seconds() - self._cpu) * 1000, 1),
            "stages": stages}}

    def text(self) -> str:
        """The profile as lines for a terminal."""
        profile = self.summary()["stage_profile"]
        lines = [f"stages: wall {profile['wall_ms']:.0f} ms, CPU {profile['cpu_ms']:.0f} ms"]
        for stage, row in profile["stages"].items():
            lines.append(f"  {stage:<16} {row['count']:>6} x {row['mean_ms']:9.3f} ms = "
                         f"{row['total_ms']:10.1f} ms")
        return "\n".join(lines)


@contextmanager
def stage_profile(echo: Callable[[dict[str, Any]], None] | None
                  ) -> Iterator[StageProfile]:
    """Install a `StageProfile` on the stage log for the block's duration."""
    logger = logging.getLogger(_LOGGER)
    profile = StageProfile(echo)
    level, propagate = logger.level, logger.propagate
    logger.addHandler(profile)
    logger.setLevel(logging.INFO)
    logger.propagate = False  # not also to whatever the root logger prints
    try:
        yield profile
    finally:
        logger.removeHandler(profile)
        logger.setLevel(level)
        logger.propagate = propagate


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
