"""Which sheaf is running, and from where."""

from __future__ import annotations

import subprocess
from importlib import metadata
from pathlib import Path

import attrs

_LAYER_DIR = Path(__file__).resolve().parent


@attrs.frozen
class VersionInfo:
    """The version, where the code was loaded from, and the git commit of a checkout."""

    version: str
    location: str
    origin: str
    """"source checkout" or "installed package"."""
    commit: str | None = None
    dirty: bool = False

    def describe(self) -> str:
        commit = ""
        if self.commit:
            commit = f", commit {self.commit[:12]}" + (" with local changes" if self.dirty else "")
        return f"sheaf {self.version} ({self.origin}{commit}) from {self.location}"


def sheaf_version() -> str:
    try:
        return metadata.version("sheaf")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def version_info() -> VersionInfo:
    """Inspect the running code: a git checkout is named with its commit."""
    root = _LAYER_DIR.parent
    git_dir = root / ".git"
    if git_dir.exists():
        commit = _git(root, "rev-parse", "HEAD")
        status = _git(root, "status", "--porcelain", "--untracked-files=no")
        return VersionInfo(sheaf_version(), str(root), "source checkout", commit, bool(status))
    return VersionInfo(sheaf_version(), str(root), "installed package")


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None
