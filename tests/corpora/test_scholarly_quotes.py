"""Quotes through the whole pipeline on real publisher pages: ingested, stored, quoted.

Skipped when ../shared/corpora/scholarly-html-dev is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sheaf.adapters.blobs.memory_artifact_store import MemoryArtifactStore
from sheaf.adapters.blobs.memory_blob_store import MemoryBlobStore
from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.adapters.fetching.memory_http_client import MemoryHttpClient
from sheaf.adapters.files.memory_file_reader import MemoryFileReader
from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.adapters.pdf.memory_pdf_extractor import MemoryPdfExtractor
from sheaf.adapters.store.memory.knowledge_store import MemoryKnowledgeStore
from sheaf.application.extraction.content_resolver import ContentResolver
from sheaf.application.extraction.document_extraction import DocumentExtraction
from sheaf.application.ingestion.ingestion import Ingestion, IngestionPorts
from sheaf.application.quotes.quotes import QuoteNotVerified, Quotes
from sheaf.application.store.document_catalogue import DocumentCatalogue
from sheaf.application.store.document_structure import DocumentStructure
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.quotes.quote_verification import Mode

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / \
    "scholarly-html-dev"
MANIFEST = (json.loads((CORPUS / "manifest.json").read_text())
            if (CORPUS / "manifest.json").exists() else [])
FULL_TEXT = [e for e in MANIFEST if e["full_text"]]
# The whole pipeline over the shared corpus's pages: `make test-integration` (and
# .ci/run) runs it.
pytestmark = [pytest.mark.anyio, pytest.mark.integration,
              pytest.mark.skipif(not MANIFEST, reason="scholarly-html-dev not present")]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def quotes() -> Quotes:
    files = MemoryFileReader({f"/pages/{e['id']}.html": (CORPUS / e["file"]).read_bytes()
                              for e in FULL_TEXT})
    html, pdf = Html5libExtractor(), MemoryPdfExtractor()
    store, blobs = MemoryKnowledgeStore(), MemoryBlobStore()
    ingestion = Ingestion(IngestionPorts(
        ContentResolver(MemoryHttpClient(HttpSettings()), html, pdf),
        DocumentExtraction(html, pdf), files, store.storage(), blobs, MemoryArtifactStore()))
    for path in files.files:
        assert (await ingestion.ingest(path)).document_id
    return Quotes(DocumentStructure(DocumentCatalogue(store.storage(), blobs)))


@pytest.mark.parametrize("entry", FULL_TEXT, ids=[e["id"] for e in FULL_TEXT])
async def test_manifest_sentences_are_exact_and_tolerant_quotes(quotes: Quotes,
                                                                entry: dict[str, object]
                                                                ) -> None:
    document = f"/pages/{entry['id']}.html"
    for sentence in (s["text"] for s in entry["sentences"]):  # type: ignore[attr-defined]
        (exact,) = await quotes.by_text("default", document, sentence)
        assert exact.match == "exact" and exact.text == sentence
        loaded = await quotes.load("default", document)
        assert loaded.text[exact.start:exact.end] == sentence
        # Retyped as a quoter might: respaced, rewrapped, curly quotes, first letter's
        # case: still verified, as the document's own characters.
        disguised = (sentence[0].swapcase() + sentence[1:]).replace(" ", "  ").replace(
            '"', "\u201d").replace("  ", "\n", 2)
        (tolerant,) = await quotes.by_text("default", document, disguised)
        assert tolerant.match == "tolerant" and tolerant.status == "verified"
        assert " ".join(tolerant.text.split()) == " ".join(sentence.split())
        # Shouted, it is only located: case past the first letter is not tolerated.
        with pytest.raises(QuoteNotVerified):
            await quotes.by_text("default", document, sentence.upper())
        (located,) = await quotes.by_text("default", document, sentence.upper(),
                                          mode=Mode.LOCATE)
        assert located.status == "located"
        assert "case_changed" in {d.kind.value for d in located.differences}


async def test_sentences_from_other_documents_are_not_found(quotes: Quotes) -> None:
    target = FULL_TEXT[0]
    foreign = [s["text"] for e in MANIFEST if e["id"] != target["id"]
               for s in e["sentences"]][:40]
    assert len(foreign) >= 30
    for sentence in foreign:
        with pytest.raises(SheafError) as caught:
            await quotes.by_text("default", f"/pages/{target['id']}.html", sentence)
        assert caught.value.kind is ErrorKind.QUOTE_NOT_FOUND
