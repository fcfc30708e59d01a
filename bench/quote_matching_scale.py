"""Fuzzy quote matching as the query grows: near-linear, against the previous algorithm.

    .venv/bin/python -P bench/quote_matching_scale.py [--corpora DIR]

The text is the CISI collection joined (about 1.1 MB). Queries are passages of 60 to
1,000,000 characters with one character in forty changed (so only a fuzzy match finds
them). For each size: seconds, the score and how far the passage found is from the one
taken. The previous algorithm (difflib windows around long words, before ADR-0015) is
loaded from the repository's history and run in the same process up to 2,000 characters
(it took 23.8 s there and 26+ minutes at 1 MB).
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

from sheaf.domain.quotes.quote_matching import find_quote

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"
PREVIOUS = "f04587b"
PEER_MAX = 2_000


def previous_algorithm() -> types.ModuleType | None:
    root = Path(__file__).resolve().parents[1]
    try:
        source = subprocess.run(["git", "-C", str(root), "show",
                                 f"{PREVIOUS}:domain/quotes/quote_matching.py"], check=True,
                                capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
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
    text = "\n\n".join(json.loads(line)["text"] for line in corpus.open())
    rng = random.Random(14)
    peer = previous_algorithm()
    print(f"text: {len(text):,} characters; peer: "
          f"{'previous algorithm (' + PREVIOUS + ')' if peer else 'unavailable (no git)'}")
    print(f"{'query':>9} {'seconds':>8} {'score':>6} {'offset':>7} {'peer s':>8} "
          f"{'peer/now':>8}")
    for size in (60, 200, 2_000, 20_000, 200_000, 1_000_000):
        start = rng.randrange(0, len(text) - size)
        chars = list(text[start:start + size])
        for _ in range(max(1, size // 40)):
            chars[rng.randrange(size)] = rng.choice("abcdefgh ")
        query = "".join(chars)
        began = time.perf_counter()
        result = find_quote(text, query)
        seconds = time.perf_counter() - began
        match = result.matches[0] if result.found else result.closest
        score = f"{match.score:.3f}" if match else "-"
        offset = f"{match.start - start:+d}" if match else "-"
        peer_text = ratio = "-"
        if peer is not None and size <= PEER_MAX:
            began = time.perf_counter()
            peer.find_quote(text, query)
            peer_seconds = time.perf_counter() - began
            peer_text, ratio = f"{peer_seconds:.2f}", f"{peer_seconds / seconds:.1f}x"
        print(f"{size:>9,} {seconds:>8.2f} {score:>6} {offset:>7} {peer_text:>8} {ratio:>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
