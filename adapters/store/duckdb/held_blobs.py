"""Small blobs held in the DuckDB file (`held_blobs`), written in the transaction of the
version that references them rather than as files fsynced before it (ADR-0047).

Each is zlib-compressed: a small text compresses to about half, and DuckDB stores a
BLOB as it is given."""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

import duckdb

from ....domain.errors import ErrorKind, SheafError

if TYPE_CHECKING:
    from .connection import DuckDbConnection

HELD_BLOB_BYTES = 64 * 1024
"""The largest blob the store holds itself; larger ones stay files (a DuckDB value that
size is still cheap to write in one statement, and most small documents' raw bytes
and Markdown fit)."""
_SHAPE = json.dumps([{"sha": "VARCHAR", "data": "VARCHAR"}])


def insert(c: duckdb.DuckDBPyConnection, blobs: Sequence[tuple[str, bytes]]) -> None:
    """Hold the (sha256, bytes) `blobs` in one statement; one already held is kept."""
    unique = dict(blobs)
    if not unique:
        return
    rows = [{"sha": sha, "data": base64.b64encode(zlib.compress(data)).decode("ascii")}
            for sha, data in unique.items()]
    c.execute("INSERT INTO held_blobs SELECT r.sha, from_base64(r.data) FROM (SELECT "
              "unnest(from_json(?::JSON, ?), recursive := true)) AS r "
              "ON CONFLICT (sha) DO NOTHING", [json.dumps(rows), _SHAPE])


class DuckDbHeldBlobs:
    """The blobs the file holds, by sha256: read, listed and deleted (a removal's
    collection and the sweep delete them as they delete files). Written only by a
    version's unit of work (`insert`)."""

    def __init__(self, connection: DuckDbConnection) -> None:
        self._connection = connection

    async def get(self, sha256: str) -> bytes | None:
        """The bytes, or None when the file does not hold them."""
        def read(c: duckdb.DuckDBPyConnection) -> bytes | None:
            row = c.execute("SELECT data FROM held_blobs WHERE sha = ?", [sha256]).fetchone()
            return bytes(row[0]) if row else None

        packed = await self._connection.read(read)
        if packed is None:
            return None
        try:
            return zlib.decompress(packed)
        except zlib.error:
            raise SheafError(ErrorKind.CORRUPT, f"the held blob {sha256[:12]} in "
                             f"{self._connection.path} does not decompress") from None

    async def has(self, sha256: str) -> bool:
        def read(c: duckdb.DuckDBPyConnection) -> bool:
            return c.execute("SELECT 1 FROM held_blobs WHERE sha = ?",
                             [sha256]).fetchone() is not None

        return await self._connection.read(read)

    async def delete(self, sha256: str) -> None:
        await self._connection.run(
            lambda c: c.execute("DELETE FROM held_blobs WHERE sha = ?", [sha256]))

    async def stored_digests(self) -> list[str]:
        def read(c: duckdb.DuckDBPyConnection) -> list[str]:
            return [str(r[0]) for r in c.execute(
                "SELECT sha FROM held_blobs ORDER BY sha").fetchall()]

        return await self._connection.read(read)
