"""Ingests committed in groups (ADR-0041): each document keeps its own outcome, a document
is stored whole or not at all, and a group stores what one-at-a-time ingests store."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import attrs
import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.adapters.blobs.memory_artifact_store import MemoryArtifactStore
from sheaf.adapters.html.memory_html_extractor import MemoryHtmlExtractor
from sheaf.adapters.models.memory_embedder import MemoryEmbedder
from sheaf.adapters.pdf.memory_pdf_extractor import MemoryPdfExtractor
from sheaf.adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
from sheaf.adapters.store.memory.knowledge_store import MemoryKnowledgeStore
from sheaf.application.extraction.content_resolver import ContentResolver
from sheaf.application.extraction.document_extraction import DocumentExtraction
from sheaf.application.ingestion.commit_group import CommitGroup
from sheaf.application.ingestion.ingestion import Ingestion, IngestionPorts, IngestOptions
from sheaf.application.ports.unit_of_work import UnitOfWork
from sheaf.application.store.storage import Storage
from sheaf.domain.store.ingestion import IngestStatus
from tests.application.world import World
from tests.property_examples import examples

anyio_test = pytest.mark.anyio
WORDS = ("heron", "tide", "meadow", "fox", "shoot", "spring", "bin", "marsh", "reed", "owl")


def _poisoned(storage: Storage, titles: set[str]) -> Storage:
    """The store's units of work, where adding a version titled in `titles` also records a
    step that fails after the version's statements have run in the transaction."""
    def unit_of_work() -> Any:
        work: Any = storage.unit_of_work()
        add = work.versions.add

        def add_or_fail(bundle: Any) -> None:
            add(bundle)
            if bundle.record.title in titles:
                work.record(_fail)

        work.versions.add = add_or_fail
        return work

    return attrs.evolve(storage, unit_of_work=unit_of_work)


def _fail(connection: object) -> None:
    raise RuntimeError("poisoned write")


def _note(n: int, words: list[int]) -> bytes:
    body = " ".join(WORDS[w] for w in words) or "empty"
    return f"# Note {n}\n\nNote {n} says {body}.\n\n## More\n\nAnd then {body} again.\n".encode()


def _rows(store: DuckDbKnowledgeStore, sql: str) -> list[tuple[Any, ...]]:
    connection: duckdb.DuckDBPyConnection = store.connection.writer
    return connection.execute(sql).fetchall()


@settings(max_examples=examples(12))
@given(notes=st.lists(st.tuples(st.lists(st.integers(0, len(WORDS) - 1), max_size=12),
                                st.booleans()), min_size=1, max_size=10),
       at_once=st.integers(1, 4))
def test_grouped_ingests_store_each_document_whole_or_not_at_all(
        notes: list[tuple[list[int], bool]], at_once: int) -> None:
    anyio.run(_grouped_ingests, notes, at_once)


async def _grouped_ingests(notes: list[tuple[list[int], bool]], at_once: int) -> None:
    grouped, alone = DuckDbKnowledgeStore(":memory:"), DuckDbKnowledgeStore(":memory:")
    try:
        poisoned = {f"Note {n}" for n, (_, bad) in enumerate(notes) if bad}
        world = World(grouped)
        html, pdf = MemoryHtmlExtractor(), MemoryPdfExtractor()
        world.ingestion = Ingestion(IngestionPorts(
            ContentResolver(world.http, html, pdf), DocumentExtraction(html, pdf), world.files,
            _poisoned(grouped.storage(), poisoned), world.blobs, MemoryArtifactStore()),
            embedder=MemoryEmbedder())
        reference = World(alone)
        paths = []
        for n, (words, _) in enumerate(notes):
            path = f"/d/note{n}.md"
            world.files.files[path] = reference.files.files[path] = _note(n, words)
            paths.append(path)
        options = IngestOptions(limiter=anyio.CapacityLimiter(at_once))
        results: dict[str, Any] = {}

        async def one(path: str) -> None:
            results[path] = await world.ingestion.ingest(path, options)

        async with anyio.create_task_group() as group:
            for path in paths:
                group.start_soon(one, path)
        for n, path in enumerate(paths):
            bad = notes[n][1]
            result = results[path]
            found = await grouped.storage().catalogue.find("default", path)
            if bad:  # failed alone, and nothing of it is left
                assert result.status is IngestStatus.FAILED, result
                assert "poisoned write" in (result.message or "")
                assert found is None
                continue
            # Ingested alone, in order: what the group stored must be the same.
            expected = await reference.ingestion.ingest(path)
            assert expected.status is IngestStatus.NEW
            assert result.status is IngestStatus.NEW, result
            assert found is not None and found.current.title == f"Note {n}"
            mine = await grouped.storage().catalogue.chunks("default", found.current.id)
            theirs = await alone.storage().catalogue.chunks("default", expected.version_id)
            assert [(c.level, c.text, c.start, c.end) for c in mine] == \
                [(c.level, c.text, c.start, c.end) for c in theirs]
        # The full-text index holds exactly the stored snippets, with the space's totals,
        # and scores as the index of the same notes written one at a time.
        snippets = _rows(grouped, "SELECT id FROM chunks WHERE level = 'snippet' ORDER BY id")
        assert snippets == _rows(grouped, "SELECT chunk_id FROM text_docs ORDER BY chunk_id")
        counted = _rows(grouped, "SELECT count(*), coalesce(sum(length), 0) FROM text_docs")
        assert _rows(grouped, "SELECT docs, length FROM text_spaces") in ([], counted)
        assert _rows(grouped, "SELECT count(*) FROM text_postings p LEFT JOIN text_docs d "
                              "USING (docid) WHERE d.docid IS NULL") == [(0,)]
        postings = ("SELECT d.chunk_id, t.term, p.tf, p.length FROM text_postings p "
                    "JOIN text_docs d USING (docid) JOIN text_terms t USING (termid) "
                    "ORDER BY 1, 2")
        assert _rows(grouped, postings) == _rows(alone, postings)
    finally:
        await grouped.aclose()
        await alone.aclose()


class _CountingStore(MemoryKnowledgeStore):
    def __init__(self) -> None:
        super().__init__()
        self.commits: list[int] = []

    async def apply(self, steps: list[Any]) -> None:
        self.commits.append(len(steps))
        await super().apply(steps)


async def _at_work_until(group: CommitGroup, release: anyio.Event) -> None:
    """An ingest at work (so a group waits for it) until `release` is set."""
    async with group.working():
        await release.wait()


@anyio_test
async def test_members_waiting_while_another_works_commit_together() -> None:
    store = _CountingStore()
    group = CommitGroup(store.storage(), linger=60.0)
    written: list[str] = []

    def write(name: str) -> Callable[[UnitOfWork], None]:
        return lambda work: (written.append(name), work.sources.touch("default", name))

    release = anyio.Event()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_at_work_until, group, release)
        await anyio.sleep(0)
        tasks.start_soon(group.commit, write("a"))
        tasks.start_soon(group.commit, write("b"))
        await anyio.wait_all_tasks_blocked()
        assert written == []  # someone is still at work: the group waits for it
        release.set()
    assert sorted(written) == ["a", "b"] and store.commits == [2]


@anyio_test
async def test_a_full_group_commits_without_waiting() -> None:
    store = _CountingStore()
    group = CommitGroup(store.storage(), linger=60.0, max_members=2)
    # At work all along: only being full commits the group.
    with anyio.fail_after(5):
        async with group.working(), anyio.create_task_group() as tasks:
            for name in ("a", "b"):
                tasks.start_soon(group.commit, lambda w, n=name: w.sources.touch("default", n))
    assert store.commits == [2]


@anyio_test
async def test_a_failing_member_fails_alone_and_the_others_are_committed() -> None:
    store = _CountingStore()
    group = CommitGroup(store.storage(), linger=60.0)
    outcomes: dict[str, str] = {}

    def bad(work: UnitOfWork) -> None:
        raise ValueError("bad member")

    async def member(name: str, write: Callable[[UnitOfWork], None]) -> None:
        try:
            await group.commit(write)
            outcomes[name] = "ok"
        except ValueError as exc:
            outcomes[name] = str(exc)

    release = anyio.Event()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_at_work_until, group, release)
        await anyio.sleep(0)
        tasks.start_soon(member, "good", lambda w: w.sources.touch("default", "x"))
        tasks.start_soon(member, "bad", bad)
        tasks.start_soon(member, "also good", lambda w: w.sources.touch("default", "y"))
        await anyio.wait_all_tasks_blocked()
        release.set()
    assert outcomes == {"good": "ok", "bad": "bad member", "also good": "ok"}
    assert store.commits == [1, 1]  # the group failed before committing; two alone


@anyio_test
async def test_a_cancelled_member_that_no_group_took_is_not_written() -> None:
    store = _CountingStore()
    group = CommitGroup(store.storage(), linger=60.0)
    async with group.working():
        with anyio.move_on_after(0.05):
            await group.commit(lambda w: w.sources.touch("default", "x"))
    assert store.commits == []
    await group.commit(lambda w: w.sources.touch("default", "y"))  # nobody at work now
    assert store.commits == [1]
