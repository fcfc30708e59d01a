"""What an extractor saw in a document and did not turn into text, counted.

Every reader (Office, OpenDocument, EPUB, RTF, email, HTML, PDF) keeps a tally while it
reads and adds to the document's notes one line naming what it left out and how many of
each ("left out: 3 images without alt text, 1 embedded object"), or "left out: nothing".
Where the text came from somewhere that cannot be counted (a web page's JSON-LD copy of
its article), the line says so instead of claiming nothing was left out. A user reading
`show --diagnostics` or `extract --format json` learns there what the text does not
hold, instead of meeting a silent gap.
"""

from __future__ import annotations

from collections import Counter

from ..worded_enum import WordedEnum

LEFT_OUT_PREFIX = "left out: "


class Omission(WordedEnum):
    """A kind of content not turned into text; the value is its stable name, `phrase`
    words a count of it."""

    IMAGE_WITHOUT_TEXT = "image_without_text"
    IMAGE_DESCRIPTION = "image_description"
    PICTURE = "picture"
    EMBEDDED_OBJECT = "embedded_object"
    EMBEDDED_FRAME = "embedded_frame"
    DRAWING = "drawing"
    CHART_WITHOUT_DATA = "chart_without_data"
    DIAGRAM = "diagram"
    MEDIA = "media"
    INK = "ink"
    ATTACHMENT = "attachment"
    ALTERNATIVE_BODY = "alternative_body"
    CONTROL_WORD_GROUP = "control_word_group"
    COMMENT = "comment"
    ANNOTATION = "annotation"
    FORM_FIELD = "form_field"
    HIDDEN_SHEET = "hidden_sheet"
    UNSUPPORTED_PART = "unsupported_part"

    def phrase(self, count: int) -> str:
        singular, plural = _PHRASES[self]
        return f"{count} {singular if count == 1 else plural}"


_PHRASES: dict[Omission, tuple[str, str]] = {
    Omission.IMAGE_WITHOUT_TEXT: (
        "image without alt text or caption",
        "images without alt text or caption"),
    Omission.IMAGE_DESCRIPTION: (
        "image whose alt text or caption is left out",
        "images whose alt text or caption is left out"),
    Omission.PICTURE: ("picture (its pixels not read as text)",
                       "pictures (their pixels not read as text)"),
    Omission.EMBEDDED_OBJECT: ("embedded object (OLE)", "embedded objects (OLE)"),
    Omission.EMBEDDED_FRAME: (
        "embedded frame or object (iframe, object, embed)",
        "embedded frames or objects (iframe, object, embed)"),
    Omission.DRAWING: ("drawing (SVG or canvas)", "drawings (SVG or canvas)"),
    Omission.CHART_WITHOUT_DATA: ("chart without readable data", "charts without readable data"),
    Omission.DIAGRAM: (
        "SmartArt diagram without readable text",
        "SmartArt diagrams without readable text"),
    Omission.MEDIA: ("audio or video clip", "audio or video clips"),
    Omission.INK: ("ink drawing", "ink drawings"),
    Omission.ATTACHMENT: (
        "attachment not read (binary or unsupported format)",
        "attachments not read (binary or unsupported formats)"),
    Omission.ALTERNATIVE_BODY: (
        "alternative body (HTML copy of the text)",
        "alternative bodies (HTML copies of the text)"),
    Omission.CONTROL_WORD_GROUP: (
        "RTF destination (pictures, fonts, styles, fields' codes)",
        "RTF destinations (pictures, fonts, styles, fields' codes)"),
    Omission.COMMENT: ("comment", "comments"),
    Omission.ANNOTATION: (
        "annotation (note, highlight, stamp or shape)",
        "annotations (notes, highlights, stamps or shapes)"),
    Omission.FORM_FIELD: ("form field (its value not read)",
                          "form fields (their values not read)"),
    Omission.HIDDEN_SHEET: ("hidden sheet", "hidden sheets"),
    Omission.UNSUPPORTED_PART: (
        "part in a format sheaf does not read",
        "parts in formats sheaf does not read"),
}
"""Each kind's singular and plural phrase, as the notes print them."""

class OmissionTally:
    """Counts omissions as a reader meets them; `note` words the total."""

    def __init__(self) -> None:
        self._counts: Counter[Omission] = Counter()

    def add(self, omission: Omission, count: int = 1) -> None:
        if count > 0:
            self._counts[omission] += count

    def count(self, omission: Omission) -> int:
        return self._counts[omission]

    def merge(self, other: OmissionTally) -> None:
        self._counts.update(other._counts)

    def note(self) -> str:
        """One line for the document's notes, in the order the kinds are declared."""
        found = [o.phrase(self._counts[o]) for o in Omission if self._counts[o]]
        return LEFT_OUT_PREFIX + (", ".join(found) if found else "nothing")


def uncounted_note(why: str) -> str:
    """The line for a document whose text came from where omissions cannot be counted."""
    return f"{LEFT_OUT_PREFIX}not counted ({why})"
