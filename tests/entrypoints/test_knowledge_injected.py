"""`Knowledge.open` on injected fakes: no loopback server, no file on disk."""

from __future__ import annotations

import pytest

from sheaf import Knowledge
from sheaf.adapters.blobs.memory_blob_store import MemoryBlobStore
from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.adapters.fetching.memory_http_client import MemoryHttpClient
from sheaf.adapters.files.memory_file_reader import MemoryFileReader
from sheaf.adapters.models.memory_embedder import MemoryEmbedder
from sheaf.adapters.store.memory.knowledge_store import MemoryKnowledgeStore
from sheaf.domain.store.ingestion import IngestStatus
from sheaf.entrypoints.api.composition import InjectedAdapters

pytestmark = pytest.mark.anyio
PAGE = ("<html><head><title>Tidal Rhythms</title></head><body><article><h1>Tidal Rhythms</h1>"
        "<h2>Results</h2><p>Seagrass grew with the tides. Shoot density doubled in spring."
        "</p></article></body></html>")


async def test_a_knowledge_base_on_fakes() -> None:
    http = MemoryHttpClient(HttpSettings())
    http.add("https://journal.example/tides", PAGE, content_type="text/html")
    files = MemoryFileReader({"/notes/fox.md": b"# Foxes\n\nFoxes wait for people to sleep.\n"})
    store, blobs, embedder = MemoryKnowledgeStore(), MemoryBlobStore(), MemoryEmbedder()
    adapters = InjectedAdapters(store=store, blobs=blobs, http_client=http, files=files)
    async with Knowledge.open(space="papers", embedder=embedder, adapters=adapters) as kb:
        page = await kb.ingest("https://journal.example/tides")
        assert page.status is IngestStatus.NEW and page.title == "Tidal Rhythms"
        events = [e async for e in kb.ingest_many(["/notes/fox.md"])]
        assert [e.result.status for e in events] == [IngestStatus.NEW]
        (hit,) = await kb.search("shoot density", 1)
        assert hit.url == "https://journal.example/tides" and "doubled" in hit.text
        (quote,) = await kb.quote(hit.document_id, "shoot density doubled in spring")
        assert quote.section_label == "results"
        assert [s.label for s in await kb.sections(hit.document_id)] == ["results"]
        assert {d.title for d in await kb.documents()} == {"Tidal Rhythms", "Foxes"}
    assert [r.url for r in http.requests] == ["https://journal.example/tides"]
    assert embedder.calls  # the injected embedder did the embedding
    stored = await store.catalogue.find("papers", "/notes/fox.md")
    assert stored is not None and await blobs.has(stored.current.markdown_sha)


async def test_ingest_many_reports_the_files_it_leaves_out() -> None:
    files = MemoryFileReader({"/notes/fox.md": b"# Foxes\n\nFoxes wait.\n",
                              "/notes/empty.md": b"", "/notes/.hidden.md": b"# H\n\nx\n"})
    adapters = InjectedAdapters(store=MemoryKnowledgeStore(), files=files)
    async with Knowledge.open(embedder="none", adapters=adapters) as kb:
        events = [e async for e in kb.ingest_many(["/notes"])]
    assert [e.result.source for e in events] == ["/notes/fox.md"]
    assert {s.path for s in events[0].skipped} == {"/notes/empty.md", "/notes/.hidden.md"}


async def test_an_error_inside_the_block_comes_out_as_itself() -> None:
    from sheaf.domain.errors import ErrorKind, SheafError

    adapters = InjectedAdapters(store=MemoryKnowledgeStore())
    with pytest.raises(SheafError) as caught:
        async with Knowledge.open(embedder="none", adapters=adapters) as kb:
            await kb.document("nothing-here")
    assert caught.value.kind is ErrorKind.DOCUMENT_NOT_FOUND
    with pytest.raises(KeyError):
        async with Knowledge.open(embedder="none", adapters=adapters):
            raise KeyError("mine")


async def test_compact_on_a_store_that_has_no_file_to_rewrite_says_so() -> None:
    from sheaf.domain.errors import ErrorKind, SheafError

    adapters = InjectedAdapters(store=MemoryKnowledgeStore())
    async with Knowledge.open(embedder="none", adapters=adapters) as kb:
        with pytest.raises(SheafError) as caught:
            await kb.compact()
    assert caught.value.kind is ErrorKind.INVALID_QUERY and "DuckDB" in caught.value.message
