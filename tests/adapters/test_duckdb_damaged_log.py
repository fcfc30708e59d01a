"""A store whose write-ahead log is torn or damaged never takes the process down, says
what to do, and `sheaf repair` makes it open again; a full disk still lets it be read
(issue 30, item 7). The logs are generated: a store copied while its writer is open is
what a kill -9 leaves."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sheaf import Knowledge
from sheaf.adapters.store.duckdb.log_repair import repair_store
from sheaf.adapters.store.duckdb.log_replay import ABORT_VARIABLE
from sheaf.domain.errors import ErrorKind, SheafError
from tests.entrypoints.cli_runner import run, run_async

pytestmark = pytest.mark.anyio
DOCUMENTS = 8


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store as a killed writer leaves it: the file and a log of eight ingests."""
    import anyio

    folder = tmp_path_factory.mktemp("crashed")

    async def build() -> None:
        live = folder / "live.duckdb"
        # Made and closed first, so the schema is checkpointed and the log holds the
        # ingests alone (each ingest logs a few KB: the schema's statements would
        # otherwise be the log's first third).
        async with Knowledge.open(live, embedder="hashing"):
            pass
        async with Knowledge.open(live, embedder="hashing") as kb:
            for n in range(DOCUMENTS):
                source = folder / f"note{n}.txt"
                source.write_text(f"Note {n} about the harbour and its lantern.\n" * 30)
                await kb.ingest(str(source))
            (folder / "image").mkdir()
            shutil.copy(live, folder / "image" / "kb.duckdb")
            shutil.copy(f"{live}.wal", folder / "image" / "kb.duckdb.wal")

    anyio.run(build)
    assert (folder / "image" / "kb.duckdb.wal").stat().st_size > 10_000
    return folder / "image"


def _copy(crashed: Path, target: Path, damage: object = None) -> Path:
    target.mkdir()
    shutil.copy(crashed / "kb.duckdb", target / "kb.duckdb")
    log = bytearray((crashed / "kb.duckdb.wal").read_bytes())
    if callable(damage):
        log = damage(log)
    (target / "kb.duckdb.wal").write_bytes(bytes(log))
    return target / "kb.duckdb"


def _flipped(seed: int) -> object:
    def flip(log: bytearray) -> bytearray:
        rng = random.Random(seed)
        start = len(log) // 3  # past the first transactions: something is kept
        for _ in range(8):
            log[rng.randrange(start, len(log))] ^= 0xFF
        return log
    return flip


def _damaged(crashed: Path, seed: int) -> object:
    """`_flipped` from `seed` on, the first whose damage DuckDB itself reports: a flip
    that lands in an entry's length reads to DuckDB as a log torn there, which it opens
    without a word (`test_a_torn_log_opens_with_what_it_holds_complete`); which seeds do
    depends on where the log's entries begin, so on what the store writes."""
    log = bytearray((crashed / "kb.duckdb.wal").read_bytes())
    for tried in range(seed, seed + 50):
        with open(crashed.parent / "probe.duckdb.wal", "wb") as probe:
            probe.write(bytes(_flipped(tried)(bytearray(log))))  # type: ignore[operator]
        shutil.copy(crashed / "kb.duckdb", crashed.parent / "probe.duckdb")
        opened = subprocess.run(  # a child: DuckDB may abort on a damaged log
            [sys.executable, "-c", "import duckdb, sys; duckdb.connect(sys.argv[1]).close()",
             str(crashed.parent / "probe.duckdb")], capture_output=True, check=False)
        if opened.returncode != 0 and b"Corrupt WAL" in opened.stderr:
            return _flipped(tried)
    raise AssertionError("no damage DuckDB reports among 50 seeds")


async def _count(store: Path) -> int:
    async with Knowledge.open(store, embedder="hashing") as kb:
        return len(await kb.documents())


async def test_a_torn_log_opens_with_what_it_holds_complete(crashed: Path,
                                                           tmp_path: Path) -> None:
    for cut in (0.2, 0.5, 0.9):
        store = _copy(crashed, tmp_path / f"torn{cut}",
                      lambda log, cut=cut: log[:int(len(log) * cut)])
        assert 0 <= await _count(store) <= DOCUMENTS


@pytest.mark.parametrize("seed", range(2))
async def test_a_damaged_log_is_a_typed_error_naming_repair_then_repair_opens_it(
        crashed: Path, tmp_path: Path, seed: int) -> None:
    store = _copy(crashed, tmp_path / "damaged", _damaged(crashed, seed))
    with pytest.raises(SheafError) as caught:
        await _count(store)
    assert caught.value.kind is ErrorKind.STORE_VERSION
    assert "sheaf repair" in caught.value.message and "write-ahead log" in caught.value.message
    done = repair_store(str(store))
    assert done.set_aside and Path(done.set_aside).stat().st_size == done.log_bytes
    assert 0 < done.kept_bytes < done.log_bytes
    kept = await _count(store)
    assert 0 < kept < DOCUMENTS  # the transactions before the damage, not after
    async with Knowledge.open(store, embedder="hashing") as kb:  # and it takes writes
        extra = tmp_path / "after.txt"
        extra.write_text("Written after the repair, about the quay.\n" * 10)
        assert (await kb.ingest(str(extra))).status.value == "new"
        assert await kb.search("quay")


async def test_duckdb_aborting_on_a_log_does_not_take_the_process_with_it(
        crashed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _copy(crashed, tmp_path / "aborts")
    monkeypatch.setenv(ABORT_VARIABLE, "log-replay")
    with pytest.raises(SheafError) as caught:
        await _count(store)
    assert "SIGABRT" in caught.value.message and "sheaf repair" in caught.value.message
    monkeypatch.delenv(ABORT_VARIABLE)
    assert await _count(store) == DOCUMENTS  # the log itself was sound


def test_sheaf_repair_on_the_command_line(crashed: Path, tmp_path: Path) -> None:
    store = _copy(crashed, tmp_path / "cli", _damaged(crashed, 7))
    refused = run("status", "--store", store)
    assert refused.exit_code == 1 and "sheaf repair" in refused.output
    repaired = run("repair", "--store", store)
    assert repaired.exit_code == 0, repaired.output
    assert "repaired" in repaired.stdout and "kept as" in repaired.stderr
    assert run("status", "--store", store).exit_code == 0


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A small tmpfs (where mounting one is allowed: root, or skipped)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
                          capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


async def test_a_full_disk_still_lets_the_store_be_read(crashed: Path,
                                                       full_disk: Path) -> None:
    store = _copy(crashed, full_disk / "kb")
    # Fill what is left, unbuffered: a buffered file's close would write the remainder a
    # partial last write left (the store's size need not be a multiple of it) and fail.
    with open(full_disk / "filler", "wb", buffering=0) as filler:
        try:
            while True:
                filler.write(b"\0" * 65536)
        except OSError:
            pass
    async with Knowledge.open(store, embedder="hashing") as kb:
        assert len(await kb.documents()) == DOCUMENTS
        assert (await kb.status()).spaces
        assert await kb.search("harbour lantern")
        fresh = full_disk.parent / "fresh.txt"
        fresh.write_text("A note that cannot be stored while the disk is full.\n" * 10)
        refused = await kb.ingest(str(fresh))
        assert refused.error_kind == "storage", refused
    listed = await run_async("list", "--store", store)
    assert listed.exit_code == 0, listed.output
    assert len(listed.stdout.splitlines()) == DOCUMENTS
    os.unlink(full_disk / "filler")
