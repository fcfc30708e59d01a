"""LLM enrichment through ingestion: stored summaries and contexts, canonical text intact,
the cache, isolated failures, and the token budget."""

from __future__ import annotations

from typing import Any

import pytest

from sheaf.adapters.models.memory_embedder import MemoryEmbedder
from sheaf.adapters.models.memory_language_model import MemoryLanguageModel
from sheaf.adapters.models.openai_chat_model import OpenAiChatModel
from sheaf.adapters.store.memory.knowledge_store import MemoryKnowledgeStore
from sheaf.application.enrichment.enrichment import Enrichment, TokenBudget
from sheaf.application.ingestion.ingestion import IngestOptions
from sheaf.application.ingestion.reindexing import Reindexing
from sheaf.application.ports.language_model import LanguageModel
from sheaf.application.quotes.quotes import Quotes
from sheaf.application.search.search import Search
from sheaf.application.store.document_catalogue import DocumentCatalogue
from sheaf.application.store.document_structure import DocumentStructure
from sheaf.domain.enrichment.enrichment import EnrichmentKind
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.search.search_request import SearchMode
from sheaf.domain.store.ingestion import IngestStatus, SpacePolicy
from tests.application.world import World
from tests.chat_server import ChatServer

pytestmark = pytest.mark.anyio
BOTH = frozenset(EnrichmentKind)
PAPER = ("# Tidal Rhythms\n\n## Methods\n\n" + "We counted seagrass shoots at low tide. " * 30
         + "\n\n## Results\n\n" + "Shoot density doubled in spring. " * 30
         + "\n\n## Discussion\n\n" + "Tides set the pace of growth. " * 30 + "\n").encode()


def enriched_world(model: LanguageModel, budget: int | None = None) -> World:
    world = World()
    world.files.files["/d/paper.md"] = PAPER
    world.ingestion.enrichment = Enrichment(
        world.storage, DocumentCatalogue(world.storage, world.blobs), model,
        world.ingestion.embedder, budget=TokenBudget(budget), concurrency=2)
    return world


async def test_summary_concepts_and_contexts_are_stored_as_generated() -> None:
    model = MemoryLanguageModel()
    world = enriched_world(model)
    result = await world.ingestion.ingest("/d/paper.md", IngestOptions(enrich=BOTH))
    assert result.status is IngestStatus.NEW and result.enrichment == "enriched"
    document = await world.storage.catalogue.find("default", "/d/paper.md")
    assert document is not None
    summary = document.current.enrichment
    assert summary is not None and summary["generated"] is True
    assert summary["model"] == "memory-model"
    assert summary["summary"] == ("Tidal Rhythms is summarised here. It has findings. "
                                  "It has methods.")  # three sentences at most
    assert summary["concepts"] == ("seagrass", "tides", "growth", "coasts", "ecology")
    canonical = (await world.blobs.get(document.current.markdown_sha)).decode()
    snippets = [c for c in await world.storage.catalogue.chunks("default", document.current.id)
                if c.level == "snippet"]
    assert len(snippets) >= 3
    for chunk in snippets:
        assert chunk.context and chunk.context.startswith("From Tidal Rhythms, in the part")
        assert chunk.retrieval_text.startswith(f"[CONTEXT: {chunk.context}]\n")
        assert chunk.context not in chunk.text and canonical[chunk.start:chunk.end] == \
            chunk.text
    assert "From Tidal Rhythms" not in canonical
    structure = DocumentStructure(DocumentCatalogue(world.storage, world.blobs))
    (quote,) = await Quotes(structure).by_text("default", document.id,
                                               "shoot density doubled in spring")
    assert canonical[quote.start:quote.end] == quote.text == "Shoot density doubled in spring"
    # The context is searchable: "part headed" occurs only in generated contexts.
    hits = await Search(world.storage, world.ingestion.embedder).search(
        "default", "part headed", 3, mode=SearchMode.BM25)
    assert hits and all("part headed" not in h.chunk.text for h in hits)


async def test_the_cache_makes_a_rerun_free() -> None:
    model = MemoryLanguageModel()
    world = enriched_world(model)
    await world.ingestion.ingest("/d/paper.md", IngestOptions(enrich=BOTH))
    calls = len(model.calls)
    assert calls >= 4  # a summary and one context per snippet
    structure = DocumentStructure(DocumentCatalogue(world.storage, world.blobs))
    reindexing = Reindexing(world.storage, structure, world.ingestion.embedder,
                            world.ingestion.enrichment)
    assert await reindexing.reindex("default", enrich=BOTH) == 1
    assert len(model.calls) == calls  # every answer came from the cache
    document = await world.storage.catalogue.find("default", "/d/paper.md")
    assert document is not None and document.current.enrichment is not None
    assert all(c.context for c in await world.storage.catalogue.chunks(
        "default", document.current.id) if c.level == "snippet")
    # Another model is another cache entry: reindexing with it asks again.
    world.ingestion.enrichment.model = MemoryLanguageModel("other-model")  # type: ignore[union-attr]
    await reindexing.reindex("default", chunks=False, enrich=BOTH)
    assert len(world.ingestion.enrichment.model.calls) == calls  # type: ignore[union-attr]


async def test_a_model_failure_leaves_the_document_stored_unenriched() -> None:
    model = MemoryLanguageModel()
    model.failure = SheafError(ErrorKind.LLM_FAILED, "the model crashed")
    world = enriched_world(model)
    result = await world.ingestion.ingest("/d/paper.md", IngestOptions(enrich=BOTH))
    assert result.status is IngestStatus.NEW and result.enrichment == "failed"
    document = await world.storage.catalogue.find("default", "/d/paper.md")
    assert document is not None and document.current.enrichment is None
    assert document.current.diagnostics[-1].startswith(
        "enrich: failed, stored without enrichment: llm_failed: the model crashed")
    assert not any(c.context for c in await world.storage.catalogue.chunks("default",
                                                                document.current.id))
    hits = await Search(world.storage).search("default", "seagrass", 3, mode=SearchMode.BM25)
    assert hits  # stored and searchable


async def test_the_space_policy_turns_enrichment_on(tmp_path: object) -> None:
    model = MemoryLanguageModel()
    world = enriched_world(model)
    await world.storage.policies.set_policy("default", SpacePolicy(enrich=frozenset({"summary"})))
    result = await world.ingestion.ingest("/d/paper.md")
    assert result.enrichment == "enriched" and len(model.calls) == 1  # summary only
    world.ingestion.enrichment = None
    world.files.files["/d/other.md"] = b"# Other\n\nSome other text.\n"
    skipped = await world.ingestion.ingest("/d/other.md")
    assert skipped.enrichment == "skipped"
    other = await world.storage.catalogue.find("default", "/d/other.md")
    assert other is not None and "no language model" in other.current.diagnostics[-1]


async def test_the_token_budget_stops_enrichment_cleanly_mid_batch() -> None:
    model = MemoryLanguageModel(tokens=100)
    world = enriched_world(model, budget=250)  # the summary and two contexts, at most
    result = await world.ingestion.ingest("/d/paper.md", IngestOptions(enrich=BOTH))
    assert result.status is IngestStatus.NEW and result.enrichment == "partial"
    document = await world.storage.catalogue.find("default", "/d/paper.md")
    assert document is not None and document.current.enrichment is not None
    snippets = [c for c in await world.storage.catalogue.chunks("default", document.current.id)
                if c.level == "snippet"]
    with_context = [c for c in snippets if c.context]
    assert 0 < len(with_context) < len(snippets)
    assert len(model.calls) == 3
    assert any("token budget spent" in d for d in document.current.diagnostics)
    for chunk in snippets:  # every chunk consistent: a context is in its retrieval text
        assert (chunk.context is not None) == chunk.retrieval_text.startswith("[CONTEXT:")
    # A second document in the same run asks nothing more.
    world.files.files["/d/more.md"] = b"# More\n\nMore text about tides.\n"
    more = await world.ingestion.ingest("/d/more.md", IngestOptions(enrich=BOTH))
    assert more.enrichment == "partial" and len(model.calls) == 3


async def test_against_the_protocol_server_a_500_leaves_it_unenriched() -> None:
    server = ChatServer()
    await server.start()
    model = OpenAiChatModel(server.url("/v1"), "test-chat", backoff=0.01)
    try:
        world = enriched_world(model)
        world.ingestion.embedder = MemoryEmbedder()
        ok = await world.ingestion.ingest("/d/paper.md", IngestOptions(enrich=BOTH))
        assert ok.enrichment == "enriched"
        stored = await world.storage.catalogue.find("default", "/d/paper.md")
        assert stored is not None and stored.current.enrichment is not None
        assert stored.current.enrichment["model"] == "test-chat"
        server.failing, server.failure_status = 10, 500
        world.files.files["/d/second.md"] = b"# Second\n\nA second paper about tides.\n"
        failed = await world.ingestion.ingest("/d/second.md",
                                              IngestOptions(enrich=BOTH))
        assert failed.status is IngestStatus.NEW and failed.enrichment == "failed"
        second = await world.storage.catalogue.find("default", "/d/second.md")
        assert second is not None and second.current.enrichment is None
        assert "500" in second.current.diagnostics[-1]
    finally:
        await model.aclose()
        await server.stop()


async def test_with_enrichment_every_snippet_is_embedded_once_with_its_context() -> None:
    world = enriched_world(MemoryLanguageModel())
    embedder = world.ingestion.embedder
    assert isinstance(embedder, MemoryEmbedder)
    result = await world.ingestion.ingest("/d/paper.md", IngestOptions(enrich=BOTH))
    assert result.enrichment == "enriched" and result.version_id
    snippets = [c for c in await world.storage.catalogue.chunks("default", result.version_id)
                if c.level == "snippet"]
    embedded = [text for call in embedder.calls for text in call]
    assert len(embedded) == len(snippets) > 3  # once each, not again after enrichment
    assert embedded == [c.retrieval_text for c in snippets]
    assert all(c.context and c.context in c.retrieval_text for c in snippets)
    stages = [e.stage for e in world.ingestion.recorder.events]
    assert stages.index("enrich") < stages.index("embed") < stages.index("store")


async def test_no_write_leaves_a_snippet_without_its_vector() -> None:
    """Checked after every commit of ingest, enrichment and reindexing: chunks and their
    vectors are written together."""
    world = enriched_world(MemoryLanguageModel())
    store = world.store
    assert isinstance(store, MemoryKnowledgeStore)
    commits: list[bool] = []
    real = store.apply

    async def checked(steps: list[Any]) -> None:
        await real(steps)
        state = store.committed.current
        commits.append(all(c.id in state.vectors.get(v, {}) for v, chunks in
                           state.chunks.items() for c in chunks if c.level == "snippet"))

    store.apply = checked  # type: ignore[method-assign]
    await world.ingestion.ingest("/d/paper.md", IngestOptions(enrich=BOTH))
    structure = DocumentStructure(DocumentCatalogue(world.storage, world.blobs))
    reindexing = Reindexing(world.storage, structure, world.ingestion.embedder,
                            world.ingestion.enrichment)
    assert await reindexing.reindex("default", enrich=BOTH) == 1
    assert await reindexing.reindex("default", embeddings=True) == 1
    # The first reindex changes no chunk: it writes nothing, enrichment and the rest do.
    assert len(commits) >= 3 and all(commits)


async def test_without_an_embedder_enrichment_keeps_the_stored_vectors() -> None:
    world = enriched_world(MemoryLanguageModel())
    result = await world.ingestion.ingest("/d/paper.md")
    assert result.document_id and result.version_id
    store = world.store
    assert isinstance(store, MemoryKnowledgeStore)
    before = dict(store.committed.current.vectors[result.version_id])
    assert before
    no_embedder = Enrichment(world.storage, DocumentCatalogue(world.storage, world.blobs),
                             MemoryLanguageModel(), None)
    outcome = await no_embedder.enrich("default", result.document_id, BOTH)
    assert outcome.summary is not None and outcome.contexts == 0
    assert any("no embedder" in note for note in outcome.diagnostics)
    assert store.committed.current.vectors[result.version_id] == before
