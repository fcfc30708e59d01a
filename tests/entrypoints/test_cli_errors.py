"""Exit codes and error kinds of every command: usage errors exit 2 (click's own), a bad
environment variable exits 2 naming it (`configuration`) in the commands that use it and
is never read by the others; failures keep the README's codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from sheaf.entrypoints.cli.cli import sheaf
from tests.entrypoints.cli_runner import run
from tests.entrypoints.test_cli_reference import commands

FETCH = ("SHEAF_MAX_BYTES", "25MB")
EMBEDDER = ("SHEAF_EMBEDDING_DIMENSION", "big")
LANGUAGE_MODEL = ("SHEAF_LLM_CONCURRENCY", "many")
UNREACHABLE_QUEUE = "postgresql://sheaf@127.0.0.1:9/none"
# command: (arguments that reach its work, the bad variables it must refuse, those it
# must never read)
READS = {
    "resolve": (["https://example.org/"], [FETCH], [EMBEDDER, LANGUAGE_MODEL]),
    "extract": (["{note}"], [FETCH], [EMBEDDER, LANGUAGE_MODEL]),
    "ingest": (["{note}"], [FETCH, EMBEDDER, LANGUAGE_MODEL], []),
    "reconcile": (["--batch", "{batch}"], [FETCH, EMBEDDER], [LANGUAGE_MODEL]),
    "list": ([], [EMBEDDER], [FETCH, LANGUAGE_MODEL]),
    "show": (["doc_none"], [EMBEDDER], [FETCH, LANGUAGE_MODEL]),
    "remove": (["doc_none"], [EMBEDDER], [FETCH, LANGUAGE_MODEL]),
    "sections": (["doc_none"], [EMBEDDER], [FETCH, LANGUAGE_MODEL]),
    "chunks": (["doc_none"], [EMBEDDER], [FETCH, LANGUAGE_MODEL]),
    "quote": (["doc_none", "--sentence", "1"], [EMBEDDER], [FETCH, LANGUAGE_MODEL]),
    "search": (["seagrass"], [EMBEDDER], [FETCH, LANGUAGE_MODEL]),
    "verify": (["Seagrass grows."], [EMBEDDER], [FETCH, LANGUAGE_MODEL]),
    "reindex": ([], [EMBEDDER, LANGUAGE_MODEL], [FETCH]),
    "status": ([], [], [FETCH, EMBEDDER, LANGUAGE_MODEL]),
    "compact": ([], [], [FETCH, EMBEDDER, LANGUAGE_MODEL]),
    "repair": ([], [], [FETCH, EMBEDDER, LANGUAGE_MODEL]),
    "space": (["papers"], [], [FETCH, EMBEDDER, LANGUAGE_MODEL]),
    "eval retrieval": (["{none}"], [EMBEDDER], [FETCH, LANGUAGE_MODEL]),
    "serve": (["--port", "0"], [FETCH, EMBEDDER, LANGUAGE_MODEL], []),
    "mcp": ([], [FETCH, EMBEDDER, LANGUAGE_MODEL], []),
    # An unreachable queue (port 9): the work is reached, and fails as `storage`.
    "worker": (["--queue-url", UNREACHABLE_QUEUE], [FETCH, EMBEDDER, LANGUAGE_MODEL], []),
    "batch": (["b1", "--queue-url", UNREACHABLE_QUEUE], [],
              [FETCH, EMBEDDER, LANGUAGE_MODEL]),
}
STORELESS = {"resolve", "extract", "eval retrieval"}
WITHOUT_SETTINGS = {"demo", "version", "model install"}
ALL = sorted(name for name, _ in commands(sheaf))


def test_every_command_is_covered() -> None:
    assert set(READS) | WITHOUT_SETTINGS == set(ALL)


def arguments(name: str, tmp_path: Path) -> list[str]:
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nSeagrass grows.\n")
    batch = tmp_path / "batch.txt"
    batch.write_text(f"{note}\n")
    given = [a.format(note=note, batch=batch, none=tmp_path / "none") for a in READS[name][0]]
    store = [] if name in STORELESS else ["--store", str(tmp_path / "kb.duckdb")]
    return [*name.split(), *given, *store]


@pytest.mark.parametrize("name", ALL)
def test_an_unknown_flag_is_a_usage_error(name: str) -> None:
    done = run(*name.split(), "--no-such-flag")
    assert done.exit_code == 2 and "No such option '--no-such-flag'" in done.stderr


@pytest.mark.parametrize("name", sorted(READS))
def test_a_bad_variable_the_command_uses_exits_2_naming_it(name: str, tmp_path: Path
                                                            ) -> None:
    for variable, value in [*READS[name][1], ("LOG_LEVEL", "chatty")]:
        done = run(*arguments(name, tmp_path), env={variable: value})
        assert done.exit_code == 2, (variable, done.output)
        assert done.stderr.startswith(f"sheaf: error: configuration: {variable}: "), \
            done.stderr
        assert value in done.stderr and "Traceback" not in done.output


@pytest.mark.parametrize("name", sorted(n for n in READS
                                         if n not in ("resolve", "serve", "mcp")))
def test_a_bad_variable_the_command_does_not_use_is_never_read(name: str, tmp_path: Path
                                                                ) -> None:
    expected = run(*arguments(name, tmp_path))
    assert "configuration" not in expected.stderr
    for variable, value in READS[name][2]:
        done = run(*arguments(name, tmp_path), env={variable: value})
        assert "configuration" not in done.stderr, (variable, done.stderr)
        assert done.exit_code == expected.exit_code, (variable, done.output)


def test_the_issue_example_list_works_and_ingest_names_the_variable(tmp_path: Path) -> None:
    store = tmp_path / "kb.duckdb"
    (tmp_path / "fox.md").write_text("# Fox\n\nFoxes wait.\n")
    assert run("ingest", tmp_path / "fox.md", "--store", store).exit_code == 0
    listed = run("list", "--store", store, env={"SHEAF_MAX_BYTES": "25MB"})
    assert listed.exit_code == 0, listed.output
    refused = run("ingest", tmp_path, "--store", store, env={"SHEAF_MAX_BYTES": "25MB"})
    assert refused.exit_code == 2
    assert refused.stderr == ("sheaf: error: configuration: SHEAF_MAX_BYTES: wants a whole "
                              "number, not '25MB'\n")


@pytest.mark.parametrize("argv", [
    ["quote", "doc_x"],
    ["quote", "doc_x", "--text", "a", "--sentence", "2"],
    ["quote", "doc_x", "--lines", "one-two"],
    ["quote", "doc_x", "--sentence", "0"],
    ["show", "doc_x", "--markdown", "--json"],
    ["search"],
    ["search", "x", "--mode", "psychic"],
    ["search", "x", "--meta", "no-equals-sign"],
    ["ingest"],
    ["ingest", "x", "--metadata", "=value"],
    ["ingest", "x", "--concurrency", "0"],
    ["status", "--space", "papers"],
    ["space"],
    ["serve", "--host", "0.0.0.0"],
    ["extract"],
    ["eval"],
    ["model"],
])
def test_usage_errors_exit_2(argv: list[str], tmp_path: Path) -> None:
    done = run(*argv, "--store", tmp_path / "kb.duckdb") if argv[0] not in (
        "extract", "eval", "model") else run(*argv)
    assert done.exit_code == 2, done.output
    assert "Traceback" not in done.output


def test_a_bad_embedder_is_a_configuration_error_naming_its_source(tmp_path: Path) -> None:
    store = tmp_path / "kb.duckdb"
    flag = run("list", "--store", store, "--embedder", "word2vec")
    assert flag.exit_code == 2 and "configuration: --embedder: unknown embedder" in flag.stderr
    variable = run("list", "--store", store, env={"SHEAF_EMBEDDER": "word2vec"})
    assert variable.exit_code == 2
    assert "configuration: SHEAF_EMBEDDER: unknown embedder" in variable.stderr


def test_failures_keep_their_exit_codes(tmp_path: Path) -> None:
    store = tmp_path / "kb.duckdb"
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nOne sentence here.\n")
    assert run("ingest", note, "--store", store).exit_code == 0
    missing = run("show", "doc_none", "--store", store)
    assert missing.exit_code == 1 and "document_not_found" in missing.stderr
    beyond = run("quote", note, "--sentence", "99", "--store", store)
    assert beyond.exit_code == 2 and "out_of_range" in beyond.stderr
    absent = run("quote", note, "--text", "foxes raid bins", "--store", store)
    assert absent.exit_code == 1 and "quote_not_found" in absent.stderr
    queries = tmp_path / "queries.jsonl"
    queries.write_text("{not json\n")
    broken = run("search", "--queries", queries, "--store", store)
    assert broken.exit_code == 2 and "invalid_query" in broken.stderr
    unreadable = run("extract", tmp_path / "none.html")
    assert unreadable.exit_code == 3 and "input_not_found" in unreadable.stderr


@pytest.mark.parametrize("command", [["serve"], ["mcp", "--http"]])
def test_a_port_already_taken_is_a_configuration_error(command: list[str],
                                                       tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run(*command, "--port", str(port), "--store", tmp_path / "kb.duckdb")
    assert result.exit_code == 2, result.output
    assert f"configuration: --port: cannot listen on 127.0.0.1:{port}" in result.stderr


def test_the_readme_lists_every_kind_under_the_exit_code_it_gets() -> None:
    import re

    from sheaf.domain.errors import ErrorKind, SheafError
    from sheaf.entrypoints.cli.cli import exit_code

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    paragraph = readme[readme.index("Exit codes follow"):].split("\n\n")[0]
    # "1 ... (kinds); 2 ... (kinds); ...": each code's clause runs to the next "; N ".
    clauses = re.split(r";\s+(?=\d+\s)", " ".join(paragraph.split()))
    listed: dict[str, int] = {}
    for clause in clauses:
        code = re.match(r"(?:.*?:\s+)?(\d+)\s", clause)
        if code is None:
            continue
        for word in re.findall(r"[a-z_]+", clause):
            if word in ErrorKind._value2member_map_:
                listed[word] = int(code.group(1))
    missing = {k.value for k in ErrorKind} - set(listed)
    assert not missing, f"kinds the README's exit codes do not list: {missing}"
    for kind in ErrorKind:
        assert exit_code(SheafError(kind, "x")) == listed[kind.value], kind


def test_a_relative_file_path_finds_its_document_from_any_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "kb.duckdb"
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "fox.md").write_text("# Foxes\n\nFoxes wait for people to sleep.\n")
    monkeypatch.chdir(tmp_path)
    assert run("ingest", "notes/fox.md", "--store", store).exit_code == 0
    monkeypatch.chdir(tmp_path / "notes")
    shown = run("show", "fox.md", "--store", store)
    assert shown.exit_code == 0 and "Foxes" in shown.stdout
    assert run("show", "fox.md", "--store", store, "--json").exit_code == 0
