"""The allowed folders hold against a writer swapping a file for a link while the server
reads it (issue 30, item 4): what is opened is checked, not what was named."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from sheaf import Knowledge
from sheaf.adapters.files import confined_opening
from sheaf.adapters.files.confined_opening import open_confined, read_descriptor
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.entrypoints.mcp.server import ServerSettings, build_server

SECRET = "hunter2 is the password of the vault."


@pytest.fixture
def folders(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    allowed, secret = tmp_path / "allowed", tmp_path / "secret"
    (allowed / "sub").mkdir(parents=True)
    secret.mkdir()
    (secret / "keys.md").write_text(f"# Keys\n\n{SECRET}\n")
    (allowed / "ok.md").write_text("# Fine\n\nA file the server may read.\n")
    yield allowed, secret


def _refused(path: Path, roots: list[str]) -> ErrorKind:
    with pytest.raises(SheafError) as caught:
        os.close(open_confined(str(path), roots))
    return caught.value.kind


def test_only_a_regular_file_reached_without_a_link_is_opened(
        folders: tuple[Path, Path]) -> None:
    allowed, secret = folders
    roots = [str(allowed)]
    assert read_descriptor(open_confined(str(allowed / "ok.md"), roots), 1000, "ok.md") \
        .startswith(b"# Fine")
    (allowed / "link.md").symlink_to(secret / "keys.md")
    (allowed / "door").symlink_to(secret, target_is_directory=True)
    (allowed / "inner.md").symlink_to(allowed / "ok.md")  # even a link that stays inside
    os.mkfifo(allowed / "pipe.md")
    assert _refused(allowed / "link.md", roots) is ErrorKind.PATH_NOT_ALLOWED
    assert _refused(allowed / "door" / "keys.md", roots) is ErrorKind.PATH_NOT_ALLOWED
    assert _refused(allowed / "inner.md", roots) is ErrorKind.PATH_NOT_ALLOWED
    assert _refused(allowed / "pipe.md", roots) is ErrorKind.PATH_NOT_ALLOWED
    assert _refused(allowed / "sub", roots) is ErrorKind.PATH_NOT_ALLOWED
    assert _refused(secret / "keys.md", roots) is ErrorKind.PATH_NOT_ALLOWED
    assert _refused(allowed / "missing.md", roots) is ErrorKind.INPUT_NOT_FOUND


def test_hard_links_are_refused_where_the_kernel_does_not_protect_them(
        folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    allowed, secret = folders
    os.link(secret / "keys.md", allowed / "hard.md")
    monkeypatch.setattr(confined_opening, "hard_links_protected", lambda: False)
    assert _refused(allowed / "hard.md", [str(allowed)]) is ErrorKind.PATH_NOT_ALLOWED
    monkeypatch.setattr(confined_opening, "hard_links_protected", lambda: True)
    os.close(open_confined(str(allowed / "hard.md"), [str(allowed)]))


@pytest.mark.anyio
async def test_a_writer_flipping_a_file_and_a_link_never_gets_the_secret_ingested(
        folders: tuple[Path, Path], tmp_path: Path) -> None:
    allowed, secret = folders
    flip = allowed / "flip.md"
    flip.write_text("# Harmless\n\nNothing to see in this note.\n")
    stop = threading.Event()

    def writer() -> None:
        # Atomic swaps of the name between a regular file and a link to the secret.
        count = 0
        while not stop.is_set():
            count += 1
            link, plain = allowed / f".l{count}", allowed / f".p{count}"
            link.symlink_to(secret / "keys.md")
            os.replace(link, flip)
            plain.write_text(f"# Harmless\n\nNothing to see in note {count}.\n")
            os.replace(plain, flip)

    thread = threading.Thread(target=writer, daemon=True)
    async with Knowledge.open(tmp_path / "kb.duckdb", embedder="hashing") as kb, \
            Client(build_server(kb, ServerSettings.of(folders=(allowed,)))) as client:
        thread.start()
        kinds: dict[str, int] = {}
        try:
            for _ in range(200):
                result = await client.call_tool("ingest_file", {"path": "flip.md"})
                kind = (result.structured_content["error"]["kind"] if result.is_error
                        else result.structured_content["status"])
                kinds[kind] = kinds.get(kind, 0) + 1
        finally:
            stop.set()
            thread.join()
        for document in await kb.documents():
            assert "hunter2" not in (await kb.document(document.id)).markdown
        assert not await kb.search("hunter2 password vault") or all(
            "hunter2" not in hit.text for hit in await kb.search("hunter2 password vault"))
    assert set(kinds) <= {"new", "changed", "unchanged", "path_not_allowed",
                          "input_not_found"}, kinds
    assert kinds.get("path_not_allowed", 0) > 0 and (kinds.get("new", 0) + kinds.get(
        "changed", 0)) > 0, kinds  # the race was run: both sides were seen
