"""DOCX, PPTX, XLSX and EPUB extraction over generated documents."""

from __future__ import annotations

import io
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sheaf.adapters.office.docx_extractor import DocxExtractor
from sheaf.adapters.office.epub_extractor import EpubExtractor
from sheaf.adapters.office.pptx_extractor import PptxExtractor
from sheaf.adapters.office.xlsx_extractor import XlsxExtractor
from sheaf.domain.document.document import BlockKind, Document
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.office.sheet_tables import SheetLimits
from tests.office_fixtures import docx_bytes, epub_bytes, pptx_bytes, rewrite_zip, xlsx_bytes
from tests.property_examples import examples

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _headings(document: Document) -> list[tuple[int, str]]:
    return [(b.level, b.draft.text) for b in document.headings()]


def _spans_hold(document: Document) -> bool:
    return all(document.text[b.start:b.end] == b.markdown for b in document.blocks)


def test_docx_structure_and_metadata() -> None:
    document = DocxExtractor().extract_sync(docx_bytes(), "/tmp/report.docx")
    assert _headings(document) == [(1, "Annual Report"), (2, "Budget"), (3, "Figures")]
    lists = [b for b in document.blocks if b.kind is BlockKind.LIST]
    assert [[(i.text, i.ordered) for i in b.draft.items] for b in lists] == [
        [("First priority", True), ("Second priority", True)], [("A loose point", False)]]
    table = next(b for b in document.blocks if b.kind is BlockKind.TABLE)
    assert table.markdown.startswith("| Item | Cost |\n|---|---|\n| Roads | 120 |")
    assert "See the minutes for details." in document.text
    assert [(link.text, link.url) for link in document.links] == [
        ("minutes", "https://example.org/minutes")]
    # The link's text stays in the prose; its target is listed after the content.
    assert document.blocks[-1].kind is BlockKind.LINKS
    assert document.blocks[-1].markdown == "- [minutes](https://example.org/minutes)"
    assert "Turnout was high.[1]" in document.text
    note = next(b for b in document.blocks if b.kind is BlockKind.FOOTNOTE)
    assert note.markdown == "[1] Counted by the clerk on the night."
    assert document.metadata.title == "Annual Report"
    assert document.metadata.authors == ("Ada Lovelace", "Charles Babbage")
    assert _spans_hold(document)


def _docx_with_body(body_xml: str, extra: dict[str, bytes] | None = None) -> bytes:
    document = (f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{W}" '
                'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
                f"<w:body>{body_xml}</w:body></w:document>")
    return rewrite_zip(docx_bytes(), {"word/document.xml": document.encode(), **(extra or {})})


def _p(text: str, properties: str = "") -> str:
    return (f"<w:p><w:pPr>{properties}</w:pPr><w:r><w:t xml:space=\"preserve\">{text}</w:t>"
            "</w:r></w:p>")


def test_docx_text_in_alternate_content_is_read_once() -> None:
    mc = "http://schemas.openxmlformats.org/markup-compatibility/2006"
    box = ('<w:txbxContent><w:p><w:r><w:t>Boxed words.</w:t></w:r></w:p></w:txbxContent>')
    body = (f'<w:p><w:r><mc:AlternateContent xmlns:mc="{mc}"><mc:Choice Requires="wps">'
            f"<w:drawing>{box}</w:drawing></mc:Choice><mc:Fallback><w:pict>{box}</w:pict>"
            "</mc:Fallback></mc:AlternateContent></w:r></w:p>")
    document = DocxExtractor().extract_sync(_docx_with_body(body), "/tmp/x.docx")
    assert document.text.count("Boxed words.") == 1


def test_docx_outline_levels_tracked_changes_spans_and_endnotes() -> None:
    body = (_p("Custom styled heading", '<w:outlineLvl w:val="1"/>')
            + "<w:p><w:r><w:t>Kept </w:t></w:r><w:del><w:r><w:delText>gone </w:delText>"
              "</w:r></w:del><w:ins><w:r><w:t>added</w:t></w:r></w:ins>"
              "<w:r><w:endnoteReference w:id=\"2\"/></w:r></w:p>"
            + "<w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val=\"2\"/></w:tcPr>"
              + _p("Wide") + "</w:tc></w:tr><w:tr><w:tc>" + _p("a") + "</w:tc><w:tc>"
              + _p("b") + "</w:tc></w:tr></w:tbl>")
    endnotes = (f'<w:endnotes xmlns:w="{W}"><w:endnote w:id="2"><w:p><w:r>'
                "<w:t>An endnote.</w:t></w:r></w:p></w:endnote></w:endnotes>")
    document = DocxExtractor().extract_sync(
        _docx_with_body(body, {"word/endnotes.xml": endnotes.encode()}), "/tmp/x.docx")
    assert (2, "Custom styled heading") in _headings(document)
    assert "Kept added[1]" in document.text and "gone" not in document.text
    # A merged cell's value stands in every column it spans.
    assert "| Wide | Wide |\n|---|---|\n| a | b |" in document.text
    assert document.text.endswith("[1] An endnote.")


words = st.text(alphabet="abcdefghij klmnop", min_size=1, max_size=30).map(
    lambda s: " ".join(s.split())).filter(bool)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["p", "h1", "h2", "h3", "bullet"]), words),
                min_size=1, max_size=12))
def test_docx_keeps_every_paragraph_in_order_with_its_heading_level(
        parts: list[tuple[str, str]]) -> None:
    import docx

    made = docx.Document()
    for kind, text in parts:
        if kind.startswith("h"):
            made.add_heading(text, level=int(kind[1]))
        elif kind == "bullet":
            made.add_paragraph(text, style="List Bullet")
        else:
            made.add_paragraph(text)
    buffer = io.BytesIO()
    made.save(buffer)
    document = DocxExtractor().extract_sync(buffer.getvalue(), "/tmp/g.docx")
    assert _headings(document) == [(int(k[1]), t) for k, t in parts if k.startswith("h")]
    position = 0
    for _, text in parts:
        position = document.text.index(text, position) + len(text)
    assert _spans_hold(document)


def test_pptx_slides_notes_and_tables() -> None:
    document = PptxExtractor().extract_sync(pptx_bytes(), "/tmp/deck.pptx")
    assert _headings(document) == [(1, "Quarterly Review"), (1, "Results"),
                                   (2, "Speaker notes")]
    assert document.page_count == 2
    results = document.text.index("# Results")
    assert document.text.index("Revenue grew", results) < document.text.index("| Region")
    assert document.text.index("| Region") < document.text.index("Remind the audience")
    assert all(b.draft.pages in ((1,), (2,)) for b in document.blocks)
    assert document.metadata.title == "Quarterly Review"


def test_pptx_reading_order_follows_positions_not_the_shape_tree() -> None:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[6])  # blank: no title placeholder
    for top, text in ((5, "Bottom box"), (1, "Top box"), (3, "Middle box")):
        slide.shapes.add_textbox(Inches(1), Inches(top), Inches(4), Inches(1)).text = text
    buffer = io.BytesIO()
    deck.save(buffer)
    document = PptxExtractor().extract_sync(buffer.getvalue(), "/tmp/d.pptx")
    assert _headings(document) == [(1, "Slide 1")]
    assert document.text.index("Top") < document.text.index("Middle") < \
        document.text.index("Bottom")


def test_xlsx_sheets_split_ranges_and_cell_limit() -> None:
    document = XlsxExtractor(limits=SheetLimits(rows_per_table=2)).extract_sync(
        xlsx_bytes(rows=5), "/tmp/b.xlsx")
    assert [t for _, t in _headings(document)] == [
        "Sales", "Sales, rows 2-3", "Sales, rows 4-5", "Sales, rows 6-6", "Staff"]
    assert document.text.count("| Month | Units | Note |") == 3
    with pytest.raises(SheafError) as caught:
        XlsxExtractor(limits=SheetLimits(max_cells=10)).extract_sync(xlsx_bytes(rows=20), "x")
    assert caught.value.kind is ErrorKind.TOO_LARGE


def test_xlsx_values_dates_booleans_and_formulas() -> None:
    import datetime

    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["When", "Flag", "Ratio", "Sum"])
    sheet.append([datetime.date(2024, 3, 5), True, 0.1 + 0.2, "=1+1"])
    buffer = io.BytesIO()
    book.save(buffer)
    document = XlsxExtractor().extract_sync(buffer.getvalue(), "/tmp/v.xlsx")
    assert "| 2024-03-05 | TRUE | 0.3 |" in document.text


def test_epub_toc_labels_head_chapters_and_metadata() -> None:
    document = EpubExtractor().extract_sync(epub_bytes(), "/tmp/book.epub")
    assert _headings(document) == [(1, "The Keeper"), (1, "Calm Seas")]
    assert document.metadata.title == "The Lighthouse"
    assert document.metadata.authors == ("Mary Shore",)
    assert "| Year | Ships |" in document.text
    assert _spans_hold(document)


def test_epub2_ncx_table_of_contents() -> None:
    book = epub_bytes()
    with zipfile.ZipFile(io.BytesIO(book)) as archive:
        opf = archive.read("OEBPS/book.opf").decode()
    opf = (opf.replace(' properties="nav"', "")
           .replace("</manifest>", '<item id="ncx" href="toc.ncx" '
                    'media-type="application/x-dtbncx+xml"/></manifest>')
           .replace("<spine>", '<spine toc="ncx">'))
    ncx = ('<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><navMap>'
           '<navPoint id="a"><navLabel><text>Chapter One</text></navLabel>'
           '<content src="one.xhtml"/></navPoint></navMap></ncx>')
    document = EpubExtractor().extract_sync(
        rewrite_zip(book, {"OEBPS/book.opf": opf.encode(), "OEBPS/toc.ncx": ncx.encode()}),
        "/tmp/b.epub")
    # The chapter's own heading differs from its label: it moves one level down.
    assert _headings(document)[:2] == [(1, "Chapter One"), (2, "The Keeper")]


def test_epub_chapters_keep_sections_a_web_page_would_drop() -> None:
    chapter = ('<html xmlns="http://www.w3.org/1999/xhtml"><body><h2>Further Reading</h2>'
               "<p>Books on lighthouses.</p><h2>Comments</h2><p>Letters from readers.</p>"
               "<nav><p>Inside a nav.</p></nav></body></html>")
    document = EpubExtractor().extract_sync(
        rewrite_zip(epub_bytes(), {"OEBPS/two.xhtml": chapter.encode()}), "/tmp/b.epub")
    assert "Books on lighthouses." in document.text
    assert "Letters from readers." in document.text


def test_epub_links_name_other_parts_of_the_book_by_member_path_and_drop_jumps() -> None:
    chapter = ('<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Read the '
               '<a href="notes/colophon.xhtml">colophon</a>, note '
               '<a href="two.xhtml#n1">1</a> and the '
               '<a href="https://example.org/keepers">keepers\' site</a>.</p></body></html>')
    document = EpubExtractor().extract_sync(
        rewrite_zip(epub_bytes(), {"OEBPS/one.xhtml": chapter.encode()}), "/tmp/b.epub")
    assert "Read the colophon, note 1 and the keepers' site." in document.text
    assert [(link.text, link.url) for link in document.links] == [
        ("colophon", "OEBPS/notes/colophon.xhtml"),
        ("keepers' site", "https://example.org/keepers")]
    assert document.text.endswith("- [colophon](OEBPS/notes/colophon.xhtml)\n"
                                  "- [keepers' site](https://example.org/keepers)")
