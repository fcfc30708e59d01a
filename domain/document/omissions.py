"""What an extractor saw in a document and did not turn into text, counted.

Every reader of a structured format (Office, OpenDocument, EPUB, RTF, email) keeps a
tally while it reads and ends the document's notes with one line naming what it left
out and how many of each ("left out: 3 images without alt text, 1 embedded object"),
or "left out: nothing". A user reading `show --diagnostics` or `extract --format json`
learns there what the text does not hold, instead of meeting a silent gap.
"""

from __future__ import annotations

from collections import Counter

from ..worded_enum import WordedEnum

LEFT_OUT_PREFIX = "left out: "


class Omission(WordedEnum):
    """A kind of content not turned into text; the value is its stable name, `phrase`
    words a count of it."""

    IMAGE_WITHOUT_TEXT = "image_without_text"
    EMBEDDED_OBJECT = "embedded_object"
    CHART_WITHOUT_DATA = "chart_without_data"
    DIAGRAM = "diagram"
    MEDIA = "media"
    INK = "ink"
    ATTACHMENT = "attachment"
    ALTERNATIVE_BODY = "alternative_body"
    CONTROL_WORD_GROUP = "control_word_group"
    COMMENT = "comment"
    HIDDEN_SHEET = "hidden_sheet"
    UNSUPPORTED_PART = "unsupported_part"

    def phrase(self, count: int) -> str:
        singular, plural = _PHRASES[self]
        return f"{count} {singular if count == 1 else plural}"


_PHRASES: dict[Omission, tuple[str, str]] = {
    Omission.IMAGE_WITHOUT_TEXT: (
        "image without alt text or caption",
        "images without alt text or caption"),
    Omission.EMBEDDED_OBJECT: ("embedded object (OLE)", "embedded objects (OLE)"),
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
