"""Random byte mutations of small valid PDFs: every case must end as a Document or a
typed error, never a traceback or a hang.

    .venv/bin/python -P bench/pdf_mutations.py [--cases 5000] [--seed 1] [--engine pdfium]

The test suite runs a few hundred such cases with hypothesis; this runs many more.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from sheaf.domain.errors import SheafError
from tests.pdf_writer import write_pdf

SEEDS = [
    write_pdf([("h1", "Mutation Seed"), ("p", "A paragraph of ordinary words. " * 20)]),
    write_pdf([("h2", "1 Two columns"), ("p", "Column text flows on. " * 80)], columns=2),
    write_pdf([("p", "Locked text.")], password=""),
]


def mutate(data: bytes, rng: random.Random) -> bytes:
    blob = bytearray(data)
    for _ in range(rng.randint(1, 12)):
        action = rng.random()
        position = rng.randrange(len(blob))
        if action < 0.6:
            blob[position] = rng.randrange(256)
        elif action < 0.8:
            del blob[position:position + rng.randint(1, 64)]
        else:
            blob[position:position] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    if rng.random() < 0.2:
        blob = blob[: rng.randrange(len(blob))]
    return bytes(blob)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", choices=("pdfminer", "pdfium"), default="pdfminer")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    extractor = PdfminerExtractor(time_budget=10, engine=args.engine)
    outcomes: Counter[str] = Counter()
    slowest = 0.0
    started = time.perf_counter()
    for _ in range(args.cases):
        data = mutate(rng.choice(SEEDS), rng)
        case_started = time.perf_counter()
        try:
            extractor.extract_sync(data)
            outcomes["document"] += 1
        except SheafError as exc:
            outcomes[exc.kind.value] += 1
        except Exception as exc:  # the failure this bench exists to find
            outcomes["UNTYPED " + type(exc).__name__] += 1
            print(f"untyped {type(exc).__name__}: {exc}", file=sys.stderr)
        slowest = max(slowest, time.perf_counter() - case_started)
    elapsed = time.perf_counter() - started
    print(f"{args.cases} mutated PDFs in {elapsed:.1f} s (slowest {slowest:.2f} s):")
    for outcome, count in outcomes.most_common():
        print(f"  {outcome:<24} {count}")
    return 1 if any(k.startswith("UNTYPED") for k in outcomes) else 0


if __name__ == "__main__":
    raise SystemExit(main())
