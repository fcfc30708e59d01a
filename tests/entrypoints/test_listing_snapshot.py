"""`sheaf list` from the listing a DuckDB store leaves beside it (ADR-0024): the same output
as reading the store, and used only while the file is as the listing describes it."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from sheaf.entrypoints.api import listing_snapshot
from tests.entrypoints.cli_runner import run

# A real DuckDB file, ingested into by the CLI for every test, then written by other
# connections, checkpointed, linked and moved: `make test-integration` (and .ci/run).
pytestmark = pytest.mark.integration

NOTES = {"tides.md": "# Tides\n\nSeagrass grew with the tides.\n",
         "foxes.md": "# Foxes\n\nUrban foxes eat from bins at night.\n",
         "kelp.md": "# Kelp\n\nKelp forests shelter fish.\n",
         "gulls.md": "Gulls follow the ferries.\n"}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    for name, text in NOTES.items():
        (tmp_path / name).write_text(text)
    path = tmp_path / "kb.duckdb"
    done = run("ingest", tmp_path / "tides.md", tmp_path / "foxes.md", "--metadata",
               "project=coast", "--store", path)
    assert done.exit_code == 0, done.output
    done = run("ingest", tmp_path / "kelp.md", "--space", "other", "--store", path)
    assert done.exit_code == 0, done.output
    return path


def listing_file(store: Path) -> Path:
    return store.with_name(store.name + listing_snapshot.SUFFIX)


def listed(store: Path, *flags: str) -> str:
    done = run("list", *flags, "--store", store)
    assert done.exit_code == 0, done.output
    return done.stdout


def from_the_store(store: Path, *flags: str) -> str:
    """What `list` prints when there is no listing, so it reads the store itself."""
    listing_file(store).unlink(missing_ok=True)
    return listed(store, *flags)


def retitled(store: Path, title: str) -> None:
    """Rewrite the listing's titles, keeping its header: a `list` that prints `title`
    printed from the listing."""
    lines = listing_file(store).read_text().removesuffix("\n").split("\n")
    spaces = [json.loads(line) for line in lines[1:]]
    for space in spaces:
        for document in space["documents"]:
            document["title"] = title
    listing_file(store).write_text("\n".join(
        [lines[0], *(json.dumps(space, ensure_ascii=False) for space in spaces)]) + "\n")


FLAG_SETS = [(), ("--json",), ("--space", "other"), ("--space", "other", "--json"),
             ("--space", "empty"), ("--space", "empty", "--json")]


@pytest.mark.parametrize("flags", FLAG_SETS)
def test_the_listing_prints_what_the_store_would(store: Path, flags: tuple[str, ...]) -> None:
    assert listing_file(store).exists()
    kept = listed(store, *flags)
    assert kept == from_the_store(store, *flags)
    if "empty" not in flags:
        assert kept.strip()


def test_the_listing_is_what_list_prints_while_the_file_is_unchanged(store: Path) -> None:
    retitled(store, "From the listing")
    assert "From the listing" in listed(store)
    assert "From the listing" not in listed(store, "--space", "empty")  # nothing there


def _commit_without_checkpoint(store: Path) -> None:
    connection = duckdb.connect(str(store))
    connection.execute("PRAGMA disable_checkpoint_on_shutdown")
    connection.execute("CREATE TABLE written_by_another_program (x INTEGER)")
    connection.close()
    assert Path(f"{store}.wal").exists()


def _commit_and_checkpoint(store: Path) -> None:
    connection = duckdb.connect(str(store))
    connection.execute("CREATE TABLE written_by_another_program (x INTEGER)")
    connection.close()
    assert not Path(f"{store}.wal").exists()


def _checkpoint_only(store: Path) -> None:
    connection = duckdb.connect(str(store))
    connection.execute("CHECKPOINT")  # nothing to write: the file may stay as it was
    connection.close()


@pytest.mark.parametrize("change", [_commit_without_checkpoint, _commit_and_checkpoint])
def test_a_file_changed_since_is_read_instead(store: Path, change: object) -> None:
    retitled(store, "From the listing")
    change(store)  # type: ignore[operator]
    shown = listed(store)
    assert "From the listing" not in shown
    assert "Tides" in shown
    # That `list` read the store, and left a listing of the file as it is now.
    assert listed(store) == shown
    assert listing_file(store).exists()


def test_opening_and_reading_the_store_keeps_its_listing(store: Path) -> None:
    _checkpoint_only(store)
    before = listing_file(store).read_bytes()
    assert run("search", "seagrass", "--mode", "bm25", "--store", store).exit_code == 0
    assert run("show", "Tides", "--store", store).exit_code in (0, 1)
    assert listing_file(store).read_bytes() == before


def test_every_write_leaves_a_listing_of_what_it_wrote(store: Path) -> None:
    folder = store.parent
    steps = [("remove", folder / "foxes.md"),
             ("ingest", folder / "gulls.md", "--space", "other"),
             ("compact",),
             ("ingest", folder / "foxes.md", "--metadata", "project=city")]
    (folder / "tides.md").write_text("# Tides, revised\n\nSeagrass grew faster.\n")
    steps.insert(1, ("ingest", folder / "tides.md"))
    for step in steps:
        done = run(*step, "--store", store)
        assert done.exit_code == 0, (step, done.output)
        for flags in (("--json",), ("--space", "other", "--json")):
            kept = listed(store, *flags)
            assert kept == from_the_store(store, *flags), step
    titles = {json.loads(line)["title"] for line in listed(store, "--json").splitlines()}
    assert titles == {"Tides, revised", "Foxes"}


def test_a_large_store_keeps_no_listing(store: Path, monkeypatch: pytest.MonkeyPatch
                                        ) -> None:
    assert listing_file(store).exists()
    monkeypatch.setattr(listing_snapshot, "LARGEST", 2)
    done = run("ingest", store.parent / "gulls.md", "--store", store)
    assert done.exit_code == 0, done.output
    assert not listing_file(store).exists()  # three documents: none, not a stale one
    assert "gulls.md" in listed(store)


def test_an_unreadable_listing_is_ignored(store: Path) -> None:
    expected = from_the_store(store)
    for damaged in ("", "not json\n", '{"format": 1}\n',
                    listing_file(store).read_text()[:-40]):
        listing_file(store).write_text(damaged)
        assert listed(store) == expected


def test_a_store_written_while_its_listing_is_gathered_keeps_none(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_state, real_listings = listing_snapshot.duckdb_file_state, listing_snapshot._listings
    written = False

    def state(path: str) -> str | None:
        return "another commit" if written else real_state(path)

    async def listings_then_a_commit(catalogue: object) -> object:
        nonlocal written
        gathered = await real_listings(catalogue)  # type: ignore[arg-type]
        written = True
        return gathered

    monkeypatch.setattr(listing_snapshot, "duckdb_file_state", state)
    monkeypatch.setattr(listing_snapshot, "_listings", listings_then_a_commit)
    done = run("ingest", store.parent / "gulls.md", "--store", store)
    assert done.exit_code == 0, done.output
    assert not listing_file(store).exists()


def test_a_symlinked_store_is_followed_to_the_file_and_log_it_names(store: Path) -> None:
    link = store.with_name("link.duckdb")
    link.symlink_to(store)
    assert listed(link) == listed(store)  # one listing, beside the file itself
    retitled(store, "From the listing")
    assert "From the listing" in listed(link)
    connection = duckdb.connect(str(link))  # DuckDB logs beside the file the link names
    connection.execute("PRAGMA disable_checkpoint_on_shutdown")
    connection.execute("CREATE TABLE written_by_another_program (x INTEGER)")
    connection.close()
    assert Path(f"{store}.wal").exists() and not Path(f"{link}.wal").exists()
    assert "From the listing" not in listed(link)


@pytest.mark.anyio
async def test_a_listing_is_written_beside_the_store_opened_not_the_directory_left_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sheaf import Knowledge

    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (first / "note.md").write_text("# Seagrass\n\nIt grew.\n")
    monkeypatch.chdir(first)
    async with Knowledge.open("kb.duckdb") as kb:
        await kb.ingest(str(first / "note.md"))
        monkeypatch.chdir(second)
    assert not (second / "kb.duckdb.listing").exists()
    assert "Seagrass" in listed(first / "kb.duckdb")
    assert (first / "kb.duckdb.listing").exists()


@pytest.mark.anyio
async def test_a_store_moved_away_before_it_closed_leaves_no_listing(tmp_path: Path) -> None:
    from sheaf import Knowledge

    (tmp_path / "note.md").write_text("# Seagrass\n\nIt grew.\n")
    async with Knowledge.open(tmp_path / "kb.duckdb") as kb:
        await kb.ingest(str(tmp_path / "note.md"))
        (tmp_path / "kb.duckdb").rename(tmp_path / "moved.duckdb")
    assert not (tmp_path / "kb.duckdb.listing").exists()
    assert not (tmp_path / "moved.duckdb.listing").exists()


def test_a_poisoned_listing_is_not_believed_and_closes_still_close(store: Path) -> None:
    expected = from_the_store(store)
    header = listing_file(store).read_text().split("\n")[0]
    listing_file(store).write_text(header + "\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    done = run("status", "--store", store)
    assert done.exit_code == 0, done.output
    assert listed(store) == expected
    assert Path(f"{store}.closed").exists()  # the close ran to its end


def test_a_line_separator_in_a_record_keeps_the_listing_readable(store: Path) -> None:
    note = store.parent / "separated.md"
    note.write_text("# Lines\u2028apart\n\nText.\n")
    done = run("ingest", note, "--metadata", "note=one\u2028two\u0085three", "--store", store)
    assert done.exit_code == 0, done.output
    retitled(store, "From the listing")
    assert "From the listing" in listed(store)


def test_the_listing_is_as_private_as_the_store(store: Path) -> None:
    store.chmod(0o600)
    done = run("ingest", store.parent / "gulls.md", "--store", store)
    assert done.exit_code == 0, done.output
    assert listing_file(store).stat().st_mode & 0o777 == 0o600
