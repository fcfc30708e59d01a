"""EPUB 2 books with the public DOCTYPEs of their NCX and XHTML chapters are read; an
NCX that defines its own entities or names an unknown DTD is still refused."""

from __future__ import annotations

import io
import zipfile

import pytest

from sheaf.adapters.office.epub_extractor import EpubExtractor
from sheaf.adapters.office.safe_xml import parse_xml
from sheaf.domain.errors import ErrorKind, SheafError
from tests.office_fixtures import EPUB2_SENTENCE, epub2_bytes, rewrite_zip


def test_an_epub2_book_with_the_public_ncx_doctype_is_read() -> None:
    pictures = ('<p><img src="ferry.png" alt="The ferry at the landing"/></p>'
                '<div><img src="map.png" alt="" title="A map of the river"/></div>'
                '<p>Rowing <img src="oar.png"/> on.</p><video src="crossing.mp4"/>')
    document = EpubExtractor().extract_sync(epub2_bytes(chapter_extra=pictures),
                                            "ferry.epub")
    assert EPUB2_SENTENCE in document.text
    assert "[Figure: The ferry at the landing]" in document.text
    assert "Figure: A map of the river" in document.text
    assert "Rowing on." in document.text
    assert document.notes == ("left out: 1 image without alt text or caption, "
                              "1 audio or video clip",)
    assert "Café lights\xa0shone" in document.text or "Café lights shone" in document.text
    assert document.title == "The Ferry"
    # The NCX's labels still name the chapters.
    assert [h.draft.text for h in document.headings()][:2] == ["The Crossing", "Dawn & After"]


def _with_ncx(ncx: str) -> bytes:
    return rewrite_zip(epub2_bytes(), {"OEBPS/toc.ncx": ncx.encode()})


def _ncx() -> str:
    with zipfile.ZipFile(io.BytesIO(epub2_bytes())) as archive:
        return archive.read("OEBPS/toc.ncx").decode()


@pytest.mark.parametrize(("replace", "expected"), [
    ('"http://www.daisy.org/z3986/2005/ncx-2005-1.dtd">',
     '"http://www.daisy.org/z3986/2005/ncx-2005-1.dtd" [<!ENTITY x "boom">]>'),
    ('PUBLIC "-//NISO//DTD ncx 2005-1//EN" ', 'PUBLIC "-//EVIL//DTD ncx//EN" '),
    ('PUBLIC "-//NISO//DTD ncx 2005-1//EN" "http://www.daisy.org/z3986/2005/ncx-2005-1.dtd"',
     'SYSTEM "file:///etc/passwd"'),
], ids=["internal-subset", "unknown-public-id", "system-only"])
def test_an_ncx_with_its_own_definitions_or_an_unknown_dtd_is_refused(
        replace: str, expected: str) -> None:
    hostile = _ncx().replace(replace, expected)
    assert hostile != _ncx()
    with pytest.raises(SheafError) as caught:
        EpubExtractor().extract_sync(_with_ncx(hostile), "ferry.epub")
    assert caught.value.kind is ErrorKind.UNSAFE_CONTENT
    assert "toc.ncx" in caught.value.message


def test_public_dtd_entities_resolve_without_fetching_and_unknown_ones_are_refused() -> None:
    doctype = ('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
               '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">')
    root = parse_xml(f"{doctype}<p>na&iuml;ve&mdash;&amp;</p>".encode(), "c.xhtml")
    assert root.text == "naïve—&"
    with pytest.raises(SheafError) as caught:
        parse_xml(f"{doctype}<p>&madeup;</p>".encode(), "c.xhtml")
    assert caught.value.kind is ErrorKind.UNSAFE_CONTENT and "&madeup;" in caught.value.message
    with pytest.raises(SheafError) as undeclared:
        parse_xml(b"<p>&nbsp;</p>", "c.xhtml")  # no DTD: an undefined entity
    assert undeclared.value.kind is ErrorKind.CORRUPT
