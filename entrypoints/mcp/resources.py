"""Documents as MCP resources: each document's Markdown and its section list, read whole
section by section or by character range, each read within the output budget.

    sheaf://documents/{id}                    the Markdown (the first piece that fits)
    sheaf://documents/{id}/range/{start}-{end}  characters start to end
    sheaf://documents/{id}/sections           the section list (JSON)
    sheaf://documents/{id}/sections/{n}       one section's Markdown, by its number in
                                              the section list (or a label or heading)

A piece that stops short of what was asked for ends on a whole sentence and names the
URI that reads on in its `_meta.next`.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote, unquote

import attrs

from ...domain.errors import ErrorKind, SheafError
from ..api import serialisation
from ..api.knowledge_api import KnowledgeApi
from .document_sections import section_span
from .output_budget import OutputBudget, sentence_cut

SCHEME = "sheaf://documents/"
DOCUMENTS_PER_PAGE = 100
TEMPLATES = (
    ("document", f"{SCHEME}{{document_id}}", "text/markdown",
     "A document's Markdown, from the start: as much as one answer holds"),
    ("document range", f"{SCHEME}{{document_id}}/range/{{start}}-{{end}}", "text/markdown",
     "Characters start to end of a document's Markdown"),
    ("document sections", f"{SCHEME}{{document_id}}/sections", "application/json",
     "A document's sections: labels, headings, levels and character spans"),
    ("document section", f"{SCHEME}{{document_id}}/sections/{{section}}", "text/markdown",
     "One section's Markdown, by its index in the section list, its label or heading"),
)
_URI = re.compile(r"^sheaf://documents/(?P<id>[^/?#]+)"
                  r"(?:/range/(?P<start>\d+)-(?P<end>\d+)|/(?P<sections>sections)"
                  r"(?:/(?P<section>[^/?#]+))?)?$")


@attrs.frozen
class ResourcePiece:
    """What one read returns: the text, its MIME type and the URI that reads on."""

    uri: str
    mime_type: str
    text: str
    next_uri: str | None = None
    start: int | None = None
    end: int | None = None


def document_uri(document_id: str) -> str:
    return SCHEME + quote(document_id, safe="")


def range_uri(document_id: str, start: int, end: int) -> str:
    return f"{document_uri(document_id)}/range/{start}-{end}"


async def list_documents(knowledge: KnowledgeApi, skip: int
                         ) -> tuple[list[dict[str, Any]], int | None]:
    """One page of documents as resources (name, title, URI, size) and where the next
    page starts (None after the last)."""
    records = await knowledge.documents()
    page = records[skip:skip + DOCUMENTS_PER_PAGE]
    listed = [serialisation.document_resource(r, document_uri(r.id)) for r in page]
    following = skip + len(page)
    return listed, following if following < len(records) else None


async def read(knowledge: KnowledgeApi, uri: str, budget: OutputBudget) -> ResourcePiece:
    """Read a `sheaf://documents/...` URI; `invalid_query` for another URI,
    `document_not_found` or `out_of_range` for what is not there."""
    matched = _URI.match(uri)
    if matched is None:
        raise SheafError(ErrorKind.INVALID_QUERY,
                         f"not a sheaf resource: {uri} (sheaf://documents/ID, "
                         ".../sections, .../sections/LABEL or .../range/START-END)")
    reference = unquote(matched["id"])
    if matched["sections"] and matched["section"] is None:
        sections = await knowledge.sections(reference)
        listed = [serialisation.section_resource(
            s, f"{document_uri(reference)}/sections/{s.index}") for s in sections]
        return ResourcePiece(uri, "application/json", json.dumps(
            {"document_id": reference, "sections": listed}, ensure_ascii=False))
    stored = await knowledge.document(reference)
    markdown = stored.markdown
    if matched["section"] is not None:
        start, end = await section_span(knowledge, reference, unquote(matched["section"]))
    elif matched["start"] is not None:
        start, end = int(matched["start"]), int(matched["end"])
        if not start <= end <= len(markdown):
            raise SheafError(ErrorKind.OUT_OF_RANGE,
                             f"document {stored.id} has {len(markdown)} characters; asked "
                             f"for {start}-{end}")
    else:
        start, end = 0, len(markdown)
    # The URI of the next piece and the `_meta` ride along: keep room for them.
    cut = sentence_cut(markdown, start, end, max(1, budget.characters - 300))
    following = range_uri(stored.id, cut, end) if cut < end else None
    return ResourcePiece(uri, "text/markdown", markdown[start:cut], following, start, cut)

