"""The allowed folders: whatever spelling a model tries, a path that resolves outside them
is refused, links included."""

from __future__ import annotations

from pathlib import Path

import pytest

from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.entrypoints.mcp.allowed_folders import AllowedFolders


@pytest.fixture
def layout(tmp_path: Path) -> tuple[AllowedFolders, Path, Path]:
    allowed, secret = tmp_path / "allowed", tmp_path / "secret"
    (allowed / "sub").mkdir(parents=True)
    secret.mkdir()
    (allowed / "a.md").write_text("# A\n")
    (allowed / "sub" / "b.md").write_text("# B\n")
    (secret / "keys.txt").write_text("hunter2\n")
    (allowed / "link-out.txt").symlink_to(secret / "keys.txt")
    (allowed / "folder-out").symlink_to(secret, target_is_directory=True)
    (allowed / "link-in.md").symlink_to(allowed / "a.md")
    return AllowedFolders.of([allowed]), allowed, secret


def test_paths_inside_are_resolved(layout: tuple[AllowedFolders, Path, Path]) -> None:
    folders, allowed, _ = layout
    assert folders.resolve("a.md") == allowed / "a.md"
    assert folders.resolve(str(allowed / "sub" / "b.md")) == allowed / "sub" / "b.md"
    assert folders.resolve("sub/../a.md") == allowed / "a.md"
    assert folders.resolve("link-in.md") == allowed / "a.md"


@pytest.mark.parametrize("spelling", [
    "../secret/keys.txt", "sub/../../secret/keys.txt", "link-out.txt",
    "folder-out/keys.txt", "{secret}/keys.txt", "/etc/hostname", "/", "..",
])
def test_every_way_out_is_refused(layout: tuple[AllowedFolders, Path, Path],
                                  spelling: str) -> None:
    folders, _, secret = layout
    with pytest.raises(SheafError) as refused:
        folders.resolve(spelling.format(secret=secret))
    assert refused.value.kind is ErrorKind.PATH_NOT_ALLOWED


def test_a_folder_lists_only_files_that_stay_inside(
        layout: tuple[AllowedFolders, Path, Path]) -> None:
    folders, allowed, _ = layout
    assert folders.files_under(allowed) == [allowed / "a.md", allowed / "sub" / "b.md"]


def test_missing_inside_and_no_folders_at_all(
        layout: tuple[AllowedFolders, Path, Path]) -> None:
    folders, _, _ = layout
    with pytest.raises(SheafError) as missing:
        folders.resolve("nope.md")
    assert missing.value.kind is ErrorKind.INPUT_NOT_FOUND
    with pytest.raises(SheafError) as none:
        AllowedFolders().resolve("a.md")
    assert none.value.kind is ErrorKind.PATH_NOT_ALLOWED
    with pytest.raises(SheafError, match="not a folder"):
        AllowedFolders.of(["/no/such/folder"])


def test_unusable_spellings_are_typed_errors(layout: tuple[AllowedFolders, Path, Path]
                                             ) -> None:
    folders, allowed, _ = layout
    (allowed / "loop").symlink_to(allowed / "loop")
    for spelling in ("a\x00b.md", "~no-such-user-anywhere/x.md", "loop"):
        with pytest.raises(SheafError) as refused:
            folders.resolve(spelling)
        assert refused.value.kind in (ErrorKind.INVALID_QUERY, ErrorKind.PATH_NOT_ALLOWED,
                                      ErrorKind.INPUT_NOT_FOUND), spelling
