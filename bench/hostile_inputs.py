"""Hostile inputs through the real extractor: PDF decompression and operator bombs,
deeply nested HTML and JSON, and (issue 30, `bench/hostile_store_cases.py`) amplification
inside containers and images plus scenarios against a store, a terminal and the MCP
allowed folders. Each case is generated, written to a temporary file and
extracted by `sheaf extract` in a subprocess of its own, so a case that eats memory or
never ends cannot take the benchmark with it. Prints, per case, the wall time, the peak
resident memory of that subprocess and the outcome (OK, a typed error kind, a crash, or
a timeout).

    .venv/bin/python -P bench/hostile_inputs.py [--timeout 120] [--only html-deep-b,...]

It measures whatever code it runs on; the figures for issue 14 are quoted in ADR-0014.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.hostile_store_cases import (
    SCENARIOS,
    amplification_cases,
    generate_in_child,
    run_scenario,
)
from tests.child_process_usage import run_sheaf

SHEAF = Path(sys.executable).with_name("sheaf")
GIB = 1 << 30


def _pdf(content: Callable[[], Iterator[bytes]]) -> bytes:
    """A one-page PDF whose content stream is `content`'s chunks, deflated."""
    squeeze = zlib.compressobj(9)
    stream = b"".join(squeeze.compress(chunk) for chunk in content()) + squeeze.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream
        + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


def inflating_pdf() -> bytes:
    """A content stream of 1 GiB once inflated: a few operators, then blank space."""
    def content() -> Iterator[bytes]:
        yield b"BT /F1 12 Tf 72 720 Td (A page that inflates.) Tj ET\n"
        blank = b" " * (1 << 20)
        for _ in range(GIB >> 20):
            yield blank
    return _pdf(content)


def operator_pdf() -> bytes:
    """20 MB of text-showing operators on one page."""
    line = b"BT /F1 9 Tf 72 720 Td (operator) Tj ET\n"
    def content() -> Iterator[bytes]:
        block = line * 10_000
        for _ in range(20_000_000 // len(block)):
            yield block
    return _pdf(content)


def nested_html(tag: str, depth: int) -> bytes:
    return (b"<!doctype html><html><head><title>Deep</title></head><body><p>Before.</p>"
            + f"<{tag}>".encode() * depth + b"deep text" + f"</{tag}>".encode() * depth
            + b"<p>After.</p></body></html>")


def nested_tables(depth: int) -> bytes:
    return (b"<!doctype html><html><body><p>Tables.</p>" + b"<table><tr><td>" * depth
            + b"cell" + b"</td></tr></table>" * depth + b"</body></html>")


def nested_json(depth: int) -> bytes:
    return b"[" * depth + b"1" + b"]" * depth


def nested_json_objects(depth: int) -> bytes:
    return b'{"a": ' * depth + b"1" + b"}" * depth


CASES: dict[str, tuple[str, Callable[[], bytes]]] = {
    "pdf-inflates-1gib": (".pdf", inflating_pdf),
    "pdf-20mb-operators": (".pdf", operator_pdf),
    "html-deep-b": (".html", lambda: nested_html("b", 100_000)),
    "html-deep-div": (".html", lambda: nested_html("div", 100_000)),
    "html-deep-ul": (".html", lambda: nested_html("ul", 100_000)),
    "html-20k-tables": (".html", lambda: nested_tables(20_000)),
    "json-deep-arrays": (".json", lambda: nested_json(100_000)),
    "json-deep-objects": (".json", lambda: nested_json_objects(100_000)),
}

CASES.update(amplification_cases())  # issue 30: containers and images (hostile_store_cases)

def run_case(path: Path, timeout: float) -> tuple[float, float, str]:
    """Extract `path` in a subprocess: (seconds, peak RSS in MB, outcome)."""
    run = run_sheaf(["extract", str(path), "--format", "json"], timeout=timeout)
    if run.returncode is None:
        return run.seconds, run.peak_mb, f"TIMEOUT after {timeout:.0f} s"
    if run.returncode == 0:
        return run.seconds, run.peak_mb, "OK"
    if run.error_kind is not None:
        detail = run.stderr.split(f"sheaf: error: {run.error_kind}:", 1)[1].strip()
        return run.seconds, run.peak_mb, f"{run.error_kind} ({detail.splitlines()[0][:70]})"
    last = (run.stderr.strip().splitlines() or ["no message"])[-1]
    return run.seconds, run.peak_mb, f"exit {run.returncode}: {last[:80]}"


# -- hostile clients of `sheaf serve` (issue 30: browsers, slow clients, forged holders,
# unbounded answers). Each case runs against one `sheaf serve` on loopback; its peak is
# the server's resident peak (VmHWM) after the case, its input what the client sent.
def _serve(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    server = subprocess.Popen([str(SHEAF), "serve", "--port", "0", "--store",
                               str(Path(folder) / "served.duckdb")],
                              stderr=subprocess.PIPE, start_new_session=True)
    assert server.stderr is not None
    found = re.search(rb"on (http://127\.0\.0\.1:(\d+))", server.stderr.readline())
    if found is None:
        server.kill()
        raise RuntimeError("sheaf serve did not start")
    return server, found[2].decode()


def _exchange(port: str, request: bytes, wait: float = 10.0) -> bytes:
    import socket

    with socket.create_connection(("127.0.0.1", int(port)), timeout=wait) as connection:
        connection.sendall(request)
        answer = b""
        try:
            while chunk := connection.recv(65536):
                answer += chunk
        except TimeoutError:
            pass
    return answer


def _status(answer: bytes) -> str:
    line = answer.split(b"\r\n", 1)[0].decode(errors="replace")
    kind = re.search(rb'"kind": "([a-z_]+)"', answer)
    return f"{line[9:12] or 'no answer'} {kind[1].decode() if kind else ''}".strip()


def _get(path: str, host: str = "127.0.0.1", extra: bytes = b"") -> bytes:
    return (f"GET {path} HTTP/1.1\r\nHost: {host}\r\n".encode() + extra
            + b"Connection: close\r\n\r\n")


def _post(path: str, body: bytes, content_type: str, extra: bytes = b"") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\n".encode() + extra
            + b"Connection: close\r\n\r\n" + body)


def _slowloris(port: str, connections: int = 400) -> str:
    import socket

    opened = []
    for _ in range(connections):
        client = socket.create_connection(("127.0.0.1", int(port)))
        client.sendall(b"GET /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        client.setblocking(False)
        opened.append(client)
    refused = cut = 0
    started = time.monotonic()
    while opened and time.monotonic() - started < 30:
        time.sleep(1)
        for client in list(opened):
            try:
                got = client.recv(200)
            except BlockingIOError:
                with contextlib.suppress(OSError):
                    client.sendall(b"X-Drip: 1\r\n")
                continue
            except OSError:
                got = b""
            refused += b" 503 " in got[:20]
            cut += b" 408 " in got[:20]
            client.close()
            opened.remove(client)
    for client in opened:
        client.close()
    return (f"{refused} refused 503, {cut} cut 408, {len(opened)} still held after "
            f"{time.monotonic() - started:.0f} s")


def _forged_holder(folder: Path) -> str:
    """An ingest with --password on a store with a planted holder file (a live pid of
    this user that is no holder, a listener that keeps what it is sent)."""
    import json
    import socket
    import threading

    from sheaf.entrypoints.api.held_store import HolderRecord, compatibility, publish
    from sheaf.entrypoints.api.settings import Settings

    store = Path(folder) / "planted.duckdb"
    listener = socket.create_server(("127.0.0.1", 0))
    received: list[bytes] = []

    def keep() -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _ = listener.accept()
                with connection:
                    connection.settimeout(2)
                    with contextlib.suppress(OSError):
                        received.append(connection.recv(65536))

    threading.Thread(target=keep, daemon=True).start()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        publish(store, HolderRecord(sleeper.pid, "sheaf serve",
                                    f"http://127.0.0.1:{listener.getsockname()[1]}",
                                    "forged", compatibility(Settings(store))))
        note = Path(folder) / "note.md"
        note.write_text("# Note\n\nThe harbour survey starts in May.\n")
        done = subprocess.run([str(SHEAF), "ingest", str(note), "--password", "hunter2",
                               "--json", "--store", str(store)], capture_output=True,
                              timeout=120, check=False)
        status = json.loads(done.stdout.splitlines()[-1])["status"] if done.stdout else \
            f"exit {done.returncode}"
    finally:
        sleeper.kill()
        listener.close()
    leaked = any(b"hunter2" in r for r in received)
    return f"ingest {status} locally; forger got {len(received)} requests" + (
        " WITH THE PASSWORD" if leaked else "")


def _rebinding(port: str, folder: Path) -> tuple[int, str]:
    return 0, _status(_exchange(port, _get("/v1/documents", host="attacker.example")))


def _text_plain(port: str, folder: Path) -> tuple[int, str]:
    body = b'{"url": "https://example.org/"}'
    return len(body), _status(_exchange(port, _post("/v1/documents", body, "text/plain")))


def _cross_site_upload(port: str, folder: Path) -> tuple[int, str]:
    body = (b'--b\r\nContent-Disposition: form-data; name="file"; filename="x.md"\r\n'
            b"\r\n# X\n\nplanted\n\r\n--b--\r\n")
    return len(body), _status(_exchange(port, _post(
        "/v1/documents", body, "multipart/form-data; boundary=b",
        b"Origin: https://attacker.example\r\n")))


def _huge_k(port: str, folder: Path) -> tuple[int, str]:
    return 0, _status(_exchange(port, _get("/v1/search?q=tides&k=1000000")))


def _health_path(port: str, folder: Path) -> tuple[int, str]:
    answer = _exchange(port, _get("/v1/health"))
    return 0, "names the path" if str(folder).encode() in answer else "no path"


SERVER_CASES: dict[str, Callable[[str, Path], tuple[int, str]]] = {
    "http-rebinding-host": _rebinding,
    "http-text-plain-json": _text_plain,
    "http-cross-site-upload": _cross_site_upload,
    "http-k-1e6": _huge_k,
    "http-health-path": _health_path,
    "http-slowloris-400": lambda port, folder: (400 * 50, _slowloris(port)),
    "holder-forged": lambda port, folder: (0, _forged_holder(folder)),
}


def _peak_mb(pid: int) -> float:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return float("nan")
    found = re.search(r"VmHWM:\s+(\d+) kB", status)
    return int(found[1]) / 1024 if found else float("nan")


def run_server_cases(names: list[str]) -> None:
    """The hostile-client cases among `names`, against one `sheaf serve`, as rows of the
    same table."""
    chosen = [name for name in names if name in SERVER_CASES]
    if not chosen:
        return
    with tempfile.TemporaryDirectory(prefix="sheaf-hostile-clients-") as folder:
        server, port = _serve(Path(folder))
        try:
            for name in chosen:
                started = time.monotonic()
                try:
                    size, outcome = SERVER_CASES[name](port, Path(folder))
                except Exception as exc:  # a case that breaks says how, the rest run
                    size, outcome = 0, f"case failed: {type(exc).__name__}: {exc}"
                elapsed = time.monotonic() - started
                print(f"{name:<20} {size / 1e6:>7.2f}MB {elapsed:>8.1f} "
                      f"{_peak_mb(server.pid):>8.0f}  {outcome}", flush=True)
        finally:
            server.terminate()
            server.wait(60)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=120,
                        help="seconds before a case is killed (default 120)")
    parser.add_argument("--only", default="",
                        help="comma-separated case names (default: all): "
                             + ", ".join([*CASES, *SCENARIOS, *SERVER_CASES]))
    args = parser.parse_args()
    chosen = [name for name in args.only.split(",") if name] or [
        *CASES, *SCENARIOS, *SERVER_CASES]
    unknown = sorted(set(chosen) - set(CASES) - set(SCENARIOS) - set(SERVER_CASES))
    if unknown:
        parser.error(f"unknown cases: {', '.join(unknown)}")
    print(f"{'case':<22} {'input':>9} {'wall s':>8} {'peak MB':>8}  outcome")
    with tempfile.TemporaryDirectory(prefix="sheaf-hostile-") as folder:
        for name in (n for n in chosen if n in CASES or n in SCENARIOS):
            if name in SCENARIOS:
                size, elapsed, peak_mb, outcome = run_scenario(name, Path(folder))
                print(f"{name:<22} {size / 1e6:>7.2f}MB {elapsed:>8.1f} {peak_mb:>8.0f}  "
                      f"{outcome}", flush=True)
                continue
            suffix, _ = CASES[name]
            path = Path(folder) / f"{name}{suffix}"
            generate_in_child(name, path)
            size = path.stat().st_size
            elapsed, peak_mb, outcome = run_case(path, args.timeout)
            print(f"{name:<22} {size / 1e6:>7.2f}MB {elapsed:>8.1f} {peak_mb:>8.0f}  "
                  f"{outcome}", flush=True)
            path.unlink()
    run_server_cases(chosen)
    return 0


if __name__ == "__main__":
    sys.exit(main())
