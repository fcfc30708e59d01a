"""Listing a space's documents a page at a time: the order (newest change first, then
id) and the cursor that says where a page ended.

The cursor is the last listed document's (updated_at, id), so the next page starts
strictly after it however many documents were written meanwhile: a document changed
while a client pages moves to the front (it was changed after the listing began) and is
never listed twice on later pages, nor is one skipped because another was added. It is
opaque to clients (URL-safe base64 of JSON) and checked when read back."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import UTC, datetime

import attrs

from ..errors import ErrorKind, SheafError
from .knowledge_records import DocumentRecord

DEFAULT_PAGE = 100
LARGEST_PAGE = 1000


@attrs.frozen
class PageCursor:
    """Where a page ended: the last document's change time and id."""

    updated_at: datetime
    document_id: str

    def encode(self) -> str:
        plain = json.dumps({"u": self.updated_at.isoformat(), "i": self.document_id},
                           separators=(",", ":"))
        return base64.urlsafe_b64encode(plain.encode("utf-8")).decode("ascii").rstrip("=")

    @classmethod
    def decode(cls, text: str) -> PageCursor:
        """The cursor `text` holds; `invalid_query` for anything a page did not give."""
        try:
            padded = text + "=" * (-len(text) % 4)
            fields = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
            moment = datetime.fromisoformat(fields["u"])
            document_id = fields["i"]
        except (ValueError, KeyError, TypeError, binascii.Error, UnicodeError):
            raise SheafError(ErrorKind.INVALID_QUERY, "the cursor is not one a page of "
                                                      "documents gave; start without it"
                             ) from None
        if not isinstance(document_id, str) or moment.tzinfo is None:
            raise SheafError(ErrorKind.INVALID_QUERY, "the cursor is not one a page of "
                                                      "documents gave; start without it")
        return cls(moment.astimezone(UTC), document_id)


def changed_at(document: DocumentRecord) -> datetime:
    """The moment a document sorts by: its last change (its current version's creation
    for a record that has none)."""
    moment = document.updated_at or document.current.created_at
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def sort_key(document: DocumentRecord) -> tuple[float, str]:
    """The listing order: newest change first, then id."""
    return -changed_at(document).timestamp(), document.id


def after(document: DocumentRecord, cursor: PageCursor | None) -> bool:
    """Whether `document` comes after the page that ended at `cursor`."""
    if cursor is None:
        return True
    moment = changed_at(document)
    return moment < cursor.updated_at or (moment == cursor.updated_at
                                          and document.id > cursor.document_id)


def page_size(limit: int | None) -> int:
    """The page size asked for, `invalid_query` outside 1..LARGEST_PAGE."""
    if limit is None:
        return DEFAULT_PAGE
    if not 1 <= limit <= LARGEST_PAGE:
        raise SheafError(ErrorKind.INVALID_QUERY, f"a page holds 1 to {LARGEST_PAGE} "
                                                  f"documents, not {limit}")
    return limit


@attrs.frozen
class DocumentPage:
    """One page of a space's documents and the cursor of the next (None at the end)."""

    documents: tuple[DocumentRecord, ...]
    next_cursor: str | None


def page_of(documents: list[DocumentRecord], limit: int) -> DocumentPage:
    """The page of `limit` documents from `documents`, which a store read one past the
    limit (so that a full last page says it is the last)."""
    shown = tuple(documents[:limit])
    more = len(documents) > limit and bool(shown)
    cursor = PageCursor(changed_at(shown[-1]), shown[-1].id).encode() if more else None
    return DocumentPage(shown, cursor)
