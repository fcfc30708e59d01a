"""Search over ingested documents, with fakes of every port."""

from __future__ import annotations

import pytest

from sheaf.application.search import Search, document_of_chunk
from tests.application.test_ingestion import World

pytestmark = pytest.mark.anyio


async def test_hits_carry_their_document_and_span() -> None:
    world = World()
    world.files.files["/d/tides.md"] = b"# Tides\n\n## Results\n\nSeagrass grew with the tides.\n"
    world.files.files["/d/foxes.md"] = b"# Foxes\n\nFoxes wait for people to sleep.\n"
    for path in world.files.files:
        await world.ingestion.ingest(path)
    hits = await Search(world.store).search("default", "seagrass tides", 5)
    assert hits and hits[0].title == "Tides"
    top = hits[0]
    document = await world.store.find("default", top.document_id)
    assert document is not None
    markdown = (await world.blobs.get(document.current.markdown_sha)).decode()
    assert markdown[top.chunk.start:top.chunk.end] == top.chunk.text
    assert "Seagrass grew with the tides." in top.chunk.text
    assert all(h.document_id != "/d/foxes.md" for h in hits)


def test_document_of_chunk() -> None:
    assert document_of_chunk("doc_ab12.v3:snippet:7") == "doc_ab12"
