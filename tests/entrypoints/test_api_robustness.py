"""The API under hostile and unlucky input: malformed requests are 4xx problems without
server paths or object reprs, heavy quote requests never freeze the server, and removing
a document leaves none of its words on disk."""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path

import aiohttp
import anyio
import pytest

from sheaf.application.quotes.quotes import MAX_QUOTE_CHARACTERS
from sheaf.entrypoints.http.http_api import SETTINGS
from tests.entrypoints import test_http_api
from tests.entrypoints.test_http_api import TOKEN, Api, Start

pytestmark = pytest.mark.anyio
start_api = test_http_api.start_api  # the API fixture, shared


async def _upload(api: Api, name: str, data: bytes, status: int) -> dict[str, object]:
    form = aiohttp.FormData()
    form.add_field("file", data, filename=name, content_type="application/octet-stream")
    return await api.json("POST", "/v1/documents", status, data=form)


async def _raw(api: Api, head: str, body: bytes = b"") -> tuple[int, bytes]:
    """Send bytes exactly as written (clients refuse to send some of these headers)."""
    host, port = api.url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    request = head.encode("latin-1", "surrogateescape").replace(b"\n", b"\r\n")
    writer.write(request + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    await writer.drain()
    answer = await reader.read()
    writer.close()
    status = int(answer.split(b" ", 2)[1])
    return status, answer.split(b"\r\n\r\n", 1)[1]


def _assert_clean_problem(status: int, body: bytes) -> dict[str, object]:
    assert 400 <= status < 500, (status, body)
    problem = json.loads(body)
    detail = str(problem["detail"])
    assert "/tmp" not in detail and "object at 0x" not in detail, detail
    assert problem["kind"] != "internal_error"
    return problem  # type: ignore[no-any-return]


async def test_malformed_requests_are_4xx_problems(start_api: Start, tmp_path: Path) -> None:
    api = await start_api()
    note = await _upload(api, "note.md", b"# Note\n\nOne line.\n\nTwo line.\n", 201)
    document = note["document_id"]
    auth = f"Authorization: Bearer {TOKEN}\n"
    cases: list[tuple[str, bytes]] = [
        ("GET /v1/documents HTTP/1.1\nHost: x\nConnection: close\n"
         "Authorization: Bearer \udcff\udcfe\n", b""),
        ("POST /v1/quote HTTP/1.1\nHost: x\nConnection: close\n" + auth +
         "Content-Type: application/json\n", b"[" * 100_000),
        ("POST /v1/documents HTTP/1.1\nHost: x\nConnection: close\n" + auth +
         "Content-Type: application/json\n", b'{"url": ' + b"[" * 100_000),
        ("POST /v1/documents HTTP/1.1\nHost: x\nConnection: close\n" + auth +
         "Content-Type: multipart/form-data\n", b"--x\r\n\r\nbody\r\n--x--\r\n"),
        ("POST /v1/documents HTTP/1.1\nHost: x\nConnection: close\n" + auth +
         "Content-Type: multipart/form-data; boundary=zz\n", b"not a multipart body"),
    ]
    for body in ('{"document_id": "%s", "lines": ["a", "b"]}',
                 '{"document_id": "%s", "lines": [Infinity, 1]}',
                 '{"document_id": "%s", "lines": [NaN, 1]}',
                 '{"document_id": "%s", "lines": [1]}',
                 '{"document_id": "%s", "lines": "1-2"}',
                 '{"document_id": "%s", "sentence": "x"}',
                 '{"document_id": "%s", "paragraph": 1.5}',
                 '{"document_id": "%s", "section": "note", "first": "x"}',
                 '{"document_id": "%s", "section": "note", "last": -2}',
                 '{"document_id": "%s", "text": 7}'):
        cases.append(("POST /v1/quote HTTP/1.1\nHost: x\nConnection: close\n" + auth +
                      "Content-Type: application/json\n", (body % document).encode()))
    cases.append(("POST /v1/quote HTTP/1.1\nHost: x\nConnection: close\n" + auth +
                  "Content-Type: application/json\n", b"\xff\xfe{}"))
    for head, body in cases:
        status, answer = await _raw(api, head, body)
        _assert_clean_problem(status, answer)

    # A corrupt PDF's error names the upload by its name, not by where it was spooled.
    corrupt = await _upload(api, "paper.pdf", b"%PDF-1.7\n" + bytes(range(256)) * 20, 422)
    assert "/tmp" not in str(corrupt["detail"]) and "object at 0x" not in str(corrupt["detail"])


@pytest.mark.integration  # seconds of the heaviest quotes at once: `make test-integration`
async def test_health_answers_while_the_heaviest_quote_runs(start_api: Start) -> None:
    api = await start_api(max_upload=5_000_000)
    rng = random.Random(2)
    words = ["".join(rng.choice("abcdefghijklmnop") for _ in range(rng.randint(3, 9)))
             for _ in range(3000)]
    # Near-linear matching makes one quote brief, so several of the longest allowed run
    # at once against a long document: together they keep the workers busy for far
    # longer than the first health probe takes to start.
    text = "\n\n".join(" ".join(rng.choice(words) for _ in range(120)) for _ in range(1600))
    created = await _upload(api, "long.txt", text.encode(), 201)
    queries = [" ".join(rng.choice(words) for _ in range(MAX_QUOTE_CHARACTERS))
               [:MAX_QUOTE_CHARACTERS] for _ in range(6)]

    heavy_done = anyio.Event()
    slowest = 0.0
    answered = 0

    async def one(query: str) -> None:
        async with api.request("POST", "/v1/quote", json={
                "document_id": created["document_id"], "text": query}) as response:
            assert response.status in (200, 404)

    async def heavy() -> None:
        async with anyio.create_task_group() as quotes:
            for query in queries:
                quotes.start_soon(one, query)
        heavy_done.set()

    async with anyio.create_task_group() as group:
        group.start_soon(heavy)
        await anyio.sleep(0.05)
        while not heavy_done.is_set() and answered < 5:
            started = time.monotonic()
            with anyio.fail_after(1):
                async with api.request("GET", "/v1/health", token=None) as response:
                    assert response.status == 200
            slowest = max(slowest, time.monotonic() - started)
            answered += 1
            await anyio.sleep(0.1)
        # Server and client share this event loop: a quote matched on the loop blocks
        # both, so health is never asked before the quote ends.
        assert answered >= 1, "health could not be asked while the quote ran: the event " \
                              "loop was blocked (or the quote is too light to overlap)"
    assert slowest < 1

    too_long = await api.json("POST", "/v1/quote", 400, json={
        "document_id": created["document_id"], "text": "x" * (MAX_QUOTE_CHARACTERS + 1)})
    assert too_long["kind"] == "invalid_query"


def _files_holding(folder: Path, needle: bytes) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and needle in p.read_bytes()]


async def test_removal_leaves_no_byte_of_the_document(start_api: Start,
                                                      tmp_path: Path) -> None:
    api = await start_api()
    unique = b"quixotransmogrifian"
    await _upload(api, "keep.md", b"# Kept\n\nHerons wade in the shallows at dawn.\n", 201)
    created = await _upload(api, "secret.md", b"# Secret\n\nThe word " + unique +
                            b" is only here.\n\nAnd a second paragraph of it.\n", 201)
    uploads = Path(api.app[SETTINGS].uploads)
    assert not [p for p in uploads.rglob("*") if p.is_file()]  # uploads are not kept twice
    hits = await api.json("GET", f"/v1/search?q={unique.decode()}", 200)
    assert hits["results"]
    await api.json("DELETE", f"/v1/documents/{created['document_id']}", 200)
    hits = await api.json("GET", f"/v1/search?q={unique.decode()}", 200)
    assert hits["results"] == []
    assert _files_holding(tmp_path, unique) == []
    assert (await api.json("GET", "/v1/search?q=herons", 200))["results"]
