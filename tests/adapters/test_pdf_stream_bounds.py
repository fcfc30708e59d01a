"""The pre-check of what PDFium may decode (ADR-0042) reads each object once per
document and still decides every page as reading its resources again did."""

from __future__ import annotations

import math
import zlib

import pikepdf
from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.adapters.pdf.content_budget import ContentBudget, ContentLimits
from sheaf.adapters.pdf.stream_bounds import _walk
from sheaf.domain.errors import SheafError
from tests.pdf_replaced_steps import walk_reading_every_page
from tests.property_examples import examples


@st.composite
def shared_resources(draw: st.DrawFn) -> tuple[pikepdf.Pdf, ContentLimits]:
    """Pages sharing forms (which may draw each other, in cycles), fonts with widths
    arrays and programs, and images, with limits near what they hold."""
    pdf = pikepdf.new()
    forms = []
    for _ in range(draw(st.integers(0, 4))):
        body = b"0 0 m 1 1 l S " * draw(st.integers(0, 12)) + b"(a) Tj " * draw(
            st.integers(0, 6))
        data = zlib.compress(body) if draw(st.booleans()) else body
        form = pikepdf.Stream(pdf, data)
        form.Type, form.Subtype = pikepdf.Name.XObject, pikepdf.Name.Form
        if data is not body:
            form.Filter = pikepdf.Name.FlateDecode
        forms.append(pdf.make_indirect(form))
    for form in forms:
        inner = draw(st.lists(st.sampled_from(forms), max_size=2))
        if inner:
            form.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(
                {f"/X{i}": f for i, f in enumerate(inner)}))
    fonts = []
    for _ in range(draw(st.integers(0, 3))):
        program = pdf.make_indirect(pikepdf.Stream(pdf, b"ab " * draw(st.integers(0, 130))))
        fonts.append(pdf.make_indirect(pikepdf.Dictionary(
            Type=pikepdf.Name.Font, Widths=pikepdf.Array(list(range(draw(st.integers(0, 30))))),
            FontDescriptor=pikepdf.Dictionary(FontFile=program))))
    image = pikepdf.Stream(pdf, b"\xff" * 300)
    image.Subtype = pikepdf.Name.Image
    image = pdf.make_indirect(image)
    shared = pdf.make_indirect(pikepdf.Dictionary(Font=pikepdf.Dictionary(
        {f"/F{i}": f for i, f in enumerate(fonts)})))
    for _ in range(draw(st.integers(1, 5))):
        page = pdf.add_blank_page()
        page.obj.Contents = pdf.make_indirect(pikepdf.Stream(
            pdf, b"BT (a) Tj ET " * draw(st.integers(0, 8))))
        chosen = draw(st.lists(st.sampled_from(forms), max_size=3)) if forms else []
        if draw(st.booleans()):
            page.obj.Resources = shared
        else:
            page.obj.Resources = pikepdf.Dictionary(
                XObject=pikepdf.Dictionary({f"/X{i}": f for i, f in enumerate(chosen)}
                                           | {"/Im": image}),
                Font=shared.Font, Extra=pikepdf.Array(
                    draw(st.lists(st.sampled_from(forms), max_size=3)) if forms else []))
    limits = ContentLimits(max_page_operations=draw(st.integers(10, 400)),
                           max_page_objects=draw(st.integers(5, 200)),
                           max_document_bytes=draw(st.integers(200, 6000)))
    return pdf, limits


def _outcome(walk: object, pdf: pikepdf.Pdf, limits: ContentLimits) -> tuple[object, ...]:
    budget = ContentBudget(limits, math.inf)
    try:
        walk(pdf, budget, 2000)  # type: ignore[operator]
    except SheafError as exc:
        return (exc.kind, str(exc), budget.page, budget.decoded_bytes)
    return (None, "", budget.page, budget.decoded_bytes)


@given(shared_resources())
@settings(max_examples=examples(200), deadline=None)
def test_each_page_is_decided_as_when_its_resources_are_read_again(
        case: tuple[pikepdf.Pdf, ContentLimits]) -> None:
    pdf, limits = case
    assert _outcome(_walk, pdf, limits) == _outcome(walk_reading_every_page, pdf, limits)
