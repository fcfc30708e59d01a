"""When to try a request again and how long to wait: one rule for every HTTP adapter."""

from __future__ import annotations

import random
from collections.abc import Callable

import attrs


@attrs.frozen
class RetryPolicy:
    """`retries` more attempts after the first, waiting `backoff` x 2^attempt seconds,
    spread by `jitter` (a fraction either side) so that clients refused together do not
    come back together, and never longer than `max_wait`."""

    retries: int = 2
    backoff: float = 0.5
    max_wait: float = 30.0
    jitter: float = 0.25

    def allows(self, attempt: int) -> bool:
        """Whether attempt number `attempt` (from 0) may be followed by another."""
        return attempt < self.retries

    def delay(self, attempt: int, asked: float | None = None,
              draw: Callable[[], float] = random.random) -> float:
        """Seconds to wait after attempt `attempt`; a server's own `asked` wait (from
        Retry-After) is kept as it is, capped at `max_wait`."""
        if asked is not None:
            return min(asked, self.max_wait)
        spread = 1 + self.jitter * (2 * draw() - 1)
        return min(self.max_wait, self.backoff * 2 ** attempt * spread)
