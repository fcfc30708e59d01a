"""The closest passage to a quote as the document grows: near-linear, against the old one.

    .venv/bin/python -P bench/quote_matching_scale.py [--corpora DIR]

The documents are the CISI collection joined (about 1.1 MB) and its first 1% and 10%.
Requests are passages of 60, 200 and 2,000 characters (the most a quote request may
hold, `MAX_QUOTE_CHARACTERS`) with one character in forty changed, so `verify_quote`
answers with its closest passage. For each pair: seconds, the similarity and how far the
passage found is from the one taken. The previous algorithm (difflib windows around long
words, before ADR-0015) is loaded from the repository's history and run in the same
process (it took 23.8 s on a 2,000-character request there).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
import types
from pathlib import Path

from sheaf.application.quotes.quotes import MAX_QUOTE_CHARACTERS
from sheaf.domain.quotes.quote_verification import verify_quote

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"
PREVIOUS = "f04587b"


def previous_algorithm() -> types.ModuleType | None:
    root = Path(__file__).resolve().parents[1]
    try:
        source = subprocess.run(["git", "-C", str(root), "show",
                                 f"{PREVIOUS}:domain/quote_matching.py"], check=True,
                                capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    # Its one import from sheaf has moved since (issue 27's layout).
    source = source.replace("from sheaf.domain.pdf_text import",
                            "from sheaf.domain.pdf.text_repairs import")
    module = types.ModuleType("previous_quote_matching")
    exec(compile(source, "previous_quote_matching.py", "exec"), module.__dict__)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=DEFAULT)
    args = parser.parse_args()
    corpus = args.corpora / "retrieval-cisi" / "corpus.jsonl"
    if not corpus.is_file():
        print(f"corpus not found: {corpus}", file=sys.stderr)
        return 2
    whole = "\n\n".join(json.loads(line)["text"] for line in corpus.open())
    rng = random.Random(14)
    peer = previous_algorithm()
    print(f"peer: {'previous algorithm (' + PREVIOUS + ')' if peer else 'unavailable (no git)'}")
    print(f"{'document':>10} {'request':>8} {'seconds':>8} {'similar':>7} {'offset':>7} "
          f"{'peer s':>8} {'peer/now':>8}")
    for share in (0.01, 0.1, 1.0):
        text = whole[:int(len(whole) * share)]
        for size in (60, 200, MAX_QUOTE_CHARACTERS):
            start = rng.randrange(0, len(text) - size)
            chars = list(text[start:start + size])
            for _ in range(max(1, size // 40)):
                chars[rng.randrange(size)] = rng.choice("abcdefgh ")
            request = "".join(chars)
            began = time.perf_counter()
            result = verify_quote(text, request)
            seconds = time.perf_counter() - began
            match = result.matches[0] if result.matches else result.closest
            similar = f"{match.similarity:.3f}" if match else "-"
            offset = f"{match.start - start:+d}" if match else "-"
            peer_text = ratio = "-"
            if peer is not None:
                began = time.perf_counter()
                peer.find_quote(text, request)
                peer_seconds = time.perf_counter() - began
                peer_text, ratio = f"{peer_seconds:.2f}", f"{peer_seconds / seconds:.1f}x"
            print(f"{len(text):>10,} {size:>8,} {seconds:>8.2f} {similar:>7} {offset:>7} "
                  f"{peer_text:>8} {ratio:>8}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
