"""How results are printed: Markdown, plain text or JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...domain.document.document import Document
from ...domain.document.markdown_rendering import document_plain_text
from .indented_json import indented_json

if TYPE_CHECKING:
    from ..api.knowledge_results import ExtractedSource

FORMATS = ("markdown", "text", "json")
SUFFIXES = {"markdown": ".md", "text": ".txt", "json": ".json"}


def document_json(document: Document) -> dict[str, Any]:
    """Blocks with their exact spans, pages and boxes, plus metadata and links."""
    blocks = []
    for block in document.blocks:
        entry: dict[str, Any] = {"kind": block.kind.value, "start": block.start,
                                 "end": block.end}
        if block.level:
            entry["level"] = block.level
        if block.draft.label:
            entry["label"] = block.draft.label
        if block.draft.pages:
            entry["pages"] = list(block.draft.pages)
        if block.draft.bbox:
            entry["bbox"] = [round(v, 1) for v in block.draft.bbox]
        if block.draft.word_confidences:
            entry["word_confidences"] = [round(c, 1) for c in block.draft.word_confidences]
        blocks.append(entry)
    return {
        "metadata": document.metadata.as_dict(),
        "page_count": document.page_count,
        "blocks": blocks,
        "links": [{"text": link.text, "url": link.url} for link in document.links
                  if not link.rel],
        "notes": list(document.notes),
        "extraction_confidence": (document.confidence.as_dict()
                                  if document.confidence is not None else None),
        "text": document.text,
    }


def extraction_details(extracted: ExtractedSource) -> dict[str, Any]:
    """What `extract --format json` says of an input besides its document: the kind of
    content, and the URL with the resolver's diagnostics, or the path with the route's
    reason."""
    if extracted.resolved is not None:
        content = extracted.resolved
        return {"source": content.source.value, "url": content.final_url,
                "diagnostics": content.diagnostics.messages()}
    assert extracted.extracted is not None
    return {"source": extracted.extracted.source.value, "path": extracted.source,
            "routing": extracted.extracted.decision.reason}


def render(document: Document, fmt: str, extra: dict[str, Any] | None = None) -> str:
    if fmt == "markdown":
        return document.text + "\n"
    if fmt == "text":
        return document_plain_text(document) + "\n"
    payload = {**(extra or {}), **document_json(document)}
    return indented_json(payload) + "\n"
