"""The `sheaf` command line (click).

Commands live in modules by what they do; each imports the heavy parts of sheaf (aiohttp,
DuckDB, the extractors) only when it runs, so `sheaf --help` and `sheaf --version` start
fast. Exit codes: 0 ok, 1 a failure (some sources of a batch, a missing document), 2 usage
or configuration, 3 could not fetch or read the input, 4 unsupported or unextractable
content, 75 the store is held by another process that could not serve the command.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from importlib import import_module
from typing import Any

import click

from ...domain.errors import (
    ErrorKind,
    InvalidInput,
    SheafError,
    UnsupportedContent,
    family_of,
)
from .disk_errors import disk_refused
from .exit_codes import (
    EXIT_CONTENT,
    EXIT_FAILED,
    EXIT_FETCH,
    EXIT_INTERRUPTED,
    EXIT_LOCKED,
    EXIT_OK,
    EXIT_USAGE,
    internal_failure,
    reader_gone,
)


def exit_code(error: SheafError) -> int:
    """The README's table, read off the error's family: 3 fetching or reading the input,
    4 the content, 2 a bad argument or setting (`InvalidInput`, `ConfigurationError`),
    75 the store held by another process (`store_locked`: try again), 1 the rest (not
    found, refused by the store, a model failing, a defect)."""
    if error.kind is ErrorKind.STORE_LOCKED:
        return EXIT_LOCKED
    if error.kind.is_fetch_failure:
        return EXIT_FETCH
    family = family_of(error.kind)
    if issubclass(family, UnsupportedContent):
        return EXIT_CONTENT
    if issubclass(family, InvalidInput):
        return EXIT_USAGE
    return EXIT_FAILED


# Each command by the module that holds it, imported only when that command runs (or
# `--help` lists them): `sheaf --version` loads none of them.
_COMMANDS = {
    **dict.fromkeys(("version", "resolve", "extract", "demo"), ".extraction_commands"),
    **dict.fromkeys(("ingest", "reconcile"), ".ingest_commands"),
    **dict.fromkeys(("list", "show", "remove", "sections", "chunks", "quote", "status",
                     "space"), ".reading_commands"),
    **dict.fromkeys(("search", "reindex", "compact"), ".search_commands"),
    **dict.fromkeys(("worker", "batch"), ".queue_commands"),
    **dict.fromkeys(("eval", "model"), ".evaluation_commands"),
    "verify": ".verify_command",
    "serve": ".serve_command",
    "repair": ".repair_command",
    "mcp": "..mcp.command",
}


class SheafGroup(click.Group):
    """Typed errors become one line on stderr and their exit code, never a traceback.
    Commands load lazily, by name."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*_COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in _COMMANDS:
            module = import_module(_COMMANDS[cmd_name], __package__)
            module.register(self)
        return self.commands.get(cmd_name)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from ..api.settings import ENVIRONMENT

        formatter.write_paragraph()
        formatter.write_text("Environment:")
        for name, (_, meaning) in ENVIRONMENT.items():
            formatter.write_paragraph()
            with formatter.indentation():
                formatter.write_text(f"{name}: {meaning}")

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except SheafError as exc:
            click.echo(f"sheaf: error: {exc}", err=True)
            raise click.exceptions.Exit(exit_code(exc)) from None
        except KeyboardInterrupt:
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
        except BrokenPipeError:  # the reader went away (`| head`)
            raise click.exceptions.Exit(reader_gone()) from None
        except OSError as exc:
            refused = disk_refused(exc)
            if refused is None:
                raise self._internal(exc) from None
            click.echo(f"sheaf: error: {refused}", err=True)
            raise click.exceptions.Exit(exit_code(refused)) from None
        except Exception as exc:  # a bug or an unreadable store: one line, details on debug
            raise self._internal(exc) from None

    @staticmethod
    def _internal(exc: BaseException) -> click.exceptions.Exit:
        import logging

        logging.getLogger("sheaf").debug("unexpected failure", exc_info=(
            type(exc), exc, exc.__traceback__))
        click.echo(internal_failure(exc), err=True)
        return click.exceptions.Exit(EXIT_FAILED)


def _print_version(ctx: click.Context, _: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        from ...adapters.installation.package_version import version_info

        click.echo(version_info(with_changes=False).describe())
        ctx.exit(EXIT_OK)


@click.group(cls=SheafGroup,
             context_settings={"help_option_names": ["-h", "--help"],
                               "max_content_width": 100})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=_print_version, help="print the version and exit")
def sheaf() -> None:
    """Turn URLs, PDFs, HTML pages and text files into clean, structured, quotable
    knowledge."""
    from ..api.settings import configure_logging, log_level_named

    configure_logging(log_level_named(os.environ.get("LOG_LEVEL")))

def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code (the console script exits with it)."""
    from .terminal_text import guard_terminal_streams

    guard_terminal_streams()
    try:
        result = sheaf.main(args=list(argv) if argv is not None else None, prog_name="sheaf",
                            standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.Abort:
        return EXIT_INTERRUPTED
    except click.exceptions.Exit as exc:
        return exc.exit_code
    return result if isinstance(result, int) else EXIT_OK


if __name__ == "__main__":
    import os

    os.umask(0o077)  # as the console script does (console.main)
    raise SystemExit(main())
