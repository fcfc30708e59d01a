"""Small blobs held in the DuckDB file (`held_blobs`), written in the transaction of the
version that references them rather than as files fsynced before it (ADR-0047).

Each is zlib-compressed: a small text compresses to about half, and DuckDB stores a
BLOB as it is given. A blob written beside others of its version (a Markdown file's raw
bytes and its Markdown, nearly the same text) may be compressed with one of them, its
`basis`, as zlib's preset dictionary: what it shares with the basis costs a few bytes
(ADR-0048). A basis always has a smaller sha256 than the blobs compressed with it, so
following bases ends; a basis is deleted only once its dependents stand alone.

A sha256 is kept as its 32 bytes (ADR-0050): as 64 hexadecimal characters it took twice
that, or more where DuckDB chose not to compress the column. Callers give and get hex."""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

import duckdb

from ....domain.errors import ErrorKind, SheafError
from .sql_literals import SHORT_LIST

if TYPE_CHECKING:
    from .connection import DuckDbConnection

HELD_BLOB_BYTES = 64 * 1024
"""The largest blob the store holds itself; larger ones stay files (a DuckDB value that
size is still cheap to write in one statement, and most small documents' raw bytes
and Markdown fit)."""
_SHAPE = json.dumps([{"sha": "VARCHAR", "data": "VARCHAR", "basis": "VARCHAR"}])
_HEX_DIGITS = frozenset("0123456789abcdef")
_DICTIONARY_BYTES = 32 * 1024
"""zlib looks back this far: a longer basis helps by its last part only."""


def packed(data: bytes, basis: bytes | None = None) -> bytes:
    """`data` compressed, with `basis` as the preset dictionary when given."""
    if basis is None:
        return zlib.compress(data)
    packer = zlib.compressobj(zdict=basis[-_DICTIONARY_BYTES:])
    return packer.compress(data) + packer.flush()


def unpacked(data: bytes, basis: bytes | None = None) -> bytes:
    """What `packed` was given."""
    if basis is None:
        return zlib.decompress(data)
    unpacker = zlib.decompressobj(zdict=basis[-_DICTIONARY_BYTES:])
    return unpacker.decompress(data) + unpacker.flush()


def insert(c: duckdb.DuckDBPyConnection, groups: Sequence[Sequence[tuple[str, bytes]]]
           ) -> None:
    """Hold the (sha256, bytes) blobs of each group (a version's) in one statement; one
    already held is kept. In a group, the blob with the smallest sha256 is compressed
    alone and each other with it as its basis when that is smaller."""
    rows: dict[str, dict[str, str | None]] = {}
    for group in groups:
        unique = dict(group)
        if not unique:
            continue
        first = min(unique)
        for sha, data in sorted(unique.items()):
            if sha in rows:
                continue
            alone = packed(data)
            basis: str | None = None
            if sha != first:
                shared = packed(data, unique[first])
                if len(shared) < len(alone):
                    alone, basis = shared, first
            rows[sha] = {"sha": sha, "data": base64.b64encode(alone).decode("ascii"),
                         "basis": basis}
    if not rows:
        return
    for sha in rows:
        if _digest(sha) is None:
            raise ValueError(f"a held blob's key is a sha256 in hexadecimal, not {sha!r}")
    # A blob already held is left as it is (the table has no key to refuse it by).
    condition, parameters = _among_digests("sha", sorted(rows))
    c.execute("INSERT INTO held_blobs SELECT from_hex(r.sha), from_base64(r.data), "
              "from_hex(r.basis) FROM (SELECT unnest(from_json(?::JSON, ?), recursive := "
              "true)) AS r WHERE from_hex(r.sha) NOT IN (SELECT sha FROM held_blobs WHERE "
              f"{condition})", [json.dumps(list(rows.values())), _SHAPE, *parameters])


def _digest(sha256: str) -> bytes | None:
    """The 32 bytes a sha256 in lower-case hexadecimal stands for; None for any other
    text (no blob is held under it)."""
    if len(sha256) != 64 or not _HEX_DIGITS.issuperset(sha256):
        return None
    return bytes.fromhex(sha256)


def _among_digests(column: str, shas: Sequence[str]) -> tuple[str, list[object]]:
    """A condition that the BLOB `column` is one of the digests `shas` (hex; any that is
    not a digest matches nothing): a short list as literals, which DuckDB can look up
    through an index or skip row groups by, else one bound list."""
    digests = [d.hex() for d in map(_digest, shas) if d is not None]
    if len(digests) <= SHORT_LIST:
        literals = ", ".join(f"from_hex('{d}')" for d in digests)
        return f"{column} IN ({literals or 'NULL'})", []
    return f"{column} IN (SELECT from_hex(unnest(?::VARCHAR[])))", [digests]


def read(c: duckdb.DuckDBPyConnection, sha256: str, path: str) -> bytes | None:
    """A held blob's bytes, its bases followed; None when the file does not hold it."""
    return read_many(c, [sha256], path).get(sha256)


def read_many(c: duckdb.DuckDBPyConnection, shas: Sequence[str], path: str,
              likely_bases: Sequence[str] = ()) -> dict[str, bytes]:
    """The bytes of each of `shas` the file holds, their bases followed: a statement per
    step of bases rather than one per blob. `likely_bases` are read in the first
    statement with them (a version's raw bytes beside its Markdown), saving the second."""
    rows: dict[str, tuple[bytes, str | None]] = {}
    asked: set[str] = set()
    wanted = set(shas) | set(likely_bases)
    while wanted:
        asked |= wanted
        condition, parameters = _among_digests("sha", sorted(wanted))
        for sha, data, basis in c.execute(f"SELECT sha, data, basis FROM held_blobs WHERE "
                                          f"{condition}", parameters).fetchall():
            rows[bytes(sha).hex()] = (bytes(data), None if basis is None else bytes(basis).hex())
        wanted = {b for _, b in rows.values() if b is not None} - asked
    made: dict[str, bytes] = {}

    def whole(sha: str) -> bytes:
        if sha not in made:
            data, basis = rows[sha]
            if basis is not None and (basis >= sha or basis not in rows):
                raise _corrupt(sha, path)
            try:
                made[sha] = unpacked(data, None if basis is None else whole(basis))
            except zlib.error:
                raise _corrupt(sha, path) from None
        return made[sha]

    return {sha: whole(sha) for sha in shas if sha in rows}


def _corrupt(sha256: str, path: str) -> SheafError:
    return SheafError(ErrorKind.CORRUPT, f"the held blob {sha256[:12]} in {path} does not "
                      "decompress")


def delete(c: duckdb.DuckDBPyConnection, sha256: str, path: str) -> None:
    """Delete a held blob; those compressed with it as their basis are compressed alone
    first, so they read the same after."""
    digest = _digest(sha256)
    if digest is None:
        return
    dependents = [bytes(r[0]).hex() for r in c.execute(
        "SELECT sha FROM held_blobs WHERE basis = ?", [digest]).fetchall()]
    for dependent in dependents:
        data = read(c, dependent, path)
        assert data is not None  # just listed, under the write lock
        c.execute("UPDATE held_blobs SET data = ?, basis = NULL WHERE sha = ?",
                  [packed(data), bytes.fromhex(dependent)])
    c.execute("DELETE FROM held_blobs WHERE sha = ?", [digest])


class DuckDbHeldBlobs:
    """The blobs the file holds, by sha256: read, listed and deleted (a removal's
    collection and the sweep delete them as they delete files). Written only by a
    version's unit of work (`insert`)."""

    def __init__(self, connection: DuckDbConnection) -> None:
        self._connection = connection

    async def get(self, sha256: str) -> bytes | None:
        """The bytes, or None when the file does not hold them."""
        path = self._connection.path
        return await self._connection.read(lambda c: read(c, sha256, path))

    async def has(self, sha256: str) -> bool:
        digest = _digest(sha256)

        def found(c: duckdb.DuckDBPyConnection) -> bool:
            return digest is not None and c.execute(
                "SELECT 1 FROM held_blobs WHERE sha = ?", [digest]).fetchone() is not None

        return await self._connection.read(found)

    async def delete(self, sha256: str) -> None:
        path = self._connection.path
        await self._connection.transaction(lambda c: delete(c, sha256, path),
                                           after_commit=lambda: None)

    async def stored_digests(self) -> list[str]:
        def listed(c: duckdb.DuckDBPyConnection) -> list[str]:
            return [bytes(r[0]).hex() for r in c.execute(
                "SELECT sha FROM held_blobs ORDER BY sha").fetchall()]

        return await self._connection.read(listed)
