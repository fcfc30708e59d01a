"""The paper's own title, whole, from its first page (issue 34).

The first page's largest type is usually the title, but not always: a journal sets its
name larger still at the top (`Journal of Statistical Software`), a publisher puts the
article's type over it in the same type (`Research Article`), a title's lines are broken
by a footnote mark or come out of layout analysis in separate boxes. So:

- candidates are runs of lines set in one large size (clearly above the body's) that
  stand one under the other, with no other text between them, a footnote mark or a
  letterless glyph aside;
- a run that names a venue (`Journal of…`, `Proceedings of…`, `… Transactions on …`,
  `… Letters`, `BMC …`), or that the metadata's subject or keywords contain (publishers
  put the journal's name there), is the masthead, not the title (a run repeated on
  later pages may well be the title: running heads repeat it);
- a leading line that is an article-type label alone (`Research Article`, `Original
  Paper`, `Review`) is dropped from the run;
- the document's metadata title, when it reads as a title, picks the run it matches
  (most of its words in the run), and stands in for nothing else: Info and XMP titles
  are often another paper's or the journal's, so it confirms, never overrides;
- otherwise the largest remaining run, the topmost among equals.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs

from .structure import BodyStyle, TextBox, TextLine, clean_text

TITLE_SIZE_RATIO = 1.15
"""A title's type is at least this much larger than the body's."""
SAME_SIZE = 0.05
LINE_GAP = 1.6
"""Lines of one title stand at most this many line heights apart (top to top)."""
MAX_TITLE_WORDS = 40
METADATA_MATCH = 0.6
"""The share of the metadata title's words a run must hold to be the title it names."""

_TYPE_LABEL = re.compile(
    r"^(?:original\s+|short\s+|brief\s+|research\s+|review\s+|technical\s+|invited\s+|"
    r"regular\s+|full\s+|rapid\s+|special\s+)?(?:research|article|paper|review|letter|"
    r"report|communication|note|editorial|commentary|perspective|viewpoint|"
    r"case\s+report|case\s+study|methodology|protocol|correspondence|opinion|essay|"
    r"contribution|survey)(?:\s+(?:article|paper|report|note|communication|research))?"
    r"\s*[:.]?$", re.IGNORECASE)
_VENUE = re.compile(
    r"^(?:the\s+)?(?:journal|proceedings|annals|bulletin|transactions|archives|"
    r"acta|advances)\s+(?:of|on|in|de|for)\b|\b(?:journal|transactions|letters|magazine|"
    r"bulletin|proceedings)$|\btransactions\s+on\b|^(?:ieee|acm|ieice|siam)\s+\w+"
    r"(?:\s+\w+)?$|^(?:bmc|plos|nature|frontiers\s+in|cell)\b", re.IGNORECASE)
_WORD = re.compile(r"\w+")
_MARK = re.compile(r"\s*[*†‡§¶]+\s*$")


@attrs.frozen
class _Run:
    lines: tuple[TextLine, ...]
    size: float

    @property
    def text(self) -> str:
        # A footnote mark set against a title line (`Title*`, `Title†`) is not the title.
        return clean_text([_MARK.sub("", line.text) for line in self.lines])

    @property
    def top(self) -> float:
        return self.lines[0].bbox[3]


def _worded(line: TextLine) -> bool:
    return sum(c.isalpha() for c in line.text) >= 2


def _runs(first_page: list[TextLine], body: BodyStyle) -> list[_Run]:
    """Runs of large lines one under the other, top to bottom."""
    large = sorted((line for line in first_page
                    if _worded(line) and line.size >= body.size * TITLE_SIZE_RATIO),
                   key=lambda line: (-line.bbox[3], line.bbox[0]))
    others = [line for line in first_page if _worded(line) and line not in large]
    runs: list[list[TextLine]] = []
    for line in large:
        placed = False
        for run in runs:
            last = run[-1]
            if abs(line.size - last.size) > SAME_SIZE * last.size:
                continue
            gap = last.bbox[3] - line.bbox[3]
            overlaps = min(line.bbox[2], last.bbox[2]) - max(line.bbox[0], last.bbox[0]) > 0
            same_row = abs(gap) < 0.5 * last.size
            if overlaps and 0 < gap <= LINE_GAP * max(line.size, last.size) \
                    and not _between(others, last, line):
                run.append(line)
                placed = True
                break
            if same_row and not overlaps and not _between(others, last, line):
                run.append(line)  # a title line layout analysis cut in two
                placed = True
                break
        if not placed:
            runs.append([line])
    return [_Run(tuple(run), run[0].size) for run in runs]


def _between(others: list[TextLine], upper: TextLine, lower: TextLine) -> bool:
    """Whether other worded text stands between two lines (then they are not one run)."""
    top, bottom = upper.bbox[1], lower.bbox[3]
    left, right = min(upper.bbox[0], lower.bbox[0]), max(upper.bbox[2], lower.bbox[2])
    for line in others:
        middle = (line.bbox[1] + line.bbox[3]) / 2
        if bottom < middle < top and min(right, line.bbox[2]) - max(left, line.bbox[0]) > 0:
            return True
    return False


def _without_type_label(run: _Run) -> _Run | None:
    lines = list(run.lines)
    while lines and _TYPE_LABEL.match(clean_text([lines[0].text])):
        lines.pop(0)
    return attrs.evolve(run, lines=tuple(lines)) if lines else None


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def is_masthead(text: str) -> bool:
    """A journal's or a series' name, as set over a paper's first page."""
    return bool(_VENUE.search(" ".join(text.split()))) and len(text.split()) <= 10


def choose_title(boxes: Sequence[TextBox], metadata_title: str | None = None,
                 venue_hints: Sequence[str] = ()) -> str | None:
    """The paper's title from its first page (see the module's docstring), or None.
    `venue_hints` are metadata texts that may name the journal (Info /Subject, XMP
    keywords): a run they contain is the masthead."""
    hints = [" ".join(hint.split()).lower() for hint in venue_hints if hint]
    boxes = list(boxes)
    body = BodyStyle.of(boxes)
    first_page = [line for box in boxes if box.page == 1 for line in box.lines]
    runs = []
    for run in _runs(first_page, body):
        trimmed = _without_type_label(run)
        if trimmed is None or not 1 <= len(trimmed.text.split()) <= MAX_TITLE_WORDS:
            continue
        if is_masthead(trimmed.text) or (len(trimmed.text) >= 8 and any(
                trimmed.text.lower() in hint for hint in hints)):
            continue
        runs.append(trimmed)
    if not runs:
        return None
    wanted = _words(metadata_title or "")
    if wanted and len(_WORD.findall(metadata_title or "")) >= 2:
        matching = [run for run in runs
                    if len(wanted & _words(run.text)) >= METADATA_MATCH * len(wanted)]
        if matching:
            return max(matching, key=lambda r: (len(wanted & _words(r.text)), r.size)).text
    largest = max(run.size for run in runs)
    return next(run.text for run in runs if abs(run.size - largest) <= SAME_SIZE * largest)
