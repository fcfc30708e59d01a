"""The wheel holds `sheaf.*` only, every subpackage on disk, and a working console script."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.installed_wheel import ROOT, build_wheel, install_wheel

LAYERS = ("domain", "application", "adapters", "entrypoints")

pytestmark = pytest.mark.integration  # a built wheel, installed: `make test-integration`


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_wheel_has_only_sheaf_and_every_subpackage(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.startswith("sheaf-")}
    assert top == {"sheaf"}
    packaged = {str(Path(n).parent) for n in names if n.endswith("__init__.py")}
    on_disk = {f"sheaf/{p.parent.relative_to(ROOT)}" for layer in LAYERS
               for p in (ROOT / layer).rglob("__init__.py")}
    on_disk.discard("sheaf/entrypoints/root_package")  # it is `sheaf` itself
    assert on_disk | {"sheaf"} <= packaged, on_disk - packaged
    assert "sheaf/entrypoints/root_package/__init__.py" not in names
    assert "sheaf/entrypoints/samples/paper.pdf" in names


def test_installed_wheel_imports_as_sheaf_only(wheel: Path, tmp_path: Path) -> None:
    # Installed alone; its dependencies come from the test environment's site-packages,
    # listed after it (that folder's own .pth files are not processed, so the editable
    # checkout stays invisible).
    python, script, target = install_wheel(wheel, tmp_path / "venv")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, capture_output=True, text=True, cwd=tmp_path, check=False)

    ok = run(str(python), "-I", "-c", "import sheaf.domain, sheaf.entrypoints.cli.cli; "
             "print(sheaf.domain.__file__)")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith(target)
    # The public API from the package root, imported lazily: the domain alone pulls no
    # adapter dependency.
    root = run(str(python), "-I", "-c", "import sys, sheaf.domain.analysis.chunking; "
               "assert 'aiohttp' not in sys.modules and 'duckdb' not in sys.modules; "
               "from sheaf import Knowledge; print(Knowledge.__module__)")
    assert root.returncode == 0, root.stderr
    assert root.stdout.strip() == "sheaf.entrypoints.api.knowledge"
    for name in LAYERS:
        missing = run(str(python), "-I", "-c", f"import {name}")
        assert missing.returncode != 0 and "ModuleNotFoundError" in missing.stderr
    version = run(str(script), "--version")
    assert version.returncode == 0, version.stderr
    assert "installed package" in version.stdout and target in version.stdout
    # The version is the wheel's, read from its .dist-info folder's name without the
    # cost of importlib.metadata (`--version` and `list` start-up).
    wheel_version = wheel.name.split("-")[1]
    assert f"sheaf {wheel_version} (installed package)" in version.stdout
    named = run(str(python), "-I", "-c", "import sys; from "
                "sheaf.adapters.installation.package_version "
                "import sheaf_version; print(sheaf_version(), "
                "'importlib.metadata' in sys.modules)")
    assert named.stdout.split() == [wheel_version, "False"], named.stderr
