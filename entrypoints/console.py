"""The `sheaf` console script: `sheaf --version` answered before click is imported
(click is a third of that start-up); everything else is the click CLI."""

from __future__ import annotations

import sys


def main() -> int:
    """Run `sheaf` with the process's arguments; returns the exit code."""
    if sys.argv[1:] == ["--version"]:
        from sheaf.adapters.package_version import version_info

        print(version_info(with_changes=False).describe())
        return 0
    from sheaf.entrypoints.cli import main as run_cli

    return run_cli()
