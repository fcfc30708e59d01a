"""`sheaf.Knowledge`, the async facade: the whole job, progress, tools, context blocks,
and proof that CPU work leaves the event loop free."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from sheaf import Knowledge
from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.domain.analysis.chunking import estimate_tokens
from sheaf.domain.errors import SheafError
from sheaf.domain.store.ingestion import IngestStatus
from tests.local_server import LocalServer

pytestmark = pytest.mark.anyio

PAGE = ("<html><head><title>Tidal Rhythms</title></head><body><article><h1>Tidal Rhythms</h1>"
        "<h2>Methods</h2><p>We counted seagrass shoots at low tide every week for a year. "
        "Plots were fixed with steel pegs.</p><h2>Results</h2><p>Seagrass grew with the "
        "tides. Shoot density doubled in spring. Growth stopped in the winter storms.</p>"
        "</article></body></html>")
NOTES = "# Fox notes\n\nFoxes wait for people to sleep. Urban foxes eat from bins.\n"


@pytest.fixture
async def kb(tmp_path: Path, local_server: LocalServer):  # type: ignore[no-untyped-def]
    local_server.add("/tides", PAGE, content_type="text/html")
    (tmp_path / "notes.md").write_text(NOTES)
    async with Knowledge.open(tmp_path / "kb.duckdb", "papers", embedder="hashing",
                              allow_private_network=True) as opened:
        yield opened


async def test_the_main_job_through_the_facade(kb: Knowledge, local_server: LocalServer,
                                               tmp_path: Path) -> None:
    page = await kb.ingest(local_server.url("/tides"), metadata={"team": "blue"})
    assert page.status is IngestStatus.NEW and page.title == "Tidal Rhythms"
    note = await kb.ingest(str(tmp_path / "notes.md"))
    assert note.status is IngestStatus.NEW
    assert (await kb.ingest(str(tmp_path / "notes.md"))).status is IngestStatus.UNCHANGED
    failed = await kb.ingest(str(tmp_path / "missing.md"))
    assert failed.status is IngestStatus.FAILED and failed.error_kind == "input_not_found"

    hits = await kb.search("seagrass density", 3)
    assert hits[0].title == "Tidal Rhythms" and hits[0].url == local_server.url("/tides")
    assert "Shoot density doubled" in hits[0].text and hits[0].text == hits[0].chunk.text
    assert await kb.search("seagrass", metadata={"team": "red"}) == []
    (quote,) = await kb.quote(hits[0].document_id, "shoot density doubled in spring")
    assert quote.text == "Shoot density doubled in spring"
    assert quote.section_label == "results"
    stored = await kb.document(local_server.url("/tides"))
    assert stored.markdown[quote.start:quote.end] == quote.text
    assert [s.label for s in await kb.sections(stored.id)][-2:] == ["methods", "results"]
    (methods,) = await kb.quote(stored.id, section="methods", first=1)
    assert methods.text == "We counted seagrass shoots at low tide every week for a year."
    with pytest.raises(SheafError) as caught:
        await kb.quote(stored.id, "the tides stopped the foxes")
    assert caught.value.kind.value == "quote_not_found"
    assert {d.title for d in await kb.documents()} == {"Tidal Rhythms", "Fox notes"}
    removed = await kb.remove(str(tmp_path / "notes.md"))
    assert removed.title == "Fox notes"
    assert [d.title for d in await kb.documents()] == ["Tidal Rhythms"]


async def test_ingest_many_reports_progress_and_stops_when_left(tmp_path: Path,
                                                                kb: Knowledge) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(6):
        (folder / f"n{i}.md").write_text(f"# Note {i}\n\nDistinct words number{i} here.\n")
    events = [e async for e in kb.ingest_many([str(folder)], concurrency=3)]
    assert [e.done for e in events] == [1, 2, 3, 4, 5, 6]
    assert {e.total for e in events} == {6}
    assert all(e.result.status is IngestStatus.NEW for e in events)
    again = kb.ingest_many([str(folder)], concurrency=1)
    async for event in again:
        assert event.result.status is IngestStatus.UNCHANGED
        break  # leaving early cancels the rest without hanging
    await again.aclose()  # type: ignore[attr-defined]


async def test_extraction_runs_off_the_event_loop(kb: Knowledge, local_server: LocalServer,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The extractor waits for an event only the event loop sets: were extraction on the
    loop, the loop could never set it and the ingest would hang (and fail here)."""
    released = threading.Event()
    entered = threading.Event()
    original = Html5libExtractor.extract_sync

    def gated(self: Html5libExtractor, *args: object) -> object:
        entered.set()
        assert released.wait(10), "the event loop was blocked"
        return original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Html5libExtractor, "extract_sync", gated)

    async def release_from_the_loop() -> None:
        while not entered.is_set():
            await anyio.sleep(0.01)
        released.set()

    with anyio.fail_after(20):
        async with anyio.create_task_group() as group:
            group.start_soon(release_from_the_loop)
            result = await kb.ingest(local_server.url("/tides"))
    assert result.status is IngestStatus.NEW


async def test_tools_in_both_formats(kb: Knowledge) -> None:
    openai = Knowledge.tools()
    anthropic = Knowledge.tools("anthropic")
    names = ["ingest_url", "crawl_site", "search_knowledge", "get_exact_quote",
             "verify_claim", "list_documents", "get_document", "get_sections"]
    assert [t["function"]["name"] for t in openai] == names
    assert [t["name"] for t in anthropic] == names
    for tool in anthropic:
        assert tool["input_schema"]["type"] == "object" and tool["description"]
    json.dumps(openai)  # plain JSON


async def test_the_tool_dispatcher_validates_and_cites(kb: Knowledge,
                                                       local_server: LocalServer) -> None:
    ingested = await kb.call_tool("ingest_url", {"url": local_server.url("/tides")})
    assert ingested["status"] == "new"
    document_id = ingested["document_id"]
    found = await kb.call_tool("search_knowledge", '{"query": "shoot density", "k": 2}')
    top = found["results"][0]
    assert top["title"] == "Tidal Rhythms" and top["rank"] == 1
    assert top["url"] == local_server.url("/tides")
    assert top["section"] == "results" and top["end"] > 0
    quoted = await kb.call_tool("get_exact_quote", {"document_id": document_id,
                                                    "text": "Seagrass grew with the tides."})
    assert quoted["quotes"][0]["text"] == "Seagrass grew with the tides."
    assert quoted["quotes"][0]["start"] >= 0
    listed = await kb.call_tool("list_documents", {})
    assert listed["documents"][0]["id"] == document_id
    shown = await kb.call_tool("get_document", {"document_id": document_id})
    assert shown["id"] == document_id and shown["history"][0]["sha256"]
    sections = await kb.call_tool("get_sections", {"document_id": document_id})
    assert {"methods", "results"} <= {s["label"] for s in sections["sections"]}
    bad = [
        ("search_knowledge", '{"k": 3}', "arguments.query is required"),
        ("search_knowledge", '{"query": "x", "k": 0}', "at least 1"),
        ("search_knowledge", '{"query": "x", "k": true}', "must be an integer"),
        ("search_knowledge", '{"query": "x", "colour": "red"}', "not a parameter"),
        ("search_knowledge", '{"query": "x", "mode": "magic"}', "must be one of"),
        ("search_knowledge", "{not json", "not JSON"),
        ("get_exact_quote", {"document_id": document_id}, "needs text or section"),
        ("launch_rockets", {}, "unknown tool"),
        ("ingest_url", {"url": "file:///etc/passwd"}, "not an http(s) URL"),
    ]
    for name, arguments, message in bad:
        answer = await kb.call_tool(name, arguments)
        assert message in answer["error"]["message"], (name, answer)
    missing = await kb.call_tool("get_exact_quote", {"document_id": document_id,
                                                     "text": "foxes raid the bins"})
    assert missing["error"]["kind"] == "quote_not_found"


async def test_context_block_is_cited_capped_and_cut_between_sentences(
        kb: Knowledge, local_server: LocalServer) -> None:
    await kb.ingest(local_server.url("/tides"))
    block = await kb.context_block("seagrass tides density storms", max_tokens=400)
    assert block.startswith("[1] ") and "— [1] Tidal Rhythms" in block
    assert local_server.url("/tides") in block and "characters " in block
    assert estimate_tokens(block) <= 400
    whole = block.split("\n")[0]
    assert whole.endswith("Growth stopped in the winter storms.")
    small = await kb.context_block("seagrass tides density storms", max_tokens=40)
    assert estimate_tokens(small) <= 40
    passage = small.split("\n")[0]
    assert passage.endswith("Seagrass grew with the tides.")  # cut after a whole sentence
    assert "Shoot density" not in small
    assert await kb.context_block("seagrass", max_tokens=5) == ""


async def test_local_files_are_cited_by_location_everywhere(kb: Knowledge,
                                                            tmp_path: Path) -> None:
    note = await kb.ingest(str(tmp_path / "notes.md"))
    path = (tmp_path / "notes.md").resolve()
    (hit,) = await kb.search("urban foxes bins", 1)
    assert hit.url is None and hit.location is not None
    assert hit.location.path == str(path) and hit.location.file_uri == path.as_uri()
    (quote,) = await kb.quote(str(note.document_id), "urban foxes eat from bins")
    assert quote.location.file_uri == path.as_uri()
    block = await kb.context_block("urban foxes bins", max_tokens=200)
    assert f"({path.as_uri()}; {note.document_id}, characters" in block
    found = await kb.call_tool("search_knowledge", {"query": "urban foxes", "k": 1})
    assert found["results"][0]["location"]["file_uri"] == path.as_uri()
    quoted = await kb.call_tool("get_exact_quote", {"document_id": note.document_id,
                                                    "text": "urban foxes eat from bins"})
    assert quoted["quotes"][0]["location"]["path"] == str(path)
    listed = await kb.call_tool("list_documents", {})
    assert listed["documents"][0]["location"]["file_name"] == "notes.md"


async def test_errors_inside_open_come_out_as_their_family(tmp_path: Path) -> None:
    import sheaf

    with pytest.raises(sheaf.NotFound) as caught:
        async with Knowledge.open(tmp_path / "kb.duckdb", embedder="hashing") as kb:
            await kb.quote("doc_none", "anything")
    assert caught.value.kind is sheaf.ErrorKind.DOCUMENT_NOT_FOUND
    assert not isinstance(caught.value, BaseExceptionGroup)
    with pytest.raises(sheaf.InvalidInput):
        async with Knowledge.open(tmp_path / "kb.duckdb", embedder="hashing") as kb:
            await kb.search("   ")
    with pytest.raises(KeyError):  # not only sheaf's own errors
        async with Knowledge.open(tmp_path / "kb.duckdb", embedder="hashing"):
            raise KeyError("mine")


def test_the_package_root_exports_the_public_types() -> None:
    import sheaf
    from sheaf.application.search.search import SearchHit
    from sheaf.domain import errors

    assert sheaf.SearchHit is SearchHit and sheaf.SheafError is errors.SheafError
    assert sheaf.NotFound is errors.NotFound and sheaf.Knowledge is Knowledge
    for name in sheaf.__all__:
        assert getattr(sheaf, name).__name__ == name
    assert sorted(sheaf.__all__) == sorted(dir(sheaf))
    with pytest.raises(AttributeError):
        sheaf.NoSuchThing  # noqa: B018


async def test_sources_are_read_without_a_store(tmp_path: Path,
                                                local_server: LocalServer) -> None:
    """`resolve` and `extract` store nothing; a failed input of `extract` comes as its
    error, and the inputs after it are still read."""
    local_server.add("/tides", PAGE, content_type="text/html")
    page = await Knowledge.resolve(local_server.url("/tides"), allow_private_network=True)
    assert page.title == "Tidal Rhythms" and "Shoot density doubled" in page.text
    (tmp_path / "notes.md").write_text(NOTES)
    found = [one async for one in Knowledge.extract(
        [str(tmp_path / "missing.md"), str(tmp_path / "notes.md"), local_server.url("/tides")],
        allow_private_network=True)]
    assert [one.source for one in found] == [str(tmp_path / "missing.md"),
                                             str(tmp_path / "notes.md"),
                                             local_server.url("/tides")]
    assert found[0].error is not None and found[0].error.kind.value == "input_not_found"
    assert found[1].extracted is not None and found[1].document.text.startswith("# Fox")
    assert found[2].resolved is not None and found[2].document.text == page.text
    with pytest.raises(SheafError):
        found[0].document  # noqa: B018 (the property raises the input's error)
    assert not list(tmp_path.glob("*.duckdb"))


async def test_a_local_file_is_read_and_extracted_in_one_worker_thread_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading, routing and extracting a local HTML, Markdown or CSV file is one
    hand-off to a worker thread (each costs a wake-up of a thread and of the loop, about
    what reading a page's file does), and none of it runs on the event loop."""
    from sheaf.adapters.files.filesystem_file_reader import FilesystemFileReader
    from sheaf.application.extraction.document_extraction import DocumentExtraction

    (tmp_path / "tides.html").write_text(PAGE)
    (tmp_path / "notes.md").write_text(NOTES)
    (tmp_path / "counts.csv").write_text("city,heron count\nLeeds,4\n")
    loop_thread = threading.get_ident()
    ran: list[tuple[str, int]] = []
    hand_offs: list[object] = []

    def recording(name: str, original: Callable[..., object]) -> Callable[..., object]:
        def recorded(*args: object, **kwargs: object) -> object:
            ran.append((name, threading.get_ident()))
            return original(*args, **kwargs)
        return recorded

    for owner, name in ((FilesystemFileReader, "read_sync"), (DocumentExtraction, "route"),
                        (Html5libExtractor, "extract_sync")):
        monkeypatch.setattr(owner, name, recording(name, getattr(owner, name)))
    original_run_sync = anyio.to_thread.run_sync

    async def counted(function: object, *args: object, **kwargs: object) -> object:
        hand_offs.append(function)
        return await original_run_sync(function, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    inputs = [str(tmp_path / name) for name in ("tides.html", "notes.md", "counts.csv")]
    found = [one async for one in Knowledge.extract(inputs)]
    assert [one.error for one in found] == [None, None, None]
    assert "Shoot density doubled" in found[0].document.text
    assert len(hand_offs) == 1 + len(inputs)  # building the extraction, then one a file
    assert [name for name, _ in ran].count("read_sync") == len(inputs)
    assert "extract_sync" in [name for name, _ in ran]
    assert all(thread != loop_thread for _, thread in ran)
