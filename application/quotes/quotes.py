"""Quotes and sections of stored documents: the document's own words, with citations,
and whether a requested passage is verified (`domain.quotes.quote_verification`)."""

from __future__ import annotations

import attrs

from ...domain.analysis.section_labels import normalise_heading
from ...domain.document.document_location import DocumentLocation
from ...domain.errors import ErrorKind, NotFound, SheafError
from ...domain.quotes.match_kinds import FUZZY_THRESHOLD, MatchKind
from ...domain.quotes.quote_verification import (
    Mode,
    PassageMatch,
    QuoteVerification,
    Verdict,
    verify_quote,
)
from ...domain.quotes.word_alignment import Difference
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
    status: str = Verdict.VERIFIED.value
    """`verified` (the document's words, up to the tolerated differences), `located` (a
    passage like the request, found in locate mode) or, as the closest passage of a
    check that failed, `not_verified`."""
    differences: tuple[Difference, ...] = ()
    """What differs between the request and this passage, word by word."""
    tolerated: tuple[str, ...] = ()
    """The tolerated differences the match needed (`whitespace`, `ligatures`, ...)."""

    def as_dict(self) -> dict[str, object]:
        found = attrs.asdict(self, recurse=False)
        found["location"] = self.location.as_dict()
        found["differences"] = [d.as_dict() for d in self.differences]
        return found


@attrs.frozen
class QuoteCheck:
    """The answer to a quote request by text: the passages that are it (`verified`, or
    `located` in locate mode), or the closest passage with what differs."""

    status: str
    """`verified`, `located`, `not_verified` or `not_found` (nothing close)."""
    request: str
    mode: str
    document_id: str
    quotes: tuple[Quote, ...] = ()
    closest: Quote | None = None

    def as_dict(self) -> dict[str, object]:
        return {"status": self.status, "request": self.request, "mode": self.mode,
                "document_id": self.document_id,
                "quotes": [q.as_dict() for q in self.quotes],
                "closest": None if self.closest is None else self.closest.as_dict()}

    @property
    def message(self) -> str:
        """Why the request was not confirmed, in a line."""
        if self.closest is None:
            return (f"the text is not in document {self.document_id}, nor anything close "
                    "to it")
        named = "; ".join(_described(d) for d in self.closest.differences)
        return (f"the text is not verified in document {self.document_id}: closest passage "
                f"(similarity {self.closest.score}) {self.closest.text!r} differs: {named}")


def _described(difference: Difference) -> str:
    return (f"{difference.kind.value} (request {difference.request!r}, document "
            f"{difference.document!r})")


class QuoteNotVerified(NotFound):
    """A quote request the document does not confirm, with the check that says why."""

    def __init__(self, check: QuoteCheck) -> None:
        super().__init__(ErrorKind.QUOTE_NOT_FOUND, check.message)
        self.check = check

    def __reduce__(self) -> tuple[object, ...]:
        return (QuoteNotVerified, (self.check,))


class Quotes:
    """Answers quote requests from stored documents; never invents a passage."""

    def __init__(self, structure: DocumentStructure, pool: WorkerPool | None = None) -> None:
        self._structure = structure
        self._pool = pool or WorkerPool()

    async def load(self, space: str, reference: str) -> StructuredDocument:
        return await self._structure.load(space, reference)

    async def by_text(self, space: str, reference: str, query: str, *, find_all: bool = False,
                      mode: Mode = Mode.VERIFY, threshold: float = FUZZY_THRESHOLD
                      ) -> list[Quote]:
        """The passages that are `query` (verified), or in locate mode like it (located);
        `QuoteNotVerified` (kind `quote_not_found`) otherwise, carrying the check."""
        check = await self.check_text(space, reference, query, find_all=find_all, mode=mode,
                                      threshold=threshold)
        if not check.quotes:
            raise QuoteNotVerified(check)
        return list(check.quotes)

    async def check_text(self, space: str, reference: str, query: str, *,
                         find_all: bool = False, mode: Mode = Mode.VERIFY,
                         threshold: float = FUZZY_THRESHOLD,
                         within: tuple[tuple[int, int], ...] = ()) -> QuoteCheck:
        """Whether the document says `query`: the passages that are it, or the closest
        one and what differs. `within` limits the search to these spans of the text
        (the claim checks pass the neighbourhoods of search hits)."""
        if len(query) > MAX_QUOTE_CHARACTERS:
            raise SheafError(ErrorKind.INVALID_QUERY,
                             f"the quote text has {len(query)} characters; at most "
                             f"{MAX_QUOTE_CHARACTERS} are matched (cite a section or "
                             "sentences instead)")
        if not query.strip():
            raise SheafError(ErrorKind.INVALID_QUERY, "the quote text is empty")
        loaded = await self.load(space, reference)
        regions = within or ((0, len(loaded.text)),)
        verdicts = []
        for start, end in regions:
            # Matching is CPU work of a cost that grows with the text: off the event loop.
            verdict = await self._pool.run(_verified, loaded.text[start:end], query,
                                           find_all, mode, threshold)
            verdicts.append((start, verdict))
            if verdict.matches and not find_all:
                break
        return self._check(loaded, query, mode, verdicts)

    def _check(self, loaded: StructuredDocument, query: str, mode: Mode,
               verdicts: list[tuple[int, QuoteVerification]]) -> QuoteCheck:
        found = [self._matched(loaded, offset, m, verdict.verdict)
                 for offset, verdict in verdicts for m in verdict.matches]
        document_id = loaded.document.id
        if found:
            status = found[0].status
            return QuoteCheck(status, query, mode.value, document_id, tuple(found))
        near = [(v.closest.similarity, offset, v.closest, v.verdict)
                for offset, v in verdicts if v.closest is not None]
        if not near:
            return QuoteCheck(Verdict.NOT_FOUND.value, query, mode.value, document_id)
        _, offset, match, verdict = max(near, key=lambda found: found[0])
        closest = self._matched(loaded, offset, match, verdict)
        return QuoteCheck(verdict.value, query, mode.value, document_id, closest=closest)

    def _matched(self, loaded: StructuredDocument, offset: int, match: PassageMatch,
                 verdict: Verdict) -> Quote:
        quote = self._quote(loaded, offset + match.start, offset + match.end,
                            MatchKind(match.match), match.similarity)
        moved = tuple(attrs.evolve(d, start=d.start + offset, end=d.end + offset)
                      for d in match.differences)
        return attrs.evolve(quote, status=verdict.value, differences=moved,
                            tolerated=tuple(t.value for t in match.tolerated))

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


def _verified(text: str, query: str, find_all: bool, mode: Mode, threshold: float
              ) -> QuoteVerification:
    return verify_quote(text, query, mode=mode, find_all=find_all, threshold=threshold)


def _overlapping(spans: tuple[tuple[int, int], ...], start: int, end: int
                 ) -> tuple[int, ...]:
    return tuple(i + 1 for i, (a, b) in enumerate(spans) if a < end and start < b)
