"""psycopg's failures as sheaf's typed errors, naming what to check, never a driver
traceback."""

from __future__ import annotations

import psycopg

from ....domain.errors import ErrorKind, SheafError


def connection_error(exc: psycopg.Error, location: str) -> SheafError:
    """Why PostgreSQL at `location` could not be opened, in one sentence."""
    text = " ".join(str(exc).split())
    lowered = text.lower()
    if "password authentication failed" in lowered or "no password supplied" in lowered \
            or "authentication failed" in lowered:
        hint = ("the server refused the credentials: check the user and password in the "
                "URL, PGUSER/PGPASSWORD or ~/.pgpass")
    elif "does not exist" in lowered and "database" in lowered:
        hint = "the database does not exist: create it (createdb) or name another"
    elif "role" in lowered and "does not exist" in lowered:
        hint = "the user (role) does not exist on the server: check PGUSER or the URL"
    elif "connection refused" in lowered or "could not connect" in lowered or \
            "timeout" in lowered or "no route" in lowered or \
            "could not translate host name" in lowered or "connection failed" in lowered:
        hint = "the server cannot be reached: check the host and port (PGHOST, PGPORT)"
    else:
        hint = "the server refused the connection"
    return SheafError(ErrorKind.STORAGE, f"cannot open the PostgreSQL store {location}: "
                                         f"{hint} ({_first_line(text)})")


def extension_error(exc: psycopg.Error, location: str) -> SheafError:
    text = _first_line(" ".join(str(exc).split()))
    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
        hint = ("the user may not create the pgvector extension: have an administrator run "
                "CREATE EXTENSION vector in this database once")
    else:
        hint = ("the server has no pgvector extension: install pgvector on it "
                "(https://github.com/pgvector/pgvector, or the postgresql-NN-pgvector "
                "package)")
    return SheafError(ErrorKind.STORAGE, f"the PostgreSQL store {location} cannot be used: "
                                         f"{hint} ({text})")


def operation_error(exc: psycopg.Error, location: str, doing: str) -> SheafError:
    """A failure while reading or writing (a lost connection, a deadlock, a refusal)."""
    text = _first_line(" ".join(str(exc).split()))
    if isinstance(exc, psycopg.errors.DeadlockDetected | psycopg.errors.SerializationFailure):
        text = f"another process wrote the same rows at the same time; try again ({text})"
    return SheafError(ErrorKind.STORAGE, f"the PostgreSQL store {location} failed while "
                                         f"{doing}: {text}")


def _first_line(text: str) -> str:
    return text[:300]
