"""How many examples the property tests try: as written, or a quarter of that.

`TEST_EXAMPLES=quick` is `make test`'s default, for a fast local loop; unset (a bare
pytest run) or `full`, every property test tries the count written beside it, which is
what .ci/run runs (`make test EXAMPLES=full`). A test with no count of its own follows
the profile loaded below: hypothesis's own (its `ci` profile on CI) without a deadline,
with a quarter of its examples under `quick`."""

from __future__ import annotations

import os

from hypothesis import settings

QUICK = os.environ.get("TEST_EXAMPLES", "full") == "quick"
_SHARE = 4  # quick runs a quarter of the examples
_FEWEST = 5  # and never fewer than this, where the full count is larger


def examples(full: int) -> int:
    """The `max_examples` of a property test whose full strength is `full`."""
    return max(full // _SHARE, min(full, _FEWEST)) if QUICK else full


def load_profile() -> None:
    """No per-example deadline (a loaded machine makes one slow example fail a property
    that holds: a timing assert by another name), and under `quick`, the tests without
    a count of their own try a quarter of hypothesis's default too."""
    current = settings()
    settings.register_profile("sheaf", current, deadline=None,
                              max_examples=examples(current.max_examples))
    settings.load_profile("sheaf")
