"""Hostile containers and spoofed types: each refused with a typed error naming why."""

from __future__ import annotations

import contextlib
import functools
import io
import struct
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.adapters.html.memory_html_extractor import MemoryHtmlExtractor
from sheaf.adapters.ocr.tesseract_ocr import TesseractOcr
from sheaf.adapters.office.docx_extractor import DocxExtractor
from sheaf.adapters.office.epub_extractor import EpubExtractor
from sheaf.adapters.office.odf_extractor import OdfExtractor
from sheaf.adapters.office.pptx_extractor import PptxExtractor
from sheaf.adapters.office.safe_xml import parse_xml
from sheaf.adapters.office.xlsx_extractor import XlsxExtractor
from sheaf.adapters.pdf.memory_pdf_extractor import MemoryPdfExtractor
from sheaf.application.extraction.document_extraction import DocumentExtraction
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.office.zip_container import (
    ContainerLimits,
    ZipMember,
    check_listing,
    is_safe_member_name,
)
from sheaf.domain.routing.media_type import DOCX_TYPE, EPUB_TYPE
from tests.office_fixtures import (
    chart_pptx_bytes,
    docx_bytes,
    epub2_bytes,
    epub_bytes,
    equation_docx_bytes,
    odp_bytes,
    ods_bytes,
    odt_bytes,
    pptx_bytes,
    rewrite_zip,
    scanned_pdf,
    xlsx_bytes,
)
from tests.property_examples import examples

EXTRACTORS = [(DocxExtractor(), docx_bytes), (PptxExtractor(), pptx_bytes),
              (XlsxExtractor(), xlsx_bytes), (EpubExtractor(), epub_bytes),
              (EpubExtractor(), epub2_bytes), (DocxExtractor(), equation_docx_bytes),
              (PptxExtractor(), chart_pptx_bytes), (OdfExtractor(), odt_bytes),
              (OdfExtractor(), ods_bytes), (OdfExtractor(), odp_bytes)]
IDS = ["docx", "pptx", "xlsx", "epub", "epub2", "docx-equations", "pptx-chart", "odt",
       "ods", "odp"]
MAIN_PARTS = {"docx": "word/document.xml", "pptx": "ppt/presentation.xml",
              "xlsx": "xl/workbook.xml", "epub": "OEBPS/book.opf",
              "epub2": "OEBPS/content.opf", "docx-equations": "word/document.xml",
              "pptx-chart": "ppt/presentation.xml", "odt": "content.xml",
              "ods": "content.xml", "odp": "content.xml"}


def _refused(extractor: object, body: bytes) -> SheafError:
    with pytest.raises(SheafError) as caught:
        extractor.extract_sync(body, "/tmp/hostile")  # type: ignore[attr-defined]
    return caught.value


def _with_declared_size(body: bytes, name: str, size: int) -> bytes:
    """The archive with `name`'s declared inflated size changed in both headers."""
    data = bytearray(body)
    encoded = name.encode()
    start = 0
    while (at := data.find(b"PK\x01\x02", start)) != -1:
        length, = struct.unpack_from("<H", data, at + 28)
        if bytes(data[at + 46:at + 46 + length]) == encoded:
            struct.pack_into("<I", data, at + 24, size)
            local, = struct.unpack_from("<I", data, at + 42)
            struct.pack_into("<I", data, local + 22, size)
        start = at + 4
    return bytes(data)


@pytest.mark.parametrize(("extractor", "make"), EXTRACTORS, ids=IDS)
def test_a_zip_bomb_by_its_ratio(extractor: object, make: object) -> None:
    body = rewrite_zip(make(), {"bomb.bin": b"\0" * (8 * 1024 * 1024)})  # type: ignore[operator]
    error = _refused(extractor, body)
    assert error.kind is ErrorKind.UNSAFE_CONTENT and "ZIP bomb" in error.message


@pytest.mark.parametrize(("extractor", "make"), EXTRACTORS, ids=IDS)
def test_a_member_that_inflates_past_its_declared_size(extractor: object, make: object,
                                                       request: pytest.FixtureRequest) -> None:
    part = MAIN_PARTS[request.node.callspec.id]
    body = _with_declared_size(make(), part, 40)  # type: ignore[operator]
    error = _refused(extractor, body)
    assert error.kind in (ErrorKind.CORRUPT, ErrorKind.UNSAFE_CONTENT)
    assert part in error.message


@pytest.mark.parametrize(("extractor", "make"), EXTRACTORS, ids=IDS)
def test_an_oversized_member_by_its_declared_size(extractor: object, make: object,
                                                  request: pytest.FixtureRequest) -> None:
    part = MAIN_PARTS[request.node.callspec.id]
    body = _with_declared_size(make(), part, 3_000_000_000)  # type: ignore[operator]
    error = _refused(extractor, body)
    assert error.kind is ErrorKind.TOO_LARGE and part in error.message


@pytest.mark.parametrize(("extractor", "make"), EXTRACTORS, ids=IDS)
@pytest.mark.parametrize("name", ["../../evil.txt", "/etc/evil", "word/../../evil",
                                  "C:\\evil.txt", "a\\..\\..\\evil"])
def test_path_traversal_in_member_names(extractor: object, make: object, name: str) -> None:
    body = rewrite_zip(make(), {name: b"x"})  # type: ignore[operator]
    error = _refused(extractor, body)
    assert error.kind is ErrorKind.UNSAFE_CONTENT and "traversal" in error.message


def test_path_traversal_in_an_epub_reference() -> None:
    book = epub_bytes()
    with zipfile.ZipFile(io.BytesIO(book)) as archive:
        opf = archive.read("OEBPS/book.opf").decode()
    hostile = opf.replace('href="one.xhtml"', 'href="../../../etc/passwd"')
    error = _refused(EpubExtractor(), rewrite_zip(book, {"OEBPS/book.opf": hostile.encode()}))
    assert error.kind is ErrorKind.UNSAFE_CONTENT and "leaves the archive" in error.message


XXE = ('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
       '<r>&x;</r>')
LAUGHS = ('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;">'
          '<!ENTITY c "&b;&b;&b;&b;">]><r>&c;</r>')
EXTERNAL_DTD = '<?xml version="1.0"?><!DOCTYPE r SYSTEM "http://example.org/r.dtd"><r/>'
PARAMETER = ('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY % p SYSTEM "http://example.org/p">'
             '%p;]><r/>')


@pytest.mark.parametrize("xml", [XXE, LAUGHS, EXTERNAL_DTD, PARAMETER],
                         ids=["external-entity", "billion-laughs", "external-dtd",
                              "parameter-entity"])
def test_entity_declarations_are_refused(xml: str) -> None:
    with pytest.raises(SheafError) as caught:
        parse_xml(xml.encode(), "part.xml")
    assert caught.value.kind is ErrorKind.UNSAFE_CONTENT and "part.xml" in caught.value.message


@pytest.mark.parametrize(("extractor", "make"), EXTRACTORS, ids=IDS)
def test_entities_inside_a_real_container_are_refused(extractor: object, make: object,
                                                      request: pytest.FixtureRequest) -> None:
    part = MAIN_PARTS[request.node.callspec.id]
    body = rewrite_zip(make(), {part: LAUGHS.encode()})  # type: ignore[operator]
    assert _refused(extractor, body).kind is ErrorKind.UNSAFE_CONTENT


def test_malformed_xml_is_corrupt() -> None:
    with pytest.raises(SheafError) as caught:
        parse_xml(b"<r><unclosed></r>", "part.xml")
    assert caught.value.kind is ErrorKind.CORRUPT


def test_listing_caps_member_count_and_total_size() -> None:
    limits = ContainerLimits(max_members=3, max_total_bytes=1000)
    with pytest.raises(SheafError) as many:
        check_listing(tuple(ZipMember(f"m{i}", 10, 10) for i in range(4)), limits)
    assert many.value.kind is ErrorKind.UNSAFE_CONTENT
    with pytest.raises(SheafError) as total:
        check_listing((ZipMember("a", 600, 600), ZipMember("b", 600, 600)), limits)
    assert total.value.kind is ErrorKind.UNSAFE_CONTENT and "1000" in total.value.message


@given(st.lists(st.sampled_from(["a", "b", "..", ".", "word"]), min_size=1, max_size=6))
def test_a_member_name_is_safe_exactly_when_it_stays_inside(parts: list[str]) -> None:
    depth, escapes = 0, False
    for part in parts:
        if part == "..":
            depth -= 1
            escapes = escapes or depth < 0
        elif part != ".":
            depth += 1
    name = "/".join(parts)
    assert is_safe_member_name(name) is not escapes or name.strip("./") == ""


def test_an_image_past_the_pixel_limit_is_refused_before_decoding() -> None:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("1", (6000, 6000), 1).save(buffer, "PNG")
    engine = TesseractOcr(max_pixels=1_000_000)
    with pytest.raises(SheafError) as caught:
        list(engine.page_images(buffer.getvalue()))
    assert caught.value.kind is ErrorKind.UNSAFE_CONTENT
    with pytest.raises(SheafError) as in_pdf:
        list(engine.page_images(scanned_pdf()))
    assert in_pdf.value.kind is ErrorKind.UNSAFE_CONTENT and "page 1" in in_pdf.value.message


def _extraction() -> DocumentExtraction:
    return DocumentExtraction(MemoryHtmlExtractor(), MemoryPdfExtractor())


@pytest.mark.anyio
async def test_a_zip_named_docx_that_is_not_one_names_what_it_holds() -> None:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("notes/readme.txt", "hello")
    with pytest.raises(SheafError) as caught:
        await _extraction().extract(archive.getvalue(), declared_type=DOCX_TYPE,
                                    location="/tmp/report.docx")
    error = caught.value
    assert error.kind is ErrorKind.UNSUPPORTED_CONTENT
    assert "ZIP archive" in error.message and "notes/readme.txt" in error.message
    assert "word/document.xml" in error.message


@pytest.mark.anyio
@pytest.mark.parametrize(("declared", "body", "kind", "found"), [
    ("application/pdf", b"<!doctype html><html><body>Sign in</body></html>",
     ErrorKind.NOT_A_PDF, "HTML"),
    (DOCX_TYPE, b"just some text saved with a .docx name", ErrorKind.UNSUPPORTED_CONTENT,
     "text"),
    (EPUB_TYPE, b"<html><body>a web page</body></html>", ErrorKind.UNSUPPORTED_CONTENT,
     "HTML"),
    ("image/png", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1legacy", ErrorKind.UNSUPPORTED_CONTENT,
     "OLE2"),
])
async def test_spoofed_types_name_what_was_found(declared: str, body: bytes, kind: ErrorKind,
                                                 found: str) -> None:
    with pytest.raises(SheafError) as caught:
        await _extraction().extract(body, declared_type=declared, location="/tmp/x")
    assert caught.value.kind is kind
    assert found in caught.value.message and declared in caught.value.message


@functools.cache
def _fixture_body(index: int) -> bytes:
    # Built once: the Office writers stamp the time into the package, and a body that
    # changed between hypothesis's replays would make the strategy itself flaky.
    return EXTRACTORS[index][1]()  # type: ignore[operator, no-any-return]


@settings(max_examples=examples(40), deadline=None)
@given(st.sampled_from(range(len(EXTRACTORS))), st.data())
def test_damaged_containers_end_in_a_document_or_a_typed_error(index: int,
                                                               data: st.DataObject) -> None:
    extractor = EXTRACTORS[index][0]
    body = _fixture_body(index)
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        parts = [n for n in archive.namelist() if n.endswith((".xml", ".rels", ".xhtml",
                                                                ".opf"))]
        part = data.draw(st.sampled_from(parts))
        xml = archive.read(part)
    if data.draw(st.booleans()):
        cut = data.draw(st.integers(0, len(xml)))
        damaged = rewrite_zip(body, {part: xml[:cut]})
    else:
        flips = data.draw(st.lists(st.tuples(st.integers(0, len(body) - 1),
                                             st.integers(0, 255)), min_size=1, max_size=6))
        mutable = bytearray(body)
        for at, value in flips:
            mutable[at] = value
        damaged = bytes(mutable)
    # Anything but a SheafError (KeyError, zlib.error, ...) fails the test.
    with contextlib.suppress(SheafError):
        extractor.extract_sync(damaged, "/tmp/damaged")  # type: ignore[attr-defined]
