"""`sheaf ingest/list/search/quote/remove` end to end on PostgreSQL + S3, chosen by
URL (`--store postgresql://...`, `SHEAF_STORE`, `--blobs s3://...`, `SHEAF_BLOBS`), and
the typed errors a store that cannot be used gives."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import psycopg
import pytest

from tests.entrypoints.cli_runner import Completed, run_async
from tests.postgres_server import PostgresServer
from tests.s3_server import S3Server

pytestmark = pytest.mark.anyio

TIDES = ("# Tides\n\n## Methods\n\nWe counted seagrass shoots at low tide every week.\n\n"
         "## Results\n\nSeagrass grew with the tides. Shoot density doubled in spring.\n")
FOXES = "# Foxes\n\n## Results\n\nFoxes wait for people to sleep. Urban foxes eat from bins.\n"


def lines(done: Completed) -> list[dict[str, object]]:
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.decode().splitlines() if line.strip()]


async def sheaf(*args: str | Path, env: dict[str, str]) -> Completed:
    return Completed(await run_async(*args, env=env))


async def test_the_cli_works_on_postgresql_and_s3(tmp_path: Path, postgres_schema_url: str,
                                                  s3_server: S3Server) -> None:
    bucket = s3_server.create_bucket()
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "tides.md").write_text(TIDES)
    (folder / "foxes.md").write_text(FOXES)
    # The store by environment variable, the blobs by flag (and the other way round
    # below): both spellings reach the same settings.
    env = {**s3_server.environment(), "SHEAF_STORE": postgres_schema_url,
           "XDG_DATA_HOME": str(tmp_path / "data")}
    blobs = f"s3://{bucket}/team/kb"
    done = lines(await sheaf("ingest", folder, "--json", "--blobs", blobs, env=env))
    assert {d["status"] for d in done} == {"new"}
    listed = lines(await sheaf("list", "--json", "--blobs", blobs, env=env))
    assert {d["title"] for d in listed} == {"Tides", "Foxes"}
    by_flag = {**s3_server.environment(), "SHEAF_BLOBS": blobs,
               "XDG_DATA_HOME": str(tmp_path / "data")}
    hits = lines(await sheaf("search", "seagrass tides", "--json", "--store",
                             postgres_schema_url, env=by_flag))
    assert hits and hits[0]["title"] == "Tides"
    document = str(hits[0]["document_id"])
    quoted = lines(await sheaf("quote", document, "--text", "Shoot density doubled",
                               "--json", "--store", postgres_schema_url, env=by_flag))
    assert quoted[0]["text"] == "Shoot density doubled"
    # Raw bytes and Markdown went to the bucket under the prefix; nothing to local disk.
    keys = {o["Key"] for o in s3_server.client().list_objects_v2(
        Bucket=bucket).get("Contents", [])}
    assert keys and all(k.startswith("team/kb/") for k in keys)
    assert not (tmp_path / "data").exists()
    status = await sheaf("status", "--store", postgres_schema_url, env=by_flag)
    assert status.returncode == 0 and b"postgresql://" in status.stdout
    removed = await sheaf("remove", document, "--store", postgres_schema_url, env=by_flag)
    assert removed.returncode == 0, removed.stderr
    assert {d["title"] for d in lines(await sheaf("list", "--json", env=env | {
        "SHEAF_BLOBS": blobs}))} == {"Foxes"}


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_an_unreachable_server_is_one_line_naming_it(tmp_path: Path) -> None:
    url = f"postgresql://sheaf:secret@127.0.0.1:{_closed_port()}/kb"
    done = await sheaf("list", "--store", url, env={"XDG_DATA_HOME": str(tmp_path)})
    assert done.returncode != 0
    message = done.stderr.decode()
    assert "cannot be reached" in message and "PGHOST" in message
    assert "secret" not in message and "Traceback" not in message


async def test_a_database_without_pgvector_says_what_to_do(
        tmp_path: Path, postgres_server: PostgresServer) -> None:
    """A user who may not create the extension in a database that lacks it."""
    name = postgres_server.create_database("sheaf_novector")
    try:
        with psycopg.connect(postgres_server.url(name), autocommit=True) as admin:
            admin.execute("DROP ROLE IF EXISTS sheaf_reader")
            admin.execute("CREATE ROLE sheaf_reader LOGIN")
        url = f"postgresql://sheaf_reader@{postgres_server.host}:{postgres_server.port}/{name}"
        done = await sheaf("list", "--store", url, env={"XDG_DATA_HOME": str(tmp_path)})
        assert done.returncode != 0
        message = done.stderr.decode()
        assert "CREATE EXTENSION vector" in message and "Traceback" not in message
        missing = await sheaf("list", "--store", postgres_server.url("no_such_db"),
                              env={"XDG_DATA_HOME": str(tmp_path)})
        assert "database does not exist" in missing.stderr.decode()
    finally:
        postgres_server.drop_database(name)
