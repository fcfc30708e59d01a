"""What resolving a URL yields: the text, where it came from and why."""

from __future__ import annotations

import attrs

from .content_source import ContentSource as ContentSource  # re-exported: its old home
from .diagnostics import Diagnostics
from .document import Document
from .metadata import DocumentMetadata


@attrs.frozen
class ResolvedContent:
    """Routed, verified and extracted content of one source, with its decision log."""

    text: str
    """Canonical Markdown: `document.text`."""
    content_type: str
    source: ContentSource
    original_url: str
    normalised_url: str
    final_url: str
    sha256: str
    """Of the raw bytes the text was extracted from."""
    diagnostics: Diagnostics
    document: Document
    metadata: DocumentMetadata = attrs.field(factory=DocumentMetadata)
    content_url: str | None = None
    """Where the extracted bytes came from when that is not `final_url` (a linked PDF)."""
    raw: bytes = attrs.field(default=b"", repr=False, eq=False)
    """The bytes the text was extracted from (kept by ingestion as the raw blob)."""

    @property
    def title(self) -> str | None:
        return self.metadata.title

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form (without the block list)."""
        return {
            "title": self.title,
            "source": self.source.value,
            "content_type": self.content_type,
            "original_url": self.original_url,
            "normalised_url": self.normalised_url,
            "final_url": self.final_url,
            "content_url": self.content_url or self.final_url,
            "sha256": self.sha256,
            "metadata": self.metadata.as_dict(),
            "diagnostics": self.diagnostics.messages(),
            "characters": len(self.text),
            "text": self.text,
        }
