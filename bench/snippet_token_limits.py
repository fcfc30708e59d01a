"""Snippets against the local model's input limit, over the dev corpora.

    .venv/bin/python -P bench/snippet_token_limits.py [--corpora DIR] [--web N]

Every scholarly-html-dev page, every pdf-dev paper (kind A), every articles-dev page and
the first N web-pages-dev pages (all by default) are extracted and chunked twice: as
before ADR-0015 (sizes estimated at four characters a token, no limit) and as sheaf now
chunks for the local model (sizes in its own wordpieces, within its 256-wordpiece input).
Each snippet's retrieval text (what is embedded) is counted with the model's tokenizer:
snippets over the limit, the longest, and the share of wordpieces the model never reads.
Needs `sheaf[local]` and `sheaf model install`. Exits 1 when any snippet is over.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio

from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.adapters.models.onnx_embedder import OnnxEmbedder
from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from sheaf.domain.analysis.token_counting import ESTIMATED_TOKENS, TokenCounting
from sheaf.domain.document.document import Document
from sheaf.domain.errors import SheafError
from sheaf.domain.store.document_analysis import document_chunks

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"


def documents(corpora: Path, web: int | None) -> Iterator[tuple[str, Document]]:
    html = Html5libExtractor()
    scholarly = corpora / "scholarly-html-dev"
    for entry in json.loads((scholarly / "manifest.json").read_text()):
        yield "scholarly-html", html.extract_sync((scholarly / entry["file"]).read_bytes(),
                                                  entry.get("source_url_from_page") or "")
    pdfs = corpora / "pdf-dev"
    extractor = PdfminerExtractor()
    for entry in json.loads((pdfs / "manifest.json").read_text())["entries"]:
        if entry["kind"] == "A":
            try:
                yield "pdf papers", extractor.extract_sync((pdfs / entry["file"]).read_bytes())
            except SheafError:
                continue
    for corpus, limit in (("articles-dev", None), ("web-pages-dev", web)):
        paths = sorted((corpora / corpus / "html").glob("*.html.gz"))[:limit]
        for path in paths:
            try:
                yield corpus, html.extract_sync(gzip.decompress(path.read_bytes()), "")
            except SheafError:
                continue


def measure(document: Document, counting: TokenCounting, local: TokenCounting
            ) -> tuple[int, int, int, int, int]:
    """Snippets, over the limit, longest, wordpieces in all, wordpieces never read."""
    assert local.limit is not None
    snippets = [c for c in document_chunks(document, "v", counting=counting)
                if c.level == "snippet"]
    counts = [local.count(c.retrieval_text) for c in snippets]
    over = [c for c in counts if c > local.limit]
    return (len(counts), len(over), max(counts, default=0), sum(counts),
            sum(c - local.limit for c in over))


async def main_async(args: argparse.Namespace) -> int:
    local = await OnnxEmbedder.installed().token_counting()
    totals = {"before (4 characters a token)": [0] * 5, "now (local model's wordpieces)": [0] * 5}
    by_corpus: dict[str, int] = {}
    seconds = {name: 0.0 for name in totals}
    for corpus, document in documents(args.corpora, args.web):
        by_corpus[corpus] = by_corpus.get(corpus, 0) + 1
        for name, counting in zip(totals, (ESTIMATED_TOKENS, local), strict=True):
            began = time.perf_counter()
            found = measure(document, counting, local)
            seconds[name] += time.perf_counter() - began
            totals[name] = [max(a, b) if i == 2 else a + b
                            for i, (a, b) in enumerate(zip(totals[name], found, strict=True))]
    print("documents: " + ", ".join(f"{k} {v}" for k, v in by_corpus.items()))
    print(f"limit: {local.describe()}")
    print(f"{'chunking':<32} {'snippets':>8} {'over':>6} {'share':>7} {'longest':>7} "
          f"{'unread':>7} {'seconds':>8}")
    for name, (snippets, over, longest, pieces, unread) in totals.items():
        print(f"{name:<32} {snippets:>8} {over:>6} {over / max(snippets, 1):>7.1%} "
              f"{longest:>7} {unread / max(pieces, 1):>7.2%} {seconds[name]:>8.1f}")
    before, now = seconds.values()
    print(f"chunking time, now / before: {now / max(before, 1e-9):.2f}x")
    return 1 if list(totals.values())[1][1] else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=DEFAULT)
    parser.add_argument("--web", type=int, default=None,
                        help="web-pages-dev pages to include (all by default)")
    args = parser.parse_args()
    if not (args.corpora / "scholarly-html-dev").is_dir():
        print(f"corpora not found: {args.corpora}", file=sys.stderr)
        return 2
    try:
        return anyio.run(main_async, args)
    except SheafError as exc:
        print(f"the local model is needed: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
