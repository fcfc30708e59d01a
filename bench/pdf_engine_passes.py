"""The PDF extractor over the A* dev papers N times in one process, for instruction
counts of one warm pass (issue 36, ADR-0042, fifth pass):

    valgrind --tool=callgrind .venv/bin/python -P bench/pdf_engine_passes.py --passes 1
    valgrind --tool=callgrind .venv/bin/python -P bench/pdf_engine_passes.py --passes 2

the second count less the first is one pass without the imports and first-use caches.
Outputs are discarded; typed errors are the extractor's own and are passed over.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run by path, with -P

from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from sheaf.domain.errors import SheafError

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "pdf-dev"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--engine", choices=("pdfium", "pdfminer"), default="pdfium")
    parser.add_argument("--passes", type=int, default=1)
    args = parser.parse_args()
    if not (args.corpus / "manifest.json").is_file():
        print("the corpus must be present", file=sys.stderr)
        return 2
    entries = [e for e in json.loads((args.corpus / "manifest.json").read_text())["entries"]
               if str(e["id"]).startswith("A")]
    papers = [(args.corpus / str(e["file"])).read_bytes() for e in entries]
    extractor = PdfminerExtractor(engine=args.engine)
    for _ in range(args.passes):
        for data in papers:
            with contextlib.suppress(SheafError):
                extractor.extract_sync(data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
