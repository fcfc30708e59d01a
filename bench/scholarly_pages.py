"""Structure kept on real publisher pages (../shared/corpora/scholarly-html-dev).

    .venv/bin/python -m bench.scholarly_pages [--corpus DIR] [--verbose]

Per page: heading recall (the manifest's section headings found among sheaf's Markdown
headings, compared after normalising case, numbering and whitespace), sentence recall
(manifest sentences found in the whitespace-collapsed text), reference entries kept
against expected, title / DOI / citation_pdf_url correct, and junk hits (script, style
or cookie-banner text in the output; TeX math is set aside first).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from bench.html_quality import MATH_BLOCKS, collapse, normalise_heading
from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.domain.document.document import BlockKind

DEFAULT_CORPUS = (Path(__file__).resolve().parents[1].parent / "shared" / "corpora"
                  / "scholarly-html-dev")
JUNK = {
    "function(": re.compile(r"function\(|function\s*\([^)]*\)\s*\{"),
    "var ": re.compile(r"\bvar\s+[A-Za-z_$][\w$]*\s*="),
    "window.": re.compile(r"\bwindow\.[A-Za-z_]"),
    "@media": re.compile(r"@media"),
    "{": re.compile(r"[\w\]-]\s*\{[^{}]*:[^{}]*;"),  # a CSS or JS block, not TeX
    "cookie banner": re.compile(r"we use cookies|accept all cookies|cookie (?:settings|"
                                r"preferences|policy)", re.IGNORECASE),
}
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    manifest = json.loads((args.corpus / "manifest.json").read_text())
    extractor = Html5libExtractor()
    header = (f"{'id':<3} {'publisher':<22} {'full':<5} {'ms':>5} {'headings':>9} "
              f"{'sentences':>9} {'refs':>9} {'title':>5} {'doi':>4} {'pdf':>4} junk")
    print(header)
    heading_recalls = []
    all_sentences = found_sentences = 0
    failures: list[str] = []
    for entry in manifest:
        body = (args.corpus / entry["file"]).read_bytes()
        url = entry.get("source_url_from_page") or "https://example.org/"
        started = time.perf_counter()
        document = extractor.extract_sync(body, url)
        ms = (time.perf_counter() - started) * 1000
        ours = {normalise_heading(b.draft.text) for b in document.headings()}
        expected = entry.get("section_headings") or []
        missing_headings = [h for h in expected if normalise_heading(h) not in ours]
        recall = 1 - len(missing_headings) / len(expected) if expected else 1.0
        if entry["full_text"]:
            heading_recalls.append(recall)
        text = collapse(document.text)
        sentences = [s["text"] for s in entry.get("sentences") or []]
        missing_sentences = [s for s in sentences if collapse(s) not in text]
        all_sentences += len(sentences)
        found_sentences += len(sentences) - len(missing_sentences)
        refs = sum(1 for b in document.blocks if b.kind is BlockKind.REFERENCE)
        want_refs = entry.get("reference_count")
        meta = document.metadata
        title_ok = collapse(meta.title or "") == collapse(entry.get("title") or "")
        doi_ok = (meta.doi or "").lower() == (entry.get("doi") or "").lower()
        pdf_ok = meta.citation_pdf_url == entry.get("citation_pdf_url")
        prose = MATH_BLOCKS.sub(" ", document.text)  # TeX braces are the article's own
        junk = [name for name, pattern in JUNK.items() if pattern.search(prose)]
        ref_text = f"{refs}/{want_refs}" if want_refs else f"{refs}/-"
        print(f"{entry['id']:<3} {entry['publisher'][:22]:<22} {entry['full_text']!s:<5} "
              f"{ms:5.0f} {recall:9.2f} {len(sentences) - len(missing_sentences):>5}/"
              f"{len(sentences):<3} {ref_text:>9} {title_ok!s:>5} {doi_ok!s:>4} "
              f"{pdf_ok!s:>4} {','.join(junk) or '-'}")
        if want_refs and refs < 0.9 * want_refs:
            failures.append(f"{entry['id']}: {refs} of {want_refs} references")
        if missing_sentences or junk or not (title_ok and doi_ok and pdf_ok):
            failures.append(f"{entry['id']}: sentences missing {len(missing_sentences)}, "
                            f"junk {junk}, title {title_ok}, doi {doi_ok}, pdf {pdf_ok}")
        if args.verbose:
            for heading in missing_headings:
                print(f"      missing heading: {heading}")
            for sentence in missing_sentences:
                print(f"      missing sentence: {sentence[:100]}")
    mean = sum(heading_recalls) / len(heading_recalls)
    print(f"\nheading recall (full-text pages): {mean:.3f}; sentences found: "
          f"{found_sentences}/{all_sentences}")
    print("shortfalls: " + ("; ".join(failures) if failures else "none"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
