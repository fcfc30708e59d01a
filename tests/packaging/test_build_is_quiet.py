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


def test_the_editable_install_make_runs_warns_of_nothing(tmp_path: Path) -> None:
    """`make`'s `pip install -e` builds through setuptools' editable hook, under the
    warning filter the Makefile sets for it (QUIET_EDITABLE)."""
    import os
    import re

    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    quiet = re.search(r'^QUIET_EDITABLE := PYTHONWARNINGS="([^"]+)"$', makefile, re.M)
    assert quiet, "the Makefile sets no QUIET_EDITABLE"
    assert "$(QUIET_EDITABLE) $(BIN)/python -m pip install" in makefile
    built = subprocess.run(
        [sys.executable, "-c", "import sys, setuptools.build_meta as backend; "
         "print(backend.build_editable(sys.argv[1]))", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONWARNINGS": quiet.group(1)})
    assert built.returncode == 0, built.stderr
    assert (tmp_path / built.stdout.strip().splitlines()[-1]).is_file()
    output = built.stdout + built.stderr
    assert "Warning" not in output and "Please be careful" not in output, output
