"""Optional LLM enrichment of stored documents: a summary with concepts, and context
prefixes for snippets' retrieval text (ADR-0011). The canonical text is never touched."""

from __future__ import annotations

import anyio
import attrs

from sheaf.application.document_catalogue import DocumentCatalogue
from sheaf.application.ports.embedder import Embedder
from sheaf.application.ports.knowledge_store import KnowledgeStore
from sheaf.application.ports.language_model import LanguageModel
from sheaf.application.snippet_embedding import embed_snippets
from sheaf.domain.chunking import Chunk
from sheaf.domain.enrichment import (
    DocumentSummary,
    EnrichmentKind,
    cache_key,
    clean_context,
    parse_summary,
    with_context,
)
from sheaf.domain.enrichment_prompts import PROMPT_VERSION, context_prompt, summary_prompt
from sheaf.domain.errors import ErrorKind, SheafError, first_failure

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


class Enrichment:
    """Enriches a document's current version and stores the result in one write."""

    def __init__(self, store: KnowledgeStore, catalogue: DocumentCatalogue,
                 model: LanguageModel, embedder: Embedder | None = None, *,
                 budget: TokenBudget | None = None, concurrency: int = 4) -> None:
        self._store = store
        self._catalogue = catalogue
        self.model = model
        self._embedder = embedder
        self.budget = budget or TokenBudget()
        self._concurrency = concurrency

    async def enrich(self, space: str, document_id: str,
                     kinds: frozenset[EnrichmentKind]) -> EnrichmentOutcome:
        """Raises on a model failure, leaving the document as it was; a spent budget
        stops cleanly, keeping what was done and saying what was not."""
        document = await self._catalogue.get(space, document_id)
        text = await self._catalogue.markdown(document)
        version = document.current
        calls = cached = 0
        notes: list[str] = []
        summary: DocumentSummary | None = None
        if EnrichmentKind.SUMMARY in kinds:
            key = cache_key(PROMPT_VERSION, self.model.name, EnrichmentKind.SUMMARY,
                            f"{version.markdown_sha}\n{document.title}")
            answer = await self._store.cached_text(key)
            if answer is None and self.budget.exhausted:
                notes.append("enrich: summary skipped, token budget spent")
            else:
                if answer is None:
                    answer = await self._ask(summary_prompt(document.title, text),
                                             SUMMARY_TOKENS)
                    await self._store.cache_text(key, answer)
                    calls += 1
                else:
                    cached += 1
                summary = parse_summary(answer, self.model.name, PROMPT_VERSION)
        chunks = await self._store.chunks(space, version.id)
        contexts: dict[str, str] = {}
        if EnrichmentKind.CONTEXT in kinds:
            snippets = [c for c in chunks if c.level == "snippet"]
            done, asked, from_cache = await self._contexts(document.title, text,
                                                           version.markdown_sha, snippets)
            contexts, calls, cached = done, calls + asked, cached + from_cache
            if len(contexts) < len(snippets):
                notes.append(f"enrich: context for {len(contexts)} of {len(snippets)} "
                             "snippets; token budget spent")
        enriched = tuple(with_context(c, contexts.get(c.id, c.context)) for c in chunks) \
            if contexts else None
        vectors = None
        if enriched is not None and self._embedder is not None and \
                await self._store.embedding_model(space) is not None:
            vectors = await embed_snippets(self._embedder, self._store, space, version.id,
                                           enriched)
        await self._store.save_enrichment(
            space, version.id, summary.as_dict() if summary else None, enriched, vectors,
            tuple(notes))
        return EnrichmentOutcome(document.id, summary, len(contexts), calls, cached,
                                 tuple(notes))

    async def _contexts(self, title: str | None, text: str, markdown_sha: str,
                        snippets: list[Chunk]) -> tuple[dict[str, str], int, int]:
        found: dict[str, str] = {}
        counts = {"calls": 0, "cached": 0}
        limiter = anyio.CapacityLimiter(self._concurrency)

        async def one(chunk: Chunk) -> None:
            key = cache_key(PROMPT_VERSION, self.model.name, EnrichmentKind.CONTEXT,
                            f"{markdown_sha}\n{chunk.text}")
            answer = await self._store.cached_text(key)
            if answer is not None:
                counts["cached"] += 1
            else:
                async with limiter:
                    if self.budget.exhausted:
                        return
                    answer = clean_context(await self._ask(
                        context_prompt(title, text, chunk.text, chunk.heading_path),
                        CONTEXT_TOKENS))
                await self._store.cache_text(key, answer)
                counts["calls"] += 1
            if answer:
                found[chunk.id] = answer

        try:
            async with anyio.create_task_group() as group:
                for chunk in snippets:
                    group.start_soon(one, chunk)
        except BaseExceptionGroup as failures:
            raise first_failure(failures) from None
        return found, counts["calls"], counts["cached"]

    async def _ask(self, messages: list[dict[str, str]], max_tokens: int) -> str:
        completion = await self.model.complete(messages, max_tokens)
        self.budget.spent += completion.tokens
        if not completion.text.strip():
            raise SheafError(ErrorKind.LLM_FAILED, f"{self.model.name} answered nothing")
        return completion.text
