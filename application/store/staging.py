"""Where a source's staged artifacts live: one key per (space, source, fetched bytes)."""

from __future__ import annotations

import hashlib


def stage_prefix(space: str, source_key: str) -> str:
    """The artifact key under which every staged version of one source lies."""
    source_hash = hashlib.sha256(source_key.encode()).hexdigest()[:20]
    return f"{hashlib.sha256(space.encode()).hexdigest()[:12]}/{source_hash}"


def stage_key(space: str, source_key: str, fetched_sha: str) -> str:
    """The artifact key of one staged version: its source's prefix and its bytes' hash."""
    return f"{stage_prefix(space, source_key)}/{fetched_sha[:20]}"
