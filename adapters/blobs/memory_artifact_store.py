"""In-memory staged artifacts."""

from __future__ import annotations


class MemoryArtifactStore:
    def __init__(self) -> None:
        self.files: dict[tuple[str, str], bytes] = {}

    async def write(self, key: str, name: str, data: bytes) -> None:
        self.files[(key, name)] = bytes(data)

    async def read(self, key: str, name: str) -> bytes | None:
        return self.files.get((key, name))

    async def delete_under(self, prefix: str) -> None:
        for key, name in list(self.files):
            if key == prefix or key.startswith(prefix.rstrip("/") + "/"):
                del self.files[(key, name)]
