"""OpenDocument text, spreadsheets and presentations are read, with what was left out
named in the notes, and their routing and container safety are those of OOXML."""

from __future__ import annotations

import pytest

from sheaf.adapters.html.memory_html_extractor import MemoryHtmlExtractor
from sheaf.adapters.office.odf_extractor import OdfExtractor
from sheaf.adapters.pdf.memory_pdf_extractor import MemoryPdfExtractor
from sheaf.application.extraction.document_extraction import DocumentExtraction
from sheaf.domain.document.content_source import ContentSource
from sheaf.domain.document.document import BlockKind
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.routing.routing import Route
from tests.office_fixtures import (
    LAUGHS_XML,
    ODT_SENTENCE,
    odf_bytes,
    odp_bytes,
    ods_bytes,
    odt_bytes,
    rewrite_zip,
)


def test_an_odt_keeps_its_text_and_names_what_it_left_out() -> None:
    document = OdfExtractor().extract_sync(odt_bytes(), "orchard.odt")
    assert document.title == "Orchard Report"
    assert document.metadata.authors == ("Ann Grove",)
    headings = [(h.level, h.draft.text) for h in document.headings()]
    assert headings == [(1, "Orchard Report"), (2, "Harvest")]
    assert ODT_SENTENCE + "[1]" in document.text
    listed = next(b for b in document.blocks if b.kind is BlockKind.LIST)
    assert [(i.text, i.ordered) for i in listed.draft.items] == [("Pick", True),
                                                                 ("Sort", True)]
    table = next(b for b in document.blocks if b.kind is BlockKind.TABLE)
    assert table.draft.rows == (("Varieties", "Varieties"), ("Bramley", "120"))
    assert "Energy: E = m c^2." in document.text
    assert "Figure: Apple tree - A tree heavy with fruit" in document.text
    assert document.text.endswith("[1] Weighed at the gate.")
    assert document.notes == ("left out: 1 image without alt text or caption, "
                              "1 embedded object (OLE)",)


def test_an_ods_sheet_keeps_two_tables_apart_and_ignores_a_million_empty_rows() -> None:
    document = OdfExtractor().extract_sync(ods_bytes(), "yield.ods")
    assert document.headings()[0].draft.text == "Yield"
    tables = [b.draft.rows for b in document.blocks if b.kind is BlockKind.TABLE]
    assert tables == [(("Tree", "Kg"), ("Bramley", "120")), (("Month", "Rain"), ("May", "40"))]
    assert document.notes == ("left out: nothing",)


def test_an_odp_slide_has_its_title_text_and_speaker_notes() -> None:
    document = OdfExtractor().extract_sync(odp_bytes(), "season.odp")
    assert [h.draft.text for h in document.headings()] == ["Picking Season", "Speaker notes"]
    assert "Start in September." in document.text
    assert document.text.endswith("Mention the ladders.")
    assert all(b.draft.pages == (1,) for b in document.blocks)


@pytest.mark.anyio
async def test_odf_files_route_by_their_members_whatever_their_name() -> None:
    extraction = DocumentExtraction(MemoryHtmlExtractor(), MemoryPdfExtractor(),
                                    formats={Route.ODF: OdfExtractor()})
    result = await extraction.extract(odt_bytes(), declared_type=None, location="x.bin")
    assert result.source is ContentSource.OPENDOCUMENT
    assert result.decision.route is Route.ODF


def test_entities_in_an_odf_part_are_refused() -> None:
    body = rewrite_zip(odt_bytes(), {"content.xml": LAUGHS_XML.encode()})
    with pytest.raises(SheafError) as caught:
        OdfExtractor().extract_sync(body, "orchard.odt")
    assert caught.value.kind is ErrorKind.UNSAFE_CONTENT


def test_an_odf_drawing_is_refused_by_name() -> None:
    with pytest.raises(SheafError) as caught:
        OdfExtractor().extract_sync(odf_bytes("drawing", "<draw:page/>"), "shapes.odg")
    assert caught.value.kind is ErrorKind.UNSUPPORTED_CONTENT
    assert "OpenDocument drawing" in caught.value.message
