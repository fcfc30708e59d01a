"""The FileReader contract, against the in-memory fake and the filesystem reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from sheaf.adapters.files.filesystem_file_reader import FilesystemFileReader
from sheaf.adapters.files.memory_file_reader import MemoryFileReader
from sheaf.application.ports.file_reader import FileReader
from sheaf.domain.errors import ErrorKind, SheafError

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["memory", "filesystem"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[FileReader, str]:
    files = {"notes/a.md": b"# A\n", "notes/deep/b.txt": b"b", "notes/c.bin": b"\0",
             "notes/empty.txt": b"", "notes/.hidden.md": b"# H\n",
             "notes/scan.dat": b"\x89PNG\r\n\x1a\n" + b"\0" * 20,
             "notes/fake.pdf": b"<!doctype html><title>Sign in</title>"}
    if request.param == "memory":
        root = "/r"
        return MemoryFileReader({f"{root}/{k}": v for k, v in files.items()}), root
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    return FilesystemFileReader(), str(tmp_path.resolve())


async def test_read_with_type_hint(world: tuple[FileReader, str]) -> None:
    reader, root = world
    local = await reader.read(f"{root}/notes/a.md", 1000)
    assert local.data == b"# A\n" and local.type_hint == "text/markdown"
    assert local.path.endswith("notes/a.md")


async def test_missing_and_too_large(world: tuple[FileReader, str]) -> None:
    reader, root = world
    with pytest.raises(SheafError) as missing:
        await reader.read(f"{root}/notes/none.md", 1000)
    assert missing.value.kind is ErrorKind.INPUT_NOT_FOUND
    with pytest.raises(SheafError) as large:
        await reader.read(f"{root}/notes/a.md", 2)
    assert large.value.kind is ErrorKind.TOO_LARGE


async def test_directories(world: tuple[FileReader, str]) -> None:
    reader, root = world
    assert await reader.is_directory(f"{root}/notes")
    assert not await reader.is_directory(f"{root}/notes/a.md")
    shallow = await reader.list_directory(f"{root}/notes", recursive=False)
    deep = await reader.list_directory(f"{root}/notes", recursive=True)
    # The bytes decide: a PNG named .dat is kept (OCR), binary and spoofed files are not.
    assert [Path(p).name for p in shallow.files] == ["a.md", "scan.dat"]
    assert {Path(s.path).name: s.reason for s in shallow.skipped} == {
        ".hidden.md": "hidden", "c.bin": "unsupported_content (binary data)",
        "empty.txt": "empty", "fake.pdf": "not_a_pdf (HTML)",
        "deep": "a folder: walked only with --recursive"}  # said, never dropped silently
    assert sorted(Path(p).name for p in deep.files) == ["a.md", "b.txt", "scan.dat"]
    assert len(deep.skipped) == 4


async def test_missing_directory(world: tuple[FileReader, str]) -> None:
    reader, root = world
    with pytest.raises(SheafError) as caught:
        await reader.list_directory(f"{root}/nowhere", recursive=True)
    assert caught.value.kind is ErrorKind.INPUT_NOT_FOUND
