"""Commands import only what they use: whole `sheaf` processes under `python -X importtime`,
their imported modules read from its report (a structural check, never a timing)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXTRACTION = ("html5lib", "pdfminer", "pikepdf", "pypdfium2")
HEAVY = (*EXTRACTION, "aiohttp", "numpy", "mcp", "onnxruntime")
pytestmark = pytest.mark.integration  # whole processes: `make test-integration`


# What `sheaf list` does not use: the use cases beyond the catalogue and the domain
# modules behind chunks, structure, quotes and search (each was imported by a package's
# or the facade's top level before).
NOT_FOR_LISTING = (
    "sheaf.application.search.search",
    "sheaf.application.quotes.quotes",
    "sheaf.application.store.document_structure",
    "sheaf.application.ingestion.reindexing",
    "sheaf.application.enrichment.enrichment",
    "sheaf.application.search.retrieval_evaluation",
    "sheaf.application.ingestion.ingestion",
    "sheaf.entrypoints.api.agent_tools",
    "sheaf.domain.analysis.chunking",
    "sheaf.domain.analysis.sections",
    "sheaf.domain.analysis.sentences",
    "sheaf.domain.store.document_analysis",
    "sheaf.domain.quotes.quote_verification",
    "sheaf.domain.search.context_block",
    "sheaf.domain.routing.routing",
    "sheaf.domain.analysis.token_counting",
    "sheaf.domain.document.document",
    "sheaf.domain.document.resolved_content",
    "sheaf.domain.document.diagnostics",
)


def imported_modules(argv: list[str], env: dict[str, str], *,
                     program: tuple[str, ...] = ("-m", "sheaf.entrypoints.cli.cli")) -> set[str]:
    """Every module the process imported, by its full dotted name."""
    done = subprocess.run([sys.executable, "-X", "importtime", *program, *argv],
                          capture_output=True, text=True, check=False, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip()
            for line in done.stderr.splitlines() if line.startswith("import time:")
            and "|" in line}


def imported(argv: list[str], env: dict[str, str], *,
             program: tuple[str, ...] = ("-m", "sheaf.entrypoints.cli.cli")) -> set[str]:
    """The top-level packages the process imported."""
    return {name.split(".")[0] for name in imported_modules(argv, env, program=program)}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    folder = tmp_path_factory.mktemp("startup")
    (folder / "note.md").write_text("# Tides\n\nSeagrass grew with the tides.\n")
    path = folder / "kb.duckdb"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(folder),
           "SHEAF_STORE": str(path)}
    done = subprocess.run([sys.executable, "-m", "sheaf.entrypoints.cli.cli", "ingest",
                           str(folder / "note.md")], capture_output=True, text=True,
                          check=False, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return path, env


def test_version_and_help_load_neither_the_store_nor_the_extraction_stack(
        store: tuple[Path, dict[str, str]]) -> None:
    _, env = store
    version = imported(["--version"], env)
    assert not version & {*HEAVY, "duckdb", "attrs", "anyio"}
    # The console script answers `--version` before click is even imported.
    script = str(Path(sys.executable).parent / "sheaf")
    assert not imported(["--version"], env, program=(script,)) & {"click", "duckdb", "attrs"}
    for argv in (["--help"], ["ingest", "--help"], ["search", "--help"]):
        assert not imported(argv, env) & {*HEAVY, "duckdb"}, argv


def without_listing(path: Path) -> None:
    """Drop the listing the store keeps beside it (ADR-0024): the next `list` opens it."""
    Path(f"{path}.listing").unlink()


def test_list_prints_the_listing_kept_beside_the_store_without_opening_it(
        store: tuple[Path, dict[str, str]]) -> None:
    path, env = store
    script = str(Path(sys.executable).parent / "sheaf")
    assert Path(f"{path}.listing").exists()  # the ingest left it
    listing = imported(["list"], env, program=(script,))
    assert not listing & {*HEAVY, "duckdb", "anyio"}


def test_list_and_a_bm25_search_read_the_store_without_the_http_or_extraction_stack(
        store: tuple[Path, dict[str, str]]) -> None:
    path, env = store
    without_listing(path)
    listing = imported(["list"], env)
    assert "duckdb" in listing  # it did open the store
    assert not listing & set(HEAVY)
    assert not imported(["search", "seagrass", "--mode", "bm25"], env) & set(HEAVY)


def test_list_imports_neither_search_nor_quotes_nor_chunking(
        store: tuple[Path, dict[str, str]]) -> None:
    path, env = store
    script = str(Path(sys.executable).parent / "sheaf")
    without_listing(path)
    listing = imported_modules(["list"], env, program=(script,))
    assert "sheaf.adapters.store.duckdb.knowledge_store" in listing  # it did open the store
    assert not listing & set(NOT_FOR_LISTING)
    # The modules it left out still load where they are used: a search imports them.
    searching = imported_modules(["search", "seagrass", "--mode", "bm25"], env,
                                 program=(script,))
    assert {"sheaf.application.search.search", "sheaf.domain.analysis.chunking"} <= searching


def test_every_command_a_module_registers_is_in_the_lazy_table() -> None:
    """The root loads a command's module by the command's name: a command missing from
    the table would be neither listed by --help nor found."""
    import importlib

    import click

    from sheaf.entrypoints.cli.cli import _COMMANDS

    for module in set(_COMMANDS.values()):
        group = click.Group()
        importlib.import_module(module, "sheaf.entrypoints.cli").register(group)
        assert {name: module for name in group.commands} == {
            name: where for name, where in _COMMANDS.items() if where == module}, module
