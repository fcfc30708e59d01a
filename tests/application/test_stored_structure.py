"""Sections and profile: computed once per version, at ingest, stored and read back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

import sheaf.domain.store.document_analysis as analysis
from sheaf.adapters.blobs.memory_blob_store import MemoryBlobStore
from sheaf.adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
from sheaf.adapters.store.duckdb.schema import MIGRATIONS
from sheaf.application.quotes.quotes import Quotes
from sheaf.application.search.search import Search
from sheaf.application.store.document_catalogue import DocumentCatalogue
from sheaf.application.store.document_structure import DocumentStructure
from sheaf.domain.search.search_request import Expansion
from sheaf.domain.store.document_analysis import stored_structure
from sheaf.domain.store.knowledge_records import BlockRow
from tests.application.world import World

pytestmark = pytest.mark.anyio
PAPER = (b"# Tidal meadows\n\n## Methods\n\nWe counted seagrass shoots at low tide. "
         b"Each plot was a metre square.\n\n## Results\n\nSeagrass grew with the tides. "
         b"Shoot density doubled in spring.\n")


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    calls = {"sections": 0, "profile": 0}
    for name, counter in (("detect_sections", "sections"), ("profile_text", "profile")):
        real = getattr(analysis, name)

        def spy(*args: Any, _real: Any = real, _counter: str = counter, **kwargs: Any) -> Any:
            calls[_counter] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(analysis, name, spy)
    return calls


async def test_sections_are_computed_once_per_version(counted: dict[str, int]) -> None:
    world = World(DuckDbKnowledgeStore(":memory:"))
    world.files.files["/d/paper.md"] = PAPER
    result = await world.ingestion.ingest("/d/paper.md")
    structure = DocumentStructure(DocumentCatalogue(world.storage, world.blobs))
    quotes = Quotes(structure)
    search = Search(world.storage, structure=structure)
    labels = [s.label for s in (await structure.load("default", "/d/paper.md")).sections]
    assert labels == ["methods", "results"]
    (quote,) = await quotes.by_text("default", "/d/paper.md", "Seagrass grew with the tides.")
    assert quote.section_label == "results"
    section = await quotes.section("default", "/d/paper.md", "methods", first_sentences=1)
    assert section.text == "We counted seagrass shoots at low tide."
    sentence = await quotes.by_position("default", "/d/paper.md", "sentence", 2)
    assert sentence.text == "Each plot was a metre square."
    for expand in Expansion:
        (hit,) = await search.search("default", "density doubled", 1, expand=expand)
        assert hit.context is not None and "doubled" in hit.context.text
    assert counted == {"sections": 1, "profile": 1}
    await world.ingestion.ingest("/d/paper.md")  # unchanged: nothing is analysed again
    assert counted == {"sections": 1, "profile": 1}
    assert result.version_id is not None
    stored = await world.storage.catalogue.structure("default", result.version_id)
    assert stored is not None and [s.label for s in stored.sections] == labels


async def test_a_store_of_the_previous_schema_gets_structure_once(
        tmp_path: Path, counted: dict[str, int]) -> None:
    path = tmp_path / "v4.duckdb"
    text = PAPER.decode().strip()
    heading = text.index("## Results")
    blocks = [BlockRow("heading", 0, 15, 1), BlockRow("heading", 17, 27, 2),
              BlockRow("paragraph", 29, heading - 2),
              BlockRow("heading", heading, heading + 10, 2),
              BlockRow("paragraph", heading + 12, len(text))]
    blobs = MemoryBlobStore()
    markdown_sha = await blobs.put(text.encode())
    rows = ("[" + ",".join(f'["{b.kind}",{b.start},{b.end},{b.level},null,[]]' for b in blocks)
            + "]")
    with duckdb.connect(str(path)) as connection:  # as schema version 4 wrote it
        for migration in MIGRATIONS[:4]:
            for statement in migration:
                connection.execute(statement)
        connection.execute("UPDATE sheaf_schema SET version = 4")
        connection.execute("INSERT INTO documents VALUES ('doc_1', 'default', 'doc_1.v1', "
                           "NULL, now(), now())")
        connection.execute(
            "INSERT INTO versions (id, document_id, space, number, fetched_sha, content_sha, "
            "markdown_sha, content_source, content_type, title, created_at, metadata, "
            "caller_metadata, diagnostics, characters, blocks) VALUES ('doc_1.v1', 'doc_1', "
            "'default', 1, 's1', 's1', ?, 'raw', 'text/markdown', 'Tidal meadows', now(), "
            "'{}', '{}', '[]', ?, ?)", [markdown_sha, len(text), rows])
    store = DuckDbKnowledgeStore(path)
    structure = DocumentStructure(DocumentCatalogue(store.storage(), blobs))
    assert await store.catalogue.structure("default", "doc_1.v1") is None
    first = await structure.load("default", "doc_1")
    assert [s.label for s in first.sections] == ["methods", "results"]
    assert counted == {"sections": 1, "profile": 1}
    again = await structure.load("default", "doc_1")
    assert again.structure == first.structure
    assert counted == {"sections": 1, "profile": 1}  # read back, not computed again
    assert await store.catalogue.structure("default", "doc_1.v1") == stored_structure(
        text, blocks, "Tidal meadows", None)
    await store.aclose()
