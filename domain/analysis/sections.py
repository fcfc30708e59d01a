"""Sections of a document: labelled, nested, with exact spans in the canonical text."""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs

from .section_labels import (
    AFTER_REFERENCES,
    SCIENTIFIC_CORE,
    is_article_type,
    is_weak_name,
    label_heading,
    normalise_heading,
    section_number,
)

_HEADING_MARK = re.compile(r"^#{1,6}\s+")
MIN_ABSTRACT_WORDS = 40
MAX_ABSTRACT_WORDS = 600


@attrs.frozen
class Heading:
    """A heading as sections need it: text, level and the span of its block."""

    text: str
    level: int
    start: int
    end: int


@attrs.frozen
class Section:
    """A section: from its heading to the next heading at the same or a higher level."""

    index: int
    heading: str | None
    label: str
    level: int
    start: int
    end: int
    path: tuple[str, ...]
    parent: int | None = None
    inferred: bool = False
    """True for an abstract found without a heading."""


def headings_from_blocks(text: str, blocks: list[tuple[str, int, int, int]]) -> list[Heading]:
    """Headings from stored block rows (kind, start, end, level) over the Markdown."""
    return [Heading(_HEADING_MARK.sub("", text[start:end]).strip(), level, start, end)
            for kind, start, end, level in blocks if kind == "heading"]


def detect_sections(text: str, headings: list[Heading], *, title: str | None = None,
                    abstract: str | None = None,
                    furniture: Sequence[tuple[int, int]] = (),
                    leading_abstract: bool = True) -> tuple[Section, ...]:
    """Label and nest the headings into sections.

    The heading that repeats the document's title is the title, not a section. Once the
    references have begun, only appendix, supplementary and acknowledgement-like headings
    start new sections: titles inside a reference list never do. Banners (article types,
    "Open Access", headings before the title) are no sections. A subsection (nested, or
    numbered "3.1" under "3") takes its parent's label unless its own heading names a
    canonical section with more than a common subsection word ("Overview"). An abstract
    without a heading is inferred from the text before the first heading, or from the
    abstract metadata; `furniture` (the spans of a page's running lines) is no part of
    it, and never starts it. Without `leading_abstract` (text whose layout says nothing
    of papers: a note, a plain or RTF file), only the abstract metadata infers one."""
    title_key = normalise_heading(title) if title else None
    title_at = next((i for i, h in enumerate(headings)
                     if title_key and normalise_heading(h.text) == title_key), None)
    before_title = title_at + 1 if title_at is not None and title_at <= 2 else 0
    kept = [h for i, h in enumerate(headings)
            if i >= before_title and not is_article_type(h.text)]
    kept = _without_leading_banners(text, kept)
    sections: list[Section] = []
    open_stack: list[int] = []
    in_references_at: int | None = None
    numbered: dict[tuple[str, ...], int] = {}  # section number -> section index
    for heading in kept:
        label = label_heading(heading.text)
        if in_references_at is not None:
            if label not in AFTER_REFERENCES and label != "references":
                continue
            in_references_at = None
        while open_stack and sections[open_stack[-1]].level >= heading.level:
            open_stack.pop()
        parent = open_stack[-1] if open_stack else None
        number = section_number(heading.text)
        # Flat headings numbered "3.1" after "3": the numbering says whose part it is.
        numbered_parent = numbered.get(number[:-1]) if len(number) > 1 else None
        inherited = parent if parent is not None else numbered_parent
        if inherited is not None and (label == "other" or is_weak_name(heading.text)):
            label = sections[inherited].label
        if number:
            numbered[number] = len(sections)
        path = (*(sections[parent].path if parent is not None else ()), heading.text)
        sections.append(Section(len(sections), heading.text, label, heading.level,
                                heading.start, heading.start, path, parent))
        open_stack.append(len(sections) - 1)
        if label == "references":
            in_references_at = heading.level
    sections = _close(sections, len(text))
    if not any(s.label == "abstract" for s in sections):
        inferred = _inferred_abstract(text, kept, abstract, furniture, leading_abstract)
        if inferred is not None:
            sections = [inferred, *(attrs.evolve(s, index=s.index + 1, parent=None
                                                 if s.parent is None else s.parent + 1)
                                    for s in sections)]
    return tuple(sections)


def _without_leading_banners(text: str, headings: list[Heading]) -> list[Heading]:
    """Headings before the abstract or introduction that head nothing (the next heading
    follows at once, no deeper) are a page's banners ("Methods" as a journal's article
    type), not sections."""
    opening = next((i for i, h in enumerate(headings)
                    if label_heading(h.text) in ("abstract", "introduction")), None)
    if opening is None:
        return headings
    kept = []
    for i, heading in enumerate(headings):
        if i < opening:
            following = headings[i + 1]
            if not text[heading.end:following.start].strip() and \
                    following.level <= heading.level:
                continue
        kept.append(heading)
    return kept


def _close(sections: list[Section], text_end: int) -> list[Section]:
    """Each section ends where the next section at its level or above begins."""
    closed = []
    for i, section in enumerate(sections):
        end = text_end
        for later in sections[i + 1:]:
            if later.level <= section.level:
                end = later.start
                break
        closed.append(attrs.evolve(section, end=end))
    return closed


def _inferred_abstract(text: str, headings: list[Heading], abstract: str | None,
                       furniture: Sequence[tuple[int, int]] = (),
                       by_place: bool = True) -> Section | None:
    first = headings[0].start if headings else len(text)
    if not by_place:
        first = 0  # the text before the first heading is no abstract by its place alone
    leading = text[:first]
    skipped = [(a, b) for a, b in furniture if b <= first]
    words = len(leading.split()) - sum(len(text[a:b].split()) for a, b in skipped)
    if MIN_ABSTRACT_WORDS <= words <= MAX_ABSTRACT_WORDS:
        start = len(leading) - len(leading.lstrip())
        for a, b in sorted(skipped):  # the page's header before it is not its start
            if a <= start:
                start = max(start, b)
                start += len(text[start:first]) - len(text[start:first].lstrip())
        end = len(leading.rstrip())
        return Section(0, None, "abstract", 1, start, end, ("Abstract",), inferred=True)
    if abstract:
        probe = " ".join(abstract.split()[:12])
        at = " ".join(text.split()).find(probe) if probe else -1
        if at >= 0:
            start = _original_offset(text, at)
            end = _original_offset(text, at + len(" ".join(abstract.split())))
            return Section(0, None, "abstract", 1, start, min(end, len(text)),
                           ("Abstract",), inferred=True)
    return None


def _original_offset(text: str, collapsed_offset: int) -> int:
    """Map an offset in the whitespace-collapsed text back to the original text."""
    count = 0
    previous_space = True
    for index, char in enumerate(text):
        if char.isspace():
            if previous_space:
                continue
            previous_space = True
        else:
            previous_space = False
        if count == collapsed_offset:
            return index
        count += 1
    return len(text)


def is_scientific(sections: tuple[Section, ...], *, doi: str | None = None,
                  journal: str | None = None) -> bool:
    """Three distinct core labels (introduction, methods, results, discussion, conclusion,
    references), or scholarly metadata (a DOI and a journal)."""
    labels = {s.label for s in sections} & SCIENTIFIC_CORE
    return len(labels) >= 3 or bool(doi and journal)
