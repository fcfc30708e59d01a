"""The import contracts `make imports` checks (pyproject's [tool.importlinter]) fail when a
rule is broken (ADR-0025), and no module imports another's private names."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("domain", "application", "adapters", "entrypoints")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def link_tree(where: Path, copied: tuple[str, ...] = ()) -> Path:
    """A folder holding `sheaf/<layer>` for each layer: links to the checkout's, or copies
    for the layers a test changes. grimp reads packages by their import names, and the
    checkout has the layers at its root (the same tree `make typecheck` gives mypy)."""
    package = where / "sheaf"
    package.mkdir(parents=True)
    for layer in LAYERS:
        if layer in copied:
            shutil.copytree(ROOT / layer, package / layer,
                            ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (package / layer).symlink_to(ROOT / layer)
    return where


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([str(LINT_IMPORTS), "--config", str(ROOT / "pyproject.toml"),
                           "--no-cache"], capture_output=True, text=True, env=environ,
                          cwd=tree, check=False, timeout=120)


@pytest.fixture(autouse=True)
def _needs_import_linter() -> None:
    if not LINT_IMPORTS.exists():
        pytest.skip("import-linter is not installed (the `test` extra installs it)")


# Each probe breaks one rule; one run of the check over a tree holding them all must name
# every one (a run of lint-imports costs seconds, so they share it).
PROBES = (
    ("domain", "layer_probe.py", "from ..adapters.fetching import http_settings\n"),
    ("application", "layer_probe.py", "from ..entrypoints.api import settings\n"),
    ("adapters", "layer_probe.py", "from ..entrypoints.cli import exit_codes\n"),
    ("domain", "library_probe.py", "import duckdb\n"),
    ("application", "library_probe.py", "import aiohttp\n"),
    # document_analysis already imports chunking: chunking importing it back is a circle.
    ("domain", "analysis/chunking.py", "from ..store import document_analysis\n"),
)


def test_each_broken_rule_fails_the_check(tmp_path: Path) -> None:
    tree = link_tree(tmp_path, copied=("domain", "application", "adapters"))
    for layer, module, source in PROBES:
        target = tree / "sheaf" / layer / module
        existing = target.read_text() if target.exists() else ""
        target.write_text(existing + source)
    done = lint_imports(tree)
    assert done.returncode != 0
    report = " ".join(done.stdout.split())
    assert "Contracts: 0 kept, 4 broken." in report, done.stdout
    for layer in ("domain", "application", "adapters"):
        assert f"sheaf.{layer}.layer_probe" in report
    assert "sheaf.domain.library_probe -> duckdb" in report
    assert "sheaf.application.library_probe -> aiohttp" in report
    assert ".analysis -> .store" in report or ".store -> .analysis" in report


def private_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and (node.level or
                                                 (node.module or "").startswith("sheaf")):
            names = [alias.name for alias in node.names
                     if alias.name.startswith("_") and not alias.name.startswith("__")]
            parts = (node.module or "").split(".")
            if names or any(part.startswith("_") for part in parts):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.module} {names}")
    return found


def test_no_module_imports_another_modules_private_names() -> None:
    found = [line for layer in LAYERS for path in sorted((ROOT / layer).rglob("*.py"))
             for line in private_imports(path)]
    assert found == []
