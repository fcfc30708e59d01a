"""Claim checks across a knowledge base: does any stored document say this?

A claim is split into sentences, each checked on its own. For a sentence, BM25 search
finds the snippets that could hold it (its words are the query); each document among
them is checked around those snippets as a quote request. A sentence is `verified` when
some document has its words (up to the tolerated differences), with that passage's full
citation; `not_verified` when the closest passage is near enough to be the one the
claim is about (similarity at least `CLOSE_SIMILARITY`), with what differs; otherwise
`not_found`: no document makes the claim, and no passage is offered as if it did.
"""

from __future__ import annotations

import anyio
import attrs

from ...domain.analysis.sentences import sentence_spans
from ...domain.errors import ErrorKind, SheafError, first_failure
from ...domain.quotes.quote_verification import Mode, Verdict
from ...domain.search.search_request import NO_FILTERS, SearchFilters, SearchMode
from ..search.search import Search, SearchHit
from .quotes import MAX_QUOTE_CHARACTERS, Quote, QuoteCheck, Quotes

CLOSE_SIMILARITY = 0.75
"""Below this, the closest passage is another sentence, not this claim with a change: a
claim with one word or number changed scores about 0.9 against its source sentence, an
unrelated sentence of the same field well under 0.6."""
DEFAULT_CANDIDATES = 5
HIT_MARGIN = 400
"""Characters checked either side of a hit: a sentence may straddle two snippets."""
MAX_CLAIM_SENTENCES = 20


@attrs.frozen
class SentenceCheck:
    """One sentence of a claim: the passages that verify it, or the closest one."""

    sentence: str
    status: str
    """`verified`, `not_verified` or `not_found`."""
    support: tuple[Quote, ...] = ()
    closest: Quote | None = None

    def as_dict(self) -> dict[str, object]:
        return {"sentence": self.sentence, "status": self.status,
                "support": [q.as_dict() for q in self.support],
                "closest": None if self.closest is None else self.closest.as_dict()}


@attrs.frozen
class ClaimCheck:
    """A claim's verdict: `verified` when every sentence is, `not_found` when none is
    near anything stored, `not_verified` otherwise."""

    claim: str
    status: str
    sentences: tuple[SentenceCheck, ...]

    def as_dict(self) -> dict[str, object]:
        return {"claim": self.claim, "status": self.status,
                "sentences": [s.as_dict() for s in self.sentences]}

    @property
    def message(self) -> str:
        failed = [s for s in self.sentences if s.status != Verdict.VERIFIED.value]
        return "; ".join(f"{s.status}: {s.sentence!r}" for s in failed) or "verified"


class ClaimChecks:
    """Checks claims against the documents of a space."""

    def __init__(self, search: Search, quotes: Quotes) -> None:
        self._search = search
        self._quotes = quotes

    async def check(self, space: str, claim: str, *, k: int = DEFAULT_CANDIDATES,
                    filters: SearchFilters = NO_FILTERS) -> ClaimCheck:
        """The verdict on `claim`, sentence by sentence; `k` snippets are looked at for
        each sentence."""
        sentences = [claim[a:b] for a, b in sentence_spans(claim)]
        if not sentences:
            raise SheafError(ErrorKind.INVALID_QUERY, "the claim is empty")
        if len(sentences) > MAX_CLAIM_SENTENCES:
            raise SheafError(ErrorKind.INVALID_QUERY,
                             f"the claim has {len(sentences)} sentences; at most "
                             f"{MAX_CLAIM_SENTENCES} are checked at once")
        if k < 1:
            raise SheafError(ErrorKind.INVALID_QUERY, f"k must be at least 1, not {k}")
        too_long = next((s for s in sentences if len(s) > MAX_QUOTE_CHARACTERS), None)
        if too_long is not None:
            raise SheafError(ErrorKind.INVALID_QUERY,
                             f"a sentence of the claim has {len(too_long)} characters; at "
                             f"most {MAX_QUOTE_CHARACTERS} are checked")
        checked = [await self._sentence(space, s, k, filters) for s in sentences]
        statuses = {c.status for c in checked}
        if statuses == {Verdict.VERIFIED.value}:
            status = Verdict.VERIFIED.value
        elif statuses == {Verdict.NOT_FOUND.value}:
            status = Verdict.NOT_FOUND.value
        else:
            status = Verdict.NOT_VERIFIED.value
        return ClaimCheck(claim, status, tuple(checked))

    async def _sentence(self, space: str, sentence: str, k: int,
                        filters: SearchFilters) -> SentenceCheck:
        hits = await self._search.search(space, sentence, k, mode=SearchMode.BM25,
                                         filters=filters, with_documents=False)
        support: list[Quote] = []
        closest: Quote | None = None
        candidates = list(_regions_by_document(hits).items())
        checks: list[QuoteCheck | None] = [None] * len(candidates)

        async def check(index: int, document_id: str,
                        regions: tuple[tuple[int, int], ...]) -> None:
            checks[index] = await self._quotes.check_text(space, document_id, sentence,
                                                          mode=Mode.VERIFY, within=regions)

        # The candidate documents are loaded and matched at once (the store's reads
        # and the matching run in worker threads); the answer keeps the search's order.
        try:
            async with anyio.create_task_group() as group:
                for index, (document_id, regions) in enumerate(candidates):
                    group.start_soon(check, index, document_id, regions)
        except BaseExceptionGroup as failed:
            raise first_failure(failed) from None
        for check_result in checks:
            assert check_result is not None
            found = check_result
            if found.status == Verdict.VERIFIED.value:
                support.extend(found.quotes)
            elif found.closest is not None and (
                    closest is None or found.closest.score > closest.score):
                closest = found.closest
        if support:
            return SentenceCheck(sentence, Verdict.VERIFIED.value, tuple(support))
        if closest is not None and closest.score >= CLOSE_SIMILARITY:
            return SentenceCheck(sentence, Verdict.NOT_VERIFIED.value, closest=closest)
        return SentenceCheck(sentence, Verdict.NOT_FOUND.value)


def _regions_by_document(hits: list[SearchHit]) -> dict[str, tuple[tuple[int, int], ...]]:
    """Per document (in the order of its best hit), the hits' spans widened by
    `HIT_MARGIN` and merged where they overlap."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for hit in hits:
        spans.setdefault(hit.document_id, []).append(
            (max(0, hit.chunk.start - HIT_MARGIN), hit.chunk.end + HIT_MARGIN))
    merged: dict[str, tuple[tuple[int, int], ...]] = {}
    for document_id, found in spans.items():
        joined: list[tuple[int, int]] = []
        for start, end in sorted(found):
            if joined and start <= joined[-1][1]:
                joined[-1] = (joined[-1][0], max(end, joined[-1][1]))
            else:
                joined.append((start, end))
        merged[document_id] = tuple(joined)
    return merged
