"""The `sheaf` command's exit codes (the README's table), and leaving quietly when the
reader of stdout went away. The standard library alone: the console script answers some
commands before click is imported."""

from __future__ import annotations

import os
import sys

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_FETCH, EXIT_CONTENT = 0, 1, 2, 3, 4
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141
EXIT_LOCKED = 75  # sysexits' EX_TEMPFAIL: try again later


def reader_gone() -> int:
    """After a BrokenPipeError on stdout (`| head`): what is still buffered goes nowhere,
    and the command stops quietly, as cat does."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_BROKEN_PIPE


def internal_failure(exc: BaseException) -> str:
    """The one line a failure sheaf did not foresee (a bug, a full disk) prints."""
    return (f"sheaf: error: internal: {type(exc).__name__}: {exc} "
            "(LOG_LEVEL=debug shows the traceback)")

