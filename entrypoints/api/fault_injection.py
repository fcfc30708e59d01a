"""The fault points a test may pause a real sheaf process at, named by an environment
variable: `SHEAF_TEST_PAUSE_AT=remove-committed` stops a `sheaf remove` right after its
database commit (before any blob is deleted) so the test can kill it there. The point's
name is written to stderr when reached. Unset (always, outside tests) every point passes
straight through."""

from __future__ import annotations

import sys
from collections.abc import Mapping

import anyio

from ...application.store.fault_points import FaultPoint, no_fault

PAUSE_VARIABLE = "SHEAF_TEST_PAUSE_AT"


def fault_point_from(environ: Mapping[str, str]) -> FaultPoint:
    """The hook pausing (for an hour, long enough to be killed) at the point named."""
    wanted = environ.get(PAUSE_VARIABLE, "").strip()
    if not wanted:
        return no_fault

    async def pause(point: str) -> None:
        if point == wanted:
            sys.stderr.write(f"sheaf: paused at {point}\n")
            sys.stderr.flush()
            await anyio.sleep(3600)

    return pause
