"""The ArtifactStore contract, against the in-memory fake, the filesystem store and the S3
store on a loopback S3 server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sheaf.adapters.blobs.filesystem_artifact_store import FilesystemArtifactStore
from sheaf.adapters.blobs.memory_artifact_store import MemoryArtifactStore
from sheaf.application.ports.artifact_store import ArtifactStore

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["memory", "filesystem",
                        pytest.param("s3", marks=pytest.mark.integration)])
async def artifacts(request: pytest.FixtureRequest,
                    tmp_path: Path) -> AsyncIterator[ArtifactStore]:
    if request.param == "memory":
        yield MemoryArtifactStore()
    elif request.param == "filesystem":
        yield FilesystemArtifactStore(tmp_path)
    else:
        from sheaf.adapters.blobs.s3.artifact_store import S3ArtifactStore

        store = S3ArtifactStore(request.getfixturevalue("s3_bucket"),
                                request.getfixturevalue("s3_server").settings())
        try:
            yield store
        finally:
            await store.aclose()


async def test_write_read_and_overwrite(artifacts: ArtifactStore) -> None:
    assert await artifacts.read("default/abc/v1", "meta.json") is None
    await artifacts.write("default/abc/v1", "meta.json", b"{}")
    assert await artifacts.read("default/abc/v1", "meta.json") == b"{}"
    await artifacts.write("default/abc/v1", "meta.json", b'{"a": 1}')
    assert await artifacts.read("default/abc/v1", "meta.json") == b'{"a": 1}'
    assert await artifacts.read("default/abc/v2", "meta.json") is None


async def test_delete_under_removes_a_prefix_and_nothing_beside_it(
        artifacts: ArtifactStore) -> None:
    for key in ("s/src1/v1", "s/src1/v2", "s/src10/v1", "s/src2/v1"):
        await artifacts.write(key, "document.md", key.encode())
    await artifacts.delete_under("s/src1")
    assert await artifacts.read("s/src1/v1", "document.md") is None
    assert await artifacts.read("s/src1/v2", "document.md") is None
    assert await artifacts.read("s/src10/v1", "document.md") == b"s/src10/v1"
    assert await artifacts.read("s/src2/v1", "document.md") == b"s/src2/v1"
    await artifacts.delete_under("s/never-written")  # nothing to delete is not an error
