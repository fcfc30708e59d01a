"""Running one sheaf command in a child process and measuring what it cost: wall time and
the child's own peak resident memory (from the kernel's rusage of that child alone, a
resource bound, not a speed measurement)."""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs

SHEAF = Path(sys.executable).with_name("sheaf")
ADDRESS_SPACE_CAP = 4 << 30
"""A child that tries to take more is stopped by the kernel rather than by the machine
running out (the code before a fix could ask for tens of gigabytes)."""
_ERROR = re.compile(r"sheaf: error: ([a-z_]+):")


@attrs.frozen
class ChildRun:
    seconds: float
    peak_mb: float
    returncode: int | None
    """None when the child was killed at its timeout."""
    stdout: str
    stderr: str

    @property
    def error_kind(self) -> str | None:
        """The typed error kind the child printed, if any."""
        found = _ERROR.search(self.stderr)
        return found.group(1) if found else None

    @property
    def outcome(self) -> str:
        if self.returncode is None:
            return "timeout"
        if self.returncode == 0:
            return "ok"
        return self.error_kind or f"untyped exit {self.returncode}"


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_CAP, ADDRESS_SPACE_CAP))


def run_sheaf(arguments: list[str], *, timeout: float = 60.0,
              environment: dict[str, str] | None = None) -> ChildRun:
    """`sheaf ARGUMENTS` in a child of its own, killed (with its group) past `timeout`."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen([str(SHEAF), *arguments], stdout=out, stderr=err,
                                   stdin=subprocess.DEVNULL, start_new_session=True,
                                   preexec_fn=_capped,
                                   env={**os.environ, **(environment or {})})
        killed = False
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - started > timeout:
                os.killpg(process.pid, signal.SIGKILL)
                _, status, usage = os.wait4(process.pid, 0)
                killed = True
                break
            time.sleep(0.02)
        process.returncode = os.waitstatus_to_exitcode(status)  # so Popen does not wait
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    return ChildRun(seconds, usage.ru_maxrss / 1024, None if killed else process.returncode,
                    stdout, stderr)
