"""The CLI in-process through click's runner; `SHEAF` is the installed entry point for the
few tests that prove it in a subprocess."""

from __future__ import annotations

import json
import shutil
import sys
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from click.testing import CliRunner, Result

from sheaf.entrypoints.cli.cli import sheaf

SHEAF = shutil.which("sheaf", path=str(Path(sys.executable).parent)) or "sheaf"
SAMPLES = Path(__file__).resolve().parents[2] / "entrypoints" / "samples"


def run(*args: str | Path, env: dict[str, str] | None = None) -> Result:
    """`sheaf ARGS` in this process; stdout and stderr apart."""
    return CliRunner().invoke(sheaf, [str(a) for a in args], env=env,
                              catch_exceptions=False)


async def run_async(*args: str | Path, env: dict[str, str] | None = None) -> Result:
    """`run` from async tests: the command runs its own event loop, so in a thread, while
    this loop serves the loopback fixtures."""
    return await anyio.to_thread.run_sync(partial(run, *args, env=env))


def json_lines(result: Result) -> list[Any]:
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


class Completed:
    """A runner result read as `subprocess.CompletedProcess[bytes]` reads."""

    def __init__(self, result: Result) -> None:
        self.result = result
        self.returncode = result.exit_code
        self.stdout = result.stdout_bytes
        self.stderr = result.stderr_bytes or b""


async def sheaf_on(store: Path, *args: str | Path, env: dict[str, str] | None = None
                   ) -> Completed:
    """`sheaf ARGS --store STORE` in this process."""
    return Completed(await run_async(*args, "--store", store, env=env))
