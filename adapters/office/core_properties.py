"""The title, authors, dates, subject and keywords an OOXML file says of itself."""

from __future__ import annotations

import re

from ...domain.document.metadata import DocumentMetadata
from .container_reading import Container

CP = "{http://schemas.openxmlformats.org/package/2006/metadata/core-properties}"
DC = "{http://purl.org/dc/elements/1.1/}"
DCTERMS = "{http://purl.org/dc/terms/}"


def core_metadata(container: Container) -> DocumentMetadata:
    """`docProps/core.xml` as metadata; empty when the part is absent."""
    root = container.optional_xml("docProps/core.xml")
    if root is None:
        return DocumentMetadata()

    def text(tag: str) -> str | None:
        element = root.find(tag)
        value = " ".join((element.text or "").split()) if element is not None else ""
        return value or None

    creator = text(DC + "creator")
    keywords = text(CP + "keywords")
    published = text(DCTERMS + "created") or text(DCTERMS + "modified")
    return DocumentMetadata(
        title=text(DC + "title"),
        authors=tuple(a.strip() for a in re.split(r";", creator) if a.strip()) if creator
        else (),
        published=published[:10] if published else None,
        description=text(DC + "subject") or text(DC + "description"),
        keywords=tuple(k.strip() for k in re.split(r"[;,]", keywords) if k.strip())
        if keywords else (),
        language=text(DC + "language"),
    )
