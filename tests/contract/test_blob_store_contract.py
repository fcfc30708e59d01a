"""The BlobStore contract, run against the in-memory fake, the filesystem store and the S3
store on a loopback S3 server."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sheaf.adapters.blobs.filesystem_blob_store import FilesystemBlobStore
from sheaf.adapters.blobs.memory_blob_store import MemoryBlobStore
from sheaf.application.ports.blob_store import BlobStore
from sheaf.domain.errors import ErrorKind, SheafError

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["memory", "filesystem",
                        pytest.param("s3", marks=pytest.mark.integration)])
async def blobs(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[BlobStore]:
    if request.param == "memory":
        yield MemoryBlobStore()
    elif request.param == "filesystem":
        yield FilesystemBlobStore(tmp_path)
    else:
        from sheaf.adapters.blobs.s3.blob_store import S3BlobStore

        server = request.getfixturevalue("s3_server")
        # A small threshold, so the large blob below goes up as a multipart upload.
        store = S3BlobStore(request.getfixturevalue("s3_bucket"),
                            server.settings(multipart_threshold=256 * 1024))
        try:
            yield store
        finally:
            await store.aclose()


async def test_put_get_has_delete(blobs: BlobStore) -> None:
    sha = await blobs.put(b"%PDF-1.7 bytes")
    assert sha == hashlib.sha256(b"%PDF-1.7 bytes").hexdigest()
    assert await blobs.put(b"%PDF-1.7 bytes") == sha  # idempotent
    assert await blobs.get(sha) == b"%PDF-1.7 bytes"
    assert await blobs.has(sha)
    await blobs.delete(sha)
    assert not await blobs.has(sha)
    await blobs.delete(sha)  # absent: ignored
    with pytest.raises(SheafError) as caught:
        await blobs.get(sha)
    assert caught.value.kind is ErrorKind.DOCUMENT_NOT_FOUND


async def test_empty_and_large_blobs(blobs: BlobStore) -> None:
    for data in (b"", bytes(range(256)) * 4096):
        assert await blobs.get(await blobs.put(data)) == data


def test_files_are_content_addressed_and_leave_no_temporaries(tmp_path: Path) -> None:
    import anyio

    store = FilesystemBlobStore(tmp_path)
    sha = anyio.run(store.put, b"hello")
    assert (tmp_path / "raw" / sha[:2] / sha).read_bytes() == b"hello"
    assert not list(tmp_path.rglob(".tmp-*"))


async def test_a_hash_the_caller_already_has_is_used(blobs: BlobStore) -> None:
    sha = hashlib.sha256(b"fetched bytes").hexdigest()
    assert await blobs.put(b"fetched bytes", sha) == sha
    assert await blobs.get(sha) == b"fetched bytes"
