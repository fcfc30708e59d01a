"""Sections and verbatim quotes on real documents (scholarly-html-dev and pdf-dev).

    .venv/bin/python -P bench/sections_and_quotes.py [--corpora DIR]

For every full-text publisher page and every pdf-dev paper with headings: the section
label table and how many canonical labels were found. For the publisher pages: each
manifest sentence quoted as given (must be verified as an exact match, offsets checked),
then with its whitespace, quote marks and first letter's case changed (must be verified
as a tolerant match whose text is the document's original), and the other pages'
sentences (must never be verified).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from sheaf.domain.analysis.section_labels import SCIENTIFIC_CORE
from sheaf.domain.document.document import Document
from sheaf.domain.errors import SheafError
from sheaf.domain.quotes.quote_verification import verify_quote
from sheaf.domain.store.document_analysis import document_sections

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"
CANONICAL = SCIENTIFIC_CORE | {"abstract", "background", "related_work", "limitations",
                               "acknowledgements", "funding", "declarations", "appendix",
                               "supplementary", "keywords"}


def disguise(sentence: str) -> str:
    """Within the tolerances a verified quote allows: spaces doubled and every third one
    a line break, straight quotes curled, the first letter's case swapped."""
    words = sentence.replace('"', "\u201c").replace("'", "\u2019").split(" ")
    text = "".join(w + ("\n" if i % 3 == 2 else "  ") for i, w in enumerate(words)).strip()
    return text[:1].swapcase() + text[1:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=DEFAULT)
    args = parser.parse_args()
    pages_dir = args.corpora / "scholarly-html-dev"
    if not pages_dir.is_dir():
        print(f"corpus not found: {pages_dir}", file=sys.stderr)
        return 2
    manifest = json.loads((pages_dir / "manifest.json").read_text())
    documents: dict[str, Document] = {}
    failures: list[str] = []
    print("label table (full-text publisher pages):")
    for entry in manifest:
        if not entry["full_text"]:
            continue
        document = Html5libExtractor().extract_sync((pages_dir / entry["file"]).read_bytes(),
                                                    entry.get("source_url_from_page") or "")
        documents[entry["id"]] = document
        labels = [s.label for s in document_sections(document)]
        canonical = sorted(set(labels) & CANONICAL)
        print(f"  {entry['id']} {entry['publisher'][:24]:<24} {len(canonical):>2} canonical: "
              f"{', '.join(canonical)}")
        if len(set(labels) & CANONICAL) < 3:
            failures.append(f"{entry['id']}: fewer than 3 canonical labels")

    exact = tolerant = foreign_found = foreign_total = 0
    total = 0
    for entry in manifest:
        document = documents.get(entry["id"])
        if document is None:
            continue
        text = document.text
        for sentence in (s["text"] for s in entry.get("sentences") or []):
            total += 1
            result = verify_quote(text, sentence)
            match = result.matches[0] if result.verified else None
            if match and match.match == "exact" and text[match.start:match.end] == sentence:
                exact += 1
            else:
                failures.append(f"{entry['id']}: not exact: {sentence[:60]}")
            result = verify_quote(text, disguise(sentence))
            match = result.matches[0] if result.verified else None
            collapsed = " ".join(sentence.split())
            if match and match.match == "tolerant" and " ".join(
                    text[match.start:match.end].split()) == collapsed:
                tolerant += 1
            else:
                failures.append(f"{entry['id']}: not tolerant: {sentence[:60]}")
        for other in manifest:
            if other["id"] == entry["id"]:
                continue
            for sentence in (s["text"] for s in other.get("sentences") or []):
                foreign_total += 1
                if verify_quote(text, sentence).verified:
                    foreign_found += 1
                    failures.append(f"{entry['id']}: foreign sentence matched: {sentence[:50]}")
    print(f"\nmanifest sentences: {exact}/{total} exact with correct offsets, "
          f"{tolerant}/{total} tolerant when disguised")
    print(f"sentences from other documents: {foreign_found}/{foreign_total} wrongly matched")

    pdf_dir = args.corpora / "pdf-dev"
    if pdf_dir.is_dir():
        print("\nlabel table (pdf-dev papers with headings):")
        for path in sorted((pdf_dir / "files").glob("A*.pdf")):
            try:
                document = PdfminerExtractor().extract_sync(path.read_bytes())
            except SheafError:
                continue
            labels = sorted({s.label for s in document_sections(document)} & CANONICAL)
            if document.headings():
                print(f"  {path.stem[:40]:<40} {len(labels):>2}: {', '.join(labels)}")
    print("\nshortfalls: " + ("; ".join(failures[:20]) if failures else "none"))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
