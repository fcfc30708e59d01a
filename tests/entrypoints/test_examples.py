"""The examples run as documented."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Each example in a process of its own: `make test-integration` (and .ci/run) runs them.
pytestmark = pytest.mark.integration


def test_the_scripted_agent_loop_quotes_with_a_citation() -> None:
    done = subprocess.run([sys.executable, "-P", str(ROOT / "examples" / "agent_loop.py")],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "-> ingest_url(" in out and "-> search_knowledge(" in out
    assert "-> get_exact_quote(" in out
    assert 'The article says: "We followed 31 red foxes' in out
    assert "characters 87-204" in out and "[1] " in out
