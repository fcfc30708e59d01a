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
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

from bench.generated_text import TextSource, snippet_document
from sheaf.adapters.models.hashing_embedder import HashingEmbedder
from sheaf.adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
from sheaf.domain.search.embeddings import ChunkVectors
from sheaf.domain.store.version_bundle import VersionBundle
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) /
                        "sheaf-bench-stores")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
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
