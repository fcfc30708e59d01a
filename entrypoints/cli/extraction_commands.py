"""`sheaf resolve`, `sheaf extract`, `sheaf demo` and `sheaf version`: reading sources
without a store."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import click

from ..api.settings import Group
from .cli_options import PREFERENCES, json_option, network_options, settings_for
from .cli_session import echo_json
from .rendering import FORMATS, SUFFIXES, extraction_details, render

if TYPE_CHECKING:
    from ..api.knowledge_results import ExtractedSource

FETCHING = frozenset({Group.FETCH})


def register(group: click.Group) -> None:
    for command in (version, resolve, extract, demo):
        group.add_command(command)


@click.command()
@json_option
def version(as_json: bool) -> None:
    """Version and where the code was loaded from."""
    from ...adapters.installation.package_version import version_info

    info = version_info()
    if as_json:
        echo_json({"version": info.version, "origin": info.origin,
                   "location": info.location, "commit": info.commit, "dirty": info.dirty})
    else:
        click.echo(info.describe())


@click.command()
@click.argument("url")
@click.option("--json", "as_json", is_flag=True, help="metadata, diagnostics and text")
@click.option("--prefer", type=click.Choice(PREFERENCES), default="auto", show_default=True,
              help="which to keep when a page links its PDF")
@click.option("--password", help="password of an encrypted PDF")
@network_options
def resolve(url: str, as_json: bool, prefer: str, password: str | None,
            **network: Any) -> None:
    """Fetch a URL and print its text."""
    settings = settings_for(FETCHING, allow_private=network["allow_private"] or None,
                            max_bytes=network["max_bytes"], timeout=network["timeout"])

    async def run() -> str:
        from ..api.knowledge import Knowledge

        content = await Knowledge.resolve(url, prefer=prefer,  # type: ignore[arg-type]
                                          password=password, settings=settings)
        if as_json:
            return json.dumps(content.as_dict(), ensure_ascii=False, indent=2) + "\n"
        return content.text + "\n"

    sys.stdout.write(anyio.run(run))


@click.command()
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="markdown",
              show_default=True)
@click.option("--output-dir", type=click.Path(file_okay=False, path_type=Path),
              help="write one <name>.md|.txt|.json per input here")
@click.option("--base-url", help="URL that relative links in local HTML resolve to")
@click.option("--password", help="password of encrypted PDFs")
@click.option("--prefer", type=click.Choice(PREFERENCES), default="auto", show_default=True)
@network_options
def extract(inputs: tuple[str, ...], fmt: str, output_dir: Path | None,
            base_url: str | None, password: str | None, prefer: str,
            **network: Any) -> None:
    """Extract local files or URLs."""
    settings = settings_for(FETCHING, allow_private=network["allow_private"] or None,
                            max_bytes=network["max_bytes"], timeout=network["timeout"])

    async def run() -> int:
        from contextlib import aclosing

        from ..api.knowledge import Knowledge
        from .local_input import output_names

        names = output_names(inputs)
        failures = 0
        async with aclosing(Knowledge.extract(
                inputs, base_url=base_url, password=password,
                prefer=prefer, settings=settings)) as extracted:  # type: ignore[arg-type]
            async for one in extracted:
                if one.error is not None:
                    if len(inputs) == 1:
                        raise one.error
                    failures += 1
                    click.echo(f"sheaf: error: {one.source}: {one.error}", err=True)
                    continue
                # Rendering and writing are per-document CPU work: off the event loop.
                await anyio.to_thread.run_sync(_emit, one, fmt, output_dir, names)
        return 1 if failures else 0

    if anyio.run(run):
        raise click.exceptions.Exit(1)


def _emit(one: ExtractedSource, fmt: str, output_dir: Path | None, names: dict[str, str]) -> None:
    """Print one extracted source, or write it to its file in `output_dir`."""
    output = render(one.document, fmt, extraction_details(one))
    if output_dir:
        output_dir.mkdir(parents=True, exist_ok=True)
        target = output_dir / (names[one.source] + SUFFIXES[fmt])
        tmp = target.with_suffix(target.suffix + ".part")
        tmp.write_text(output, encoding="utf-8")
        tmp.replace(target)
        click.echo(f"{one.source} -> {target}", err=True)
    else:
        sys.stdout.write(output)


@click.command()
def demo() -> None:
    """Run the main job on the bundled samples, offline."""
    from .demo import run_demo

    anyio.run(run_demo)
