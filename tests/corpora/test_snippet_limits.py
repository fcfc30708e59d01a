"""No snippet longer than the local model reads, on a sample of the dev corpora.

Skipped when ../shared/corpora or the local model (sheaf[local], `sheaf model install`)
is absent; bench/snippet_token_limits.py measures every document.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from sheaf.domain.document.document import Document
from sheaf.domain.store.document_analysis import document_chunks

CORPORA = Path(__file__).resolve().parents[2].parent / "shared" / "corpora"
# Extraction of a corpus sample and the real local model: `make test-integration` (and
# .ci/run) runs it.
pytestmark = [pytest.mark.anyio, pytest.mark.integration]


def _sample() -> list[Document]:
    html = Html5libExtractor()
    scholarly = CORPORA / "scholarly-html-dev"
    entries = json.loads((scholarly / "manifest.json").read_text())
    found = [html.extract_sync((scholarly / e["file"]).read_bytes(), "")
             for e in entries[::7]]
    pdfs = CORPORA / "pdf-dev"
    papers = [e for e in json.loads((pdfs / "manifest.json").read_text())["entries"]
              if e["kind"] == "A"][:2]
    found += [PdfminerExtractor().extract_sync((pdfs / e["file"]).read_bytes())
              for e in papers]
    pages = sorted((CORPORA / "web-pages-dev" / "html").glob("*.html.gz"))[::90]
    found += [html.extract_sync(gzip.decompress(p.read_bytes()), "") for p in pages]
    return found


async def test_no_snippet_of_the_sample_is_longer_than_the_local_model_reads() -> None:
    if not (CORPORA / "scholarly-html-dev").is_dir():
        pytest.skip("the dev corpora are absent")
    local = pytest.importorskip("sheaf.adapters.models.onnx_embedder")
    try:
        counting = await local.OnnxEmbedder.installed().token_counting()
    except Exception as exc:  # any missing piece means skip
        pytest.skip(f"the local model is not installed: {exc}")
    lengths = [counting.count(c.retrieval_text) for document in _sample()
               for c in document_chunks(document, "v", counting=counting)
               if c.level == "snippet"]
    assert len(lengths) > 200
    assert max(lengths) <= counting.limit
