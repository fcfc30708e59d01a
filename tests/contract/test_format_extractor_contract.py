"""The FormatExtractor contract, against the in-memory fake and every real adapter."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sheaf.adapters.extraction.deferred_extractors import DeferredFormatExtractor
from sheaf.adapters.office.docx_extractor import DocxExtractor
from sheaf.adapters.office.epub_extractor import EpubExtractor
from sheaf.adapters.office.memory_format_extractor import MemoryFormatExtractor
from sheaf.adapters.office.odf_extractor import OdfExtractor
from sheaf.adapters.office.pptx_extractor import PptxExtractor
from sheaf.adapters.office.rtf_extractor import RtfExtractor
from sheaf.adapters.office.xlsx_extractor import XlsxExtractor
from sheaf.application.ports.format_extractor import FormatExtractor
from sheaf.domain.document.document import BlockDraft, BlockKind
from sheaf.domain.document.extraction_budget import ExtractionBudget, ExtractionLimits
from sheaf.domain.document.markdown_rendering import assemble_document
from sheaf.domain.errors import ErrorKind, SheafError
from tests.office_fixtures import (
    DOCX_SENTENCE,
    EPUB_SENTENCE,
    ODT_SENTENCE,
    PPTX_SENTENCE,
    RTF_SENTENCE,
    docx_bytes,
    epub_bytes,
    odt_bytes,
    pptx_bytes,
    rtf_bytes,
    xlsx_bytes,
)

pytestmark = pytest.mark.anyio

Case = tuple[FormatExtractor, bytes, str, str]


def _fake() -> Case:
    body = b"PK\x03\x04 a registered body"
    fake = MemoryFormatExtractor()
    fake.add(body, assemble_document([BlockDraft(BlockKind.HEADING, text="Intro", level=1),
                                      BlockDraft(BlockKind.PARAGRAPH, text="Known words.")]))
    return fake, body, "Intro", "Known words."


CASES: dict[str, Callable[[], Case]] = {
    "memory": _fake,
    "docx": lambda: (DocxExtractor(), docx_bytes(), "Budget", DOCX_SENTENCE),
    "pptx": lambda: (PptxExtractor(), pptx_bytes(), "Results", PPTX_SENTENCE),
    "xlsx": lambda: (XlsxExtractor(), xlsx_bytes(), "Sales", "| M2 | 10 | steady growth |"),
    "epub": lambda: (EpubExtractor(), epub_bytes(), "The Keeper", EPUB_SENTENCE),
    "odt": lambda: (OdfExtractor(), odt_bytes(), "Harvest", ODT_SENTENCE),
    "rtf": lambda: (RtfExtractor(), rtf_bytes(), "Mill History", RTF_SENTENCE),
    # What the composition root hands out: the reader built at the first document.
    "deferred docx": lambda: (DeferredFormatExtractor(DocxExtractor), docx_bytes(), "Budget",
                              DOCX_SENTENCE),
}


@pytest.fixture(params=sorted(CASES))
def case(request: pytest.FixtureRequest) -> Case:
    return CASES[request.param]()


async def test_extracts_headings_and_text_with_exact_spans(case: Case) -> None:
    extractor, body, heading, sentence = case
    document = await extractor.extract(body, location="/tmp/in")
    assert heading in [b.draft.text for b in document.headings()]
    assert sentence in document.text
    for block in document.blocks:
        assert document.text[block.start:block.end] == block.markdown


async def test_refuses_bytes_of_another_kind_with_a_typed_error(case: Case) -> None:
    extractor, _, _, _ = case
    for body in (b"plain words, not a container", b"PK\x03\x04\x14\x00 truncated"):
        with pytest.raises(SheafError) as caught:
            await extractor.extract(body, location="/tmp/in")
        assert caught.value.kind in (ErrorKind.CORRUPT, ErrorKind.UNSUPPORTED_CONTENT)


async def test_refuses_a_zip_of_another_format(case: Case,
                                              request: pytest.FixtureRequest) -> None:
    extractor, _, _, _ = case
    # Another format's body, told apart by its case's format (a deferred reader reads
    # the format it wraps): two builds of one fixture may differ in their bytes (a zip
    # entry's time is stored to two seconds).
    own = request.node.callspec.params["case"].removeprefix("deferred ")
    others = [make()[1] for name, make in CASES.items()
              if name != "memory" and name.removeprefix("deferred ") != own]
    with pytest.raises(SheafError) as caught:
        await extractor.extract(others[0], location="/tmp/in")
    assert caught.value.kind in (ErrorKind.CORRUPT, ErrorKind.UNSUPPORTED_CONTENT)


async def test_spends_from_a_budget_it_is_given(case: Case) -> None:
    # A document read as part of another (an email's attachment) spends the running
    # budget of the whole: what it produced is counted there, and a budget too small
    # for it is `too_large`.
    extractor, body, _, sentence = case
    budget = ExtractionBudget()
    document = await extractor.extract(body, location="/tmp/in", budget=budget)
    assert sentence in document.text
    assert budget.characters >= len(sentence)
    with pytest.raises(SheafError) as caught:
        await extractor.extract(body, location="/tmp/in",
                                budget=ExtractionBudget(ExtractionLimits(max_characters=5)))
    assert caught.value.kind is ErrorKind.TOO_LARGE
