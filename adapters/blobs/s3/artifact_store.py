"""Staged artifacts as objects: `<prefix>/versions/<key>/<name>` in an S3-compatible bucket."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .location import S3Location
from .opening import s3_connection
from .settings import S3Settings

if TYPE_CHECKING:
    from .connection import S3Connection

_SAFE = re.compile(r"^[A-Za-z0-9._/-]+$")


class S3ArtifactStore:
    """A version's files, each one object; a read returns None unless a write of that
    file completed (S3 shows no partial PUT or unfinished multipart upload)."""

    def __init__(self, location: S3Location, settings: S3Settings | None = None, *,
                 connection: S3Connection | None = None) -> None:
        self.location = location
        self.page_size = 1000
        """Keys listed per ListObjectsV2 and deleted per DeleteObjects (S3's limit for both)."""
        self._s3 = connection or s3_connection(location, settings or S3Settings())

    def _folder(self, key: str) -> str:
        segments = key.split("/")
        if not _SAFE.match(key) or any(s in ("", ".", "..") for s in segments):
            raise ValueError(f"unsafe artifact key {key!r}")
        return self.location.key("versions", key)

    def _key(self, key: str, name: str) -> str:
        if not _SAFE.match(name) or "/" in name or name in (".", ".."):
            raise ValueError(f"unsafe artifact name {key!r}/{name!r}")
        return f"{self._folder(key)}/{name}"

    async def write(self, key: str, name: str, data: bytes) -> None:
        await self._s3.upload(self._key(key, name), data)

    async def read(self, key: str, name: str) -> bytes | None:
        return await self._s3.download(self._key(key, name))

    async def delete_under(self, prefix: str) -> None:
        # The trailing slash keeps `s/src1` from reaching `s/src10/...`.
        folder = self._folder(prefix.strip("/")) + "/"
        # Listing goes on by key after the last one seen, so deleting a page as soon as
        # it is listed leaves the next page intact.
        async for page in self._s3.keys_under(folder, self.page_size):
            await self._s3.remove_many(page)

    async def aclose(self) -> None:
        await self._s3.aclose()
