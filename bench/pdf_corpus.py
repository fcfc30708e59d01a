"""PDF extraction on ../shared/corpora/pdf-dev: robustness, text fidelity, structure, speed.

    .venv/bin/python -P bench/pdf_corpus.py [--corpus DIR] [--only PREFIX] [--no-speed]

- Robustness: every file, its outcome (pages and characters, or the typed error) and time,
  opened with the manifest's password when it has one.
- Text fidelity: word recall and precision (`\\w+`, lower-cased, as multisets) of sheaf's
  plain text against poppler's `pdftotext` output shipped in the corpus, per A* paper and
  averaged.
- Structure: heading recall against ground truth headings (GROBID TEI `<head>`, S2ORC
  section names, CERMINE JATS `<sec><title>`, Docling Markdown headings).
- Speed on the A* papers, in one run: pages/s for sheaf, for pdfminer.six's plain
  `extract_text` (the floor sheaf's structure pass adds to) and for `pdftotext` when
  installed (the native peer).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from sheaf.adapters.pdfminer_extractor import PdfminerExtractor
from sheaf.domain.errors import SheafError
from sheaf.domain.markdown_rendering import document_plain_text
from sheaf.domain.pdf_text import repair_glyphs

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "pdf-dev"
_WORD = re.compile(r"\w+")
_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.|[A-Z]\.)\s+")


def words(text: str) -> Counter[str]:
    r"""Lower-cased `\w+` words, with ligature glyphs spelled out on both sides: pdftotext
    keeps "ﬁ" as one character, sheaf writes "fi", and neither is a different word."""
    return Counter(w.lower() for w in _WORD.findall(repair_glyphs(text)))


def fidelity(ours: str, reference: str) -> tuple[float, float]:
    mine, theirs = words(ours), words(reference)
    common = sum((mine & theirs).values())
    recall = common / sum(theirs.values()) if theirs else 1.0
    precision = common / sum(mine.values()) if mine else 0.0
    return recall, precision


def normalise_heading(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", _NUMBERING.sub("", text).lower()).split())


def truth_headings(folder: Path) -> list[str]:
    """Section headings from whichever full-text ground truth the folder holds."""
    found: list[str] = []
    for path in sorted(folder.iterdir()):
        text = path.read_text(errors="replace")
        if path.name.endswith("fulltext.tei.xml") or (path.suffix == ".xml" and "<TEI" in text
                                                       and "<head" in text):
            found += [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<head[^>]*>(.*?)</head>",
                                                                    text, re.S)]
        elif path.suffix == ".json" and '"pdf_parse"' in text:
            body = json.loads(text)["pdf_parse"]["body_text"]
            found += list(dict.fromkeys(p["section"] for p in body if p.get("section")))
        elif path.name.endswith("-content.xml"):
            found += [t for t in re.findall(r"<sec[^>]*>\s*<title>(.*?)</title>", text, re.S)
                      if t.strip("- ")]
        elif path.suffix == ".md" and "tesseract" not in path.name:
            found += [line.lstrip("#").strip() for line in text.splitlines()
                      if line.startswith("#")]
        if found:
            break
    return [h for h in dict.fromkeys(" ".join(h.split()) for h in found) if h]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--only", default="", help="only files whose name starts so")
    parser.add_argument("--no-speed", action="store_true")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    manifest = json.loads((args.corpus / "manifest.json").read_text())["entries"]
    extractor = PdfminerExtractor()
    recalls, precisions, heading_recalls = [], [], []
    print(f"{'file':<44} {'outcome':<34} {'s':>6} {'recall':>6} {'prec':>6} {'heads':>6}")
    for entry in manifest:
        name = entry["id"]
        if not name.startswith(args.only):
            continue
        data = (args.corpus / entry["file"]).read_bytes()
        started = time.perf_counter()
        try:
            document = extractor.extract_sync(data, entry.get("password"))
            outcome = f"{document.page_count} pages, {len(document.text)} chars"
        except SheafError as exc:
            document = None
            outcome = f"{exc.kind.value}"
        seconds = time.perf_counter() - started
        row = f"{name[:44]:<44} {outcome[:34]:<34} {seconds:6.2f}"
        stem = name[:-4]
        reference = args.corpus / "pdftotext" / f"{stem}.raw.txt"
        if document is not None and name.startswith("A") and reference.exists():
            recall, precision = fidelity(document_plain_text(document), reference.read_text())
            recalls.append(recall)
            precisions.append(precision)
            row += f" {recall:6.3f} {precision:6.3f}"
        else:
            row += f" {'':>6} {'':>6}"
        truth_dir = args.corpus / "groundtruth" / stem
        expected = truth_headings(truth_dir) if truth_dir.is_dir() else []
        if document is not None and len(expected) >= 2:
            ours = {normalise_heading(b.draft.text) for b in document.headings()}
            hit = sum(1 for h in expected if normalise_heading(h) in ours)
            heading_recalls.append(hit / len(expected))
            row += f" {hit:>3}/{len(expected):<3}"
        print(row)
    if recalls:
        print(f"\nA* papers vs pdftotext: word recall {sum(recalls) / len(recalls):.3f}, "
              f"precision {sum(precisions) / len(precisions):.3f} ({len(recalls)} papers)")
    if heading_recalls:
        print(f"heading recall on {len(heading_recalls)} papers with full-text ground truth: "
              f"{sum(heading_recalls) / len(heading_recalls):.3f}")
    if not args.no_speed:
        speed(args.corpus, [e for e in manifest if e["id"].startswith("A")], extractor)
    return 0


def speed(corpus: Path, papers: list[dict[str, object]], extractor: PdfminerExtractor) -> None:
    from pdfminer.high_level import extract_text

    files = [(corpus / str(e["file"])).read_bytes() for e in papers]
    pages = sum(int(str(e["pages"])) for e in papers)
    import io

    timings: dict[str, float] = {}
    started = time.perf_counter()
    for data in files:
        extractor.extract_sync(data)
    timings["sheaf"] = time.perf_counter() - started
    started = time.perf_counter()
    for data in files:
        extract_text(io.BytesIO(data))
    timings["pdfminer extract_text"] = time.perf_counter() - started
    if shutil.which("pdftotext"):
        started = time.perf_counter()
        for e in papers:
            subprocess.run(["pdftotext", str(corpus / str(e["file"])), "-"], check=False,
                           capture_output=True)
        timings["pdftotext"] = time.perf_counter() - started
    print(f"\nspeed on {len(files)} A* papers ({pages} pages):")
    for name, seconds in timings.items():
        print(f"  {name:<22} {pages / seconds:7.1f} pages/s")
    print(f"  ratio sheaf / pdfminer extract_text: "
          f"{timings['pdfminer extract_text'] / timings['sheaf']:.2f}x")


if __name__ == "__main__":
    raise SystemExit(main())
