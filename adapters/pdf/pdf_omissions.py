"""What a PDF holds beside its text layer, counted for the document's "left out:" note
(domain/document/omissions): pictures, annotations, attached files, form fields.

Read with pikepdf from the object structure, never by decoding a stream, and bounded
(`MAX_OBJECTS` dictionaries visited in all), so a hostile file with millions of
annotations costs no more than a normal one. Pictures are image XObjects in a page's
resources (and in the forms it draws, a few levels deep), each counted once however many
pages show it; a picture of a few pixels (a rule, a bullet) is not a picture. Pages
without a text layer are counted apart, as they are what OCR reads.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs
import pikepdf

from ...domain.document.omissions import Omission, OmissionTally

MAX_OBJECTS = 100_000
"""Dictionaries visited in all (annotations, resources, fields, name-tree nodes)."""
_MIN_PICTURE_SIDE = 16
_MAX_FORM_DEPTH = 4
_NOT_LEFT_OUT = frozenset({"/Link", "/Widget", "/Popup", "/PrinterMark", "/TrapNet",
                           "/Watermark"})
"""Annotations that are navigation, form widgets (counted as fields), a note's window,
or print furniture: nothing a reader misses."""
_ANNOTATION_KINDS = {"/FileAttachment": Omission.ATTACHMENT, "/Ink": Omission.INK,
                     "/Sound": Omission.MEDIA, "/Movie": Omission.MEDIA,
                     "/Screen": Omission.MEDIA, "/RichMedia": Omission.MEDIA,
                     "/3D": Omission.MEDIA}


@attrs.frozen
class PdfOmissions:
    """The counts of a PDF: everything but pictures, and pictures by the page that first
    shows them."""

    tally: OmissionTally
    pictures_by_page: dict[int, int]
    complete: bool = True
    """False when counting stopped at `MAX_OBJECTS`: the counts are lower bounds."""

    def note(self, pages_without_text: frozenset[int] = frozenset()) -> str:
        """The note, pictures on pages without a text layer aside (OCR reads those)."""
        total = OmissionTally()
        total.merge(self.tally)
        total.add(Omission.PICTURE, sum(count for page, count in self.pictures_by_page.items()
                                        if page not in pages_without_text))
        if self.complete:
            return total.note()
        return f"{total.note()} (at least: counting stopped after {MAX_OBJECTS} objects)"


def pdf_omissions(pdf: pikepdf.Pdf, max_pages: int) -> PdfOmissions:
    """Count what `pdf` holds that its text layer does not, reading at most `max_pages`
    pages and `MAX_OBJECTS` dictionaries."""
    tally = OmissionTally()
    pictures: dict[int, int] = {}
    budget = _Visits()
    seen_images: set[tuple[int, int]] = set()
    try:
        for number, page in enumerate(pdf.pages, 1):
            if number > max_pages or budget.spent:
                break
            for annotation in _array(page.obj.get("/Annots")):
                if not budget.take() or not isinstance(annotation, pikepdf.Dictionary):
                    continue
                subtype = str(annotation.get("/Subtype", ""))
                if subtype not in _NOT_LEFT_OUT:
                    tally.add(_ANNOTATION_KINDS.get(subtype, Omission.ANNOTATION))
            found = sum(1 for _ in _new_pictures(page.obj.get("/Resources"), seen_images,
                                                 budget, 0))
            if found:
                pictures[number] = found
        root = pdf.Root
        tally.add(Omission.ATTACHMENT, _embedded_files(root, budget))
        tally.add(Omission.FORM_FIELD, _form_fields(root, budget))
    except (pikepdf.PdfError, ValueError, TypeError, AttributeError, RecursionError):
        pass  # a broken structure only loses counts, never the text
    return PdfOmissions(tally, pictures, complete=not budget.spent)


class _Visits:
    def __init__(self) -> None:
        self.left = MAX_OBJECTS

    @property
    def spent(self) -> bool:
        return self.left <= 0

    def take(self) -> bool:
        self.left -= 1
        return self.left >= 0


def _array(value: object) -> list[object]:
    return list(value) if isinstance(value, pikepdf.Array) else []


def _new_pictures(resources: object, seen: set[tuple[int, int]], budget: _Visits,
                  depth: int) -> Iterator[None]:
    """One item per picture in `resources` not seen before (forms walked into)."""
    if not isinstance(resources, pikepdf.Dictionary) or depth > _MAX_FORM_DEPTH:
        return
    xobjects = resources.get("/XObject")
    if not isinstance(xobjects, pikepdf.Dictionary):
        return
    for key in list(xobjects.keys()):
        if not budget.take():
            return
        xobject = xobjects.get(key)
        if not isinstance(xobject, pikepdf.Stream):
            continue
        identity = xobject.objgen if xobject.objgen != (0, 0) else (-id(xobject), 0)
        if identity in seen:
            continue
        seen.add(identity)
        subtype = xobject.get("/Subtype")
        if subtype == pikepdf.Name.Image:
            if min(_int(xobject.get("/Width")), _int(xobject.get("/Height"))) \
                    >= _MIN_PICTURE_SIDE:
                yield None
        elif subtype == pikepdf.Name.Form:
            yield from _new_pictures(xobject.get("/Resources"), seen, budget, depth + 1)


def _int(value: object) -> int:
    try:
        return int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return 0


def _embedded_files(root: pikepdf.Dictionary, budget: _Visits) -> int:
    """Files in the document's EmbeddedFiles name tree."""
    names = root.get("/Names")
    tree = names.get("/EmbeddedFiles") if isinstance(names, pikepdf.Dictionary) else None
    count = 0
    stack = [tree]
    while stack and budget.take():
        node = stack.pop()
        if not isinstance(node, pikepdf.Dictionary):
            continue
        count += len(_array(node.get("/Names"))) // 2
        stack.extend(_array(node.get("/Kids")))
    return count


def _form_fields(root: pikepdf.Dictionary, budget: _Visits) -> int:
    """Fields of the interactive form that hold a value (the tree's leaves)."""
    form = root.get("/AcroForm")
    stack = _array(form.get("/Fields")) if isinstance(form, pikepdf.Dictionary) else []
    count = 0
    while stack and budget.take():
        field = stack.pop()
        if not isinstance(field, pikepdf.Dictionary):
            continue
        named = [kid for kid in _array(field.get("/Kids"))
                 if isinstance(kid, pikepdf.Dictionary) and "/T" in kid]
        if named:
            stack.extend(named)
        else:
            count += 1
    return count
