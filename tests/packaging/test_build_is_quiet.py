"""Installing sheaf prints no setuptools warning: every folder the build copies is a
package it was told about (a folder of data files, such as the bundled samples, included)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_building_the_package_warns_of_nothing(tmp_path: Path) -> None:
    # build_py is the step of `pip install` that copies the packages and their data; it
    # is what warned that `sheaf.entrypoints.samples` would be ignored.
    built = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    said = [line for line in (built.stdout + built.stderr).splitlines()
            if line.strip() and "byte-compiling is disabled" not in line]
    assert said == []
    samples = tmp_path / "sheaf" / "entrypoints" / "samples"
    assert {p.name for p in samples.iterdir()} >= {"paper.pdf", "article.html"}
