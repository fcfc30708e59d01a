"""Running headers, footers and page numbers stay on their pages, between blocks, and out
of what is searched: generated multi-page PDFs of every shape of the class."""

from __future__ import annotations

import textwrap

import attrs
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from sheaf.domain.document.document import BlockKind, Document
from sheaf.domain.quotes.quote_verification import verify_quote
from sheaf.domain.search.bm25 import bm25_scores
from sheaf.domain.store.document_analysis import analyse_version
from tests.pdf_writer import write_raw_pages_pdf
from tests.property_examples import examples

WORDS = ("tide", "growth", "leaf", "seagrass", "light", "meadow", "shoot", "root",
         "canopy", "sediment", "density", "grazing", "season", "depth", "bed")
TOP, LEADING, PARAGRAPH_GAP = 700, 13, 10
HEADER, FOOTER = "A Generated Running Title", "Journal of Generated Tests 12 (2024)"


@attrs.frozen
class Layout:
    """How a generated document prints its running lines."""

    header: str | None = HEADER
    even_header: str | None = None
    """Another header on even pages (alternating headers)."""
    header_on_first_page: bool = True
    footer: str | None = FOOTER
    page_numbers: bool = True
    columns: int = 1
    lines_per_page: int = 30
    blank_pages: tuple[int, ...] = ()
    """Pages printed with their running lines and no body text (a full-page figure)."""


def _text(x: float, y: float, size: int, text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return f"BT /F1 {size} Tf {x} {y} Td ({escaped}) Tj ET"


def write_paged_pdf(paragraphs: list[str], layout: Layout) -> tuple[bytes, dict[int, list[str]]]:
    """The paragraphs set page by page, and each page's running lines as printed, top
    first (a page number on the footer's row is part of that line)."""
    wrap = 88 if layout.columns == 1 else 40
    lines: list[str | None] = []  # None is the gap between two paragraphs
    for paragraph in paragraphs:
        lines += textwrap.wrap(paragraph, wrap)
        lines.append(None)
    pages: list[list[str]] = []
    running: dict[int, list[str]] = {}
    while lines or not pages:
        number = len(pages) + 1
        commands: list[str] = []
        if number not in layout.blank_pages:
            for column in range(layout.columns):
                y = TOP
                x = 72 if column == 0 else 318
                used = 0
                while lines and used < layout.lines_per_page:
                    line = lines.pop(0)
                    if line is None:
                        y -= PARAGRAPH_GAP
                        continue
                    commands.append(_text(x, y, 10, line))
                    y -= LEADING
                    used += 1
                while lines and lines[0] is None:
                    lines.pop(0)
        printed: list[str] = []
        header = layout.even_header if layout.even_header and number % 2 == 0 else layout.header
        if header and (number > 1 or layout.header_on_first_page):
            commands.append(_text(72, 750, 8, header))
            printed.append(header)
        if layout.footer:
            commands.append(_text(72, 50, 8, layout.footer))
            if layout.page_numbers:
                commands.append(_text(520, 50, 8, str(number)))
            printed.append(f"{layout.footer} {number}" if layout.page_numbers
                           else layout.footer)
        elif layout.page_numbers:
            commands.append(_text(300, 36, 8, str(number)))
            printed.append(str(number))
        running[number] = printed
        pages.append(commands)
    return write_raw_pages_pdf(pages), running


def sentences_of(paragraph: str) -> list[str]:
    return [s.strip() + "." for s in paragraph.split(".") if s.strip()]


def check(document: Document, paragraphs: list[str], running: dict[int, list[str]]) -> None:
    """The properties every such document keeps."""
    flat = " ".join(document.text.split())
    # Every body sentence is whole in the Markdown, and quotable as printed.
    for paragraph in paragraphs:
        for sentence in sentences_of(paragraph):
            assert sentence in flat
            assert verify_quote(document.text, sentence).verified
    # Every page's running lines, once each, on that page, in page order, top first.
    furniture = [b for b in document.blocks if b.kind is BlockKind.FURNITURE]
    assert [(b.draft.pages, b.draft.text) for b in furniture] == [
        ((page,), line) for page in sorted(running) for line in running[page]]
    assert all(b.draft.bbox for b in furniture)
    # No running line inside another block, nor as a heading.
    lines = {line for printed in running.values() for line in printed}
    words = {line.rsplit(" ", 1)[0] if line[-1:].isdigit() else line for line in lines}
    for block in document.blocks:
        if block.kind is not BlockKind.FURNITURE:
            assert not any(w in block.draft.text for w in words if not w.isdigit())
            assert not block.draft.text.strip().isdigit()
    # Chunks are exact spans; what search and the embedder see has no running line.
    chunks = analyse_version(document, "v").chunks
    assert chunks
    snippets = [c.retrieval_text for c in chunks if c.level == "snippet"]
    assert not any(bm25_scores(snippets, "generated running journal"))
    for chunk in chunks:
        assert chunk.text == document.text[chunk.start:chunk.end]
        body = chunk.retrieval_text.split("\n", 1)[1]
        assert not any(w in body for w in words if not w.isdigit())
        for block in furniture:
            assert block.markdown not in body.split("\n\n")


def extract(data: bytes) -> Document:
    return PdfminerExtractor().extract_sync(data)


_counter = iter(range(10**9))


def _letters(number: int) -> str:
    """`number` in letters: body lines told apart even with their digits masked, as the
    running-line count masks them (real body lines differ; generated ones may not)."""
    out = ""
    while True:
        number, digit = divmod(number, 26)
        out += chr(ord("a") + digit)
        if not number:
            return out


word = st.sampled_from(WORDS)
sentence = st.lists(word, min_size=4, max_size=22).map(
    lambda ws: f"Item {_letters(next(_counter))} " + " ".join(ws))
paragraph = st.lists(sentence, min_size=1, max_size=6).map(lambda ss: ". ".join(ss) + ".")


@given(paragraphs=st.lists(paragraph, min_size=8, max_size=20),
       lines_per_page=st.integers(5, 10), header=st.sampled_from(["all", "not first", None]),
       footer=st.booleans(), numbers=st.booleans())
@settings(max_examples=examples(15), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_running_lines_stay_on_their_pages_and_out_of_sentences_and_search(
        paragraphs: list[str], lines_per_page: int, header: str | None, footer: bool,
        numbers: bool) -> None:
    layout = Layout(header=None if header is None else HEADER,
                    header_on_first_page=header == "all",
                    footer=FOOTER if footer else None, page_numbers=numbers,
                    lines_per_page=lines_per_page)
    data, running = write_paged_pdf(paragraphs, layout)
    # From four pages on, a line printed on every page (or all but the first) is a
    # running line by the PDF structure's count.
    assume(len(running) >= 4)
    check(extract(data), paragraphs, running)


PARAGRAPHS = [
    ". ".join(f"Item {i * 10 + j} " + " ".join(WORDS[(i + j + k) % len(WORDS)]
                                                for k in range(14)) for j in range(5)) + "."
    for i in range(14)]


def test_alternating_headers_footers_only_and_the_last_page() -> None:
    layout = Layout(header="Odd Pages Carry the Title", even_header="Even Pages Carry Authors",
                    header_on_first_page=False, lines_per_page=10)
    data, running = write_paged_pdf(PARAGRAPHS, layout)
    assert len(running) >= 8
    document = extract(data)
    check(document, PARAGRAPHS, running)
    # The last page's footer ends the document.
    assert document.blocks[-1].draft.text == running[len(running)][-1]
    data, running = write_paged_pdf(PARAGRAPHS, Layout(header=None, lines_per_page=14))
    check(extract(data), PARAGRAPHS, running)


def test_a_page_without_body_text_keeps_its_running_lines_in_order() -> None:
    layout = Layout(lines_per_page=12, blank_pages=(3,))
    data, running = write_paged_pdf(PARAGRAPHS[:8], layout)
    document = extract(data)
    check(document, PARAGRAPHS[:8], running)
    # The blank page's lines stand between page 2's footer and page 4's header.
    order = [(b.draft.pages[0], b.draft.text) for b in document.blocks]
    at = order.index((3, running[3][0]))
    assert order[at - 1:at + 3] == [(2, running[2][-1]), *((3, t) for t in running[3]),
                                    (4, running[4][0])]


def test_two_columns_and_a_page_number_alone() -> None:
    # (At some column lengths pdfminer reads a lone last line of the left column after
    # the right one, with or without running lines: a reading-order limit of its own.)
    layout = Layout(footer=None, columns=2, lines_per_page=22)
    data, running = write_paged_pdf(PARAGRAPHS, layout)
    assert len(running) >= 4
    document = extract(data)
    check(document, PARAGRAPHS, running)
    assert any(b.draft.text == "2" for b in document.blocks if b.kind is BlockKind.FURNITURE)
    assert "page_numbers_kept_as_furniture" in " ".join(document.notes)
