"""A version's staged artifacts: what storing it needs, serialisable to meta.json and
chunks.jsonl so an interrupted ingest can resume without extracting again."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import attrs

from ..analysis.chunking import Chunk
from ..analysis.sections import Section
from ..analysis.text_profile import TextProfile
from ..values.frozen_mapping import frozen_mapping
from ..values.value_codec import from_plain, to_plain
from .knowledge_records import BlockRow

ARTIFACT_FORMAT = 2
"""2: the profile holds its spans (1 held only counts, and resumes extract again)."""


@attrs.frozen
class StagedVersion:
    version_id: str
    title: str | None
    content_source: str
    content_type: str
    metadata: Mapping[str, object] = attrs.field(converter=frozen_mapping)
    diagnostics: tuple[str, ...] = ()
    blocks: tuple[BlockRow, ...] = ()
    characters: int = 0
    final_url: str | None = None
    content_sha: str = ""
    markdown_sha: str = ""
    chunks: tuple[Chunk, ...] = ()
    sections: tuple[Section, ...] = ()
    profile: TextProfile | None = None

    def meta_json(self) -> bytes:
        meta = {"format": ARTIFACT_FORMAT, **to_plain(attrs.evolve(self, chunks=()))}
        del meta["chunks"]
        return json.dumps(meta, ensure_ascii=False, indent=1).encode()

    def chunks_jsonl(self) -> bytes:
        return "".join(json.dumps(to_plain(c), ensure_ascii=False) + "\n"
                       for c in self.chunks).encode()

    @classmethod
    def from_artifacts(cls, meta_json: bytes, chunks_jsonl: bytes) -> StagedVersion | None:
        """The staged version, or None when the artifacts are of another format."""
        meta: dict[str, Any] = json.loads(meta_json)
        if meta.pop("format", None) != ARTIFACT_FORMAT:
            return None
        # Split on newlines only: `splitlines` also splits on U+0085 and U+2028, which
        # JSON written with ensure_ascii=False leaves raw inside a chunk's text.
        chunks = tuple(from_plain(Chunk, json.loads(line))
                       for line in chunks_jsonl.decode().split("\n") if line.strip())
        return attrs.evolve(from_plain(cls, meta), chunks=chunks)
