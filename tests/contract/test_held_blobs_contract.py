"""The held-blobs port's contract (ADR-0047), run against the in-memory fake and the
DuckDB store alike: blobs travel in their version's bundle, are held only when its unit
of work commits, and are read, listed and deleted by sha256."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sheaf.adapters.store.duckdb.held_blobs import HELD_BLOB_BYTES
from sheaf.adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
from sheaf.adapters.store.memory.knowledge_store import MemoryKnowledgeStore
from sheaf.application.ports.held_blobs import HeldBlobs
from sheaf.domain.store.version_bundle import VersionBundle
from tests.contract.test_knowledge_store_contract import URL, Store, version

pytestmark = pytest.mark.anyio
RAW, MARKDOWN = b"<p>Seagrass grew with the tides.</p>", b"Seagrass grew with the tides.\n"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(params=["memory", "duckdb"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    if request.param == "memory":
        yield MemoryKnowledgeStore(held_blob_bytes=HELD_BLOB_BYTES)
        return
    duck = DuckDbKnowledgeStore(tmp_path / "store.duckdb")
    yield duck
    await duck.aclose()


def _held(store: Store) -> HeldBlobs:
    held = store.storage().held_blobs
    assert held is not None and store.storage().held_blob_bytes > 0
    return held


async def _save(store: Store, number: int, *blobs: bytes, commit: bool = True) -> None:
    async with store.storage().unit_of_work() as work:
        work.versions.add(VersionBundle(version(number, f"sha{number}"), URL, None, (), None,
                                        None, None, None, tuple((_sha(b), b) for b in blobs)))
        if commit:
            await work.commit()


async def test_blobs_written_with_their_version_are_read_back_by_sha(store: Store) -> None:
    held = _held(store)
    await _save(store, 1, RAW, MARKDOWN)
    assert await held.get(_sha(RAW)) == RAW
    assert await held.get(_sha(MARKDOWN)) == MARKDOWN
    assert await held.has(_sha(RAW))
    assert await held.stored_digests() == sorted([_sha(RAW), _sha(MARKDOWN)])


async def test_what_is_not_held_is_none_and_not_listed(store: Store) -> None:
    held = _held(store)
    assert await held.get(_sha(b"absent")) is None
    assert not await held.has(_sha(b"absent"))
    assert await held.stored_digests() == []


async def test_a_unit_of_work_left_uncommitted_holds_nothing(store: Store) -> None:
    held = _held(store)
    await _save(store, 1, RAW, commit=False)
    assert not await held.has(_sha(RAW))
    assert await held.stored_digests() == []


async def test_a_blob_two_versions_carry_is_held_once(store: Store) -> None:
    held = _held(store)
    await _save(store, 1, RAW)
    await _save(store, 2, RAW, MARKDOWN)
    assert await held.stored_digests() == sorted([_sha(RAW), _sha(MARKDOWN)])
    assert await held.get(_sha(RAW)) == RAW


async def test_deleting_forgets_one_blob_and_ignores_an_absent_one(store: Store) -> None:
    held = _held(store)
    await _save(store, 1, RAW, MARKDOWN)
    await held.delete(_sha(RAW))
    await held.delete(_sha(b"absent"))
    assert not await held.has(_sha(RAW))
    assert await held.get(_sha(RAW)) is None
    assert await held.stored_digests() == [_sha(MARKDOWN)]
