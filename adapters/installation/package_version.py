"""Which sheaf is running, and from where."""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import re
    from pathlib import Path

# The folder holding the layers: a checkout's root, or the installed `sheaf` package. Read
# with os.path: `--version` and `list` start without pathlib and re (ADR-0024).
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


# A NamedTuple, not attrs: `sheaf --version` loads this and nothing else of sheaf, and
# importing attrs would be a fifth of its start-up.
class VersionInfo(NamedTuple):
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


@functools.cache
def sheaf_version() -> str:
    """The installed distribution's version; in a source checkout, pyproject.toml's
    (importlib.metadata costs about 10 ms to import and scan, a third of start-up)."""
    checkout = os.path.join(_ROOT, "pyproject.toml")
    if os.path.exists(os.path.join(_ROOT, ".git")) and os.path.isfile(checkout):
        import re

        with open(checkout, encoding="utf-8") as file:
            found = re.search(r'^version\s*=\s*"([^"]+)"', file.read(), re.M)
        if found:
            return found.group(1)
    # Installed, the distribution's metadata folder sits beside the package, named with
    # the version (a wheel's layout): one directory listing instead of a metadata scan.
    installed = [entry.name[len("sheaf-"):-len(".dist-info")]
                 for entry in os.scandir(os.path.dirname(_ROOT))
                 if entry.name.startswith("sheaf-") and entry.name.endswith(".dist-info")]
    if len(installed) == 1:
        return installed[0]
    from importlib import metadata

    try:
        return metadata.version("sheaf")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def version_info(*, with_changes: bool = True) -> VersionInfo:
    """Inspect the running code: a git checkout is named with its commit, read from the
    repository's files (no git process); `with_changes` also asks git whether tracked
    files differ from it, which costs a `git status` (`sheaf version` does,
    `sheaf --version` does not)."""
    if os.path.exists(os.path.join(_ROOT, ".git")):
        from pathlib import Path

        root = Path(_ROOT)
        commit = head_commit(root / ".git") or _git(root, "rev-parse", "HEAD")
        status = _git(root, "status", "--porcelain", "--untracked-files=no") \
            if with_changes else None
        return VersionInfo(sheaf_version(), _ROOT, "source checkout", commit, bool(status))
    return VersionInfo(sheaf_version(), _ROOT, "installed package")


@functools.cache
def _commit_id() -> re.Pattern[str]:
    import re

    return re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def head_commit(git: Path) -> str | None:
    """The commit HEAD names, from the repository's own files: `.git` as a folder or as
    a worktree's `gitdir:` pointer, the ref as a loose file or in `packed-refs`. None
    when the layout is one this does not read (the caller then asks git)."""
    try:
        if git.is_file():
            git = (git.parent / git.read_text().removeprefix("gitdir:").strip()).resolve()
        common = git
        if (git / "commondir").is_file():
            common = (git / (git / "commondir").read_text().strip()).resolve()
        head = (git / "HEAD").read_text().strip()
        if _commit_id().fullmatch(head):
            return head
        ref = head.removeprefix("ref:").strip()
        for folder in (git, common):
            loose = folder / ref
            if loose.is_file():
                found = loose.read_text().strip()
                return found if _commit_id().fullmatch(found) else None
        packed = common / "packed-refs"
        if packed.is_file():
            for line in packed.read_text().splitlines():
                sha, _, name = line.partition(" ")
                if name == ref and _commit_id().fullmatch(sha):
                    return sha
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _git(root: Path, *args: str) -> str | None:
    import subprocess  # only when the .git files do not answer: not at every start-up

    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None
