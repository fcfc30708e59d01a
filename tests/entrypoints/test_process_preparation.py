"""Versions prepared in child processes (ADR-0037): the same version as in-process, typed
errors and the extraction budget's refusals unchanged across the boundary, and a child
killed mid-file failing that ingest with `internal` while the next is served."""

from __future__ import annotations

import os
import signal

import anyio
import pytest

from sheaf import Knowledge
from sheaf.adapters.files.memory_file_reader import MemoryFileReader
from sheaf.adapters.store.memory.knowledge_store import MemoryKnowledgeStore
from sheaf.application.concurrency.worker_pool import WorkerPool
from sheaf.application.ingestion.version_preparation import (
    PreparationRequest,
    PreparedVersion,
    prepare_version,
)
from sheaf.domain.analysis.chunking import DEFAULT_SIZES
from sheaf.domain.analysis.token_counting import ESTIMATED_TOKENS, TokenCounting
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.store.ingestion import IngestStatus
from sheaf.entrypoints.api.composition import InjectedAdapters, build_extraction
from sheaf.entrypoints.api.process_preparation import ProcessPreparation
from tests import amplification_inputs as inputs
from tests.office_fixtures import docx_bytes, pptx_bytes, xlsx_bytes

pytestmark = pytest.mark.anyio
HANG = 120
"""Seconds after which a test fails as hung (a bound, not a timing assert)."""


def _request(body: bytes, location: str, *, version_id: str | None = "v1",
             counting: TokenCounting = ESTIMATED_TOKENS) -> PreparationRequest:
    return PreparationRequest(body, None, location, None, "0" * 64, version_id,
                              DEFAULT_SIZES, counting)


def _without_timings(prepared: PreparedVersion) -> PreparedVersion:
    return PreparedVersion(prepared.source, prepared.staged, prepared.markdown,
                           prepared.markdown_sha, prepared.chunks_jsonl, prepared.meta_json,
                           prepared.fingerprint)


async def _in_process(request: PreparationRequest) -> PreparedVersion:
    return await prepare_version(request, build_extraction(), WorkerPool(1))


async def _outcome(processes: ProcessPreparation, request: PreparationRequest
                   ) -> PreparedVersion | SheafError:
    try:
        with anyio.fail_after(HANG):
            return await processes.prepare(request)
    except SheafError as exc:
        return exc


def _kill_this_process(text: str) -> int:
    """A token count that kills the child counting: as the OOM killer or kill -9 would."""
    os.kill(os.getpid(), signal.SIGKILL)
    return len(text)


async def test_a_child_prepares_the_version_this_process_would() -> None:
    processes = ProcessPreparation(2, build_extraction)
    try:
        for body, name in ((docx_bytes(), "report.docx"), (pptx_bytes(), "deck.pptx"),
                           (xlsx_bytes(rows=40), "book.xlsx")):
            request = _request(body, f"/tmp/{name}")
            apart = await _outcome(processes, request)
            assert isinstance(apart, PreparedVersion)
            assert apart.staged is not None and apart.staged.chunks
            assert _without_timings(apart) == _without_timings(await _in_process(request))
        extracted_only = await _outcome(processes, _request(docx_bytes(), "/tmp/r.docx",
                                                            version_id=None))
        assert isinstance(extracted_only, PreparedVersion)
        assert extracted_only.staged is None and extracted_only.source.value == "docx"
    finally:
        await processes.aclose()


async def test_typed_errors_and_the_budget_come_back_from_a_child_unchanged() -> None:
    processes = ProcessPreparation(1, build_extraction)
    refused = {
        "/tmp/broken.docx": b"PK\x03\x04 a torn archive",
        "/tmp/echo.xlsx": inputs.xlsx_one_string_many_cells(cells=700,
                                                            string_characters=30_000),
        "/tmp/controls.docx": inputs.docx_nested_content_controls(depth=2_000),
    }
    try:
        for location, body in refused.items():
            apart = await _outcome(processes, _request(body, location))
            try:
                here: PreparedVersion | SheafError = await _in_process(
                    _request(body, location))
            except SheafError as exc:
                here = exc
            if isinstance(here, SheafError):
                assert isinstance(apart, SheafError), location
                assert (type(apart), apart.kind, apart.message, apart.url) == \
                    (type(here), here.kind, here.message, here.url)
            else:  # read within its budget: the same version either way
                assert isinstance(apart, PreparedVersion)
                assert _without_timings(apart) == _without_timings(here)
        budget = await _outcome(processes, _request(refused["/tmp/echo.xlsx"], "/tmp/e.xlsx"))
        assert isinstance(budget, SheafError) and budget.kind is ErrorKind.TOO_LARGE
        torn = await _outcome(processes, _request(refused["/tmp/broken.docx"], "/tmp/b.docx"))
        assert isinstance(torn, SheafError) and torn.url == "/tmp/b.docx"
    finally:
        await processes.aclose()


async def test_a_killed_child_fails_its_file_as_internal_and_the_next_is_served() -> None:
    processes = ProcessPreparation(1, build_extraction)
    killer = TokenCounting("tokens", "a counter that is killed", count=_kill_this_process)
    try:
        killed = await _outcome(processes, _request(docx_bytes(), "/tmp/k.docx",
                                                    counting=killer))
        assert isinstance(killed, SheafError) and killed.kind is ErrorKind.INTERNAL
        assert "killed" in killed.message
        after = await _outcome(processes, _request(docx_bytes(), "/tmp/after.docx"))
        assert isinstance(after, PreparedVersion) and after.staged is not None
    finally:
        await processes.aclose()


async def test_an_ingest_through_child_processes_stores_what_one_in_threads_stores(
        ) -> None:
    files = {"/tmp/report.docx": docx_bytes(), "/tmp/broken.docx": b"PK\x03\x04 torn"}
    stored = []
    for processes in (0, 1):
        adapters = InjectedAdapters(store=MemoryKnowledgeStore(),
                                    files=MemoryFileReader(files))
        with anyio.fail_after(HANG):
            async with Knowledge.open(embedder="hashing", adapters=adapters,
                                      extraction_processes=processes) as kb:
                rehearsed = await kb.ingest("/tmp/report.docx", dry_run=True)
                result = await kb.ingest("/tmp/report.docx")
                broken = await kb.ingest("/tmp/broken.docx")
                hits = await kb.search("report", k=3)
        assert rehearsed.status is IngestStatus.NEW and result.status is IngestStatus.NEW
        assert broken.status is IngestStatus.FAILED and broken.error_kind == "corrupt"
        stored.append((result.title, broken.message,
                       [(h.chunk.text, round(h.score, 6)) for h in hits]))
    assert stored[0] == stored[1] and stored[0][2]
