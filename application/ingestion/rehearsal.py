"""What a dry run of a batch would have stored so far, so that its later sources are
judged as a real run would judge them: bytes an earlier source of the batch brought are a
`duplicate` of that source's document, not `new` a second time."""

from __future__ import annotations


class Rehearsal:
    """The documents a dry run would have stored, by the sha256 of their bytes. One per
    batch; the ingestion's per-bytes lock orders the sources that share bytes."""

    def __init__(self) -> None:
        self._documents: dict[tuple[str, str], str] = {}

    def holding(self, space: str, fetched_sha: str) -> str | None:
        """The document an earlier source of the batch would have stored these bytes in."""
        return self._documents.get((space, fetched_sha))

    def would_store(self, space: str, fetched_sha: str, document_id: str) -> None:
        self._documents.setdefault((space, fetched_sha), document_id)
