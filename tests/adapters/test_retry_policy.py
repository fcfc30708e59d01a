"""The one retry policy: exponential, jittered, capped, and a server's wait respected."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sheaf.adapters.fetching.retry_policy import RetryPolicy


@given(st.integers(0, 8), st.floats(0, 1), st.floats(0.01, 2), st.floats(0, 0.9))
def test_delays_grow_within_their_jitter_and_cap(attempt: int, draw: float, backoff: float,
                                                 jitter: float) -> None:
    policy = RetryPolicy(3, backoff, max_wait=20.0, jitter=jitter)
    base = backoff * 2 ** attempt
    delay = policy.delay(attempt, draw=lambda: draw)
    assert delay <= 20.0
    assert min(20.0, base * (1 - jitter)) - 1e-9 <= delay <= min(20.0, base * (1 + jitter))


def test_jitter_spreads_clients_and_a_server_wait_is_kept() -> None:
    policy = RetryPolicy(2, 1.0, max_wait=10.0)
    assert len({round(policy.delay(1), 6) for _ in range(20)}) > 1
    assert policy.delay(0, asked=3.0) == 3.0 and policy.delay(0, asked=99.0) == 10.0
    assert [policy.allows(a) for a in range(4)] == [True, True, False, False]
