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
import os
import re
import signal
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

_ERROR = re.compile(rb"sheaf: error: ([a-z_]+):")


def run_case(path: Path, timeout: float) -> tuple[float, float, str]:
    """Extract `path` in a subprocess: (seconds, peak RSS in MB, outcome)."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as stderr:
        process = subprocess.Popen([str(SHEAF), "extract", str(path), "--format", "json"],
                                   stdout=subprocess.DEVNULL, stderr=stderr,
                                   start_new_session=True)
        timed_out = False
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - started > timeout:
                os.killpg(process.pid, signal.SIGKILL)
                _, status, usage = os.wait4(process.pid, 0)
                timed_out = True
                break
            time.sleep(0.05)
        process.returncode = os.waitstatus_to_exitcode(status)  # Popen must not reap it
        elapsed = time.monotonic() - started
        stderr.seek(0)
        errors = stderr.read()
    peak_mb = usage.ru_maxrss / 1024  # kilobytes on Linux
    if timed_out:
        return elapsed, peak_mb, f"TIMEOUT after {timeout:.0f} s"
    if process.returncode == 0:
        return elapsed, peak_mb, "OK"
    found = _ERROR.search(errors)
    if found:
        detail = errors[found.end():].decode(errors="replace").strip().splitlines()[0]
        return elapsed, peak_mb, f"{found.group(1).decode()} ({detail[:70]})"
    last = (errors.decode(errors="replace").strip().splitlines() or ["no message"])[-1]
    return elapsed, peak_mb, f"exit {process.returncode}: {last[:80]}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=120,
                        help="seconds before a case is killed (default 120)")
    parser.add_argument("--only", default="",
                        help="comma-separated case names (default: all): "
                             + ", ".join(CASES))
    args = parser.parse_args()
    chosen = [name for name in args.only.split(",") if name] or [*CASES, *SCENARIOS]
    unknown = sorted(set(chosen) - set(CASES) - set(SCENARIOS))
    if unknown:
        parser.error(f"unknown cases: {', '.join(unknown)}")
    print(f"{'case':<22} {'input':>9} {'wall s':>8} {'peak MB':>8}  outcome")
    with tempfile.TemporaryDirectory(prefix="sheaf-hostile-") as folder:
        for name in chosen:
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
