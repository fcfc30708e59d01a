"""Documents from text that needs no extraction: plain text, Markdown and JSON."""

from __future__ import annotations

import json
import re

from ..document.document import BlockDraft, BlockKind, Document
from ..document.markdown_rendering import assemble_document
from ..document.metadata import DocumentMetadata
from ..values.json_nesting import check_json_depth

_ATX_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")


def raw_document(text: str, media_type: str, *, title: str | None = None) -> Document:
    """A document from raw text; Markdown keeps its headings and fences, JSON is pretty-printed."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if media_type == "application/json" or media_type.endswith("+json"):
        drafts = [_json_block(text)]
    elif media_type in ("text/markdown", "text/x-markdown"):
        drafts = _markdown_blocks(text)
    else:
        drafts = [BlockDraft(BlockKind.PARAGRAPH, text=p.strip("\n"))
                  for p in re.split(r"\n[ \t]*\n", text) if p.strip()]
    if title is None:
        heading = next((d for d in drafts if d.kind is BlockKind.HEADING), None)
        title = heading.text if heading else None
    return assemble_document(drafts, metadata=DocumentMetadata(title=title))


def _json_block(text: str) -> BlockDraft:
    check_json_depth(text, "the JSON document")
    try:
        pretty = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        pretty = text
    return BlockDraft(BlockKind.CODE, text=pretty, language="json")


def _markdown_blocks(text: str) -> list[BlockDraft]:
    drafts: list[BlockDraft] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            drafts.append(BlockDraft(BlockKind.PARAGRAPH, text="\n".join(paragraph)))
            paragraph.clear()

    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        heading = _ATX_HEADING.match(line)
        if fence:
            flush()
            marker, language = fence.group(1), fence.group(2).strip() or None
            body: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].startswith(marker):
                body.append(lines[i])
                i += 1
            drafts.append(BlockDraft(BlockKind.CODE, text="\n".join(body), language=language))
        elif heading:
            flush()
            drafts.append(BlockDraft(BlockKind.HEADING, text=heading.group(2),
                                     level=len(heading.group(1))))
        elif line.strip():
            paragraph.append(line)
        else:
            flush()
        i += 1
    flush()
    return drafts
