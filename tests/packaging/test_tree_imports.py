"""Every import inside the package resolves for a tool that reads the checkout's tree, with
no install and no link tree: an editor's go-to-definition, a structure viewer (ADR-0025).

basedpyright (pyright's engine, installed with its Node runtime from PyPI) is run over the
four layers with type checking off, so it reports what it cannot resolve and nothing else;
third-party imports resolve through the test environment's site-packages, where sheaf's
editable install is an import hook pyright cannot see, so any `sheaf.…` import left in the
layers would be reported.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("domain", "application", "adapters", "entrypoints")
# `sheaf/__init__.py` is the one module whose place in the checkout
# (entrypoints/root_package/) is not its place in the package: its type-checking imports name
# `sheaf.…`, which only an installed sheaf resolves. tests/packaging/test_wheel.py imports
# every public name from an installed wheel.
OUTSIDE_THE_TREE = ("entrypoints/root_package",)

pytestmark = pytest.mark.slow


def unresolved_imports(diagnostics: list[dict[str, object]]) -> list[str]:
    found = []
    for diagnostic in diagnostics:
        message = str(diagnostic["message"])
        rule = diagnostic.get("rule")
        if rule == "reportMissingImports" or (rule == "reportAttributeAccessIssue"
                                              and "is unknown import symbol" in message):
            line = diagnostic["range"]["start"]["line"] + 1  # type: ignore[index]
            path = Path(str(diagnostic["file"]))
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            found.append(f"{where}:{line} {message}")
    return found


def test_every_internal_import_resolves_from_the_tree(tmp_path: Path) -> None:
    pyright = shutil.which("basedpyright", path=str(Path(sys.executable).parent))
    if pyright is None:
        pytest.skip("basedpyright is not installed (the `test` extra installs it)")
    # A probe beside the layers, in the same run: what the check must report.
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "module.py").write_text("from sheaf.domain.errors import SheafError\n"
                                     "from ..domain.errors import NoSuchError\n")
    config = tmp_path / "pyrightconfig.json"
    config.write_text(json.dumps({
        "include": [str(ROOT / layer) for layer in LAYERS] + [str(probe)],
        "exclude": [str(ROOT / path) for path in OUTSIDE_THE_TREE] + ["**/__pycache__"],
        "typeCheckingMode": "off",
        "reportMissingImports": "error",
        "reportAttributeAccessIssue": "error",
        "pythonVersion": "3.11",
    }))
    done = subprocess.run([pyright, "--project", str(config), "--pythonpath", sys.executable,
                           "--outputjson"], capture_output=True, text=True, check=False,
                          timeout=900, cwd=ROOT)
    report = json.loads(done.stdout)
    assert report["summary"]["filesAnalyzed"] > 250
    found = unresolved_imports(report["generalDiagnostics"])
    in_the_tree = [line for line in found if not line.startswith(str(probe))]
    assert in_the_tree == []
    assert [line.split(" ", 1)[0] for line in found] == [f"{probe}/module.py:1",
                                                          f"{probe}/module.py:2"]
