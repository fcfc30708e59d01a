"""Routing the new formats by content: magic bytes, then a ZIP archive's members."""

from __future__ import annotations

import pytest

from sheaf.domain.errors import ErrorKind
from sheaf.domain.routing.directory_listing import skip_reason
from sheaf.domain.routing.media_type import CSV_TYPE, DOCX_TYPE, EPUB_TYPE, PPTX_TYPE, XLSX_TYPE
from sheaf.domain.routing.routing import Route, describe_content, route_container, route_content

ZIP = b"PK\x03\x04\x14\x00\x00\x00"


@pytest.mark.parametrize("declared", [None, "application/zip", "application/octet-stream",
                                      DOCX_TYPE, XLSX_TYPE, EPUB_TYPE])
@pytest.mark.parametrize(("members", "route"), [
    (["[Content_Types].xml", "word/document.xml"], Route.DOCX),
    (["[Content_Types].xml", "ppt/presentation.xml", "ppt/slides/slide1.xml"], Route.PPTX),
    (["xl/workbook.xml", "xl/worksheets/sheet1.xml"], Route.XLSX),
    (["mimetype", "META-INF/container.xml", "OEBPS/book.opf"], Route.EPUB),
])
def test_the_members_decide_whatever_was_declared(declared: str | None, members: list[str],
                                                  route: Route) -> None:
    first = route_content(declared, ZIP)
    assert first.route is Route.CONTAINER
    decision = route_container(first, members)
    assert decision.route is route
    named = {DOCX_TYPE: Route.DOCX, XLSX_TYPE: Route.XLSX, EPUB_TYPE: Route.EPUB}
    if declared in named and named[declared] is not route:  # the log notes the mismatch
        assert f"(declared {declared})" in decision.reason


def test_a_zip_of_other_things_is_refused_naming_its_members() -> None:
    decision = route_container(route_content(DOCX_TYPE, ZIP), ["photos/a.jpg", "b.txt"])
    assert decision.refusal is ErrorKind.UNSUPPORTED_CONTENT
    assert "photos/a.jpg" in decision.reason and "word/document.xml" in decision.reason


@pytest.mark.parametrize(("head", "found"), [
    (b"\x89PNG\r\n\x1a\n\0\0", "image/png"), (b"\xff\xd8\xff\xe0\0\x10JFIF", "image/jpeg"),
    (b"II*\x00\x08\0", "image/tiff"), (b"MM\x00*\0\0", "image/tiff")])
@pytest.mark.parametrize("declared", [None, "application/octet-stream", "image/png",
                                      "application/pdf"])
def test_images_by_their_magic_bytes(head: bytes, found: str, declared: str | None) -> None:
    decision = route_content(declared, head)
    if declared == "application/pdf":
        assert decision.route is Route.IMAGE  # the bytes win over the declared type
    assert decision.route is Route.IMAGE and found in decision.reason


def test_csv_needs_its_declared_type_and_text() -> None:
    assert route_content(CSV_TYPE, b"a,b\n1,2\n").route is Route.CSV
    assert route_content(None, b"a,b\n1,2\n").route is Route.RAW
    assert route_content(CSV_TYPE, b"\0\1\2\3").refusal is ErrorKind.UNSUPPORTED_CONTENT


@pytest.mark.parametrize("declared", ["application/pdf", DOCX_TYPE, PPTX_TYPE, EPUB_TYPE,
                                      "image/png"])
def test_a_web_page_declared_as_a_file_is_html_unless_strict(declared: str) -> None:
    page = b"<!doctype html><html><body>Sign in to download</body></html>"
    assert route_content(declared, page).route is Route.HTML
    strict = route_content(declared, page, strict=True)
    assert strict.refused and "HTML" in strict.reason and declared in strict.reason


def test_refusals_name_what_was_found_and_what_is_supported() -> None:
    decision = route_content("application/x-thing", b"\x7fELF\x02\x01")
    assert "ELF executable" in decision.reason and "DOCX" in decision.reason
    assert describe_content(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1").startswith("an OLE2")


@pytest.mark.parametrize(("name", "hint", "head", "reason"), [
    ("a.txt", "text/plain", b"words", None),
    ("scan.dat", None, b"\x89PNG\r\n\x1a\n", None),
    ("book.epub", EPUB_TYPE, ZIP, None),
    ("x.csv.gz", None, b"\x1f\x8b\x08", None),
    (".DS_Store", None, b"\0\0\0\1Bud1", "hidden"),
    ("empty.md", "text/markdown", b"", "empty"),
    ("old.doc", None, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
     "unsupported_content (an OLE2 compound file (a legacy .doc, .xls or .ppt))"),
    ("report.docx", DOCX_TYPE, b"plain text", "unsupported_content (text)"),
    ("paper.pdf", "application/pdf", b"<html><body>x</body></html>", "not_a_pdf (HTML)"),
])
def test_skip_reasons(name: str, hint: str | None, head: bytes, reason: str | None) -> None:
    assert skip_reason(name, hint, head) == reason
