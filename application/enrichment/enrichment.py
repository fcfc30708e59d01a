"""Optional LLM enrichment of stored documents: a summary with concepts, and context
prefixes for snippets' retrieval text (ADR-0011). The canonical text is never touched."""

from __future__ import annotations

import attrs

from ...domain.analysis.chunking import Chunk
from ...domain.enrichment.enrichment import (
    DocumentSummary,
    EnrichmentKind,
    cache_key,
    clean_context,
    parse_summary,
    with_context,
)
from ...domain.enrichment.enrichment_prompts import PROMPT_VERSION, context_prompt, summary_prompt
from ...domain.errors import ErrorKind, SheafError
from ..concurrency.bounded_concurrency import for_each_bounded
from ..ports.embedder import Embedder
from ..ports.language_model import LanguageModel
from ..search.snippet_embedding import embed_snippets
from ..store.document_catalogue import DocumentCatalogue
from ..store.storage import Storage

SUMMARY_TOKENS = 300
CONTEXT_TOKENS = 120


class TokenBudget:
    """Tokens a run may spend on the model (None: no limit). Checked before each call
    and charged after, so a run overshoots its limit by at most the calls in flight."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self.spent = 0

    @property
    def exhausted(self) -> bool:
        return self.limit is not None and self.spent >= self.limit


@attrs.frozen
class EnrichmentOutcome:
    """What one document's enrichment did."""

    document_id: str
    summary: DocumentSummary | None
    contexts: int
    calls: int
    cached: int
    diagnostics: tuple[str, ...] = ()


@attrs.frozen
class EnrichedVersion:
    """A version's enrichment before it is stored: the summary, and the chunks with each
    generated context already in their retrieval text (so they are embedded once)."""

    summary: DocumentSummary | None
    chunks: tuple[Chunk, ...]
    contexts: int
    calls: int
    cached: int
    diagnostics: tuple[str, ...] = ()


class Enrichment:
    """Asks the language model for a version's summary and snippet contexts (cached by
    prompt version, model and input), and re-enriches stored documents in one write."""

    def __init__(self, storage: Storage, catalogue: DocumentCatalogue,
                 model: LanguageModel, embedder: Embedder | None = None, *,
                 budget: TokenBudget | None = None, concurrency: int = 4) -> None:
        self._storage = storage
        self._answers = storage.answers
        self._catalogue = catalogue
        self.model = model
        self._embedder = embedder
        self.budget = budget or TokenBudget()
        self._concurrency = concurrency

    async def prepare(self, title: str | None, text: str, markdown_sha: str,
                      chunks: tuple[Chunk, ...], kinds: frozenset[EnrichmentKind]
                      ) -> EnrichedVersion:
        """The enrichment of a version not stored yet. Raises on a model failure; a spent
        budget stops cleanly, keeping what was done and saying what was not."""
        calls = cached = 0
        notes: list[str] = []
        summary: DocumentSummary | None = None
        if EnrichmentKind.SUMMARY in kinds:
            key = cache_key(PROMPT_VERSION, self.model.name, EnrichmentKind.SUMMARY,
                            f"{markdown_sha}\n{title}")
            answer = await self._answers.cached_text(key)
            if answer is None and self.budget.exhausted:
                notes.append("enrich: summary skipped, token budget spent")
            else:
                if answer is None:
                    answer = await self._ask(summary_prompt(title, text), SUMMARY_TOKENS)
                    await self._answers.cache_text(key, answer)
                    calls += 1
                else:
                    cached += 1
                summary = parse_summary(answer, self.model.name, PROMPT_VERSION)
        contexts: dict[str, str] = {}
        if EnrichmentKind.CONTEXT in kinds:
            snippets = [c for c in chunks if c.level == "snippet"]
            done, asked, from_cache = await self._contexts(title, text, markdown_sha,
                                                           snippets)
            contexts, calls, cached = done, calls + asked, cached + from_cache
            if len(contexts) < len(snippets):
                notes.append(f"enrich: context for {len(contexts)} of {len(snippets)} "
                             "snippets; token budget spent")
        enriched = tuple(with_context(c, contexts.get(c.id, c.context)) for c in chunks) \
            if contexts else chunks
        return EnrichedVersion(summary, enriched, len(contexts), calls, cached, tuple(notes))

    async def enrich(self, space: str, document_id: str,
                     kinds: frozenset[EnrichmentKind]) -> EnrichmentOutcome:
        """Enrich a stored document's current version: summary, contexts, and the vectors
        of the snippets whose retrieval text changed, in one write. Raises on a model
        failure, leaving the document as it was."""
        document = await self._catalogue.get(space, document_id)
        text = await self._catalogue.markdown(document)
        version = document.current
        stored = await self._storage.catalogue.chunks(space, version.id)
        done = await self.prepare(document.title, text, version.markdown_sha, stored, kinds)
        vectors = None
        contexts = done.contexts
        notes = done.diagnostics
        if contexts and await self._storage.index.embedding_model(space) is not None:
            if self._embedder is None:
                # New retrieval text without new vectors would leave the version with
                # none: the contexts wait for a run that can embed them.
                contexts = 0
                notes = (*notes, "enrich: contexts not applied, no embedder is "
                         "configured to re-embed the snippets they change")
            else:
                vectors = await embed_snippets(self._embedder, self._storage.index, space,
                                               done.chunks)
        async with self._storage.unit_of_work() as work:
            work.versions.annotate(space, version.id,
                                   done.summary.as_dict() if done.summary else None,
                                   notes)
            if contexts:
                work.chunks.replace(space, version.id, done.chunks, vectors)
            await work.commit()
        return EnrichmentOutcome(document.id, done.summary, contexts, done.calls,
                                 done.cached, notes)

    async def _contexts(self, title: str | None, text: str, markdown_sha: str,
                        snippets: list[Chunk]) -> tuple[dict[str, str], int, int]:
        found: dict[str, str] = {}
        counts = {"calls": 0, "cached": 0}

        async def one(chunk: Chunk) -> None:
            key = cache_key(PROMPT_VERSION, self.model.name, EnrichmentKind.CONTEXT,
                            f"{markdown_sha}\n{chunk.text}")
            answer = await self._answers.cached_text(key)
            if answer is not None:
                counts["cached"] += 1
            else:
                if self.budget.exhausted:
                    return
                answer = clean_context(await self._ask(
                    context_prompt(title, text, chunk.text, chunk.heading_path),
                    CONTEXT_TOKENS))
                await self._answers.cache_text(key, answer)
                counts["calls"] += 1
            if answer:
                found[chunk.id] = answer

        await for_each_bounded(snippets, one, self._concurrency)
        return found, counts["calls"], counts["cached"]

    async def _ask(self, messages: list[dict[str, str]], max_tokens: int) -> str:
        completion = await self.model.complete(messages, max_tokens)
        self.budget.spent += completion.tokens
        if not completion.text.strip():
            raise SheafError(ErrorKind.LLM_FAILED, f"{self.model.name} answered nothing")
        return completion.text
