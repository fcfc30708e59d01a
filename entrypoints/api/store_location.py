"""Where the store is: a DuckDB file (by default under the user data directory) or a
PostgreSQL URL. The standard library alone, so that `sheaf list` can find the store's
listing before the settings (and attrs) are imported (ADR-0024)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(location: str | Path) -> bool:
    return isinstance(location, str) and location.strip().lower().startswith(POSTGRES_SCHEMES)


def store_location(flag: str | Path | None, variable: Callable[[str], str | None]
                   ) -> tuple[str, str | None]:
    """The DuckDB file's path, and the PostgreSQL URL when the store is one (the file's place
    then still holds local staging): `flag` (--store) over SHEAF_STORE, else
    `$XDG_DATA_HOME/sheaf/sheaf.duckdb`. `variable` reads the environment (None when
    a variable is unset or empty)."""
    chosen = flag or variable("SHEAF_STORE")
    # os.path, not pathlib: `sheaf list` finds its listing without importing pathlib.
    data_home = variable("XDG_DATA_HOME") or os.path.join(
        variable("HOME") or os.path.expanduser("~"), ".local", "share")
    default = os.path.join(data_home, "sheaf", "sheaf.duckdb")
    if chosen and is_postgres_url(chosen):
        return default, str(chosen).strip()
    if chosen and "://" in str(chosen):
        from ...domain.errors import configuration_error

        raise configuration_error("--store" if flag else "SHEAF_STORE",
                                  f"wants a DuckDB file or postgresql://..., not {chosen!r}")
    return (os.path.expanduser(chosen) if chosen else default), None
