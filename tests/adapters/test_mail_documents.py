"""Email messages (EML) as documents: headers, body, attachments read as child
documents or named as not read; Outlook MSG and XML refused by name; and a directory
ingest skips, rather than fails, what sheaf does not read."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.adapters.files.filesystem_file_reader import FilesystemFileReader
from sheaf.application.extraction.document_extraction import DocumentExtraction
from sheaf.domain.document.content_source import ContentSource
from sheaf.domain.document.extraction_budget import ExtractionLimits
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.mail.mail_message import parse_mail
from sheaf.domain.routing.routing import Route, route_content
from sheaf.entrypoints.api.composition import build_extraction
from tests.office_fixtures import DOCX_SENTENCE, MAIL_SENTENCE, eml_bytes, rtf_bytes
from tests.property_examples import examples

pytestmark = pytest.mark.anyio

OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
MSG_HEAD = OLE2 + b"\x00" * 504 + "__substg1.0_0037001F".encode("utf-16-le")


async def test_an_eml_keeps_headers_body_and_attachments_and_names_what_it_left_out(
        ) -> None:
    result = await build_extraction().extract(eml_bytes(), declared_type=None,
                                              location="/tmp/timetable.eml")
    document = result.document
    assert result.source is ContentSource.EMAIL and result.decision.route is Route.EMAIL
    assert document.title == "Summer timetable"
    assert document.metadata.authors == ("Ada Ferris <ada@example.org>",)
    assert document.metadata.published == "2026-05-04"
    for line in ("From: Ada Ferris <ada@example.org>", "To: Harbour Office",
                 "Cc: Tom Reed", "Date: Mon, 04 May 2026 09:30:00 +0100", MAIL_SENTENCE):
        assert line in document.text
    headings = [(h.level, h.draft.text) for h in document.headings()]
    # Each attachment is a child document under its heading, its own headings below it.
    assert headings == [(1, "Summer timetable"), (2, "Attachment: budget.docx"),
                        (3, "Annual Report"), (4, "Budget"), (5, "Figures"),
                        (2, "Attachment: Dredging notice"), (3, "Dredging notice")]
    assert DOCX_SENTENCE in document.text
    assert "Dredging starts in the east basin on Tuesday." in document.text
    assert "Content-Type" not in document.text and "base64" not in document.text
    assert any(n.startswith("attachment tide-model.bin (application/octet-stream) not "
                            "read: unsupported_content") for n in document.notes)
    assert document.notes[-1] == (
        "left out: 1 image without alt text or caption, 1 attachment not read (binary or "
        "unsupported format), 1 alternative body (HTML copy of the text)")


def test_a_message_without_headers_is_corrupt() -> None:
    with pytest.raises(SheafError) as caught:
        parse_mail(b"\n\njust a body")
    assert caught.value.kind is ErrorKind.CORRUPT


@pytest.mark.parametrize(("declared", "head", "route", "refused_naming"), [
    (None, eml_bytes()[:4096], Route.EMAIL, None),
    ("message/rfc822", b"Subject: hi\n\nbody", Route.EMAIL, None),
    ("text/markdown", b"Title: My post\nDate: 2024-01-01\n\nBody", Route.RAW, None),
    (None, rtf_bytes()[:4096], Route.RTF, None),
    ("application/vnd.ms-outlook", OLE2 + b"\x00" * 64, None, "Outlook MSG"),
    (None, MSG_HEAD, None, "Outlook MSG"),
    (None, b'<?xml version="1.0"?><catalog><book/></catalog>', None, "XML (root element "
                                                                       "<catalog>"),
    ("application/xml", b"<feed xmlns='http://www.w3.org/2005/Atom'/>", None, "<feed>"),
    ("text/plain", b'<?xml version="1.0"?><catalog/>', Route.RAW, None),
    (None, b'<?xml version="1.0"?><!DOCTYPE html><html><body>x</body></html>',
     Route.HTML, None),
], ids=["eml-sniffed", "eml-declared", "markdown-front-matter", "rtf", "msg-declared",
        "msg-sniffed", "xml", "atom", "xml-asked-as-text", "xhtml"])
def test_routes_for_mail_rtf_msg_and_xml(declared: str | None, head: bytes,
                                         route: Route | None,
                                         refused_naming: str | None) -> None:
    decision = route_content(declared, head, strict=True)
    assert decision.route is route
    if refused_naming is not None:
        assert decision.refusal is ErrorKind.UNSUPPORTED_CONTENT
        assert refused_naming in decision.reason


async def test_a_directory_ingest_skips_what_sheaf_does_not_read(tmp_path: object) -> None:
    from pathlib import Path

    folder = Path(str(tmp_path))
    (folder / "mail.eml").write_bytes(eml_bytes())
    (folder / "notes.rtf").write_bytes(rtf_bytes())
    (folder / "message.msg").write_bytes(MSG_HEAD)
    (folder / "catalog.xml").write_bytes(b'<?xml version="1.0"?><catalog/>')
    listing = await FilesystemFileReader().list_directory(str(folder), recursive=False)
    assert [Path(f).name for f in listing.files] == ["mail.eml", "notes.rtf"]
    skipped = {Path(s.path).name: s.reason for s in listing.skipped}
    assert skipped == {"catalog.xml": "unsupported_content (XML (root element <catalog>))",
                       "message.msg": "unsupported_content (an Outlook MSG message (OLE2))"}


async def test_a_zip_of_no_format_sheaf_reads_is_skipped_in_a_directory(
        tmp_path: object) -> None:
    import io
    import zipfile
    from pathlib import Path

    from tests.office_fixtures import odt_bytes

    folder = Path(str(tmp_path))
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("photos/readme.txt", "holiday pictures")
    (folder / "photos.zip").write_bytes(archive.getvalue())
    (folder / "orchard.odt").write_bytes(odt_bytes())
    listing = await FilesystemFileReader().list_directory(str(folder), recursive=False)
    assert [Path(f).name for f in listing.files] == ["orchard.odt"]
    assert [(Path(s.path).name, s.reason) for s in listing.skipped] == [
        ("photos.zip", "unsupported_content (a ZIP archive of no format sheaf reads)")]


@settings(max_examples=examples(40), deadline=None)
@given(st.data())
async def test_damaged_messages_end_in_a_document_or_a_typed_error(
        data: st.DataObject) -> None:
    body = bytearray(_EML)
    for _ in range(data.draw(st.integers(1, 10))):
        body[data.draw(st.integers(0, len(body) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(body)))
    with contextlib.suppress(SheafError):
        await _EXTRACTION.extract(bytes(body[:cut]), declared_type="message/rfc822",
                                  location="/tmp/damaged.eml")


_EML = eml_bytes()
_EXTRACTION = build_extraction()


async def test_raw_eight_bit_headers_read_in_the_message_charset() -> None:
    body = (b"From: Ren\xe9 <rene@example.org>\r\nTo: b@example.org\r\nSubject: Caf\xe9 "
            b"hours\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=iso-8859-1\r\n"
            b"Content-Transfer-Encoding: 8bit\r\n\r\nLe caf\xe9 ouvre \xe0 huit heures.\r\n")
    document = (await _EXTRACTION.extract(body, declared_type=None, location="/tmp/c.eml")
                ).document
    assert document.title == "Café hours"
    assert "From: René <rene@example.org>" in document.text
    assert "Le café ouvre à huit heures." in document.text


def _mail_extraction(max_characters: int) -> DocumentExtraction:
    from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
    from sheaf.adapters.office.docx_extractor import DocxExtractor
    from sheaf.adapters.office.rtf_extractor import RtfExtractor
    from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor

    return DocumentExtraction(
        Html5libExtractor(), PdfminerExtractor(),
        formats={Route.DOCX: DocxExtractor(), Route.RTF: RtfExtractor()},
        mail_limits=ExtractionLimits(max_characters=max_characters))


def _message_with(attachments: list[tuple[str, bytes, str, str]]) -> bytes:
    from email.message import EmailMessage

    message = EmailMessage()
    message["From"] = "Ada Ferris <ada@example.org>"
    message["Subject"] = "Parts"
    message.set_content("The parts, attached.\n")
    for name, data, maintype, subtype in attachments:
        message.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    return message.as_bytes()


_DOCX = ("application", "vnd.openxmlformats-officedocument.wordprocessingml.document")


async def test_a_message_and_its_attachments_are_read_under_one_budget() -> None:
    from tests.amplification_inputs import docx_of_text

    part = docx_of_text(3_000)
    one = _message_with([("a.docx", part, *_DOCX)])
    read = await _mail_extraction(8_000).extract(one, declared_type=None, location="m.eml")
    assert "Attachment: a.docx" in read.document.text
    # Each attachment fits the budget alone; three together do not, and the message,
    # not one attachment, is refused: typed, naming the attachment that took it past.
    three = _message_with([(f"{n}.docx", part, *_DOCX) for n in "abc"])
    with pytest.raises(SheafError) as caught:
        await _mail_extraction(8_000).extract(three, declared_type=None, location="m.eml")
    assert caught.value.kind is ErrorKind.TOO_LARGE
    assert "c.docx" in caught.value.message


async def test_text_attachments_and_forwarded_messages_spend_from_the_same_budget() -> None:
    from email.message import EmailMessage

    forwarded = EmailMessage()
    forwarded["From"] = "Port Authority <port@example.org>"
    forwarded["Subject"] = "Notice"
    forwarded.set_content("Dredging starts on Tuesday. " * 200)
    message = EmailMessage()
    message["From"] = "Ada Ferris <ada@example.org>"
    message["Subject"] = "Forwarded"
    message.set_content("See below.\n")
    message.add_attachment(("Tide table. " * 300).encode(), maintype="text",
                           subtype="plain", filename="tides.txt")
    message.add_attachment(forwarded)
    body = message.as_bytes()
    fits = await _mail_extraction(20_000).extract(body, declared_type=None,
                                                  location="m.eml")
    assert "Dredging starts on Tuesday." in fits.document.text
    with pytest.raises(SheafError) as caught:
        await _mail_extraction(7_000).extract(body, declared_type=None, location="m.eml")
    assert caught.value.kind is ErrorKind.TOO_LARGE
    assert "Notice" in caught.value.message


async def test_an_attachment_refused_on_its_own_is_named_and_the_rest_is_read() -> None:
    body = _message_with([("broken.docx", b"PK\x03\x04 not a package", *_DOCX),
                          ("notes.rtf", rtf_bytes(), "application", "rtf")])
    read = await _mail_extraction(100_000).extract(body, declared_type=None,
                                                   location="m.eml")
    assert any(n.startswith("attachment broken.docx") for n in read.document.notes)
    assert "Attachment: notes.rtf" in read.document.text
