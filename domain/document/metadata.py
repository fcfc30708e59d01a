"""Bibliographic and descriptive metadata of a document."""

from __future__ import annotations

import attrs


@attrs.frozen
class DocumentMetadata:
    """What a page or file says about itself; every field is optional."""

    title: str | None = None
    authors: tuple[str, ...] = ()
    doi: str | None = None
    citation_pdf_url: str | None = None
    journal: str | None = None
    published: str | None = None
    abstract: str | None = None
    language: str | None = None
    canonical_url: str | None = None
    description: str | None = None
    keywords: tuple[str, ...] = ()
    site_name: str | None = None

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form, omitting empty fields."""
        out: dict[str, object] = {}
        for field in attrs.fields(DocumentMetadata):
            value = getattr(self, field.name)
            if value in (None, ()):
                continue
            out[field.name] = list(value) if isinstance(value, tuple) else value
        return out


def merge_metadata(primary: DocumentMetadata, fallback: DocumentMetadata) -> DocumentMetadata:
    """`primary`, with each empty field taken from `fallback`."""
    values = {}
    for field in attrs.fields(DocumentMetadata):
        mine = getattr(primary, field.name)
        values[field.name] = mine if mine not in (None, ()) else getattr(fallback, field.name)
    return DocumentMetadata(**values)
