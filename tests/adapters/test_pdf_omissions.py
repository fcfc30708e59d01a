"""A PDF's notes say what it holds beside its text layer: pictures, annotations,
attached files and form fields, counted (each picture once, tiny ones and pictures of
pages OCR reads aside; links, widgets and pop-ups are not left out)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from sheaf.domain.document.omissions import LEFT_OUT_PREFIX, Omission
from tests.pdf_writer import with_pdf_extras, write_pdf

PROSE = [("h1", "Harbour Survey"),
         ("p", "The survey counted every mooring along the east quay in the spring.")]


def _left_out(body: bytes) -> str:
    document = PdfminerExtractor().extract_sync(body)
    found = [n for n in document.notes if n.startswith(LEFT_OUT_PREFIX)]
    assert len(found) == 1, document.notes
    return found[0]


def test_a_text_only_pdf_left_out_nothing() -> None:
    assert _left_out(write_pdf(PROSE)) == "left out: nothing"


def test_each_kind_is_counted_with_its_own_words() -> None:
    body = with_pdf_extras(
        write_pdf([*PROSE, ("p", "x " * 900)]), pictures=1, tiny_pictures=3,
        shared_picture=True, form_picture=True,
        annotations=["/Text", "/Highlight", "/Link", "/Widget", "/Popup", "/FileAttachment",
                     "/Ink", "/Screen"],
        fields=1, field_kids=2, files=1, picture_on_blank_page=True)
    document = PdfminerExtractor().extract_sync(body)
    assert document.pages_without_text == (document.page_count,)
    # One picture on page 1, the shared one once, the form's; not the tiny ones, and
    # not the picture of the page without text (OCR reads it).
    assert _left_out(body) == (
        "left out: 3 pictures (their pixels not read as text), 1 audio or video clip, "
        "1 ink drawing, 2 attachments not read (binary or unsupported formats), "
        "2 annotations (notes, highlights, stamps or shapes), "
        "3 form fields (their values not read)")


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 4), st.integers(0, 3), st.integers(0, 3), st.integers(0, 2),
       st.lists(st.sampled_from(["/Text", "/Square", "/Stamp", "/Link", "/Widget"]),
                max_size=6))
def test_the_counts_follow_what_the_file_holds(pictures: int, fields: int, kids: int,
                                               files: int, annotations: list[str]) -> None:
    body = with_pdf_extras(write_pdf(PROSE), pictures=pictures, fields=fields,
                           field_kids=kids, files=files, annotations=annotations)
    note = _left_out(body)
    marked = sum(1 for a in annotations if a not in ("/Link", "/Widget"))
    expected = [(Omission.PICTURE, pictures), (Omission.ATTACHMENT, files),
                (Omission.ANNOTATION, marked), (Omission.FORM_FIELD, fields + kids)]
    words = [kind.phrase(count) for kind, count in expected if count]
    assert note == LEFT_OUT_PREFIX + (", ".join(words) if words else "nothing")


@pytest.mark.parametrize("count", [150_000])
def test_a_flood_of_annotations_is_counted_within_a_bound(count: int) -> None:
    body = with_pdf_extras(write_pdf(PROSE), annotations=["/Text"] * count)
    note = _left_out(body)
    counted = int(note.removeprefix(LEFT_OUT_PREFIX).split()[0])
    assert 0 < counted < count
    assert note.endswith("(at least: counting stopped after 100000 objects)")
