"""Ingestion semantics with fakes of every port: new, unchanged, changed, duplicate."""

from __future__ import annotations

from typing import Any

import pytest

from sheaf.adapters.blobs.memory_artifact_store import MemoryArtifactStore
from sheaf.adapters.html.memory_html_extractor import MemoryHtmlExtractor
from sheaf.adapters.models.memory_embedder import MemoryEmbedder
from sheaf.adapters.pdf.memory_pdf_extractor import MemoryPdfExtractor
from sheaf.adapters.store.memory.knowledge_store import MemoryKnowledgeStore
from sheaf.application.extraction.content_resolver import ContentResolver
from sheaf.application.extraction.document_extraction import DocumentExtraction
from sheaf.application.ingestion.ingestion import Ingestion, IngestionPorts, IngestOptions
from sheaf.domain.document.resolved_content import ContentSource
from sheaf.domain.store.ingestion import IngestStatus, SpacePolicy
from tests.application.world import NOTE_TEXT, NOTES, World

pytestmark = pytest.mark.anyio


@pytest.fixture
def world() -> World:
    return World()


async def test_new_then_unchanged_without_extracting_again(world: World) -> None:
    first = await world.ingestion.ingest(NOTES)
    assert first.status is IngestStatus.NEW and first.title == "Field notes"
    assert world.stages(NOTES) == ["fetch", "extract", "chunk", "stage", "embed",
                                  "near-duplicates", "store"]
    world.ingestion.recorder.events.clear()
    again = await world.ingestion.ingest(NOTES)
    assert again.status is IngestStatus.UNCHANGED and again.document_id == first.document_id
    assert world.stages(NOTES) == ["fetch", "dedup"]
    document = await world.storage.catalogue.find("default", NOTES)
    assert document is not None and len(document.versions) == 1
    assert await world.blobs.get(document.current.markdown_sha) == NOTE_TEXT.strip()
    assert await world.blobs.get(document.current.fetched_sha) == NOTE_TEXT


async def test_changed_bytes_make_a_new_version(world: World) -> None:
    first = await world.ingestion.ingest(NOTES)
    world.files.files[NOTES] = NOTE_TEXT + b"\nThe egret did not.\n"
    second = await world.ingestion.ingest(NOTES)
    assert second.status is IngestStatus.CHANGED and second.document_id == first.document_id
    document = await world.storage.catalogue.find("default", NOTES)
    assert document is not None
    assert [v.number for v in document.versions] == [1, 2]
    assert document.versions[0].superseded_at is not None
    assert "egret" in (await world.blobs.get(document.current.markdown_sha)).decode()
    assert await world.blobs.has(document.versions[0].fetched_sha)  # the old raw bytes stay


async def test_same_bytes_from_another_source_are_a_duplicate(world: World) -> None:
    first = await world.ingestion.ingest(NOTES)
    world.files.files["/backup/notes-copy.md"] = NOTE_TEXT
    copy = await world.ingestion.ingest("/backup/notes-copy.md")
    assert copy.status is IngestStatus.DUPLICATE and copy.document_id == first.document_id
    document = await world.storage.catalogue.find("default", "/backup/notes-copy.md")
    assert document is not None and len(document.sources) == 2 and len(document.versions) == 1


async def test_force_re_extracts_an_unchanged_source(world: World) -> None:
    await world.ingestion.ingest(NOTES)
    forced = await world.ingestion.ingest(NOTES, IngestOptions(force=True))
    assert forced.status is IngestStatus.CHANGED
    document = await world.storage.catalogue.find("default", NOTES)
    assert document is not None and len(document.versions) == 2


async def test_dry_run_stores_nothing(world: World) -> None:
    result = await world.ingestion.ingest(NOTES, IngestOptions(dry_run=True))
    assert result.status is IngestStatus.NEW
    assert await world.storage.catalogue.documents("default") == [] and world.blobs.blobs == {}


async def test_urls_are_kept_under_every_spelling(world: World) -> None:
    world.http.redirect("https://example.org/notes", "https://cdn.example.org/notes.txt")
    world.http.add("https://cdn.example.org/notes.txt", "Plain notes.",
                   content_type="text/plain")
    result = await world.ingestion.ingest("https://Example.org/notes#top")
    assert result.status is IngestStatus.NEW
    for name in ("https://Example.org/notes#top", "https://example.org/notes",
                 "https://cdn.example.org/notes.txt", result.document_id):
        assert await world.storage.catalogue.find("default", str(name)) is not None, name


async def test_caller_metadata_and_ids_are_kept(world: World) -> None:
    options = IngestOptions(metadata={"project": "herons"}, source_id="src-42",
                            version_id="rev-7", space="birds")
    result = await world.ingestion.ingest(NOTES, options)
    document = await world.storage.catalogue.find("birds", "src-42")
    assert document is not None and document.id == result.document_id
    assert document.current.caller_metadata == {"project": "herons"}
    assert document.current.caller_version_id == "rev-7"
    assert await world.storage.catalogue.find("default", "src-42") is None


async def test_policy_refusals_store_nothing(world: World) -> None:
    world.files.files["/data/huge.txt"] = b"x" * (26 * 1024 * 1024)
    too_large = await world.ingestion.ingest("/data/huge.txt")
    assert too_large.status is IngestStatus.FAILED and too_large.error_kind == "too_large"
    await world.storage.policies.set_policy("closed", SpacePolicy(ingestion_enabled=False))
    closed = await world.ingestion.ingest(NOTES, IngestOptions(space="closed"))
    assert closed.error_kind == "ingestion_disabled"
    await world.storage.policies.set_policy("pdf-only",
                                 SpacePolicy(allowed_kinds=frozenset({ContentSource.PDF})))
    refused = await world.ingestion.ingest(NOTES, IngestOptions(space="pdf-only"))
    assert refused.error_kind == "unsupported_content"
    assert (await world.storage.catalogue.status()).spaces == () and world.blobs.blobs == {}


async def test_failures_are_results_not_exceptions(world: World) -> None:
    missing = await world.ingestion.ingest("/data/absent.md")
    assert missing.status is IngestStatus.FAILED and missing.error_kind == "input_not_found"
    gone = await world.ingestion.ingest("https://example.org/gone")
    assert gone.error_kind == "not_found"


async def test_chunks_are_stored_with_the_version_and_replaced_on_change(world: World) -> None:
    first = await world.ingestion.ingest(NOTES)
    v1 = f"{first.document_id}.v1"
    chunks = await world.storage.catalogue.chunks("default", v1)
    assert chunks and {c.level for c in chunks} == {"section", "snippet"}
    document = await world.storage.catalogue.find("default", NOTES)
    assert document is not None
    markdown = (await world.blobs.get(document.current.markdown_sha)).decode()
    assert all(markdown[c.start:c.end] == c.text for c in chunks)
    world.files.files[NOTES] = NOTE_TEXT + b"\nA second paragraph arrived.\n"
    await world.ingestion.ingest(NOTES)
    assert await world.storage.catalogue.chunks("default", v1) == ()
    latest = await world.storage.catalogue.chunks("default", f"{first.document_id}.v2")
    assert any("second paragraph" in c.text for c in latest)


class FailingOnce(MemoryKnowledgeStore):
    """A store that dies on its first write, as a killed process would."""

    def __init__(self) -> None:
        super().__init__()
        self.failures = 1

    async def apply(self, steps: list[Any]) -> None:
        if self.failures:
            self.failures -= 1
            raise RuntimeError("killed between the stage and store steps")
        await super().apply(steps)


def _failing_once_with_artifacts(stage_after: float) -> tuple[World, MemoryArtifactStore]:
    """A world whose first store step fails, staging into artifacts it hands back."""
    world = World()
    world.store = FailingOnce()
    artifacts = MemoryArtifactStore()
    html, pdf = MemoryHtmlExtractor(), MemoryPdfExtractor()
    world.ingestion = Ingestion(IngestionPorts(
        ContentResolver(world.http, html, pdf), DocumentExtraction(html, pdf), world.files,
        world.storage, world.blobs, artifacts))
    world.ingestion.stage_after = stage_after
    return world, artifacts


async def test_resume_uses_the_staged_artifacts_instead_of_extracting() -> None:
    world, artifacts = _failing_once_with_artifacts(
        stage_after=0.0)  # staged however fast it was extracted
    failed = await world.ingestion.ingest(NOTES)
    assert failed.status is IngestStatus.FAILED and failed.error_kind == "internal"
    assert failed.message == "RuntimeError: killed between the stage and store steps"
    assert await world.storage.catalogue.find("default", NOTES) is None  # nothing half-stored
    names = {name for _, name in artifacts.files}
    assert names == {"document.md", "meta.json", "chunks.jsonl"}
    world.ingestion.recorder.events.clear()
    resumed = await world.ingestion.ingest(NOTES, IngestOptions(resume=True))
    assert resumed.status is IngestStatus.NEW
    events = [(e.stage, e.outcome) for e in world.ingestion.recorder.events]
    assert ("extract", "resumed") in events and ("chunk", "ok") not in events
    document = await world.storage.catalogue.find("default", NOTES)
    assert document is not None and document.current.blocks
    assert await world.storage.catalogue.chunks("default", document.current.id)


async def test_a_fast_extraction_stages_nothing_and_a_resume_extracts_it_again() -> None:
    world, artifacts = _failing_once_with_artifacts(
        stage_after=3600.0)  # no extraction is worth staging
    failed = await world.ingestion.ingest(NOTES)
    assert failed.status is IngestStatus.FAILED
    assert artifacts.files == {}  # three files would have cost more than extracting
    world.ingestion.recorder.events.clear()
    resumed = await world.ingestion.ingest(NOTES, IngestOptions(resume=True))
    assert resumed.status is IngestStatus.NEW
    events = [(e.stage, e.outcome) for e in world.ingestion.recorder.events]
    assert ("extract", "ok") in events and ("chunk", "ok") in events
    document = await world.storage.catalogue.find("default", NOTES)
    assert document is not None and document.current.blocks


async def test_snippets_are_sized_in_the_embedders_unit_and_fit_its_limit() -> None:
    from sheaf.application.ingestion.reindexing import Reindexing
    from sheaf.application.store.document_catalogue import DocumentCatalogue
    from sheaf.application.store.document_structure import DocumentStructure
    from sheaf.domain.errors import ErrorKind, SheafError

    world = World()
    long_note = ("# Long notes\n\n" + " ".join(
        f"The heron number {i} returned on Tuesday to the same reed bed." for i in range(300))
        + "\n").encode()
    world.files.files["/data/long.md"] = long_note
    narrow = MemoryEmbedder(name="narrow", input_limit=48)
    world.ingestion.embedder = narrow
    result = await world.ingestion.ingest("/data/long.md")
    assert result.status is IngestStatus.NEW and result.version_id
    counting = await narrow.token_counting()
    snippets = [c for c in await world.storage.catalogue.chunks("default", result.version_id)
                if c.level == "snippet"]
    assert len(snippets) > 10
    assert max(counting.count(c.retrieval_text) for c in snippets) <= 48
    assert all(c.tokens == counting.count(c.text) for c in snippets)

    # Stored chunks too long for another model are refused by name, not truncated...
    structure = DocumentStructure(DocumentCatalogue(world.storage, world.blobs))
    narrower = MemoryEmbedder(name="narrower", input_limit=20)
    with pytest.raises(SheafError) as refused:
        await Reindexing(world.storage, structure, narrower).reindex(
            "default", chunks=False, embeddings=True)
    assert refused.value.kind is ErrorKind.EMBEDDING_FAILED
    assert "longer than narrower reads" in refused.value.message
    # ...and chunked again for it when the chunks are rebuilt.
    assert await Reindexing(world.storage, structure, narrower).reindex(
        "default", embeddings=True) == 1
    rebuilt = [c for c in await world.storage.catalogue.chunks("default", result.version_id)
               if c.level == "snippet"]
    assert max(len(c.retrieval_text.split()) + 2 for c in rebuilt) <= 20


async def test_reindexing_cuts_chunks_to_the_sizes_the_version_was_cut_to() -> None:
    from sheaf.application.ingestion.reindexing import Reindexing
    from sheaf.application.store.document_catalogue import DocumentCatalogue
    from sheaf.application.store.document_structure import DocumentStructure
    from sheaf.domain.analysis.chunking import DEFAULT_SIZES, ChunkSizes

    world = World()
    world.files.files["/data/long.md"] = ("# Long notes\n\n" + " ".join(
        f"The heron number {i} returned on Tuesday." for i in range(200)) + "\n").encode()
    small = ChunkSizes.for_snippets(40)
    assert small != DEFAULT_SIZES
    world.ingestion.chunk_sizes = small
    result = await world.ingestion.ingest("/data/long.md")
    assert result.version_id is not None
    cut = await world.storage.catalogue.chunks("default", result.version_id)
    structure = DocumentStructure(DocumentCatalogue(world.storage, world.blobs))
    assert await Reindexing(world.storage, structure, world.ingestion.embedder).reindex(
        "default") == 1
    again = await world.storage.catalogue.chunks("default", result.version_id)
    assert again == cut and sum(c.level == "snippet" for c in cut) > 10
