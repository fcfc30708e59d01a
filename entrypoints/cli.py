"""The `sheaf` command line (click).

Commands live in modules by what they do; each imports the heavy parts of sheaf (aiohttp,
DuckDB, the extractors) only when it runs, so `sheaf --help` and `sheaf --version` start
fast. Exit codes: 0 ok, 1 a failure (some sources of a batch, a missing document), 2 usage
or configuration, 3 could not fetch or read the input, 4 unsupported or unextractable
content.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

import click

from sheaf.domain.errors import (
    InvalidInput,
    SheafError,
    UnsupportedContent,
    family_of,
)
from sheaf.entrypoints import (
    evaluation_commands,
    extraction_commands,
    ingest_commands,
    queue_commands,
    reading_commands,
    search_commands,
    serve_command,
)
from sheaf.entrypoints.mcp import command as mcp_command
from sheaf.entrypoints.settings import ENVIRONMENT, _log_level, configure_logging

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_FETCH, EXIT_CONTENT = 0, 1, 2, 3, 4
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141


def exit_code(error: SheafError) -> int:
    """The README's table, read off the error's family: 3 fetching or reading the input,
    4 the content, 2 a bad argument or setting (`InvalidInput`, `ConfigurationError`),
    1 the rest (not found, refused by the store, a model failing, a defect)."""
    if error.kind.is_fetch_failure:
        return EXIT_FETCH
    family = family_of(error.kind)
    if issubclass(family, UnsupportedContent):
        return EXIT_CONTENT
    if issubclass(family, InvalidInput):
        return EXIT_USAGE
    return EXIT_FAILED


class SheafGroup(click.Group):
    """Typed errors become one line on stderr and their exit code, never a traceback."""

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
        except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as cat does
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise click.exceptions.Exit(EXIT_BROKEN_PIPE) from None
        except Exception as exc:  # a bug or an unreadable store: one line, details on debug
            logging.getLogger("sheaf").debug("unexpected failure", exc_info=True)
            click.echo(f"sheaf: error: internal: {type(exc).__name__}: {exc} "
                       "(LOG_LEVEL=debug shows the traceback)", err=True)
            raise click.exceptions.Exit(EXIT_FAILED) from None


def _print_version(ctx: click.Context, _: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        from sheaf.adapters.package_version import version_info

        click.echo(version_info().describe())
        ctx.exit(EXIT_OK)


_EPILOG = "Environment:\n\n" + "\n\n".join(
    f"{name}: {meaning}" for name, (_, meaning) in ENVIRONMENT.items())


@click.group(cls=SheafGroup, epilog=_EPILOG,
             context_settings={"help_option_names": ["-h", "--help"],
                               "max_content_width": 100})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=_print_version, help="print the version and exit")
def sheaf() -> None:
    """Turn URLs, PDFs, HTML pages and text files into clean, structured, quotable
    knowledge."""
    configure_logging(_log_level(os.environ.get("LOG_LEVEL")))


for module in (extraction_commands, ingest_commands, queue_commands, reading_commands,
               search_commands, evaluation_commands, serve_command, mcp_command):
    module.register(sheaf)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code (the console script exits with it)."""
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
    raise SystemExit(main())
