"""Shell completion as the README tells a user to turn it on: each shell's script comes
from the installed `sheaf`, and completing a word gives commands, flags and choices."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests.entrypoints.cli_runner import SHEAF

README = Path(__file__).resolve().parents[2] / "README.md"


def sheaf_with(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SHEAF], env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=60, check=False)


def test_each_shell_the_readme_names_gets_a_script() -> None:
    text = README.read_text(encoding="utf-8")
    shells = set(re.findall(r"`?([a-z]+)_source`?", text))
    assert shells == {"bash", "zsh", "fish"}
    for shell in shells:
        script = sheaf_with({"_SHEAF_COMPLETE": f"{shell}_source"})
        assert script.returncode == 0, script.stderr
        assert "_SHEAF_COMPLETE" in script.stdout and f"{shell}_complete" in script.stdout


def completed(words: str) -> set[str]:
    done = sheaf_with({"_SHEAF_COMPLETE": "bash_complete", "COMP_WORDS": words,
                       "COMP_CWORD": str(len(words.split()) - 1)})
    assert done.returncode == 0, done.stderr
    return {line.split(",", 1)[1] for line in done.stdout.splitlines()}


def test_commands_flags_and_choices_complete() -> None:
    assert completed("sheaf se") == {"search", "sections", "serve"}
    assert "--mode" in completed("sheaf search --mo")
    assert completed("sheaf search x --mode h") == {"hybrid"}
