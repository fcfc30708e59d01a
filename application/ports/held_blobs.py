"""The held-blobs port: small blobs a store keeps in its own writes (ADR-0047)."""

from __future__ import annotations

from typing import Protocol


class HeldBlobs(Protocol):
    """Blobs a store holds itself, written in the transaction of the version that
    references them (`VersionBundle.blobs`); read, listed and deleted here."""

    async def get(self, sha256: str) -> bytes | None:
        """The bytes, or None when the store does not hold them."""
        ...

    async def has(self, sha256: str) -> bool:
        ...

    async def delete(self, sha256: str) -> None:
        """Forget a blob; absent ones are ignored."""
        ...

    async def stored_digests(self) -> list[str]:
        """The sha256 of every blob held."""
        ...
