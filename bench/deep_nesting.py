"""Deeply nested HTML through the extractor: wall time, peak memory and outcome per input.

    .venv/bin/python -m bench.deep_nesting [--only NAME]

Each input is extracted in a fresh child process (so peak RSS is that input's own) by
`Html5libExtractor.extract_sync`. The outcome is the document's length or the error
kind; a RecursionError or any other exception is printed as `internal` and makes the
benchmark exit 1. Inputs: the issue-14 class (100,000 nested `<b>`, `<div>`, `<ul>`,
20,000 nested tables), mixed inline/block nesting, nesting just under the depth limit,
and inputs built to make a depth check itself slow (deep stack plus a flood of end tags
that close nothing, a long flat run of unclosed items).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

_WORDS = b"Some article text that a reader would see. "


def _nested(open_tag: bytes, close_tag: bytes, levels: int, inner: bytes = _WORDS) -> bytes:
    return b"<html><body>" + open_tag * levels + inner + close_tag * levels + b"</body></html>"


def inputs() -> dict[str, bytes]:
    return {
        "100k <b>": _nested(b"<b>", b"</b>", 100_000),
        "100k <div>": _nested(b"<div>", b"</div>", 100_000),
        "100k <ul><li>": _nested(b"<ul><li>", b"</li></ul>", 100_000),
        "20k tables": _nested(b"<table><tr><td>", b"</td></tr></table>", 20_000),
        "100k unclosed <span>": _nested(b"<span>", b"", 100_000),
        "50k <div><em>": _nested(b"<div><em>", b"</em></div>", 50_000),
        "900 <div> + text": _nested(b"<div><p>" + _WORDS * 3, b"</div>", 900),
        "999 <div> + 1M stray </i>": (b"<html><body>" + b"<div>" * 999 + _WORDS
                                      + b"</i>" * 1_000_000 + b"</body></html>"),
        "300k flat <li>": b"<html><body><ul>" + b"<li>item text" * 300_000 + b"</ul></body>",
    }


_CHILD = """
import json, resource, sys, time
from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.domain.errors import SheafError
body = sys.stdin.buffer.read()
started = time.perf_counter()
try:
    outcome = f"{len(Html5libExtractor().extract_sync(body, 'https://example.org/').text)} chars"
    failed = False
except SheafError as error:
    outcome, failed = error.kind.value, False
except BaseException as error:  # what the benchmark exists to catch
    outcome, failed = f"internal: {type(error).__name__}", True
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "peak_mb": peak, "outcome": outcome, "failed": failed}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run the inputs whose name contains this")
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    print(f"{'input':<28} {'MB in':>6} {'seconds':>8} {'peak MB':>8}  outcome")
    bad = 0
    for name, body in inputs().items():
        if args.only and args.only not in name:
            continue
        started = time.perf_counter()
        try:
            run = subprocess.run([sys.executable, "-c", _CHILD], input=body,
                                 capture_output=True, timeout=args.timeout, check=False)
        except subprocess.TimeoutExpired:
            print(f"{name:<28} {len(body) / 1e6:6.2f} {'>' + str(args.timeout):>8}")
            bad += 1
            continue
        if run.returncode != 0:
            print(f"{name:<28} child died ({run.returncode}): {run.stderr.decode()[-200:]}")
            bad += 1
            continue
        result = json.loads(run.stdout.decode().strip().splitlines()[-1])
        bad += result["failed"]
        print(f"{name:<28} {len(body) / 1e6:6.2f} {result['seconds']:8.2f} "
              f"{result['peak_mb']:8.0f}  {result['outcome']}"
              f"  (process {time.perf_counter() - started:.1f}s)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
