"""`sheaf ingest` of the 1,460 CISI abstracts, this tree's against a peer's, interleaved.

    .venv/bin/python -P bench/ingest_cisi.py [--peer /work/main/.venv/bin/sheaf]
        [--runs 3] [--embedder hashing] [--documents 1460]

Each abstract is written as a Markdown file (`# title`, then its text) to a temporary
folder, read by path from ../shared/corpora/retrieval-cisi (skipped cleanly when absent).
Each run ingests the folder into a fresh store with `--json` and `--concurrency 4`, this
tree's `sheaf` and the peer's taking turns, so both see the same load. Printed per run and
as medians: wall seconds, documents per second, CPU seconds of the process (user + system),
ms per document over the first and the last 500 documents (from the moments their result
lines were printed, the first from the first result: start-up is not a document's
cost), and the store right after ingest (DuckDB file, its log and the blob
folder, bytes) over the Markdown it holds (the sum of the versions' `characters`, as
UTF-8 the same bytes for this corpus); then this tree's ratio to the peer's. The load
(`os.getloadavg`) is printed beside each run: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpora" / "retrieval-cisi" / "corpus.jsonl"
HERE = str(Path(sys.executable).parent / "sheaf")
PEER = "/work/main/.venv/bin/sheaf"
WINDOW = 500


def write_abstracts(folder: Path, limit: int) -> int:
    """The abstracts as Markdown files; how many."""
    count = 0
    with CORPUS.open(encoding="utf-8") as lines:
        for line in lines:
            if count >= limit:
                break
            record = json.loads(line)
            text = f"# {record['title'].strip()}\n\n{record['text'].strip()}\n"
            (folder / f"cisi{int(record['id']):04d}.md").write_text(text, encoding="utf-8")
            count += 1
    return count


def tree_bytes(store: Path) -> int:
    """The store's bytes on disk as files: the DuckDB file, its log, the blob folder."""
    total = 0
    for path in (store, Path(f"{store}.wal")):
        if path.exists():
            total += path.stat().st_size
    blobs = store.with_suffix(".blobs")
    if blobs.is_dir():
        total += sum(p.stat().st_size for p in blobs.rglob("*") if p.is_file())
    return total


def markdown_bytes(python: str, store: Path) -> int:
    """The Markdown the store holds: its current versions' characters (read with the
    running interpreter's duckdb, in a child, so this process imports nothing)."""
    script = ("import duckdb,sys; c=duckdb.connect(sys.argv[1], read_only=True); "
              "print(c.execute('SELECT coalesce(sum(v.characters),0) FROM versions v "
              "JOIN documents d ON d.current_version = v.id').fetchone()[0])")
    done = subprocess.run([python, "-c", script, str(store)], capture_output=True, text=True,
                          check=True)
    return int(done.stdout.strip())


def _process_cpu(pid: int) -> float:
    """The CPU seconds (user + system) process `pid` has used so far (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_run(sheaf: str, folder: Path, work: Path, embedder: str) -> dict[str, float]:
    store = work / "kb.duckdb"
    command = [sheaf, "ingest", str(folder), "--store", str(store), "--json",
               "--concurrency", "4", "--embedder", embedder]
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    moments: list[float] = []
    cpu_at: list[float] = []
    statuses: dict[str, int] = {}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True) as process:
        assert process.stdout is not None
        for line in process.stdout:
            if not line.startswith("{"):
                continue
            record = json.loads(line)
            if "status" not in record:
                continue
            moments.append(time.perf_counter())
            cpu_at.append(_process_cpu(process.pid))
            statuses[record["status"]] = statuses.get(record["status"], 0) + 1
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    done = len(moments)
    # From the first result, so that start-up is not counted as the first documents' cost.
    first = ((moments[WINDOW] - moments[0]) / WINDOW * 1000
             if done >= 2 * WINDOW else 0.0)
    last = ((moments[-1] - moments[-WINDOW - 1]) / WINDOW * 1000
            if done >= 2 * WINDOW else 0.0)
    # The same windows in CPU seconds of the process: wall time on a shared machine
    # follows the load, the CPU a document costs does not.
    cpu_first = ((cpu_at[WINDOW] - cpu_at[0]) / WINDOW * 1000
                 if done >= 2 * WINDOW else 0.0)
    cpu_last = ((cpu_at[-1] - cpu_at[-WINDOW - 1]) / WINDOW * 1000
                if done >= 2 * WINDOW else 0.0)
    python = str(Path(sheaf).parent / "python")
    size = tree_bytes(store)
    markdown = markdown_bytes(python, store)
    shutil.rmtree(work)
    work.mkdir()
    return {"load": load, "wall": wall, "docs_s": done / wall, "cpu": cpu,
            "first_ms": first, "last_ms": last, "cpu_first_ms": cpu_first,
            "cpu_last_ms": cpu_last, "ratio": size / max(markdown, 1),
            "size_mb": size / 1e6, "done": done, "new": statuses.get("new", 0),
            "failed": statuses.get("failed", 0)}


def show(name: str, run: dict[str, float]) -> None:
    print(f"  {name:5} load {run['load']:5.1f}  {run['wall']:6.1f} s  "
          f"{run['docs_s']:6.1f} docs/s  CPU {run['cpu']:6.1f} s  "
          f"ms/doc first {run['first_ms']:6.1f} last {run['last_ms']:6.1f} "
          f"(CPU {run['cpu_first_ms']:5.1f}, {run['cpu_last_ms']:5.1f})  "
          f"store {run['size_mb']:5.1f} MB = {run['ratio']:5.1f}x Markdown  "
          f"({int(run['new'])} new, {int(run['failed'])} failed)", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", default=PEER)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--embedder", default="hashing")
    parser.add_argument("--documents", type=int, default=1460)
    args = parser.parse_args()
    if not CORPUS.exists():
        print(f"skipped: {CORPUS} is absent")
        return 0
    temporary = Path(tempfile.mkdtemp(prefix="sheaf-cisi-"))
    try:
        folder = temporary / "abstracts"
        folder.mkdir()
        count = write_abstracts(folder, args.documents)
        print(f"{count} CISI abstracts, embedder {args.embedder}, concurrency 4; "
              f"this tree {HERE}, peer {args.peer}")
        work = temporary / "store"
        work.mkdir()
        runs: dict[str, list[dict[str, float]]] = {"this": [], "peer": []}
        for n in range(args.runs):
            order = ("this", "peer") if n % 2 == 0 else ("peer", "this")
            print(f"run {n + 1}:")
            for name in order:
                result = one_run(HERE if name == "this" else args.peer, folder, work,
                                 args.embedder)
                runs[name].append(result)
                show(name, result)
        print("medians:")
        medians = {name: {key: statistics.median(r[key] for r in results)
                          for key in results[0]} for name, results in runs.items()}
        for name in ("this", "peer"):
            show(name, medians[name])
        this, peer = medians["this"], medians["peer"]
        print(f"this/peer: docs/s {this['docs_s'] / peer['docs_s']:.2f}x, "
              f"docs per CPU-second {peer['cpu'] / this['cpu']:.2f}x, "
              f"store/Markdown {this['ratio'] / peer['ratio']:.2f}x; "
              f"this tree's ms/doc last/first "
              f"{this['last_ms'] / max(this['first_ms'], 1e-9):.2f} (CPU "
              f"{this['cpu_last_ms'] / max(this['cpu_first_ms'], 1e-9):.2f}), peer's "
              f"{peer['last_ms'] / max(peer['first_ms'], 1e-9):.2f} (CPU "
              f"{peer['cpu_last_ms'] / max(peer['cpu_first_ms'], 1e-9):.2f})")
        return 0
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
