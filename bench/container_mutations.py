"""Random mutations of small valid DOCX, PPTX, XLSX, EPUB (2 and 3) and OpenDocument
files, charts and equations among them: every case must end as a Document or a typed
error, never a traceback or a hang.

    .venv/bin/python -P bench/container_mutations.py [--cases 2000] [--seed 1]

Mutations: bytes flipped anywhere (mostly damaging the deflate streams and the
directory), and members replaced by XML fragments cut at random points (reaching the
readers' own parsing with valid archives). The test suite runs a few dozen cases.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import time
import zipfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sheaf.adapters.office.docx_extractor import DocxExtractor
from sheaf.adapters.office.epub_extractor import EpubExtractor
from sheaf.adapters.office.odf_extractor import OdfExtractor
from sheaf.adapters.office.pptx_extractor import PptxExtractor
from sheaf.adapters.office.xlsx_extractor import XlsxExtractor
from sheaf.domain.errors import SheafError
from tests.office_fixtures import (
    chart_pptx_bytes,
    docx_bytes,
    epub2_bytes,
    epub_bytes,
    equation_docx_bytes,
    odp_bytes,
    ods_bytes,
    odt_bytes,
    pptx_bytes,
    rewrite_zip,
    xlsx_bytes,
)

SEEDS = {"docx": (DocxExtractor(), docx_bytes()), "pptx": (PptxExtractor(), pptx_bytes()),
         "xlsx": (XlsxExtractor(), xlsx_bytes()), "epub": (EpubExtractor(), epub_bytes()),
         "epub2": (EpubExtractor(), epub2_bytes()),
         "docx-equations": (DocxExtractor(), equation_docx_bytes()),
         "pptx-chart": (PptxExtractor(), chart_pptx_bytes()),
         "odt": (OdfExtractor(), odt_bytes()), "ods": (OdfExtractor(), ods_bytes()),
         "odp": (OdfExtractor(), odp_bytes())}


def mutate(body: bytes, rng: random.Random) -> bytes:
    """Flipped bytes, or one XML member cut short or with a span of it shuffled."""
    if rng.random() < 0.5:
        data = bytearray(body)
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        names = [n for n in archive.namelist() if n.endswith((".xml", ".rels", ".xhtml",
                                                              ".opf", ".ncx"))]
        name = rng.choice(names)
        xml = archive.read(name)
    cut = rng.randrange(len(xml))
    if rng.random() < 0.5:
        changed = xml[:cut]
    else:
        start, end = sorted((cut, rng.randrange(len(xml))))
        middle = bytearray(xml[start:end])
        rng.shuffle(middle)
        changed = xml[:start] + bytes(middle) + xml[end:]
    return rewrite_zip(body, {name: changed})


def run(cases: int, seed: int) -> int:
    rng = random.Random(seed)
    outcomes: Counter[str] = Counter()
    failures = 0
    started = time.perf_counter()
    for index in range(cases):
        kind = rng.choice(sorted(SEEDS))
        extractor, body = SEEDS[kind]
        mutated = mutate(body, rng)
        try:
            extractor.extract_sync(mutated, f"case-{index}")
            outcomes[f"{kind}: document"] += 1
        except SheafError as exc:
            outcomes[f"{kind}: {exc.kind.value}"] += 1
        except Exception as exc:  # what this benchmark exists to find
            failures += 1
            print(f"case {index} ({kind}): {type(exc).__name__}: {exc}", file=sys.stderr)
    elapsed = time.perf_counter() - started
    for outcome, count in sorted(outcomes.items()):
        print(f"{outcome:<28} {count}")
    print(f"{cases} cases in {elapsed:.1f} s, {failures} untyped failures")
    return 1 if failures else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    sys.exit(run(arguments.cases, arguments.seed))
