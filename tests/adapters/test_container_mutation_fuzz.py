"""The mutation fuzz over containers and images (bench/container_mutations.py): every
mutated DOCX, PPTX, XLSX, EPUB, amplification shape and PNG/TIFF/GIF ends as a document
(or decoded frames) or a typed error, never a traceback, within bounded memory. A few
hundred cases in `make test`, 3,000 in a child process in `make test-slow`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench import container_mutations

BENCH = Path(__file__).resolve().parents[2] / "bench" / "container_mutations.py"
PEAK_MB = 300


def test_a_few_hundred_mutations_end_typed() -> None:
    assert container_mutations.run(200, seed=11) == 0


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_thousands_of_mutations_end_typed_within_bounded_memory(seed: int) -> None:
    done = subprocess.run([sys.executable, "-P", str(BENCH), "--cases", "1500", "--seed",
                           str(seed), "--max-peak-mb", str(PEAK_MB)],
                          capture_output=True, text=True, timeout=1200, check=False,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    report = done.stdout.strip().splitlines()
    assert done.returncode == 0, (report[-3:], done.stderr[-3000:])
    assert "Traceback" not in done.stderr
    assert report[-1].startswith("1500 cases") and ", 0 untyped failures" in report[-1]
