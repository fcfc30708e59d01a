"""The PDFium engine (ADR-0042) against the pdfminer engine on generated PDFs: the same
glyph boxes, fonts, rules and so the same documents, for classes of page (one or two
columns, headings by size and weight, ruled tables, turned pages, invisible text)."""

from __future__ import annotations

import time

import pikepdf
import pytest

from sheaf.adapters.pdf import layout_reading
from sheaf.adapters.pdf.content_budget import ContentBudget, ContentLimits
from sheaf.adapters.pdf.pdfium_layout import PdfiumLayoutPages
from sheaf.adapters.pdf.pdfium_text import pdfium_available
from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from sheaf.domain.document.document import BlockKind, Document
from tests.pdf_writer import write_pdf, write_raw_page_pdf

pytestmark = pytest.mark.skipif(not pdfium_available(),
                                reason="pypdfium2 (the pdfium extra) is not installed")

WORDS = ["layout", "glyph", "reading", "column", "heading", "paragraph", "table", "engine",
         "measure", "figure", "result", "method", "corpus", "evidence"]


def _paragraph(seed: int, length: int) -> str:
    return " ".join(WORDS[(seed * 7 + i * 3) % len(WORDS)] for i in range(length)) + "."


def _both(body: bytes) -> tuple[Document, Document]:
    return (PdfminerExtractor(engine="pdfminer").extract_sync(body),
            PdfminerExtractor(engine="pdfium").extract_sync(body))


def _pages(body: bytes, engine: str) -> list[object]:
    budget = ContentBudget(ContentLimits(), time.monotonic() + 60)
    if engine == "pdfium":
        reader = PdfiumLayoutPages(body, budget, 100)
        try:
            return list(reader)
        finally:
            reader.close()
    return list(layout_reading._pages(body, budget, 100))


@pytest.mark.parametrize("columns", [1, 2])
@pytest.mark.parametrize("seed", range(3))
def test_generated_papers_come_out_the_same_from_both_engines(columns: int, seed: int) -> None:
    blocks = [("h1", f"Study {seed} of reading engines")]
    for section in range(3):
        blocks.append(("h2", f"{section + 1}. Section on {WORDS[(seed + section) % 14]}"))
        blocks += [("p", _paragraph(seed + section + k, 40 + 25 * k)) for k in range(3)]
    minered, pdfium = _both(write_pdf(blocks, columns=columns, title="Reading engines"))
    assert pdfium.text == minered.text
    assert [h.draft.text for h in pdfium.headings()] == [
        h.draft.text for h in minered.headings()]
    assert len(list(minered.headings())) == 4


def test_glyph_boxes_fonts_and_sizes_match_pdfminers() -> None:
    body = write_pdf([("h1", "A heading in bold"), ("p", _paragraph(1, 80))])
    minered, pdfium = (sorted(layout_reading._page_chars(_pages(body, engine)[0]),  # type: ignore[arg-type]
                              key=lambda c: (round(c.y0), c.x0))
                       for engine in ("pdfminer", "pdfium"))
    assert [(c._text, c.fontname) for c in pdfium] == [(c._text, c.fontname) for c in minered]
    assert any(c.fontname == "Helvetica-Bold" for c in pdfium)
    for ours, theirs in zip(pdfium, minered, strict=True):
        # PDFium computes in single precision and takes the standard fonts' descent
        # from its own metrics: within a few hundredths of the type size.
        assert ours.size == pytest.approx(theirs.size, abs=1e-3)
        assert ours.bbox == pytest.approx(theirs.bbox, abs=0.05 * theirs.size)


@pytest.mark.parametrize("cell_rects", [False, True])
@pytest.mark.parametrize("columns", [2, 3, 4])
def test_ruled_tables_read_the_same(cell_rects: bool, columns: int) -> None:
    xs = [72 + 110 * i for i in range(columns + 1)]
    rows = 4
    ys = [700 - 30 * i for i in range(rows + 1)]
    commands = ["BT /F1 10 Tf 72 740 Td (A table drawn with ruling lines follows.) Tj ET"]
    commands += [f"BT /F1 9 Tf {xs[c] + 4} {ys[r] - 18} Td "
                 f"({WORDS[(r * columns + c) % len(WORDS)]} {r}) Tj ET"
                 for r in range(rows) for c in range(columns)]
    if cell_rects:
        commands += [f"{xs[c]} {ys[r + 1]} 110 30 re S"
                     for r in range(rows) for c in range(columns)]
    else:
        commands += [f"0.5 w {xs[0]} {y} m {xs[-1]} {y} l S" for y in ys]
        commands += [f"0.5 w {x} {ys[0]} m {x} {ys[-1]} l S" for x in xs]
    # A curve is a drawing, not a rule, for both engines.
    commands.append("100 100 m 150 180 200 180 250 100 c S")
    body = write_raw_page_pdf(commands)
    rules = [sorted(tuple(round(v, 1) for v in rule)
                    for rule in layout_reading._page_rules(page))  # type: ignore[arg-type]
             for page in (_pages(body, e)[0] for e in ("pdfminer", "pdfium"))]
    assert rules[0] == rules[1] and rules[0]
    minered, pdfium = _both(body)
    shapes = [[b.draft.rows for b in d.blocks if b.draft.kind is BlockKind.TABLE]
              for d in (minered, pdfium)]
    assert shapes[0] == shapes[1]
    assert len(shapes[0]) == 1 and len(shapes[0][0]) == rows


@pytest.mark.parametrize("rotate", [90, 180, 270])
def test_a_turned_page_reads_as_pdfminer_turns_it(rotate: int) -> None:
    pdf = pikepdf.open(_buffer(write_pdf([("h1", "A turned page"),
                                          ("p", _paragraph(2, 60))])))
    pdf.pages[0].Rotate = rotate
    minered, pdfium = _both(_saved(pdf))
    if rotate == 180:
        assert pdfium.text == minered.text
        assert "A turned page" in pdfium.text
    else:
        # Turned a quarter, the lines stand across the page and both engines read them
        # glyph by glyph; the glyphs are the same, their grouping can differ.
        assert sorted(pdfium.text.split()) == sorted(minered.text.split())


def test_invisible_text_is_dropped_beside_visible_text_by_both() -> None:
    body = write_raw_page_pdf([
        "BT /F1 11 Tf 72 700 Td (Visible words stay in the text.) Tj ET",
        "BT 3 Tr /F1 11 Tf 72 650 Td (Hidden words are left out.) Tj ET"])
    minered, pdfium = _both(body)
    assert "Hidden" not in pdfium.text and "Visible words" in pdfium.text
    assert pdfium.text == minered.text
    assert any(n.startswith("invisible_text_dropped") for n in pdfium.notes)


def test_adobe_corporate_use_glyphs_are_ordinary_characters() -> None:
    from tests.pdf_writer import write_encoded_font_pdf

    # Symbol's 0xE3 is its sans-serif copyright sign, a private-use point in PDFium.
    body = write_encoded_font_pdf([b"The value m = 3 a", b"\xe3 2024 \xe2 \xe4"],
                                  base_font="Symbol")
    text = PdfminerExtractor(engine="pdfium").extract_sync(body).text
    for expected in ("©", "®", "™"):
        assert expected in text, text


def test_an_unknown_engine_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown PDF engine 'xpdf'"):
        PdfminerExtractor(engine="xpdf")


def _buffer(body: bytes) -> object:
    import io

    return io.BytesIO(body)


def _saved(pdf: pikepdf.Pdf) -> bytes:
    import io

    out = io.BytesIO()
    pdf.save(out, deterministic_id=True)
    return out.getvalue()


def test_documents_read_in_threads_at_once_read_as_one_at_a_time() -> None:
    from concurrent.futures import ThreadPoolExecutor

    # PDFium is not thread-safe: its calls are serialised, the layout work is not.
    bodies = [write_pdf([("h1", f"Paper {n}"), ("p", _paragraph(n, 120))], columns=1 + n % 2)
              for n in range(4)]
    extractor = PdfminerExtractor(engine="pdfium")
    alone = [extractor.extract_sync(body).text for body in bodies]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda body: extractor.extract_sync(body).text, bodies * 2))
    assert together == alone * 2


PERSIAN = ["این پژوهش در سال ۱۴۰۳ در بورس کالای ایران انجام شد و داده ها از گزارش های",
           "سالانه شرکت ها گردآوری شد تا رابطه میان قیمت پایه و حجم عرضه سنجیده شود"]


@pytest.mark.parametrize("columns", [1, 2])
@pytest.mark.parametrize("number", ["۳-", "3-", "۲-۵-"])
def test_right_to_left_pages_read_the_same(number: str, columns: int) -> None:
    from tests.pdf_writer import write_right_to_left_pdf

    # PDFium puts right-to-left runs in logical order; they are put back as drawn.
    lines = [(15, False, f"{number} روش تحقیق"), *[(10, False, line) for line in PERSIAN],
             (10, True, "نتایج"), *[(10, False, line) for line in PERSIAN[::-1]]]
    minered, pdfium = _both(write_right_to_left_pdf(lines, columns=columns))
    assert pdfium.text == minered.text
    assert [h.draft.text for h in pdfium.headings()] == [f"{number} روش تحقیق", "نتایج"]
