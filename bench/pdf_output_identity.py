"""Digests of the PDF extractor's output on every pdf-dev file, through both engines, to
show that a speed change leaves every extraction identical (issue 36, ADR-0042).

    .venv/bin/python -P bench/pdf_output_identity.py --output before.json
    .venv/bin/python -P bench/pdf_output_identity.py --output after.json
    .venv/bin/python -P bench/pdf_output_identity.py --compare before.json after.json

Each file is extracted in this process by `PdfminerExtractor(engine=...)` for the
pdfminer and the PDFium engine (opened with the manifest's password), and its
`extract --format json` rendering (Markdown, blocks, notes, metadata) is digested with
SHA-256, or its typed error's kind and message when it has none. `--compare` prints the
files that differ and exits 1 when any do. The run re-executes itself with
PYTHONHASHSEED=0: XMP keywords come from pikepdf as a set, listed in its hash order.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run by path, with -P

from bench.digest_comparison import compare_digests, rendered_digest
from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "pdf-dev"
ENGINES = ("pdfminer", "pdfium")


def digest(extractor: PdfminerExtractor, data: bytes, password: str | None) -> str:
    return rendered_digest(lambda: extractor.extract_sync(data, password))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--output", type=Path)
    parser.add_argument("--engine", choices=ENGINES, action="append",
                        help="only this engine (repeatable; both by default)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        return compare_digests(*args.compare, "digests")
    if args.output is None or not (args.corpus / "manifest.json").is_file():
        print("--output is needed, and the corpus must be present", file=sys.stderr)
        return 2
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable, "-P", *sys.argv],
                  {**os.environ, "PYTHONHASHSEED": "0"})
    entries = json.loads((args.corpus / "manifest.json").read_text())["entries"]
    digests: dict[str, str] = {}
    for engine in args.engine or ENGINES:
        extractor = PdfminerExtractor(engine=engine)
        for entry in entries:
            data = (args.corpus / entry["file"]).read_bytes()
            digests[f"{engine}/{entry['id']}"] = digest(extractor, data, entry.get("password"))
    args.output.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    print(f"{len(digests)} digests written to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
