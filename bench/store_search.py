"""Search speed of the DuckDB store on generated stores of 10k and 100k snippets: cold
`sheaf search` processes, warm searches through `Knowledge.search`, and the first search
after a one-document write.

    .venv/bin/python -m bench.store_search [--sizes 10000 100000] [--runs 9]
        [--cache /tmp/sheaf-bench-stores]

Each store is built once and kept in the cache folder (documents of 50 generated snippets
from a 20,000-word Zipf vocabulary, bench/generated_text.py, saved through the unit of
work so the full-text postings are written as ingestion writes them; hashing vectors are
stored with them so vector and hybrid can be measured, which ingestion leaves out for a
lexical embedder). Printed per size, in one run: `python -c pass`, the import of what a
search needs, and whole `sheaf search` processes per mode (min and p50), so the share of
start-up is plain; the facade's p50 per mode on a warm store; at the largest size, the
first search after ingesting one document, in the same process and in a new one.

    .venv/bin/python -m bench.store_search --peer [--sizes 10000 100000] [--runs 100]
        [--cisi ../shared/corpora/retrieval-cisi] [--cisi-embedder local]

Warm BM25 through `Knowledge.search` (k=10, with citations) against bm25s (the bench
extra; English stopwords, Snowball stemmer, one `retrieve` call per query, the query's
tokenizing included) on the same texts, the two interleaved query by query so they share
the load: on CISI (1,460 abstracts through sheaf's pipeline, the store kept in the cache
folder; the judged queries) and on each generated store (bm25s indexes its snippets'
retrieval text). Printed per corpus, with the load average: p50 and p95 in wall time and
in CPU time (all of the process's threads) of sheaf's BM25, bm25s, hybrid (a new query,
and the same query again), and the query's embedding alone; the acceptance's ratios
(BM25 / bm25s, hybrid / BM25) in wall and CPU; on CISI both nDCG@10; per generated store
a common word's p95 (issue 35); at the end each side's growth from the smallest to the
largest store.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import attrs

from bench.generated_text import TextSource, snippet_document
from sheaf.adapters.models.hashing_embedder import HashingEmbedder
from sheaf.adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
from sheaf.application.ports.embedder import Embedder
from sheaf.domain.search.embeddings import ChunkVectors
from sheaf.domain.store.version_bundle import VersionBundle
from sheaf.entrypoints.api.composition import build_embedder
from sheaf.entrypoints.api.knowledge import Knowledge

PER_DOCUMENT = 50
MODES = ("bm25", "vector", "hybrid")
SHEAF = str(Path(sys.executable).parent / "sheaf")
ENV = {**os.environ, "SHEAF_EMBEDDER": "hashing", "LOG_LEVEL": "warning"}


async def build(path: Path, snippets: int) -> None:
    """Fill a store at `path` with `snippets` snippets, one unit of work per document."""
    store = DuckDbKnowledgeStore(path)
    embedder = HashingEmbedder()
    model = await embedder.model()
    source = TextSource(seed=snippets)
    started = time.perf_counter()
    for number in range(snippets // PER_DOCUMENT):
        record, ref, chunks = snippet_document(number, PER_DOCUMENT, lambda: source.paragraph(60))
        vectors = await embedder.embed([c.retrieval_text for c in chunks])
        async with store.storage().unit_of_work() as work:
            work.versions.add(VersionBundle(record, ref, chunks=chunks, vectors=ChunkVectors(
                model, tuple(c.id for c in chunks), tuple(vectors))))
            await work.commit()
        if number % 100 == 0:
            print(f"  building: {number * PER_DOCUMENT} snippets, "
                  f"{time.perf_counter() - started:.0f} s", file=sys.stderr, end="\r")
    await store.aclose()
    print(f"  built {snippets} snippets in {time.perf_counter() - started:.0f} s",
          file=sys.stderr)


def cached_store(cache: Path, snippets: int) -> Path:
    path = cache / f"store-{snippets}.duckdb"
    done = Path(f"{path}.built")
    if not done.exists():
        for old in cache.glob(f"store-{snippets}.*"):
            shutil.rmtree(old) if old.is_dir() else old.unlink()
        anyio.run(build, path, snippets)
        done.touch()
    return path


def whole_process(arguments: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(arguments, env=ENV, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(arguments[:3])} failed: {done.stderr.decode()[-400:]}")
    return elapsed


def row(label: str, samples: list[float]) -> None:
    print(f"  {label:<34} min {min(samples) * 1000:7.0f} ms   "
          f"p50 {statistics.median(samples) * 1000:7.0f} ms")


def cold(path: Path, queries: list[str]) -> dict[str, float]:
    """Whole processes: the interpreter alone, the imports a search needs, searches."""
    python = sys.executable
    row("python -c pass", [whole_process([python, "-c", "pass"]) for _ in queries])
    imports = [whole_process([python, "-c", "import sheaf.entrypoints.cli.cli, "
                              "sheaf.entrypoints.api.knowledge"]) for _ in queries]
    row("import cli + knowledge", imports)
    p50s = {"imports": statistics.median(imports)}
    for mode in MODES:
        samples = [whole_process([SHEAF, "search", q, "--store", str(path), "--mode", mode,
                                  "--k", "10"]) for q in queries]
        row(f"sheaf search --mode {mode}", samples)
        p50s[mode] = statistics.median(samples)
    return p50s


async def warm(path: Path, queries: list[str]) -> None:
    async with Knowledge.open(path, embedder="hashing") as kb:
        for mode in MODES:
            await kb.search("warm up", 10, mode=mode)
            samples = []
            for query in queries:
                started = time.perf_counter()
                await kb.search(query, 10, mode=mode)
                samples.append(time.perf_counter() - started)
            row(f"Knowledge.search {mode} (warm)", samples)


async def write_then_search(path: Path, folder: Path, source: TextSource, runs: int
                            ) -> None:
    """Ingest one document, then search at once: in the same process, then in a new one."""
    first: dict[str, list[float]] = {m: [] for m in MODES}
    fresh: dict[str, list[float]] = {m: [] for m in MODES}
    writes = []
    for n in range(runs):
        for mode in MODES:
            note = folder / f"note{n}-{mode}.md"
            note.write_text(source.markdown(f"Note {n} {mode}", 3, 2, 80))
            async with Knowledge.open(path, embedder="hashing") as kb:
                await kb.search("warm up", 10, mode=mode)
                started = time.perf_counter()
                await kb.ingest(str(note))
                writes.append(time.perf_counter() - started)
                started = time.perf_counter()
                await kb.search(source.query(), 10, mode=mode)
                first[mode].append(time.perf_counter() - started)
            fresh[mode].append(whole_process([SHEAF, "search", source.query(), "--store",
                                              str(path), "--mode", mode]))
    row("ingest one document (facade)", writes)
    for mode in MODES:
        row(f"first {mode} search after it", first[mode])
        row("  in a new sheaf search process", fresh[mode])


@attrs.frozen
class Timing:
    """p50 and p95 of one measure over the measured queries, in ms, wall and CPU."""

    wall: float
    cpu: float
    wall_p95: float
    cpu_p95: float

    @classmethod
    def of(cls, samples: list[tuple[float, float]]) -> Timing:
        walls, cpus = sorted(w for w, _ in samples), sorted(c for _, c in samples)
        return cls(statistics.median(walls) * 1000, statistics.median(cpus) * 1000,
                   percentile(walls, 0.95) * 1000, percentile(cpus, 0.95) * 1000)


@attrs.frozen
class PeerRow:
    """One corpus's warm figures."""

    corpus: str
    sheaf: Timing
    peer: Timing
    hybrid: Timing
    repeated: Timing
    """Hybrid when each query was asked before (its vector kept)."""
    embedding: Timing
    """The query's embedding alone (a new text each time), with hybrid's embedder."""
    hybrid_embedder: str
    load: float


class Bm25sPeer:
    """bm25s over `texts`, asked one query at a time as a caller would."""

    def __init__(self, texts: list[str]) -> None:
        import bm25s
        import Stemmer

        self._bm25s = bm25s
        self.size = len(texts)
        self._stemmer = Stemmer.Stemmer("english")
        self._retriever = bm25s.BM25()
        self._retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=self._stemmer,
                                             show_progress=False), show_progress=False)

    def search(self, query: str, k: int) -> list[int]:
        tokens = self._bm25s.tokenize([query], stopwords="en", stemmer=self._stemmer,
                                      show_progress=False)
        if not tokens.vocab:  # no word of the query survives stopwords
            return []
        found, _ = self._retriever.retrieve(tokens, k=k, show_progress=False)
        return [int(i) for i in found[0]]


def clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def since(started: tuple[float, float]) -> tuple[float, float]:
    return time.perf_counter() - started[0], time.process_time() - started[1]


def percentile(ordered: list[float], share: float) -> float:
    return ordered[round(share * (len(ordered) - 1))]


async def warm_against_peer(kb: Knowledge, embedder: Embedder, peer: Bm25sPeer, label: str,
                            queries: list[str], warmup: list[str], hybrid_embedder: str
                            ) -> PeerRow:
    """BM25 and bm25s interleaved query by query, then hybrid, after other queries
    (`warmup`) warmed both up: the store's postings loaded, what those queries' words,
    snippets and documents left kept, as in a process that has served for a while;
    what the measured queries alone read is read while measured. Then the embedding of
    each query alone (new texts: each query with a suffix no query had)."""
    for query in warmup:
        await kb.search(query, 10, mode="bm25")
        peer.search(query, min(10, peer.size))
    ours, theirs, hybrid, repeated, embedding = [], [], [], [], []
    for query in queries:
        started = clocks()
        await kb.search(query, 10, mode="bm25")
        ours.append(since(started))
        started = clocks()
        peer.search(query, min(10, peer.size))
        theirs.append(since(started))
    await kb.search("warm up", 10, mode="hybrid")
    for query in queries:  # each text embedded here first: no query vector is kept yet
        started = clocks()
        await kb.search(query, 10, mode="hybrid")
        hybrid.append(since(started))
    for query in queries:  # again: each query's vector is kept now
        started = clocks()
        await kb.search(query, 10, mode="hybrid")
        repeated.append(since(started))
    for n, query in enumerate(queries):
        started = clocks()
        await embedder.embed([f"{query} {n}"])
        embedding.append(since(started))
    return PeerRow(label, Timing.of(ours), Timing.of(theirs), Timing.of(hybrid),
                   Timing.of(repeated), Timing.of(embedding), hybrid_embedder,
                   os.getloadavg()[0])


def snippet_texts(path: Path) -> list[str]:
    import duckdb

    from sheaf.adapters.store.duckdb.rows import whole_chunks

    with duckdb.connect(str(path), read_only=True) as c:
        return [ch.retrieval_text for ch in whole_chunks(c, "c.level = 'snippet'")]


def cached_cisi(cache: Path, corpus: Path, spec: str) -> tuple[Path, dict[str, str]]:
    """CISI ingested through sheaf's pipeline with `spec`, kept with its id mapping."""
    from sheaf.entrypoints.api.retrieval_collection import RetrievalCollection, ingest_collection

    folder = cache / f"cisi-{spec}"
    mapping = folder / "to_cisi.json"
    if not mapping.exists():
        shutil.rmtree(folder, ignore_errors=True)
        collection = RetrievalCollection.load(corpus)

        async def ingest() -> dict[str, str]:
            async with Knowledge.open(folder / "kb.duckdb", embedder=spec) as kb:
                return await ingest_collection(kb, collection.corpus, folder / "docs")

        started = time.perf_counter()
        found = anyio.run(ingest)
        print(f"  ingested CISI with {spec} in {time.perf_counter() - started:.0f} s",
              file=sys.stderr)
        mapping.write_text(json.dumps(found))
    return folder / "kb.duckdb", json.loads(mapping.read_text())


def cisi_against_peer(cache: Path, corpus: Path, spec: str) -> PeerRow:
    from bench.retrieval_cisi import bm25s_report
    from sheaf.entrypoints.api.retrieval_collection import RetrievalCollection

    collection = RetrievalCollection.load(corpus)
    path, to_cisi = cached_cisi(cache, corpus, spec)
    theirs, _ = bm25s_report(collection)
    peer = Bm25sPeer([f"{d['title']} {d['text']}" for d in collection.corpus])
    texts = [text for _, text in collection.queries]
    queries, warmup = texts[1::2], texts[::2]  # measured, and those that warm up

    async def run() -> tuple[PeerRow, float]:
        embedder = build_embedder(spec)
        assert embedder is not None, f"{spec} names no embedder"
        async with Knowledge.open(path, embedder=embedder) as kb:
            row = await warm_against_peer(kb, embedder, peer, "CISI", queries, warmup, spec)
            # After the timing: evaluating reads every query's hits, which would be kept.
            report = await kb.evaluate_retrieval(collection.queries, collection.qrels,
                                                 to_cisi, "bm25")
            return row, report.ndcg_at_10

    row, ours = anyio.run(run)
    print(f"CISI nDCG@10: sheaf bm25 {ours:.3f}, bm25s {theirs.ndcg_at_10:.3f} "
          f"({ours - theirs.ndcg_at_10:+.3f})")
    return row


def store_against_peer(path: Path, size: int, queries: list[str], warmup: list[str]
                       ) -> PeerRow:
    peer = Bm25sPeer(snippet_texts(path))

    async def run() -> PeerRow:
        embedder = build_embedder("hashing")
        assert embedder is not None
        async with Knowledge.open(path, embedder=embedder) as kb:
            row = await warm_against_peer(kb, embedder, peer, f"{size} snippets", queries,
                                          warmup, "hashing")
            # Issue 35's bound: a common word (the ten commonest of the vocabulary, each
            # in most snippets), p95 in-process; bm25s asked the same beside it.
            common, theirs = [], []
            for word in TextSource(seed=0).words[:10] * 3:
                started = clocks()
                await kb.search(word, 10, mode="bm25")
                common.append(since(started))
                started = clocks()
                peer.search(word, 10)
                theirs.append(since(started))
            ours, peers = Timing.of(common), Timing.of(theirs)
            print(f"{size} snippets: a common word, BM25 p95 {ours.wall_p95:.1f} ms wall "
                  f"{ours.cpu_p95:.1f} ms CPU, p50 {ours.wall:.1f} ms wall {ours.cpu:.1f} ms "
                  f"CPU (bm25s p95 {peers.wall_p95:.1f} wall {peers.cpu_p95:.1f} CPU; load "
                  f"{os.getloadavg()[0]:.1f}; issue 35: <= 50 ms p95)")
            return row

    return anyio.run(run)


def print_peer_rows(rows: list[PeerRow]) -> None:
    load = os.getloadavg()
    print(f"\nwarm search through Knowledge.search, k=10, ms (load now {load[0]:.1f} "
          f"{load[1]:.1f}); wall and CPU (all the process's threads), p50 / p95")
    print(f"{'corpus':<15} {'load':>5} {'measure':<22} {'wall p50':>9} {'p95':>8} "
          f"{'cpu p50':>8} {'p95':>8}")
    for r in rows:
        for name, t in (("sheaf bm25", r.sheaf), ("bm25s", r.peer),
                        (f"hybrid ({r.hybrid_embedder})", r.hybrid),
                        ("hybrid, repeated query", r.repeated),
                        ("query embedding alone", r.embedding)):
            print(f"{r.corpus:<15} {r.load:5.1f} {name:<22} {t.wall:9.2f} {t.wall_p95:8.2f} "
                  f"{t.cpu:8.2f} {t.cpu_p95:8.2f}")
    print("\nacceptance (issue 36): bm25 / bm25s <= 3 (p50); hybrid / bm25 <= 2 (p50)")
    print(f"{'corpus':<15} {'bm25/bm25s wall':>16} {'cpu':>6} {'hybrid/bm25 wall':>17} "
          f"{'cpu':>6} {'repeated/bm25 wall':>19} {'cpu':>6}")
    for r in rows:
        print(f"{r.corpus:<15} {r.sheaf.wall / r.peer.wall:16.2f} "
              f"{r.sheaf.cpu / r.peer.cpu:6.2f} {r.hybrid.wall / r.sheaf.wall:17.2f} "
              f"{r.hybrid.cpu / r.sheaf.cpu:6.2f} {r.repeated.wall / r.sheaf.wall:19.2f} "
              f"{r.repeated.cpu / r.sheaf.cpu:6.2f}")
    sized = [r for r in rows if r.corpus.endswith("snippets")]
    if len(sized) >= 2:
        small, large = sized[0], sized[-1]
        print(f"growth {small.corpus} -> {large.corpus} (p50; sheaf's no more than bm25s's): "
              f"sheaf {large.sheaf.wall / small.sheaf.wall:.2f}x wall "
              f"{large.sheaf.cpu / small.sheaf.cpu:.2f}x CPU, bm25s "
              f"{large.peer.wall / small.peer.wall:.2f}x wall "
              f"{large.peer.cpu / small.peer.cpu:.2f}x CPU")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) /
                        "sheaf-bench-stores")
    parser.add_argument("--peer", action="store_true",
                        help="warm BM25 and hybrid against bm25s (CISI and each size)")
    parser.add_argument("--cisi", type=Path, default=Path(__file__).resolve().parents[1]
                        .parent / "shared" / "corpora" / "retrieval-cisi")
    parser.add_argument("--cisi-embedder", default="local",
                        help="the embedder CISI is ingested with (hybrid's on CISI)")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    if args.peer:
        measured, other = TextSource(seed=18), TextSource(seed=19)
        queries = [measured.query() for _ in range(args.runs)]
        warmup = [other.query() for _ in range(args.runs)]
        rows = []
        if args.cisi.is_dir():
            rows.append(cisi_against_peer(args.cache, args.cisi, args.cisi_embedder))
        else:
            print(f"CISI not found at {args.cisi}: left out", file=sys.stderr)
        rows += [store_against_peer(cached_store(args.cache, size), size, queries, warmup)
                 for size in args.sizes]
        print_peer_rows(rows)
        return 0
    source = TextSource(seed=18)
    queries = [source.query() for _ in range(args.runs)]
    for size in args.sizes:
        path = cached_store(args.cache, size)
        print(f"\n{size} snippets ({path.stat().st_size / 2**20:.0f} MB), "
              f"{args.runs} queries, k=10")
        p50s = cold(path, queries)
        print(f"  bm25 process p50 {p50s['bm25']:.2f} s, of which imports "
              f"{p50s['imports']:.2f} s ({p50s['imports'] / p50s['bm25']:.0%})")
        anyio.run(warm, path, queries)
    largest = max(args.sizes)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        copy = work / "kb.duckdb"
        shutil.copy(cached_store(args.cache, largest), copy)
        print(f"\nwrite then search, {largest} snippets, {max(3, args.runs // 3)} writes")
        anyio.run(write_then_search, copy, work, source, max(3, args.runs // 3))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
