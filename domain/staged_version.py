"""A version's staged artifacts: what storing it needs, serialisable to meta.json and
chunks.jsonl so an interrupted ingest can resume without extracting again."""

from __future__ import annotations

import json
from typing import Any

import attrs

from sheaf.domain.chunking import Chunk
from sheaf.domain.knowledge_records import BlockRow
from sheaf.domain.sections import Section

ARTIFACT_FORMAT = 1


@attrs.frozen
class StagedVersion:
    version_id: str
    title: str | None
    content_source: str
    content_type: str
    metadata: dict[str, object]
    diagnostics: tuple[str, ...]
    blocks: tuple[BlockRow, ...]
    characters: int
    final_url: str | None
    content_sha: str
    markdown_sha: str
    chunks: tuple[Chunk, ...]
    sections: tuple[Section, ...] = ()
    profile: dict[str, object] = attrs.field(factory=dict)

    def meta_json(self) -> bytes:
        meta = {
            "format": ARTIFACT_FORMAT, "version_id": self.version_id, "title": self.title,
            "content_source": self.content_source, "content_type": self.content_type,
            "metadata": self.metadata, "diagnostics": list(self.diagnostics),
            "blocks": [attrs.asdict(b) for b in self.blocks], "characters": self.characters,
            "final_url": self.final_url, "content_sha": self.content_sha,
            "markdown_sha": self.markdown_sha, "profile": self.profile,
            "sections": [attrs.asdict(s) for s in self.sections],
        }
        return json.dumps(meta, ensure_ascii=False, indent=1).encode()

    def chunks_jsonl(self) -> bytes:
        return "".join(json.dumps(attrs.asdict(c), ensure_ascii=False) + "\n"
                       for c in self.chunks).encode()

    @classmethod
    def from_artifacts(cls, meta_json: bytes, chunks_jsonl: bytes) -> StagedVersion:
        meta: dict[str, Any] = json.loads(meta_json)
        chunks = tuple(_chunk(json.loads(line)) for line in chunks_jsonl.decode().splitlines()
                       if line.strip())
        return cls(
            version_id=meta["version_id"], title=meta["title"],
            content_source=meta["content_source"], content_type=meta["content_type"],
            metadata=meta["metadata"], diagnostics=tuple(meta["diagnostics"]),
            blocks=tuple(BlockRow(kind=b["kind"], start=b["start"], end=b["end"],
                                  level=b["level"], label=b["label"],
                                  pages=tuple(b["pages"])) for b in meta["blocks"]),
            characters=meta["characters"], final_url=meta["final_url"],
            content_sha=meta["content_sha"], markdown_sha=meta["markdown_sha"],
            chunks=chunks, profile=meta.get("profile", {}))


def _chunk(data: dict[str, Any]) -> Chunk:
    return Chunk(**{**data, "heading_path": tuple(data["heading_path"]),
                    "pages": tuple(data["pages"])})
