"""Options several commands share, the KEY=VALUE and A-B argument types, and the
settings a command builds from its flags."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import click

from ...domain.errors import SheafError
from ...domain.search.search_request import parse_metadata_filter
from ...domain.store.ingestion import DEFAULT_SPACE
from ..api.settings import Group, Settings
from ..api.store_location import is_postgres_url

F = TypeVar("F", bound=Callable[..., Any])
PREFERENCES = ("auto", "pdf", "html")
STORE_PATH = click.Path(dir_okay=False, path_type=Path)
_BLOBS = "sheaf.blobs"


class _StoreLocation(click.ParamType):
    """A DuckDB file, or a postgresql:// URL kept as written (a path would fold its //)."""

    name = "store"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Path | str:
        if isinstance(value, Path) or is_postgres_url(value):
            return value  # type: ignore[no-any-return]
        return STORE_PATH.convert(value, param, ctx)  # type: ignore[no-any-return]


def _keep_blobs(ctx: click.Context, _: click.Parameter, value: str | None) -> None:
    if value:
        ctx.meta[_BLOBS] = value


def store_option(function: F) -> F:
    # --blobs belongs with --store but reaches the settings through the click context
    # (`settings_for`), so commands need no parameter for it.
    function = click.option("--blobs", metavar="s3://BUCKET/PREFIX", expose_value=False,
                            callback=_keep_blobs,
                            help="raw bytes and artifacts in S3 (or SHEAF_BLOBS; default: "
                                 "the folder beside the DuckDB file)")(function)
    return click.option("--store", type=_StoreLocation(), envvar="SHEAF_STORE",
                        show_envvar=True,
                        help="the DuckDB file (default: the user data directory), or "
                             "postgresql://user@host/db")(function)


def store_options(function: F) -> F:
    """--store, --space and --embedder: which store, which space, which embedder."""
    # SHEAF_EMBEDDER is read with the embedder's other variables, so that an error
    # names the one that was wrong.
    function = click.option("--embedder", help="hashing (default), hashing:DIM, local, "
                            "onnx:DIR, openai:MODEL, ollama:MODEL or none (or "
                            "SHEAF_EMBEDDER)")(function)
    function = click.option("--space", default=DEFAULT_SPACE, show_default=True,
                            help="the space within the store")(function)
    return store_option(function)


def network_options(function: F) -> F:
    """--allow-private, --max-bytes and --timeout: how sources are fetched."""
    function = click.option("--timeout", type=float, metavar="SECONDS",
                            help="total seconds per fetch (or SHEAF_TIMEOUT)")(function)
    function = click.option("--max-bytes", type=int, metavar="N",
                            help="largest body, in bytes (or SHEAF_MAX_BYTES)")(function)
    return click.option("--allow-private", is_flag=True,
                        help="allow loopback and private network addresses "
                             "(or SHEAF_ALLOW_PRIVATE_NETWORK=1)")(function)


def json_option(function: F) -> F:
    return click.option("--json", "as_json", is_flag=True,
                        help="JSON (one object per line where there are many)")(function)


def settings_for(groups: Iterable[Group], **flags: Any) -> Settings:
    """The command's settings: its flags over the variables of the groups it uses."""
    context = click.get_current_context(silent=True)
    if context is not None and flags.get("blobs") is None:
        flags["blobs"] = context.meta.get(_BLOBS)  # shared by every context of the run
    return Settings.from_environment(os.environ, groups=groups, **{
        name: value for name, value in flags.items() if value is not None})


class KeyValue(click.ParamType):
    """KEY=VALUE, split by the one parser the HTTP API's filters use too."""

    name = "KEY=VALUE"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> tuple[str, str]:
        if isinstance(value, tuple):
            return value
        try:
            (pair,) = parse_metadata_filter([str(value)])
        except SheafError as exc:
            self.fail(exc.message, param, ctx)
        return pair


class LineRange(click.ParamType):
    """A-B (or A), lines counted from 1."""

    name = "A-B"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> tuple[int, int]:
        if isinstance(value, tuple):
            return value
        first, _, last = str(value).partition("-")
        try:
            start = int(first)
            return start, int(last) if last else start
        except ValueError:
            self.fail(f"wants A-B, not {value!r}", param, ctx)


KEY_VALUE = KeyValue()
LINE_RANGE = LineRange()
