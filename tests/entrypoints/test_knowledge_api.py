"""`KnowledgeApi`: `Knowledge` and `HeldKnowledge` have its methods, signature for
signature, and a held store answers each with the very records (equal, field for field)
and the very errors the knowledge base gives in its own process."""

from __future__ import annotations

import inspect
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import attrs
import pytest
from aiohttp import web

from sheaf import Knowledge, SheafError
from sheaf.adapters.files.memory_file_reader import MemoryFileReader
from sheaf.adapters.store.memory.knowledge_store import MemoryKnowledgeStore
from sheaf.domain.store.ingestion import IngestStatus
from sheaf.entrypoints.api.composition import InjectedAdapters
from sheaf.entrypoints.api.held_store import HolderRecord
from sheaf.entrypoints.api.knowledge_api import KnowledgeApi
from sheaf.entrypoints.holder.held_knowledge import HeldKnowledge
from sheaf.entrypoints.holder.holder_api import HeldRequests, build_holder_app
from sheaf.entrypoints.holder.holder_client import HolderClient, HolderUnreachable

FILES = {
    "/notes/tides.md": b"# Tides\n\n## Methods\n\nWe counted seagrass shoots at low tide.\n\n"
                       b"## Results\n\nSeagrass grew with the tides. Shoot density doubled. "
                       b"The tide came in twice a day.\n",
    "/notes/foxes.md": b"# Foxes\n\n## Results\n\nUrban foxes eat from bins at night.\n",
    "/inbox/owls.md": b"# Owls\n\nOwls hunt at dusk.\n",
    "/inbox/.hidden.md": b"# Hidden\n\nNot for a listing.\n",
}
OPERATIONS = [name for name, value in vars(KnowledgeApi).items()
              if callable(value) and not name.startswith("_")]


def test_both_implementations_have_the_methods_of_the_api() -> None:
    assert len(OPERATIONS) == 19  # verify (issue 28), documents_page (issue 35)
    for name in OPERATIONS:
        wanted = inspect.signature(getattr(KnowledgeApi, name))
        for implementation in (Knowledge, HeldKnowledge):
            found = inspect.signature(getattr(implementation, name))
            assert found.parameters == wanted.parameters, (implementation, name)
            if name != "with_space":  # each returns its own kind
                assert found.return_annotation == wanted.return_annotation, name


@attrs.frozen
class Pair:
    local: Knowledge
    held: HeldKnowledge
    holder: HolderRecord


@pytest.fixture
async def pair() -> AsyncIterator[Pair]:
    """A knowledge base on fakes, and the same one through a holder's API on loopback."""
    adapters = InjectedAdapters(store=MemoryKnowledgeStore(), files=MemoryFileReader(FILES))
    async with Knowledge.open(embedder="hashing", adapters=adapters) as kb:
        await kb.ingest("/notes/tides.md", metadata={"team": "blue"}, source_id="tides-1")
        await kb.ingest("/notes/foxes.md")
        runner = web.AppRunner(build_holder_app(kb, "secret", HeldRequests()),
                               access_log=None)
        await runner.setup()
        try:
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            record = HolderRecord(os.getpid(), "sheaf test",
                                  f"http://127.0.0.1:{runner.addresses[0][1]}", "secret")
            client = HolderClient(record)
            try:
                yield Pair(kb, HeldKnowledge(client, kb.space), record)
            finally:
                client.close()
        finally:
            await runner.cleanup()


async def same(pair: Pair, call: Callable[[KnowledgeApi], Awaitable[Any]]) -> Any:
    """What `call` gives on both, asserted equal; or the error both raise, alike."""
    outcomes = []
    for kb in (pair.local, pair.held):
        try:
            outcomes.append(await call(kb))
        except SheafError as exc:
            outcomes.append((type(exc), exc.kind, exc.message))
    assert outcomes[0] == outcomes[1]
    return outcomes[0]


pytestmark = pytest.mark.anyio


async def test_the_records_a_held_store_sends_are_the_records_themselves(pair: Pair
                                                                         ) -> None:
    documents = await same(pair, lambda kb: kb.documents())
    assert len(documents) == 2 and documents[0].created_at is not None
    tides = next(d for d in documents if d.title == "Tides")
    assert (await same(pair, lambda kb: kb.record("tides-1"))) == tides
    stored = await same(pair, lambda kb: kb.document("/notes/tides.md"))
    assert stored.record == tides and stored.markdown.startswith("# Tides")
    assert len(await same(pair, lambda kb: kb.sections(tides.id))) == 2
    await same(pair, lambda kb: kb.chunks(tides.id))
    await same(pair, lambda kb: kb.chunks(tides.id, retrieval_prefix=False))
    assert (await same(pair, lambda kb: kb.status())).spaces[0].documents == 2
    await same(pair, lambda kb: kb.policy())


async def test_searches_and_quotes_come_back_alike(pair: Pair) -> None:
    hits = await same(pair, lambda kb: kb.search("seagrass tide", 5))
    assert hits and hits[0].title == "Tides"
    await same(pair, lambda kb: kb.search(
        "tide", 3, mode="bm25", section="results", document=["/notes/tides.md"],
        source="raw", metadata={"team": "blue"}, expand="parent-section"))
    await same(pair, lambda kb: kb.search("tide", metadata=[("team", "blue")],
                                          group_by_document=True, with_documents=False,
                                          expand="snippet-window", window=2))
    await same(pair, lambda kb: kb.quote("tides-1", "shoot density doubled"))
    await same(pair, lambda kb: kb.quote("tides-1", "tide", find_all=True))
    await same(pair, lambda kb: kb.quote("tides-1", section="results", first=1))
    await same(pair, lambda kb: kb.quote("tides-1", lines=(1, 2)))
    await same(pair, lambda kb: kb.quote("tides-1", sentence=2))
    await same(pair, lambda kb: kb.quote("tides-1", paragraph=1))
    await same(pair, lambda kb: kb.quote("tides-1", "shoot density tripled", mode="locate"))
    await same(pair, lambda kb: kb.check_quote("tides-1", "Shoot density tripled."))
    await same(pair, lambda kb: kb.verify("Seagrass grew with the tides. Foxes fly.",
                                          document=["/notes/tides.md"], k=3))


async def test_failures_come_back_as_the_same_typed_errors(pair: Pair) -> None:
    for call in (lambda kb: kb.record("no-such-document"),
                 lambda kb: kb.quote("tides-1", "not in the text at all"),
                 lambda kb: kb.quote("tides-1", "Shoot density tripled."),
                 lambda kb: kb.verify("   "),
                 lambda kb: kb.quote("tides-1"),
                 lambda kb: kb.search("   "),
                 lambda kb: kb.set_policy(allowed_kinds=["paper"])):
        kind, *_ = await same(pair, call)
        assert issubclass(kind, SheafError)


async def test_what_a_held_store_is_asked_to_change_is_changed(pair: Pair) -> None:
    policy = await pair.held.set_policy(max_bytes=4096, allowed_kinds=["raw"], enrich="")
    assert policy == await pair.local.policy() and policy.max_bytes == 4096
    listing = await pair.held.listing(["/inbox"])
    assert listing == await pair.local.listing(["/inbox"])
    events = [e async for e in pair.held.ingest_many(listing, metadata={"team": "red"})]
    assert [(e.done, e.total, e.result.status) for e in events] == [(1, 1, IngestStatus.NEW)]
    assert events[0].skipped == listing.skipped and listing.skipped
    owls = await pair.local.record("/inbox/owls.md")
    assert owls.current.caller_metadata == {"team": "red"}
    again = await pair.held.ingest("/inbox/owls.md")
    assert again.status is IngestStatus.UNCHANGED and again.source == "/inbox/owls.md"
    removed = await pair.held.remove("/inbox/owls.md")
    assert removed == owls
    assert {d.title for d in await pair.local.documents()} == {"Tides", "Foxes"}
    other = pair.held.with_space("other")
    assert other.space == "other" and await other.documents() == []


async def test_a_holder_that_refuses_the_token_is_no_holder(pair: Pair) -> None:
    stranger = HolderClient(attrs.evolve(pair.holder, token="guessed"))
    try:
        with pytest.raises(HolderUnreachable):
            await HeldKnowledge(stranger, "default").documents()
    finally:
        stranger.close()


async def test_an_address_that_answers_but_holds_nothing_is_no_holder(pair: Pair,
                                                                      tmp_path: Path
                                                                      ) -> None:
    """What a holder of another sheaf version (the public API, as holders served before)
    answers to a held operation: the command opens the store itself."""
    from sheaf.entrypoints.http.http_api import ApiSettings, build_app

    runner = web.AppRunner(build_app(pair.local, ApiSettings(uploads=tmp_path)),
                           access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        public = HolderClient(attrs.evolve(
            pair.holder, url=f"http://127.0.0.1:{runner.addresses[0][1]}"))
        try:
            with pytest.raises(HolderUnreachable, match="another version of sheaf"):
                await HeldKnowledge(public, "default").documents()
        finally:
            public.close()
    finally:
        await runner.cleanup()
