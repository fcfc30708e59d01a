"""How `sheaf quote --text` and `sheaf verify` print a verification: the passage with its
citation, or the closest passage and each difference, from the serialiser's records (so
`--json` and the text lines read the same values)."""

from __future__ import annotations

from typing import Any

import click

from .citation_text import shown_title


def citation(passage: dict[str, Any]) -> str:
    """`-- title (URL or path), section, p. N, characters A-B`."""
    from ...domain.document.document_location import DocumentLocation

    where = " > ".join(passage["section_path"]) or "-"
    pages = f", p. {', '.join(map(str, passage['pages']))}" if passage["pages"] else ""
    cited = DocumentLocation(**passage["location"]).cited or passage["document_id"]
    return (f"-- {shown_title(passage)} ({cited}), {where}{pages}, "
            f"characters {passage['start']}-{passage['end']}")


def difference_lines(passage: dict[str, Any]) -> list[str]:
    """One line per difference: its kind, the request's words and the document's."""
    lines = []
    for difference in passage["differences"]:
        asked = difference["request"] or "(nothing)"
        said = difference["document"] or "(nothing)"
        lines.append(f"   {difference['kind']}: request {asked!r}, document {said!r} "
                     f"(characters {difference['start']}-{difference['end']})")
    return lines


def echo_passage(passage: dict[str, Any]) -> None:
    """A verified or located passage: its words and its citation on stdout (so `> file`
    keeps the quote with its source), what differs on stderr."""
    click.echo(passage["text"])
    tolerated = f", tolerating {', '.join(passage['tolerated'])}" \
        if passage.get("tolerated") else ""
    click.echo(f"{citation(passage)}, {passage['status']} ({passage['match']} match"
               f"{tolerated})")
    for line in difference_lines(passage):
        click.echo(line, err=True)


def echo_closest(closest: dict[str, Any] | None, verdict: str) -> None:
    """What a failed check says on stderr after its error line: the verdict, the closest
    passage, what differs."""
    if closest is None:
        click.echo(f"   {verdict}: no passage is close to it", err=True)
        return
    click.echo(f"   {verdict}: the closest passage (similarity {closest['score']}) says:",
               err=True)
    click.echo(f"   {closest['text']}", err=True)
    click.echo(f"   {citation(closest)}", err=True)
    click.echo("   what differs:", err=True)
    for line in difference_lines(closest):
        click.echo(f"   {line}", err=True)


def echo_failure(kind: str, message: str) -> None:
    """The one error line every failed command prints (`sheaf: error: KIND: ...`)."""
    click.echo(f"sheaf: error: {kind}: {message}", err=True)
