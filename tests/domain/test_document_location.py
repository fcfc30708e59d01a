from __future__ import annotations

from datetime import UTC, datetime

from sheaf.domain.document.document_location import DocumentLocation
from sheaf.domain.store.ingestion import SourceKind
from sheaf.domain.store.knowledge_records import DocumentRecord, SourceRecord, VersionRecord


def record(*sources: tuple[SourceKind, str, str, str | None]) -> DocumentRecord:
    version = VersionRecord("doc_1.v1", "doc_1", "default", 1, "sha", "sha", "sha", "file",
                            "text/markdown", None, datetime.now(UTC))
    return DocumentRecord("doc_1", "default", None, version, tuple(
        SourceRecord("default", key, kind, "doc_1", "sha", original, final)
        for kind, key, original, final in sources), (version,))


def test_a_url_is_cited_where_its_redirects_ended() -> None:
    found = record((SourceKind.FILE, "/data/a.md", "a.md", None),
                   (SourceKind.URL, "https://x.org/a", "https://x.org/a", "https://x.org/b"))
    assert found.location == DocumentLocation(url="https://x.org/b")
    assert found.location.cited == "https://x.org/b"


def test_a_local_file_by_absolute_path_and_file_uri() -> None:
    found = record((SourceKind.FILE, "/data/field notes/a b.md", "notes/a b.md", None))
    assert found.location.as_dict() == {"path": "/data/field notes/a b.md",
                                        "file_uri": "file:///data/field%20notes/a%20b.md",
                                        "file_name": "a b.md"}
    assert found.location.cited == "file:///data/field%20notes/a%20b.md"


def test_an_upload_by_its_original_name_never_its_spool_path() -> None:
    found = record((SourceKind.UPLOAD, "/srv/uploads/9f/report.pdf", "Report 2024.pdf", None))
    assert found.location.as_dict() == {"file_name": "Report 2024.pdf"}


def test_nothing_known_cites_nothing() -> None:
    assert record().location.cited is None
