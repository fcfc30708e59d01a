"""`sheaf verify` over a store of the shared corpora: true sentences verified on their
document and span, their perturbed forms not verified, sentences of documents not in the
store not found.

    .venv/bin/python -m bench.claim_checks [--corpora DIR] [--claims N] [--absent N]
        [--seed N]    (make bench-verification)

Documents of the shared corpora (`corpus_sentences`: English articles, German, French
and Spanish web pages, publisher pages, scientific PDFs) are split by a seeded shuffle
into those ingested and those held out. From the ingested ones, `--claims` sentences are
checked with `Knowledge.verify` (what `sheaf verify` runs): each must be verified with a
supporting passage on its own document that covers its span. One meaning-changing
perturbation of each (a class picked at random among those that apply:
`claim_perturbations`) must not be verified. `--absent` sentences of the held-out
documents, none of them in any stored document, must be `not_found`. Prints the counts
and the median and 90th percentile time per claim (one process, BM25 candidates, k=5),
beside the median time of the BM25 search alone on the same claims (the peer: what
`verify` adds to the search it starts with); exits 1 on any wrong answer.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import anyio

from bench.claim_perturbations import MEANING_CHANGING, perturb
from bench.corpus_sentences import (
    DEFAULT,
    CorpusFile,
    StoredSentence,
    corpus_files,
    other_words,
    stored_sentences,
)
from sheaf import ClaimCheck, Knowledge
from sheaf.domain.quotes.tolerances import canonical_form


async def run(corpora: Path, claims: int, absent: int, seed: int) -> int:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="sheaf-verify-") as work:
        files = corpus_files(corpora, Path(work) / "files", rng, articles=40, web_pages=8,
                             scholarly=14, pdfs=8)
        rng.shuffle(files)
        held_out = files[:len(files) // 4]
        stored_files = files[len(files) // 4:]
        async with Knowledge.open(Path(work) / "kb.duckdb", embedder="hashing") as kb:
            sentences: list[StoredSentence] = []
            texts: list[str] = []
            for file in stored_files:
                result = await kb.ingest(str(file.path))
                if result.document_id:
                    text, found = await stored_sentences(kb, result.document_id,
                                                         file.language, file.corpus)
                    texts.append(text)
                    sentences += found
            canonical_store = [canonical_form(t).text.lower() for t in texts]
            absent_sentences = await _held_out_sentences(held_out, Path(work), rng,
                                                         canonical_store)
            words = other_words(sentences)
            chosen = rng.sample(sentences, min(claims, len(sentences)))
            counts: Counter[str] = Counter()
            timings: list[float] = []
            wrong: list[str] = []

            searches: list[float] = []

            async def checked(claim: str) -> tuple[str, ClaimCheck]:
                began = time.perf_counter()
                check = await kb.verify(claim)
                timings.append(time.perf_counter() - began)
                # The peer: the BM25 search alone that a one-sentence check starts with.
                began = time.perf_counter()
                await kb.search(claim, 5, mode="bm25", with_documents=False)
                searches.append(time.perf_counter() - began)
                return check.status, check

            for sentence in chosen:
                status, check = await checked(sentence.text)
                on_span = status == "verified" and all(any(
                    q.document_id == sentence.document_id and q.start <= sentence.start
                    and sentence.end <= q.end for q in s.support)
                    for s in check.sentences)
                counts[f"true: {'verified on its span' if on_span else status}"] += 1
                if not on_span:
                    wrong.append(f"true sentence {status}: {sentence.text[:90]!r}")
                changed = [p for p in perturb(sentence.text, sentence.language, rng, words)
                           if p.kind in MEANING_CHANGING]
                changed = [p for p in changed
                           if not any(canonical_form(p.claim).text.lower() in c
                                      for c in canonical_store)]
                if not changed:
                    counts["perturbed: no class applies"] += 1
                    continue
                made = rng.choice(changed)
                status, _ = await checked(made.claim)
                counts[f"perturbed: {status}"] += 1
                counts[f"perturbed {made.kind}: {status}"] += 1
                if status == "verified":
                    wrong.append(f"perturbed ({made.kind}) verified: {made.claim[:90]!r}")
            for sentence in absent_sentences[:absent]:
                status, _ = await checked(sentence)
                counts[f"absent: {status}"] += 1
                if status != "not_found":
                    wrong.append(f"absent sentence {status}: {sentence[:90]!r}")
    print(f"{len(stored_files)} documents stored, {len(held_out)} held out; "
          f"{len(timings)} claims checked\n")
    for key in sorted(counts):
        print(f"  {key:<45} {counts[key]:>5}")
    ordered = sorted(timings)
    search = statistics.median(searches)
    print(f"\ntime per claim: median {statistics.median(ordered) * 1000:.0f} ms, "
          f"90th percentile {ordered[int(len(ordered) * 0.9)] * 1000:.0f} ms; the BM25 "
          f"search alone: median {search * 1000:.0f} ms (verify / search: "
          f"{statistics.median(ordered) / search:.1f}x)")
    for line in wrong[:30]:
        print("  WRONG", line)
    return 0 if not wrong else 1


async def _held_out_sentences(files: list[CorpusFile], work: Path, rng: random.Random,
                              canonical_store: list[str]) -> list[str]:
    """Sentences of documents not in the store (ingested into a store of their own),
    none of which is in a stored document."""
    found: list[str] = []
    async with Knowledge.open(work / "held-out.duckdb", embedder="hashing") as other:
        for file in files:
            result = await other.ingest(str(file.path))
            if not result.document_id:
                continue
            _, sentences = await stored_sentences(other, result.document_id, file.language,
                                                  file.corpus)
            found += [s.text for s in sentences if len(s.text.split()) >= 10 and not any(
                canonical_form(s.text).text.lower() in c for c in canonical_store)]
    rng.shuffle(found)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", type=Path, default=DEFAULT)
    parser.add_argument("--claims", type=int, default=200)
    parser.add_argument("--absent", type=int, default=100)
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args()
    if not args.corpora.is_dir():
        print(f"no corpora at {args.corpora}", file=sys.stderr)
        return 2
    return anyio.run(run, args.corpora, args.claims, args.absent, args.seed)


if __name__ == "__main__":
    sys.exit(main())
