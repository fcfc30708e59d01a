"""`sheaf search`, `sheaf reindex --embeddings` and `sheaf eval retrieval` end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.entrypoints.cli_runner import Completed, run_async, sheaf_on

# Whole scenarios, several CLI runs each on a DuckDB file: `make test-integration` (and
# .ci/run) runs them; the search use case itself is tests/application/test_search.py's.
pytestmark = [pytest.mark.anyio, pytest.mark.integration]

TIDES = ("# Tides\n\n## Methods\n\nWe counted seagrass shoots at low tide every week.\n\n"
         "## Results\n\nSeagrass grew with the tides. Shoot density doubled in spring.\n")
FOXES = "# Foxes\n\n## Results\n\nFoxes wait for people to sleep. Urban foxes eat from bins.\n"


sheaf = sheaf_on


async def ingested(tmp_path: Path, *, vectors: bool = True) -> Path:
    """The two notes ingested with the default (hashing) embedder; `vectors` stores its
    vectors too, which ingest leaves out for a lexical embedder."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "tides.md").write_text(TIDES)
    (folder / "foxes.md").write_text(FOXES)
    store = tmp_path / "kb.duckdb"
    done = await sheaf(store, "ingest", str(folder), "--json", "--metadata", "team=blue")
    assert done.returncode == 0, done.stderr
    if vectors:
        embedded = await sheaf(store, "reindex", "--embeddings")
        assert embedded.returncode == 0, embedded.stderr
    return store


async def test_a_lexical_embedder_stores_no_vectors_until_asked(tmp_path: Path) -> None:
    store = await ingested(tmp_path, vectors=False)
    assert lines(await sheaf(store, "search", "seagrass tides", "--json"))  # auto: bm25
    refused = await sheaf(store, "search", "seagrass", "--mode", "hybrid")
    assert refused.returncode == 2 and b"Traceback" not in refused.stderr
    assert b"invalid_query" in refused.stderr and b"reindex --embeddings" in refused.stderr
    tides = tmp_path / "docs" / "tides.md"
    tides.write_text(TIDES + "\nMangroves arrived later.\n")
    assert (await sheaf(store, "reindex", "--embeddings")).returncode == 0
    # Once the space holds the embedder's vectors, every ingest keeps them current.
    assert lines(await sheaf(store, "ingest", str(tides), "--json"))[0]["status"] == "changed"
    hits = lines(await sheaf(store, "search", "mangroves", "--mode", "vector", "--json"))
    assert hits and hits[0]["title"] == "Tides" and "Mangroves" in str(hits[0]["text"])


def lines(done: Completed) -> list[dict[str, object]]:
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.decode().splitlines()]


async def test_search_modes_filters_and_expansion(tmp_path: Path) -> None:
    store = await ingested(tmp_path)
    for mode in ("auto", "bm25", "vector", "hybrid"):
        hits = lines(await sheaf(store, "search", "seagrass tides", "--mode", mode, "--json"))
        assert hits and "seagrass" in str(hits[0]["text"]).lower(), mode
        assert hits[0]["title"] == "Tides" and hits[0]["section"] is not None
    foxes = lines(await sheaf(store, "search", "results", "--doc", str(tmp_path / "docs" /
                                                                        "foxes.md"), "--json"))
    assert {h["title"] for h in foxes} == {"Foxes"}
    assert lines(await sheaf(store, "search", "seagrass", "--meta", "team=red", "--json")) == []
    (expanded,) = lines(await sheaf(store, "search", "shoot density", "--k", "1", "--expand",
                                    "parent-section", "--json"))
    context = expanded["context"]
    assert isinstance(context, dict) and str(context["text"]).startswith("## Results")
    grouped = lines(await sheaf(store, "search", "results seagrass foxes", "--group",
                                "--json"))
    assert len(grouped) == len({h["document_id"] for h in grouped}) == 2


async def test_another_embedder_is_refused_until_reindexed(tmp_path: Path) -> None:
    store = await ingested(tmp_path)
    refused = await sheaf(store, "search", "seagrass", "--mode", "vector",
                          "--embedder", "hashing:64")
    assert refused.returncode != 0
    message = refused.stderr.decode()
    assert "embedding_mismatch" in message and "reindex --embeddings" in message
    assert "Traceback" not in message
    reindexed = await sheaf(store, "reindex", "--embeddings", "--embedder", "hashing:64")
    assert reindexed.returncode == 0, reindexed.stderr
    hits = lines(await sheaf(store, "search", "seagrass", "--mode", "vector",
                             "--embedder", "hashing:64", "--json"))
    assert hits and hits[0]["title"] == "Tides"


async def test_batch_queries_one_line_each(tmp_path: Path) -> None:
    store = await ingested(tmp_path)
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"id": "q1", "text": "seagrass"}\n{"id": "q2", "text": "foxes"}\n')
    answers = lines(await sheaf(store, "search", "--queries", str(queries), "--k", "3",
                                "--json"))
    assert [a["id"] for a in answers] == ["q1", "q2"]


async def test_eval_retrieval_reports_every_mode(tmp_path: Path) -> None:
    collection = tmp_path / "collection"
    collection.mkdir()
    corpus = [{"id": "d1", "title": "Seagrass", "text": "Seagrass meadows grow with tides."},
              {"id": "d2", "title": "Foxes", "text": "Urban foxes raid bins at night."},
              {"id": "d3", "title": "Owls", "text": "Owls hunt mice in the dark."}]
    (collection / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in corpus))
    (collection / "queries.jsonl").write_text(
        '{"id": "1", "text": "seagrass tides"}\n{"id": "2", "text": "foxes at night"}\n')
    (collection / "qrels.tsv").write_text("query-id\tdoc-id\tgrade\n1\td1\t1\n2\td2\t1\n")
    reports = lines(Completed(await run_async("eval", "retrieval", collection,
                                                  "--json")))
    assert [r["label"] for r in reports] == ["hybrid", "bm25", "vector"]
    bm25 = reports[1]
    assert bm25["ndcg@10"] == 1.0 and bm25["queries"] == 2
    assert len(bm25["per_query"]) == 2  # type: ignore[arg-type]
    tuned = lines(Completed(await run_async("eval", "retrieval", collection,
                                                "--mode", "bm25", "--chunking", "100",
                                                "--chunking", "600/900", "--json")))
    assert [(r["chunking"], r["label"]) for r in tuned] == [("100/150", "bm25"),
                                                             ("600/900", "bm25")]
    bad = Completed(await run_async("eval", "retrieval", collection,
                                        "--chunking", "300/100"))
    assert bad.returncode != 0 and b"--chunking takes TARGET" in bad.stderr
    broken = Completed(await run_async("eval", "retrieval", tmp_path / "none"))
    assert broken.returncode != 0 and b"not a retrieval collection" in broken.stderr


async def test_changed_and_removed_documents_leave_nothing_stale(tmp_path: Path) -> None:
    store = await ingested(tmp_path)
    tides = tmp_path / "docs" / "tides.md"
    assert lines(await sheaf(store, "search", "shoot density", "--mode", "bm25", "--json"))
    tides.write_text("# Tides\n\n## Results\n\nMangroves replaced the meadow entirely.\n")
    changed = lines(await sheaf(store, "ingest", str(tides), "--json"))
    assert changed[0]["status"] == "changed"
    for mode in ("bm25", "vector", "hybrid"):
        hits = lines(await sheaf(store, "search", "shoot density doubled", "--mode", mode,
                                 "--json"))
        assert all("density" not in str(h["text"]) for h in hits), mode
        assert all(str(h["chunk_id"]).split(":")[0].endswith(".v2") for h in hits
                   if h["title"] == "Tides"), mode
    assert lines(await sheaf(store, "search", "mangroves", "--mode", "bm25", "--json"))
    removed = await sheaf(store, "remove", str(tides))
    assert removed.returncode == 0, removed.stderr
    for mode in ("bm25", "vector", "hybrid"):
        hits = lines(await sheaf(store, "search", "mangroves meadow", "--mode", mode,
                                 "--json"))
        assert all(h["title"] != "Tides" for h in hits), mode


async def test_enrichment_from_the_cli_is_shown_as_generated(tmp_path: Path) -> None:
    from tests.chat_server import ChatServer

    server = ChatServer()
    await server.start()
    try:
        env = {"SHEAF_LLM_BASE_URL": server.url("/v1"), "SHEAF_LLM_MODEL": "test-chat"}
        (tmp_path / "tides.md").write_text(TIDES)
        store = tmp_path / "kb.duckdb"
        done = await sheaf(store, "ingest", str(tmp_path / "tides.md"), "--enrich",
                           "summary,context", "--json", env=env)
        (result,) = lines(done)
        assert result["enrichment"] == "enriched"
        shown = await sheaf(store, "show", str(tmp_path / "tides.md"), env=env)
        assert b"[generated by test-chat] Tides is summarised here." in shown.stdout
        assert b"[generated] seagrass, tides" in shown.stdout
        calls = len(server.requests)
        again = await sheaf(store, "reindex", "--enrich", "summary,context", env=env)
        assert again.returncode == 0 and len(server.requests) == calls  # all cached
        bad = await sheaf(store, "ingest", str(tmp_path / "tides.md"), "--enrich", "poetry")
        assert bad.returncode != 0 and b"unknown enrichment 'poetry'" in bad.stderr
    finally:
        await server.stop()


async def test_local_files_are_cited_by_path_and_file_uri(tmp_path: Path) -> None:
    store = await ingested(tmp_path)
    path = (tmp_path / "docs" / "foxes.md").resolve()
    expected = {"path": str(path), "file_uri": path.as_uri(), "file_name": "foxes.md"}
    (hit,) = lines(await sheaf(store, "search", "urban foxes bins", "--k", "1", "--json"))
    assert hit["location"] == expected and hit["url"] is None
    (quote,) = lines(await sheaf(store, "quote", str(hit["document_id"]), "--text",
                                 "urban foxes eat from bins", "--json"))
    assert quote["location"] == expected
    plain = await sheaf(store, "quote", str(hit["document_id"]), "--text",
                        "urban foxes eat from bins")
    assert plain.returncode == 0 and path.as_uri() in plain.stdout.decode()
