"""`sheaf list` answered by the console script itself, before click is imported, from the
listing the store keeps beside it (ADR-0024), as `--version` is answered (ADR-0022).

It answers only what it can answer exactly as the click command would: the arguments
are `--json`, `--space` and `--store` alone (what changes the listing), no variable that
the command would check is set (LOG_LEVEL, or any SHEAF_* but SHEAF_STORE: the click
command validates them), the store is a DuckDB file, and its listing is current.
Anything else is left to the click CLI, which prints the same from the same listing or
from the store.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ...domain.store.spaces import DEFAULT_SPACE
from .terminal_text import one_line

_VALUED = ("--space", "--store")


def listing_lines(summaries: Sequence[dict[str, Any]], as_json: bool) -> Iterator[str]:
    """The lines `sheaf list` prints for these document summaries: columns as wide as
    their longest value (`spreadsheet` and `html` line up)."""
    if as_json:
        for summary in summaries:
            yield json.dumps(summary, ensure_ascii=False)
        return
    # One row per document whatever its fields hold (a newline in a file name would
    # forge a row): every field on one line, then the columns sized.
    rows = [(one_line(summary["id"]), one_line(summary["content"] or ""),
             one_line(summary["title"] or "(untitled)"),
             one_line(summary["sources"][0]["original"] if summary["sources"] else ""))
            for summary in summaries]
    ids = max((len(row[0]) for row in rows), default=0)
    kinds = max((len(row[1]) for row in rows), default=0)
    titles = min(60, max((len(row[2]) for row in rows), default=0))
    for ident, kind, title, first in rows:
        yield (f"{ident:<{ids}}  {kind:<{kinds}}  {title[:titles]:<{titles}}  "
               f"{first}").rstrip()


def answered(args: Sequence[str], environ: Mapping[str, str]) -> int | None:
    """The exit code of `sheaf list ARGS`, printed from the store's listing; None when
    the click CLI must run it."""
    options = _options(args)
    if options is None or any(
            value and (name == "LOG_LEVEL" or name.startswith("SHEAF_"))
            and name != "SHEAF_STORE" for name, value in environ.items()):
        return None
    as_json, space, store = options
    from ..api.store_location import store_location

    try:
        path, url = store_location(store, lambda name: environ.get(name) or None)
    except Exception:  # a bad location: the click command says what is wrong with it
        return None
    if url is not None or os.path.isdir(path):
        return None
    from ..api.listing_snapshot import stored_listing

    listing = stored_listing(path, space)
    if listing is None:
        return None
    lines = list(listing_lines(listing, as_json))
    if not _prints_as_click(lines):
        return None
    from .exit_codes import EXIT_FAILED, EXIT_OK, internal_failure, reader_gone

    try:
        for line in lines:  # a line at a time, flushed, as click.echo writes
            sys.stdout.write(f"{line}\n")
            sys.stdout.flush()
    except BrokenPipeError:
        return reader_gone()
    except OSError as exc:  # a full disk: the one line click's command prints too
        from .disk_errors import disk_refused

        refused = disk_refused(exc)
        sys.stderr.write((f"sheaf: error: {refused}" if refused else internal_failure(exc))
                         + "\n")
        return EXIT_FAILED
    return EXIT_OK


def _prints_as_click(lines: list[str]) -> bool:
    """Whether writing `lines` to stdout as they are gives what click.echo gives: not
    when there is no stdout, when it does not take UTF-8 (click wraps it), or when a
    line holds an escape sequence (click strips them from what is not a terminal)."""
    stdout = sys.stdout
    encoding = (getattr(stdout, "encoding", None) or "").lower().replace("-", "")
    return stdout is not None and encoding == "utf8" and not any("\x1b" in line
                                                                 for line in lines)


def _options(args: Sequence[str]) -> tuple[bool, str, str | None] | None:
    """--json, --space VALUE and --store VALUE (or NAME=VALUE), the last one winning as
    in click; None for anything else."""
    as_json, values = False, {"--space": DEFAULT_SPACE, "--store": None}
    remaining = list(args)
    while remaining:
        word = remaining.pop(0)
        name, equals, value = word.partition("=")
        if word == "--json":
            as_json = True
        elif name in _VALUED and equals:
            values[name] = value
        elif word in _VALUED and remaining:
            values[word] = remaining.pop(0)
        else:
            return None
        if name in _VALUED and (not values[name] or values[name].startswith("-")):
            return None  # click's reading of an empty or dash value is left to click
    return as_json, values["--space"] or DEFAULT_SPACE, values["--store"]
