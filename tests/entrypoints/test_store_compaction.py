"""The store file tracks its live data: reindexing does not grow it, `compact` rewrites it,
and the sizes it reports are the file's."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sheaf.entrypoints.api.knowledge import Knowledge
from tests.entrypoints.cli_runner import json_lines, run_async

pytestmark = pytest.mark.anyio

VOCABULARY = ("seagrass", "meadow", "tide", "coast", "river", "estuary", "salt", "marsh", "heron",
              "fox", "owl", "mouse", "nitrogen", "carbon", "sediment", "current", "wave", "storm",
              "shore", "dune", "root", "leaf", "shoot", "density", "growth", "decline", "survey",
              "sample", "station", "season", "winter", "summer")


def write_documents(folder: Path, count: int) -> None:
    folder.mkdir()
    chooser = random.Random(18)
    for n in range(count):
        sections = "\n\n".join(
            f"## Part {s}\n\n" + " ".join(chooser.choices(VOCABULARY, k=120)) + "."
            for s in range(4))
        (folder / f"note{n}.md").write_text(f"# Note {n}\n\n{sections}\n")


def file_size(store: Path) -> int:
    return sum(p.stat().st_size for p in (store, Path(f"{store}.wal")) if p.exists())


@pytest.mark.slow  # about 30 s: ten reindex runs
async def test_ten_reindex_runs_leave_the_file_near_its_compacted_size(tmp_path: Path
                                                                       ) -> None:
    write_documents(tmp_path / "docs", 40)
    store = tmp_path / "kb.duckdb"
    async with Knowledge.open(store) as kb:
        async for _ in kb.ingest_many([str(tmp_path / "docs")]):
            pass
    for _ in range(5):
        async with Knowledge.open(store) as kb:
            assert await kb.reindex() == 40
    for _ in range(5):  # every vector rewritten each time
        async with Knowledge.open(store) as kb:
            assert await kb.reindex(embeddings=True) == 40
    grown = file_size(store)
    async with Knowledge.open(store) as kb:
        sizes = await kb.compact()
        assert len(await kb.search("heron seagrass", 3, mode="hybrid")) == 3
    assert sizes.before == grown and sizes.after == file_size(store)
    assert grown <= 1.1 * sizes.after, (grown, sizes.after)


async def test_sheaf_compact_reports_the_sizes(tmp_path: Path) -> None:
    write_documents(tmp_path / "docs", 3)
    store = tmp_path / "kb.duckdb"
    ingested = await run_async("ingest", tmp_path / "docs", "--store", store)
    assert ingested.exit_code == 0, ingested.output
    (sizes,) = json_lines(await run_async("compact", "--store", store, "--json"))
    assert sizes["after_bytes"] == file_size(store) and sizes["before_bytes"] > 0
    assert json_lines(await run_async("search", "heron", "--store", store, "--json"))
