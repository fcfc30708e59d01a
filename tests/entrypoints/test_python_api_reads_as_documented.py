"""The Python API as the README shows it: a hit has the fields its JSON record has
(`hit.start`, `hit.end`, ...), statuses and kinds print as their words, and an
`ingest_many` batch names each file it leaves out once."""

from __future__ import annotations

import enum
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import sheaf.domain
from sheaf import IngestProgress, Knowledge, SearchHit
from sheaf.adapters.files.memory_file_reader import MemoryFileReader
from sheaf.adapters.store.memory.knowledge_store import MemoryKnowledgeStore
from sheaf.domain.errors import ErrorKind
from sheaf.domain.store.ingestion import IngestStatus
from sheaf.entrypoints.api.composition import InjectedAdapters

pytestmark = pytest.mark.anyio
README = Path(__file__).resolve().parents[2] / "README.md"
NOTES = {"/notes/fox.md": b"# Foxes\n\n## Results\n\nFoxes wait for people to sleep.\n",
         "/notes/heron.md": b"# Herons\n\nHerons stand still in the shallows.\n",
         "/notes/empty.md": b"", "/notes/.hidden.md": b"# H\n\nx\n",
         "/notes/tool.bin": b"\x7fELF\x02\x01\x01" + bytes(64)}


def knowledge() -> Knowledge:
    adapters = InjectedAdapters(store=MemoryKnowledgeStore(), files=MemoryFileReader(NOTES))
    return Knowledge.open(embedder="none", adapters=adapters)  # type: ignore[return-value]


async def test_a_hit_has_the_fields_of_its_json_record() -> None:
    async with knowledge() as kb:
        [e async for e in kb.ingest_many(["/notes"])]
        (hit,) = await kb.search("people sleep", 1)
        markdown = (await kb.document(hit.document_id)).markdown
    record = hit.as_dict()
    for name, value in record.items():
        own = getattr(hit, name)
        if name == "location":
            own = own.as_dict()
        if isinstance(own, float):  # the record rounds scores to 6 places
            own = round(own, 6)
        assert (list(own) if isinstance(own, tuple) else own) == value, name
    assert markdown[hit.start:hit.end] == hit.text
    assert hit.section == "results"


async def test_each_left_out_file_is_reported_once() -> None:
    async with knowledge() as kb:
        events = [e async for e in kb.ingest_many(["/notes"], concurrency=1)]
    assert len(events) == 2
    every = [s.path for e in events for s in e.skipped]
    assert sorted(every) == ["/notes/.hidden.md", "/notes/empty.md", "/notes/tool.bin"]
    assert events[0].skipped and not events[1].skipped


async def test_a_status_prints_as_its_word() -> None:
    async with knowledge() as kb:
        result = await kb.ingest("/notes/fox.md")
    assert str(result.status) == "new" and f"{result.status}" == "new"
    assert f"{result.status:>5}" == "  new"
    assert result.status is IngestStatus.NEW and result.status != "new"


def test_every_enumeration_of_the_domain_prints_as_its_word() -> None:
    found: list[type[enum.Enum]] = []
    for module in pkgutil.walk_packages(sheaf.domain.__path__, "sheaf.domain."):
        for value in vars(importlib.import_module(module.name)).values():
            if isinstance(value, type) and issubclass(value, enum.Enum) and \
                    value.__module__ == module.name:
                found.append(value)
    assert IngestStatus in found and ErrorKind in found
    for kind in found:
        for member in kind:
            assert str(member) == str(member.value), member


def test_the_readme_names_only_attributes_that_exist() -> None:
    text = README.read_text(encoding="utf-8")
    names = {"hit": SearchHit, "hits[0]": SearchHit, "progress": IngestProgress}
    for holder, kind in names.items():
        used = set(re.findall(rf"`?{re.escape(holder)}\.([a-z_]+)", text))
        assert used, holder
        assert {name for name in used if not hasattr(kind, name)} == set(), holder
    assert {"start", "end"} <= set(re.findall(r"`hit\.([a-z_]+)`", text))
