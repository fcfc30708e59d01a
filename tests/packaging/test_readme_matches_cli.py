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
