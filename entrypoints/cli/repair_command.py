"""`sheaf repair`: a DuckDB store whose write-ahead log is damaged, made to open again."""

from __future__ import annotations

from pathlib import Path

import click

from ..api.settings import Group
from .cli_options import json_option, settings_for, store_option
from .cli_session import absent_store, echo_json


def register(group: click.Group) -> None:
    group.add_command(repair)


@click.command()
@json_option
@store_option
def repair(as_json: bool, store: Path | None) -> None:
    """Replay a damaged write-ahead log as far as it is sound, set the rest aside (kept
    beside the store) and rebuild the indexes. The store must not be in use."""
    from ...adapters.store.duckdb.log_repair import repair_store
    from ...domain.errors import ErrorKind, SheafError

    settings = settings_for({Group.STORE}, store=store)
    if settings.store_url is not None:
        raise SheafError(ErrorKind.INVALID_QUERY,
                         "repair works on a DuckDB file; PostgreSQL recovers its own log")
    where = absent_store(settings)
    if where is not None:  # the same refusal as every command that reads a store
        raise SheafError(ErrorKind.STORE_NOT_FOUND,
                         f"no store at {where}; check --store or SHEAF_STORE, or create "
                         "one with `sheaf ingest`")
    done = repair_store(str(settings.store))
    if as_json:
        echo_json({"store": str(settings.store), "log_bytes": done.log_bytes,
                   "kept_bytes": done.kept_bytes, "set_aside": done.set_aside,
                   "detail": done.detail})
        return
    click.echo(f"repaired {settings.store}: {done.detail}")
    if done.set_aside:
        click.echo(f"the damaged log is kept as {done.set_aside}; what it held after the "
                   "damage is lost: ingest the latest sources again", err=True)
