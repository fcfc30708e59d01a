"""Quotes and sections of stored documents: the document's own words, with citations."""

from __future__ import annotations

import attrs

from ...domain.analysis.section_labels import normalise_heading
from ...domain.document.document_location import DocumentLocation
from ...domain.errors import ErrorKind, SheafError
from ...domain.quotes.quote_matching import FUZZY_THRESHOLD, MatchKind, QuoteSearch, find_quote
from ..concurrency.worker_pool import WorkerPool
from ..store.document_structure import DocumentStructure, StructuredDocument

CONTEXT_CHARACTERS = 200
MAX_QUOTE_CHARACTERS = 2000
"""The longest text a quote request may look for. Fuzzy matching is near-linear, but a
longer query still costs seconds of CPU on a long document, and a quotation longer than
this is better cited by section or by sentences."""


@attrs.frozen
class Quote:
    """A verbatim passage: exactly `markdown[start:end]`, with where it stands and whence
    it came."""

    text: str
    start: int
    end: int
    match: str
    score: float
    sentences: tuple[int, ...]
    paragraphs: tuple[int, ...]
    lines: tuple[int, ...]
    section_path: tuple[str, ...]
    section_label: str | None
    pages: tuple[int, ...]
    document_id: str
    title: str | None
    url: str | None
    location: DocumentLocation
    """Where the document came from (URL, local path and `file:` URI, upload name)."""
    version_id: str
    context_before: str
    context_after: str

    def as_dict(self) -> dict[str, object]:
        found = attrs.asdict(self, recurse=False)
        found["location"] = self.location.as_dict()
        return found


class Quotes:
    """Answers quote requests from stored documents; never invents a passage."""

    def __init__(self, structure: DocumentStructure, pool: WorkerPool | None = None) -> None:
        self._structure = structure
        self._pool = pool or WorkerPool()

    async def load(self, space: str, reference: str) -> StructuredDocument:
        return await self._structure.load(space, reference)

    async def by_text(self, space: str, reference: str, query: str, *, find_all: bool = False,
                      threshold: float = FUZZY_THRESHOLD) -> list[Quote]:
        """Occurrences of `query`: exact, tolerant or fuzzy; `quote_not_found` otherwise,
        naming the closest passage and its score."""
        if len(query) > MAX_QUOTE_CHARACTERS:
            raise SheafError(ErrorKind.INVALID_QUERY,
                             f"the quote text has {len(query)} characters; at most "
                             f"{MAX_QUOTE_CHARACTERS} are matched (cite a section or "
                             "sentences instead)")
        loaded = await self.load(space, reference)
        # Matching is CPU work of a cost that grows with the text: off the event loop.
        result = await self._pool.run(_find, loaded.text, query, find_all, threshold)
        if not result.found:
            closest = ""
            if result.closest is not None:
                passage = loaded.text[result.closest.start:result.closest.end]
                closest = f"; closest passage (similarity {result.closest.score}): {passage!r}"
            raise SheafError(ErrorKind.QUOTE_NOT_FOUND,
                             f"the text is not in document {loaded.document.id}{closest}")
        return [self._quote(loaded, m.start, m.end, m.kind, m.score) for m in result.matches]

    async def by_position(self, space: str, reference: str, unit: str, first: int,
                          last: int | None = None) -> Quote:
        """Sentence, paragraph or line `first` (to `last`), counted from 1."""
        loaded = await self.load(space, reference)
        spans = {"sentence": loaded.profile.sentences, "paragraph": loaded.profile.paragraphs,
                 "line": loaded.profile.lines}[unit]
        last = first if last is None else last
        if not 1 <= first <= last <= len(spans):
            raise SheafError(ErrorKind.OUT_OF_RANGE,
                             f"document {loaded.document.id} has {len(spans)} {unit}s; asked "
                             f"for {first}" + (f"-{last}" if last != first else ""))
        return self._quote(loaded, spans[first - 1][0], spans[last - 1][1], MatchKind.EXACT,
                           1.0)

    async def section(self, space: str, reference: str, name: str,
                      first_sentences: int | None = None,
                      last_sentences: int | None = None) -> Quote:
        """A section by label or heading text: whole, or its first or last N sentences."""
        loaded = await self.load(space, reference)
        wanted = normalise_heading(name)
        section = next((s for s in loaded.sections if s.label == wanted.replace(" ", "_")),
                       None) or next((s for s in loaded.sections if s.heading and
                                      normalise_heading(s.heading) == wanted), None)
        if section is None:
            available = ", ".join(dict.fromkeys(s.heading or s.label for s in loaded.sections))
            raise SheafError(ErrorKind.OUT_OF_RANGE,
                             f"no section {name!r}; sections: {available}")
        start, end = section.start, section.end
        if first_sentences is not None or last_sentences is not None:
            inside = [s for s in loaded.profile.sentences if start <= s[0] and s[1] <= end]
            if not inside:
                raise SheafError(ErrorKind.OUT_OF_RANGE, f"section {name!r} has no sentences")
            chosen = (inside[:first_sentences] if first_sentences is not None
                      else inside[-(last_sentences or 1):])
            start, end = chosen[0][0], chosen[-1][1]
        while end > start and loaded.text[end - 1].isspace():
            end -= 1
        return self._quote(loaded, start, end, MatchKind.EXACT, 1.0)

    def _quote(self, loaded: StructuredDocument, start: int, end: int, kind: MatchKind,
               score: float) -> Quote:
        text, profile, document = loaded.text, loaded.profile, loaded.document
        section = next((s for s in reversed(loaded.sections) if s.start <= start < s.end),
                       None)
        pages = sorted({p for b in document.current.blocks if b.start < end and start < b.end
                        for p in b.pages})
        return Quote(
            text=text[start:end], start=start, end=end, match=kind.value, score=score,
            sentences=_overlapping(profile.sentences, start, end),
            paragraphs=_overlapping(profile.paragraphs, start, end),
            lines=_overlapping(profile.lines, start, end),
            section_path=section.path if section else (),
            section_label=section.label if section else None, pages=tuple(pages),
            document_id=document.id, title=document.title, url=document.url,
            location=document.location, version_id=document.current.id,
            context_before=text[max(0, start - CONTEXT_CHARACTERS):start],
            context_after=text[end:end + CONTEXT_CHARACTERS])


def _find(text: str, query: str, find_all: bool, threshold: float) -> QuoteSearch:
    return find_quote(text, query, find_all=find_all, threshold=threshold)


def _overlapping(spans: tuple[tuple[int, int], ...], start: int, end: int
                 ) -> tuple[int, ...]:
    return tuple(i + 1 for i, (a, b) in enumerate(spans) if a < end and start < b)
