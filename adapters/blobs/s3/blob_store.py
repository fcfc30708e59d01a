"""Content-addressed blobs in an S3-compatible bucket: `<prefix>/raw/ab/abcdef...`.

The keys mirror the blob folder's layout (`raw/<2 hex>/<sha256>`, `versions/...`), so a
folder synced to a bucket (`aws s3 sync kb.blobs s3://bucket/prefix`) is a valid S3 store
and the reverse. An object appears only when its PUT, or its multipart upload, completes,
which is the port's "whole or absent"."""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ....domain.errors import ErrorKind, SheafError
from .artifact_store import S3ArtifactStore
from .location import S3Location, parse_s3_url
from .opening import s3_connection
from .settings import S3Settings, settings_from_environment

if TYPE_CHECKING:
    from .connection import S3Connection

_HEX = frozenset("0123456789abcdef")


class S3BlobStore:
    """Blobs as objects named by their sha256. Uploads send the sha256 as the object's
    checksum, so the service itself refuses a body that does not match its address;
    reads check it again, so a blob comes back whole or as an error."""

    def __init__(self, location: S3Location, settings: S3Settings | None = None, *,
                 connection: S3Connection | None = None) -> None:
        self.location = location
        self._s3 = connection or s3_connection(location, settings or S3Settings())

    def _key(self, sha256: str) -> str:
        if len(sha256) != 64 or not _HEX.issuperset(sha256):
            raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND, f"not a sha256: {sha256!r}")
        return self.location.key("raw", sha256[:2], sha256)

    async def put(self, data: bytes, sha256: str | None = None) -> str:
        digest = bytes.fromhex(sha256) if sha256 else hashlib.sha256(data).digest()
        sha = digest.hex()
        key = self._key(sha)
        if not await self._s3.exists(key):
            if len(data) < self._s3.settings.multipart_threshold:
                await self._s3.upload(key, data,
                                      ChecksumSHA256=base64.b64encode(digest).decode())
            else:
                await self._s3.upload(key, data)
        return sha

    async def get(self, sha256: str) -> bytes:
        key = self._key(sha256)
        data = await self._s3.download(key)
        if data is None:
            raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND, f"no blob {sha256}")
        if hashlib.sha256(data).hexdigest() != sha256:
            raise SheafError(ErrorKind.STORAGE,
                             f"the blob s3://{self.location.bucket}/{key} read back with a "
                             "different sha256 (changed in the bucket, or cut short)")
        return data

    async def has(self, sha256: str) -> bool:
        return await self._s3.exists(self._key(sha256))

    async def delete(self, sha256: str) -> None:
        await self._s3.remove(self._key(sha256))

    async def aclose(self) -> None:
        await self._s3.aclose()


def blob_stores_from_url(url: str, environ: Mapping[str, str] | None = None,
                         settings: S3Settings | None = None,
                         ) -> tuple[S3BlobStore, S3ArtifactStore]:
    """The blob and artifact stores for `s3://bucket/prefix`, sharing one connection;
    endpoint, region and credentials from `environ` (the process environment by default)
    unless `settings` are given. Nothing is contacted until the first call; closing
    either store closes the shared connection."""
    location = parse_s3_url(url)
    if settings is None:
        settings = settings_from_environment(os.environ if environ is None else environ)
    connection = s3_connection(location, settings)
    return (S3BlobStore(location, connection=connection),
            S3ArtifactStore(location, connection=connection))
