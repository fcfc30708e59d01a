"""The `sheaf` console script: `sheaf --version`, and `sheaf list` from a store's current
listing, answered before click is imported (click alone costs more than the interpreter's
start); everything else is the click CLI."""

from __future__ import annotations

import os
import sys


def main() -> int:
    """Run `sheaf` with the process's arguments; returns the exit code. What a sheaf
    command creates is its user's alone (ADR-0028): the files DuckDB makes beside a
    store (its write-ahead log, made afresh after each checkpoint) take their mode from
    the umask, and no other setting reaches them."""
    os.umask(0o077)
    from .terminal_text import guard_terminal_streams

    guard_terminal_streams()  # before anything is printed, the fast paths included
    if sys.argv[1:] == ["--version"]:
        from ...adapters.installation.package_version import version_info

        print(version_info(with_changes=False).describe())
        return 0
    if sys.argv[1:2] == ["list"]:
        from .console_listing import answered

        if (code := answered(sys.argv[2:], os.environ)) is not None:
            return code
    from .cli import main as run_cli

    return run_cli()
