"""A planted `<store>.holder` is not believed (issue 30): another user's file, one others
can read or write, an address off loopback, pid 1, another user's pid, or a live pid
that is not the process listening on the port. A forged holder receives nothing (no
password, metadata or path) and serves nothing; the command opens the store itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from sheaf.entrypoints.api.held_store import (
    HolderRecord,
    compatibility,
    holder_path,
    publish,
    read_holder,
)
from sheaf.entrypoints.api.holder_trust import holder_port
from sheaf.entrypoints.api.settings import Settings

pytestmark = pytest.mark.anyio


class Forger:
    """A server on loopback that answers like a holder and keeps what it was sent."""

    def __init__(self) -> None:
        self.received: list[bytes] = []
        self.port = 0
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        async def anything(request: web.Request) -> web.Response:
            self.received.append(await request.read())
            return web.json_response({"source": "forged", "status": "new",
                                      "document_id": "doc_forged"})

        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", anything)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


@pytest.fixture
async def forger() -> Iterator[Forger]:  # type: ignore[misc]
    server = Forger()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
def stranger() -> Iterator[int]:
    """A live process of this user that is no holder (listens on nothing)."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    yield process.pid
    process.kill()
    process.wait()


def plant(store: Path, pid: int, url: str, *, mode: int = 0o600) -> Path:
    publish(store, HolderRecord(pid, "sheaf serve", url, "forged-token",
                                compatibility(Settings(store))))
    path = holder_path(store)
    os.chmod(path, mode)
    return path


async def test_only_the_process_listening_on_the_port_is_believed(
        tmp_path: Path, forger: Forger, stranger: int) -> None:
    store = tmp_path / "kb.duckdb"
    url = f"http://127.0.0.1:{forger.port}"
    plant(store, os.getpid(), url)  # this process does listen there: believed
    assert read_holder(store) is not None
    for pid in (1, stranger):
        plant(store, pid, url)
        assert read_holder(store) is None, pid
        assert holder_path(store).exists()  # not a stale file: left for its owner


async def test_a_file_others_can_write_or_read_is_not_believed(tmp_path: Path,
                                                              forger: Forger) -> None:
    store = tmp_path / "kb.duckdb"
    for mode in (0o644, 0o660, 0o606, 0o666, 0o640):
        plant(store, os.getpid(), f"http://127.0.0.1:{forger.port}", mode=mode)
        assert read_holder(store) is None, oct(mode)


async def test_a_link_is_not_followed(tmp_path: Path, forger: Forger) -> None:
    real = tmp_path / "real.duckdb"
    plant(real, os.getpid(), f"http://127.0.0.1:{forger.port}")
    store = tmp_path / "kb.duckdb"
    holder_path(store).symlink_to(holder_path(real))
    assert read_holder(real) is not None and read_holder(store) is None


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user takes root")
async def test_another_users_file_is_not_believed(tmp_path: Path, forger: Forger) -> None:
    store = tmp_path / "kb.duckdb"
    path = plant(store, os.getpid(), f"http://127.0.0.1:{forger.port}")
    os.chown(path, 65534, 65534)
    assert read_holder(store) is None


def test_only_a_loopback_holder_url_is_believed() -> None:
    # Checked as text: a refused address is never connected to.
    assert holder_port("http://127.0.0.1:8080") == 8080
    for url in ("http://10.0.0.5:8080", "http://attacker.example:8080",
                "https://127.0.0.1:8080", "http://user@127.0.0.1:8080",
                "http://127.0.0.1:8080/elsewhere", "http://127.0.0.1", "http://127.0.0.1:0",
                "http://127.0.0.1:99999", "http://localhost:8080", "http://[::1]:8080",
                "http://127.0.0.1.attacker.example:8080", " http://127.0.0.1:8080"):
        assert holder_port(url) is None, url


async def test_a_forged_holder_receives_no_password_and_serves_nothing(
        tmp_path: Path, forger: Forger, stranger: int) -> None:
    store = tmp_path / "kb.duckdb"
    plant(store, stranger, f"http://127.0.0.1:{forger.port}")
    note = tmp_path / "secret-project" / "notes.md"
    note.parent.mkdir()
    note.write_text("# Notes\n\nThe harbour survey starts in May.\n")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path),
           "SHEAF_STORE": str(store), "SHEAF_LOCK_WAIT": "0.5"}
    done = subprocess.run(
        [sys.executable, "-m", "sheaf.entrypoints.cli.cli", "ingest", str(note),
         "--password", "hunter2", "--metadata", "team=blue", "--json"],
        capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert forger.received == []
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["status"] == "new" and result["document_id"] != "doc_forged"
    listed = subprocess.run([sys.executable, "-m", "sheaf.entrypoints.cli.cli", "list",
                             "--json"], capture_output=True, text=True, env=env,
                            timeout=120, check=False)
    assert listed.returncode == 0 and "notes.md" in listed.stdout, listed.stderr
    assert forger.received == []
