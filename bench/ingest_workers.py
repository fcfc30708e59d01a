"""Queued ingestion with 1, 2 and 4 `sheaf worker` processes against one PostgreSQL
(ADR-0023).

    .venv/bin/python -P bench/ingest_workers.py [--documents 2000] [--workers 1,2,4]

The same generated documents (bench/ingest_batch.py's mix: HTML articles, Markdown
notes, one PDF in ten) are enqueued by `sheaf ingest --queue` and ingested, for each
worker count, into a fresh database of one throwaway PostgreSQL (the tests' embedded
server), the queue's tables beside the store's. Printed per worker count: documents/s
from the first job finished to the last (worker start-up excluded, measured apart), the
ratio to one worker, and the per-job costs the README's capacity plan uses; the peer is
`sheaf ingest DIR` without a queue, in one process, on a store of the same kind. A second
part runs the queue alone (jobs whose handler does nothing) to show what the queue
itself costs per job.

The store is PostgreSQL when the PostgreSQL store adapter is installed; without it the
DuckDB file, which one process opens at a time, so only one worker is measured. This
machine has 2 cores shared with other work: above 2 workers the processes compete for
them, and the ratio says how well the queue keeps them busy, not what more cores give.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ingest_batch import make_corpus  # noqa: E402
from tests.postgres_server import PostgresServer, running_postgres  # noqa: E402

SHEAF = str(Path(sys.executable).parent / "sheaf")
SHARED_STORE = importlib.util.find_spec("sheaf.adapters.store.postgres.knowledge_store") is not None


def _environment(server: PostgresServer, work: Path, run: str) -> dict[str, str]:
    database = server.url(server.create_database(f"bench_{run}"))
    env = {**os.environ, "SHEAF_EMBEDDER": "hashing", "LOG_LEVEL": "warning"}
    if SHARED_STORE:
        # Blobs in a folder of this run (under the default store's place) unless an S3
        # location is given.
        env |= {"SHEAF_STORE": database, "XDG_DATA_HOME": str(work / run)}
        blobs = os.environ.get("SHEAF_BENCH_BLOBS")  # an s3:// URL, else a folder
        if blobs:
            env["SHEAF_BLOBS"] = f"{blobs.rstrip('/')}/{run}"
    else:
        env |= {"SHEAF_STORE": str(work / f"{run}.duckdb"), "SHEAF_QUEUE": database}
    return env


def _queue_url(env: dict[str, str]) -> str:
    return env.get("SHEAF_QUEUE") or env["SHEAF_STORE"]


async def _job_times(url: str) -> tuple[int, float, float, dict[str, int]]:
    import psycopg

    async with await psycopg.AsyncConnection.connect(url) as connection:
        row = await (await connection.execute(
            "SELECT count(*), extract(epoch FROM min(finished_at)), "
            "extract(epoch FROM max(finished_at)) FROM sheaf_job_results")).fetchone()
        statuses = await (await connection.execute(
            "SELECT result->>'status', count(*) FROM sheaf_job_results GROUP BY 1"
        )).fetchall()
    assert row is not None
    return int(row[0]), float(row[1] or 0), float(row[2] or 0), dict(statuses)


def direct_ingest(server: PostgresServer, corpus: Path, work: Path, concurrency: int,
                  documents: int) -> float:
    """The peer: `sheaf ingest DIR` in one process, no queue, into a fresh store of the
    same kind; documents/s of its whole run, start-up included."""
    env = _environment(server, work, "direct")
    began = time.perf_counter()
    done = subprocess.run([SHEAF, "ingest", str(corpus), "--json", "--concurrency",
                           str(concurrency)], env=env, capture_output=True, text=True,
                          check=False)
    elapsed = time.perf_counter() - began
    statuses = [json.loads(line)["status"] for line in done.stdout.splitlines()]
    assert statuses.count("new") == documents, done.stderr[-2000:]
    return documents / elapsed


def measure(server: PostgresServer, corpus: Path, work: Path, workers: int,
            concurrency: int, documents: int) -> dict[str, float]:
    env = _environment(server, work, f"w{workers}")
    began = time.perf_counter()
    enqueued = subprocess.run([SHEAF, "ingest", "--queue", "--json", str(corpus)],
                              env=env, capture_output=True, text=True, check=True)
    enqueue_s = time.perf_counter() - began
    batch = json.loads(enqueued.stdout)
    assert batch["enqueued"] == documents, batch
    started = time.time()
    processes = [subprocess.Popen([SHEAF, "worker", "--until-idle", "--concurrency",
                                   str(concurrency)], env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL) for _ in range(workers)]
    for process in processes:
        if process.wait() != 0:
            raise SystemExit(f"a worker failed with exit {process.returncode}")
    wall = time.time() - started
    done, first, last, statuses = asyncio.run(_job_times(_queue_url(env)))
    assert done == documents and statuses.get("new") == documents, statuses
    steady = (done - 1) / (last - first) if last > first else float("nan")
    return {"enqueue_s": enqueue_s, "wall_s": wall, "startup_s": first - started,
            "steady_docs_s": steady, "wall_docs_s": documents / wall}


async def _noop_queue(url: str, jobs: int, processes: int) -> tuple[float, float]:
    """Enqueue `jobs` and run them through `processes` worker processes doing nothing:
    seconds to enqueue, and jobs/s through the queue alone."""
    from sheaf.adapters.queue.procrastinate_job_queue import ProcrastinateJobQueue
    from sheaf.domain.queue.ingest_jobs import IngestJob

    async with ProcrastinateJobQueue(url) as queue:
        began = time.perf_counter()
        await queue.enqueue([IngestJob("noop", f"https://example.org/{i}")
                             for i in range(jobs)])
        enqueue_s = time.perf_counter() - began
    script = ("import asyncio, sys\n"
              "from sheaf.adapters.queue.procrastinate_job_queue import ProcrastinateJobQueue\n"
              "from sheaf.domain.store.ingestion import IngestResult, IngestStatus\n"
              "async def ok(job):\n"
              "    return IngestResult(job.source, IngestStatus.UNCHANGED)\n"
              "async def main():\n"
              "    async with ProcrastinateJobQueue(sys.argv[1], polling=0.2) as q:\n"
              "        await q.work(ok, concurrency=4, until_idle=True)\n"
              "asyncio.run(main())\n")
    runners = [subprocess.Popen([sys.executable, "-c", script, url]) for _ in range(processes)]
    for runner in runners:
        runner.wait()
    done, first, last, _ = await _job_times(url)
    assert done == jobs
    return enqueue_s, (done - 1) / (last - first)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--concurrency", type=int, default=4,
                        help="jobs each worker runs at once")
    parser.add_argument("--queue-only", action="store_true",
                        help="only the queue's own cost (jobs that do nothing)")
    args = parser.parse_args()
    counts = [int(c) for c in args.workers.split(",")]
    if not SHARED_STORE and counts != [1]:
        print("no PostgreSQL store adapter installed: the DuckDB file takes one worker, "
              "so only 1 worker is measured")
        counts = [1]
    work = Path(tempfile.mkdtemp(prefix="sheaf-bench-workers-"))
    os.chmod(work, 0o755)
    try:
        corpus = work / "docs"
        corpus.mkdir()
        make_corpus(corpus, args.documents)
        with running_postgres() as server:
            print(f"{args.documents} documents; store "
                  f"{'PostgreSQL' if SHARED_STORE else 'DuckDB'}, queue PostgreSQL "
                  f"(embedded, 127.0.0.1); {os.cpu_count()} cores; each worker "
                  f"--concurrency {args.concurrency}")
            results = {}
            for workers in [] if args.queue_only else counts:
                results[workers] = measure(server, corpus, work, workers, args.concurrency,
                                           args.documents)
                r = results[workers]
                base = results[counts[0]]["steady_docs_s"]
                print(f"{workers} worker(s): {r['steady_docs_s']:6.1f} docs/s steady "
                      f"(x{r['steady_docs_s'] / base:.2f} of {counts[0]}), "
                      f"{r['wall_docs_s']:6.1f} docs/s wall, start-up "
                      f"{r['startup_s']:.1f} s, enqueue {r['enqueue_s']:.1f} s "
                      f"({1000 * r['enqueue_s'] / args.documents:.1f} ms/doc)")
            one = results.get(counts[0])
            if one:
                peer = direct_ingest(server, corpus, work, args.concurrency, args.documents)
                queued = args.documents / (one["enqueue_s"] + one["wall_s"])
                print(f"peer, `sheaf ingest DIR` without the queue: {peer:6.1f} docs/s "
                      f"whole run; 1 worker, enqueue included: {queued:6.1f} docs/s "
                      f"(x{queued / peer:.2f})")
                print(f"per job on one worker: {1000 / one['steady_docs_s']:.0f} ms of wall "
                      f"time at --concurrency {args.concurrency}")
            for processes in (1, 2, 4):
                url = server.url(server.create_database(f"noop_{processes}"))
                enqueue_s, rate = asyncio.run(_noop_queue(url, args.documents, processes))
                print(f"queue alone, {processes} process(es): {rate:7.0f} jobs/s "
                      f"({1000 / rate:.2f} ms/job), enqueue "
                      f"{1000 * enqueue_s / args.documents:.2f} ms/job")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
