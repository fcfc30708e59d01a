"""The `application_name` sheaf's connections report to PostgreSQL, so an operator can
tell them apart in `pg_stat_activity` (which process holds a lock, how many connections
the workers use) and PgBouncer's SHOW CLIENTS."""

from __future__ import annotations

import os
import sys
from pathlib import Path

LIMIT = 63
"""PostgreSQL keeps the first NAMEDATALEN - 1 bytes of an application name."""


def application_name(role: str) -> str:
    """`sheaf <command> <role>`: the command this process runs (`worker`, `serve`, `mcp`,
    ...) and what the connection is for (`store`, `queue`); SHEAF_APPLICATION_NAME, when
    set, is put first (one deployment among several on a server)."""
    command = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python"
    if command == "sheaf" and len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        command = sys.argv[1]
    named = os.environ.get("SHEAF_APPLICATION_NAME", "").strip()
    text = " ".join(part for part in (named, "sheaf", command, role) if part)
    return text.encode("utf-8")[:LIMIT].decode("utf-8", "ignore")


def connection_options(url: str, role: str) -> dict[str, str]:
    """The keyword arguments to connect with: an application name, unless the URL sets
    its own (the operator's wins)."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        given = conninfo_to_dict(url)
    except Exception:
        given = {}
    return {} if given.get("application_name") else {"application_name":
                                                      application_name(role)}
