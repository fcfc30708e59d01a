"""The README's CLI reference documents every command with every flag it has, and nothing
that does not exist: the table is read and compared with click's command tree."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import click

from sheaf.entrypoints.cli.cli import sheaf

README = Path(__file__).resolve().parents[2] / "README.md"
FLAG = re.compile(r"--[a-z][a-z-]*")


def commands(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[
        tuple[str, click.Command]]:
    context = click.Context(group)
    for name in group.list_commands(context):  # the root loads its commands lazily
        command = group.get_command(context, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
        else:
            yield " ".join((*path, name)), command


def flags(command: click.Command) -> set[str]:
    return {name for param in command.params if isinstance(param, click.Option)
            for name in (*param.opts, *param.secondary_opts) if name.startswith("--")}


def cli_section() -> str:
    text = README.read_text(encoding="utf-8")
    return text[text.index("## CLI\n"):text.index("\n## ", text.index("## CLI\n") + 1)]


def shorthand(section: str, name: str) -> set[str]:
    """The flags a `[store flags]`-style shorthand stands for, from the sentence that
    defines it above the table."""
    definition = re.search(rf"`\[{name}\]` are (.+?)\.\s", section, re.S)
    assert definition, f"the README does not say what [{name}] stands for"
    return set(FLAG.findall(definition.group(1)))


def documented() -> dict[str, set[str]]:
    section = cli_section()
    groups = {name: shorthand(section, name) for name in ("store flags", "network flags")}
    rows: dict[str, set[str]] = {}
    for line in section.splitlines():
        usage = re.match(r"\| `sheaf ([a-z]+(?: [a-z]+)?)", line)
        if not usage:
            continue
        cell = line.split(" | ")[0]
        found = set(FLAG.findall(cell))
        for name, members in groups.items():
            if f"[{name}]" in cell:
                found |= members
        words = usage.group(1).split()
        command = " ".join(words[:2]) if " ".join(words[:2]) in NESTED else words[0]
        rows.setdefault(command, set()).update(found)
    return rows


NESTED = {name for name, _ in commands(sheaf) if " " in name}


def test_every_command_is_in_the_readme_with_exactly_its_flags() -> None:
    rows = documented()
    tree = dict(commands(sheaf))
    assert set(rows) == set(tree)
    own = flags(sheaf)  # the root's own (--version) are written `sheaf --version`
    assert own <= set().union(*rows.values())
    for name, command in tree.items():
        assert rows[name] - own == flags(command), name


def test_the_store_flags_shorthand_matches_the_shared_options() -> None:
    section = cli_section()
    assert shorthand(section, "store flags") == flags(tree_command("list")) - {
        "--json", "--limit", "--cursor"}
    assert shorthand(section, "network flags") == flags(tree_command("resolve")) - {
        "--json", "--prefer", "--password"}


def tree_command(name: str) -> click.Command:
    return dict(commands(sheaf))[name]


def test_every_variable_sheaf_reads_is_in_the_configuration_table() -> None:
    from sheaf.entrypoints.api.settings import ENVIRONMENT

    text = README.read_text(encoding="utf-8")
    table = text[text.index("## Configuration\n"):text.index("\n## ", text.index(
        "## Configuration\n") + 1)]
    missing = [name for name in ENVIRONMENT if name not in table]
    assert not missing
