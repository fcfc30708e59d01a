"""The digest that tells a DuckDB file's committed states apart without opening it
(ADR-0024): it changes with every commit and checkpoint, not with reading."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.adapters.store.duckdb.file_state import duckdb_file_state
from tests.property_examples import examples


def test_no_file_has_no_state(tmp_path: Path) -> None:
    assert duckdb_file_state(str(tmp_path / "missing.duckdb")) is None


def test_reading_leaves_the_state_and_writing_changes_it(tmp_path: Path) -> None:
    path = str(tmp_path / "kb.duckdb")
    connection = duckdb.connect(path)
    connection.execute("CREATE TABLE t (x INTEGER)")
    connection.close()
    seen = {duckdb_file_state(path)}
    connection = duckdb.connect(path)
    connection.execute("SELECT count(*) FROM t").fetchall()
    connection.close()
    assert duckdb_file_state(path) in seen  # opened, read and closed: the same file
    connection = duckdb.connect(path)
    connection.execute("INSERT INTO t VALUES (1)")  # committed to the log
    assert duckdb_file_state(path) not in seen
    seen.add(duckdb_file_state(path))
    connection.execute("CHECKPOINT")  # written into the file, the log emptied
    assert duckdb_file_state(path) not in seen
    seen.add(duckdb_file_state(path))
    connection.close()


def test_a_copy_swapped_in_is_another_file(tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    duckdb.connect(str(path)).close()
    before = duckdb_file_state(str(path))
    shutil.copy2(path, tmp_path / "copy.duckdb")  # same bytes and times, another inode
    (tmp_path / "copy.duckdb").replace(path)
    assert duckdb_file_state(str(path)) != before


@settings(max_examples=examples(15), deadline=None)
@given(st.lists(st.sampled_from(["insert", "insert same", "checkpoint", "read"]),
                min_size=1, max_size=8))
def test_every_commit_and_checkpoint_gives_a_state_not_seen_before(
        tmp_path_factory: object, steps: list[str]) -> None:
    folder = tmp_path_factory.mktemp("state")  # type: ignore[attr-defined]
    path = str(folder / "kb.duckdb")
    connection = duckdb.connect(path)
    connection.execute("PRAGMA disable_checkpoint_on_shutdown")
    connection.execute("CREATE TABLE t (x INTEGER)")
    seen = {duckdb_file_state(path)}
    logged = True  # the table's creation
    for number, step in enumerate(steps):
        if step == "read":
            connection.execute("SELECT count(*) FROM t").fetchall()
            assert duckdb_file_state(path) in seen
            continue
        if step == "checkpoint":
            connection.execute("CHECKPOINT")
            if not logged:  # nothing in the log: the file may be left as it was
                seen.add(duckdb_file_state(path))
                continue
        else:  # the same statement again writes a log record of the same size
            connection.execute("INSERT INTO t VALUES (?)",
                               [1 if step == "insert same" else number])
        logged = step != "checkpoint"
        state = duckdb_file_state(path)
        assert state not in seen, (step, steps)
        seen.add(state)
    connection.close()
