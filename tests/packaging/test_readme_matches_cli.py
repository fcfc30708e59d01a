"""The README names exactly the commands the CLI has, and announces none of them as still
to come.

The top-level commands are read from click's root group without loading any command
module. The README is read three ways: the commands it writes as `sheaf NAME` in code
(spans and fenced blocks, where `sheaf` stands where a shell command starts), the rows of
its CLI table, and the Status paragraph near the top, whose sentences that say "next",
"planned" and the like must not name a command that exists.
"""

from __future__ import annotations

import re
from pathlib import Path

import click

from sheaf.entrypoints.cli.cli import sheaf

README = Path(__file__).resolve().parents[2] / "README.md"

_FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
_INLINE = re.compile(r"`([^`\n]+)`")
# `sheaf NAME` where a command starts: at the start of a line or code span, after a shell
# operator, or after `--` (`claude mcp add sheaf -- sheaf mcp`); a path before `sheaf`
# (`.venv/bin/sheaf`) is allowed. `from sheaf import`, `sheaf[local]` and `sheaf://` are
# not commands.
_COMMAND = re.compile(
    r"(?:^|&&|\|\||[|;(]|\s--)\s*(?:\S*/)?sheaf ([a-z][a-z-]*)(?=$|[\s`\])])", re.M)
_TABLE_ROW = re.compile(r"^\| `sheaf ([a-z][a-z-]*)", re.M)
# Words by which a README says something is not there yet.
_NOT_YET = re.compile(
    r"\b(?:next|planned|plans?|upcoming|coming|to come|not yet|roadmap|later|todo|"
    r"to do|work in progress)\b", re.I)


def top_level_commands() -> set[str]:
    """The root group's commands, by name (the group lists them without importing)."""
    return set(sheaf.list_commands(click.Context(sheaf)))


def named_commands(text: str) -> set[str]:
    """Every `sheaf NAME` the text writes in code as a command."""
    code = _FENCED.findall(text) + _INLINE.findall(_FENCED.sub("", text))
    return {match.group(1) for snippet in code for match in _COMMAND.finditer(snippet)}


def cli_table_commands(text: str) -> set[str]:
    """The first word after `sheaf` of every row of the README's CLI table."""
    start = text.index("## CLI\n")
    section = text[start:text.index("\n## ", start + 1)]
    return set(_TABLE_ROW.findall(section))


def status_paragraph(text: str) -> str:
    """The paragraph that starts with "Status:" (the README's first statement of what is
    built)."""
    found = re.search(r"^Status:.*?(?=\n\s*\n)", text, re.S | re.M)
    assert found, "the README has no paragraph starting with 'Status:'"
    return found.group(0)


def announced_commands(paragraph: str, commands: set[str]) -> set[str]:
    """Commands that a sentence saying "next", "planned", ... names, by the command's name
    or its plural, as a word ("the MCP server" names `mcp`)."""
    flat = " ".join(paragraph.split())
    announced: set[str] = set()
    for sentence in re.split(r"(?<=[.!?])\s+", flat):
        if not _NOT_YET.search(sentence):
            continue
        words = {word.lower() for word in re.findall(r"[A-Za-z][\w-]*", sentence)}
        announced |= {name for name in commands if name in words or f"{name}s" in words}
    return announced


def test_every_command_the_readme_names_exists() -> None:
    text = README.read_text(encoding="utf-8")
    named = named_commands(text)
    assert cli_table_commands(text) <= named  # the scanner sees at least the table
    assert named - top_level_commands() == set()


def test_every_top_level_command_has_a_row_in_the_cli_table() -> None:
    assert top_level_commands() - cli_table_commands(README.read_text(encoding="utf-8")) \
        == set()


def test_the_status_paragraph_announces_no_command_that_exists() -> None:
    paragraph = status_paragraph(README.read_text(encoding="utf-8"))
    assert announced_commands(paragraph, top_level_commands()) == set()


def test_the_checks_catch_what_they_are_for() -> None:
    """The scanners on small texts: a command that is gone, one written in prose or as
    Python, and a Status paragraph that still calls a built command next."""
    assert named_commands("run `sheaf frobnicate --json`, or:\n```sh\nls && sheaf ingest x\n"
                          "```\nthen `from sheaf import Knowledge`, `sheaf[local]`") == {
        "frobnicate", "ingest"}
    commands = {"mcp", "serve", "worker"}
    status = ("Status: the HTTP API is here.\nNext: the MCP server, then PostgreSQL. Queue "
              "workers are planned.")
    assert announced_commands(status, commands) == {"mcp", "worker"}
    assert announced_commands("Status: the MCP server and workers are here.", commands) == set()


# The Status paragraph's proper names (HTML, DuckDB, MCP, ...), each shown to exist: a
# row of the Formats table, a folder of the code by that name, a search mode, or the
# folder of the few spelled otherwise. A name none of these shows fails, so a capability
# is never announced as built before it is.
_PROPER_NAME = re.compile(r"\b(?:[A-Z][a-z]+[A-Z][A-Za-z0-9]*|[A-Z][A-Z0-9]+)\b")
_FOLDER_NAMED = {"PostgreSQL": "postgres", "LLM": "enrichment"}
ROOT = README.parent


def formats_table(text: str) -> str:
    start = text.index("## Formats\n")
    section = text[start:text.index("\n## ", start + 1)]
    return "\n".join(line.split(" | ")[0] for line in section.splitlines()
                     if line.startswith("| "))


def code_folders() -> set[str]:
    return {path.name.lower() for layer in ("domain", "application", "adapters",
                                             "entrypoints")
            for path in (ROOT / layer).rglob("*") if path.is_dir()
            and (path / "__init__.py").exists()}


def unshown_names(paragraph: str, text: str) -> set[str]:
    """The proper names of `paragraph` that nothing shows to exist."""
    from sheaf.domain.search.search_request import SearchMode

    formats = set(_PROPER_NAME.findall(formats_table(text)))
    folders = code_folders()
    modes = {mode.value for mode in SearchMode}
    unshown = set()
    for name in set(_PROPER_NAME.findall(paragraph)) - {"Status"}:
        folder = _FOLDER_NAMED.get(name, name).lower()
        if name not in formats and folder not in folders and name.lower() not in modes:
            unshown.add(name)
    return unshown


def test_the_status_paragraph_names_only_what_exists() -> None:
    text = README.read_text(encoding="utf-8")
    paragraph = status_paragraph(text)
    assert unshown_names(paragraph, text) == set()
    extras = set(re.findall(r"the `([a-z-]+)` extra", paragraph))
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"]["optional-dependencies"]
    assert extras <= set(declared)


def test_a_status_naming_what_is_not_there_is_caught() -> None:
    text = README.read_text(encoding="utf-8")
    said = ("Status: built are HTML, DuckDB, MCP and RTF; also WordPerfect, DjVu and a "
            "GraphQL API.")
    assert unshown_names(said, text) == {"WordPerfect", "DjVu", "GraphQL"}


_TEST_MODULE = re.compile(r"tests/[\w/]+/test_\w+\.py")
_MAKE_TARGET = re.compile(r"`make (test(?:-integration|-slow)?)\b")
_EXPRESSIONS = {"test": "not slow and not integration",
                "test-integration": "integration and not slow", "test-slow": "slow"}


def collected(module: str, expression: str | None) -> int:
    """How many of `module`'s tests pytest selects with the marker `expression`."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly",
         *(["-m", expression] if expression else []), module], cwd=ROOT,
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode in (0, 5), done.stdout + done.stderr  # 5: none selected
    return sum("::" in line for line in done.stdout.splitlines())


def test_a_test_module_the_readme_puts_in_a_make_target_runs_there() -> None:
    """"The quality gate runs in `make test`" while its tests are marked slow is the
    README saying what is not so. A module it names beside `make test` must run there
    whole; beside `make test-slow` or `make test-integration`, some of it must."""
    text = README.read_text(encoding="utf-8")
    checked = 0
    for found in _TEST_MODULE.finditer(text):
        before = text[max(0, found.start() - 400):found.start()]
        targets = _MAKE_TARGET.findall(before.split("\n|")[-1].split("\n\n")[-1])
        if not targets:
            continue
        module, target = found.group(0), targets[-1]
        selected = collected(module, _EXPRESSIONS[target])
        if target == "test":
            assert selected == collected(module, None), f"not all of {module} runs in " \
                                                         "`make test`, as the README says"
        else:
            assert selected, f"nothing of {module} runs in `make {target}`"
        checked += 1
    assert checked  # the quality gate's module, at least
