"""PDF extraction on ../shared/corpora/pdf-dev: robustness, text fidelity, structure, speed.

    .venv/bin/python -P bench/pdf_corpus.py [--corpus DIR] [--only PREFIX] [--no-speed]
        [--speed-only | --memory-only] [--rounds N]

- Robustness: every file, its outcome (pages and characters, or the typed error) and time,
  opened with the manifest's password when it has one.
- Text fidelity: word recall and precision (`\\w+`, lower-cased, as multisets) of sheaf's
  plain text against poppler's `pdftotext` output shipped in the corpus, per A* paper and
  averaged. A word one side splits where the other does not (pdftotext writes small
  capitals `SciBERT` as `S CI B ERT` and a subscript apart, `q vol`; it joins a compound
  broken at a line end, `ondemand`) counts as the same word: up to four adjacent words of
  one side that spell a missing word of the other. The mean without that is printed too.
  Running headers, footers and page numbers are in sheaf's text on their pages (as in
  pdftotext's); margin stamps and printer's slugs once.
- Structure: heading recall against ground truth headings (GROBID TEI `<head>`, S2ORC
  section names, CERMINE JATS `<sec><title>`, Docling Markdown headings).
- Garbage: pages whose text did not decode to writing, recovered by the second engine or
  flagged (the decision log's `text_recovered` / `undecodable_text` notes), per file.
- Tables: Markdown tables found per file, each as rows x columns.
- Title: sheaf's title of every A* paper beside the ground-truth (or metadata) title.
- Both sheaf engines (pdfminer, and PDFium with the `pdfium` extra, ADR-0042) through
  all of the above, then their figures side by side with the differences.
- Speed on the A* papers, in one run: ms/page for sheaf's two engines, for pdfminer.six's plain
  `extract_text` (the text pass sheaf's structure pass replaces), for pypdfium2 and for
  `pdftotext` when installed, each engine in a child process of its own, in interleaved
  rounds (medians), and the ratio to pdfminer in wall and in CPU time (steadier on a
  loaded machine), per round too; and the peak memory (VmHWM of a child process) of
  reading all dev files one after another in one process, per sheaf engine and for
  pdfminer's `extract_text`.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from sheaf.domain.document.document import BlockKind, Document
from sheaf.domain.document.markdown_rendering import document_plain_text
from sheaf.domain.errors import SheafError
from sheaf.domain.pdf.text_repairs import repair_glyphs

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "pdf-dev"
_WORD = re.compile(r"\w+")
_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.|[A-Z]\.)\s+")
_PAGE_FLAG = re.compile(r"^(text_recovered|undecodable_text|garbled_text\w*): page (\d+)")
SHEAF_ENGINES = ("pdfminer", "pdfium")
ENGINES = ("sheaf pdfminer", "sheaf pdfium", "pdfminer extract_text", "pypdfium2")


_DOTLESS_UNDER_MARK = re.compile("\u0131(?=[\u0300-\u036f])")
SPLIT_WORD_PARTS = 4


def word_list(text: str) -> list[str]:
    r"""Lower-cased `\w+` words in order, with ligature glyphs spelled out on both sides
    (pdftotext keeps "ﬁ" as one character, sheaf writes "fi": neither is a different word)
    and a combining accent over TeX's dotless i composed (pdftotext's `Lemaı̂tre`, whose
    mark `\w` does not match, is sheaf's `Lemaître`)."""
    text = unicodedata.normalize("NFC", _DOTLESS_UNDER_MARK.sub("i", repair_glyphs(text)))
    return [w.lower() for w in _WORD.findall(text)]


def words(text: str) -> Counter[str]:
    return Counter(word_list(text))


def fidelity(ours: str, reference: str, *, rejoin: bool = True) -> tuple[float, float]:
    """Word recall and precision of `ours` against `reference`; with `rejoin`, a word one
    side splits in up to four parts where the other does not counts as found."""
    mine_words, their_words = word_list(ours), word_list(reference)
    mine, theirs = Counter(mine_words), Counter(their_words)
    common = sum((mine & theirs).values())
    recalled, precise = common, common
    if rejoin:
        missing, extra = theirs - mine, mine - theirs
        parts, whole = _rejoined(their_words, missing, extra)
        recalled, precise = recalled + parts, precise + whole
        parts, whole = _rejoined(mine_words, extra, missing)
        recalled, precise = recalled + whole, precise + parts
    recall = recalled / sum(theirs.values()) if theirs else 1.0
    precision = precise / sum(mine.values()) if mine else 0.0
    return recall, precision


def _rejoined(sequence: list[str], unmatched: Counter[str], other: Counter[str]
              ) -> tuple[int, int]:
    """Runs of adjacent unmatched words of `sequence` that spell an unmatched word of the
    other side, longest first, each use taken off both counters: how many parts, how
    many whole words."""
    parts = whole = 0
    i = 0
    while i < len(sequence):
        for size in range(SPLIT_WORD_PARTS, 1, -1):
            run = sequence[i:i + size]
            if len(run) < size or any(unmatched[w] <= 0 for w in run):
                continue
            if Counter(run) - unmatched:  # a word needed twice but unmatched once
                continue
            joined = "".join(run)
            if other[joined] > 0:
                other[joined] -= 1
                unmatched.subtract(run)
                parts, whole = parts + size, whole + 1
                i += size
                break
        else:
            i += 1
    return parts, whole


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
    parser.add_argument("--speed-only", action="store_true",
                        help="only the speed rounds on the A* papers (no quality, no memory)")
    parser.add_argument("--memory-only", action="store_true",
                        help="only the peak memory over all dev files")
    parser.add_argument("--rounds", type=int, default=SPEED_ROUNDS,
                        help=f"interleaved speed rounds (default {SPEED_ROUNDS})")
    parser.add_argument("--engine", choices=ENGINES, help=argparse.SUPPRESS)
    parser.add_argument("files", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.engine:
        return run_engine(args.engine, args.files)
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    manifest = json.loads((args.corpus / "manifest.json").read_text())["entries"]
    if args.speed_only or args.memory_only:
        if args.speed_only:
            speed(args.corpus, [e for e in manifest if e["id"].startswith("A")], args.rounds)
        if args.memory_only:
            memory(args.corpus, manifest)
        return 0
    summaries = {engine: quality(args, manifest, engine) for engine in SHEAF_ENGINES}
    compare_engines(summaries)
    plumber_tables(args.corpus, [e for e in manifest if e["id"].startswith(args.only)
                                 and int(str(e.get("pages") or 0)) <= 40])
    if not args.no_speed:
        speed(args.corpus, [e for e in manifest if e["id"].startswith("A")], args.rounds)
        memory(args.corpus, manifest)
    return 0


def quality(args: argparse.Namespace, manifest: list[dict[str, Any]], engine: str
            ) -> dict[str, Any]:
    """Every file through one sheaf engine: the per-file table and the corpus figures."""
    extractor = PdfminerExtractor(engine=engine)
    print(f"\n== sheaf, {engine} engine ==")
    recalls, precisions, heading_recalls = [], [], []
    per_file: dict[str, tuple[float, float]] = {}
    split_recalls, split_precisions = [], []
    tables_found: list[str] = []
    flagged_pages = recovered_pages = 0
    titles: list[tuple[str, str | None, str]] = []
    print(f"{'file':<44} {'outcome':<34} {'s':>6} {'recall':>6} {'prec':>6} {'heads':>7} "
          f"{'tables':>6} garbage pages")
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
            ours, theirs = document_plain_text(document), reference.read_text()
            recall, precision = fidelity(ours, theirs)
            per_file[name] = (recall, precision)
            recalls.append(recall)
            precisions.append(precision)
            split = fidelity(ours, theirs, rejoin=False)
            split_recalls.append(split[0])
            split_precisions.append(split[1])
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
        else:
            row += f" {'':>7}"
        if document is not None:
            shapes = table_shapes(document)
            recovered, flagged = garbage_pages(document)
            recovered_pages += len(recovered)
            flagged_pages += len(flagged)
            row += f" {len(shapes):>6} " + garbage_summary(recovered, flagged)
            tables_found += [f"{name[:40]}: {shape}" for shape in shapes]
            if name.startswith("A"):
                titles.append((name, document.metadata.title, truth_title(
                    truth_dir, str(entry.get("title") or ""))))
        print(row)
    if recalls:
        print(f"\nA* papers vs pdftotext: word recall {sum(recalls) / len(recalls):.3f}, "
              f"precision {sum(precisions) / len(precisions):.3f} ({len(recalls)} papers); "
              f"words split differently not joined: recall "
              f"{sum(split_recalls) / len(split_recalls):.3f}, precision "
              f"{sum(split_precisions) / len(split_precisions):.3f}")
        print(f"  lowest recall {min(recalls):.3f}, lowest precision {min(precisions):.3f}")
    if heading_recalls:
        print(f"heading recall on {len(heading_recalls)} papers with full-text ground truth: "
              f"{sum(heading_recalls) / len(heading_recalls):.3f}")
    print(f"garbage: {recovered_pages} pages recovered by the other engine, {flagged_pages} pages "
          f"flagged as undecodable (text left out)")
    print(f"\ntables found ({len(tables_found)}), rows x columns:")
    for line in tables_found:
        print(f"  {line}")
    if titles:
        judged = [t for t in titles if t[2]]
        right = sum(1 for _, ours, truth in judged if same_title(ours, truth))
        print(f"\ntitles of A* papers: {right}/{len(judged)} match the reference title "
              f"({len(titles) - len(judged)} without one, marked ??)")
        for name, ours, truth in titles:
            mark = "?? " if not truth else "ok " if same_title(ours, truth) else "XX "
            print(f"  {mark}{name[:28]:<28} {str(ours)[:70]!r}"
                  + ("" if same_title(ours, truth) else f"\n      expected {truth[:70]!r}"))
    return {"recall": _mean(recalls), "precision": _mean(precisions),
            "headings": _mean(heading_recalls), "tables": tables_found,
            "titles": sum(1 for _, ours, truth in titles if truth and same_title(ours, truth)),
            "per_file": per_file}


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def compare_engines(summaries: dict[str, dict[str, Any]]) -> None:
    """The engines' corpus figures side by side; tables as the share of the pdfminer
    engine's (file, page, rows x columns) the PDFium engine finds too."""
    if len(summaries) < 2:
        return
    base, other = summaries["pdfminer"], summaries["pdfium"]
    print("\nengines side by side (pdfium - pdfminer; within 0.005 wanted):")
    for key in ("recall", "precision", "headings"):
        print(f"  {key:<10} pdfminer {base[key]:.4f}  pdfium {other[key]:.4f}  "
              f"difference {other[key] - base[key]:+.4f}")
    shared = sum((Counter(base["tables"]) & Counter(other["tables"])).values())
    agreement = shared / len(base["tables"]) if base["tables"] else 1.0
    print(f"  tables     pdfminer {len(base['tables'])}  pdfium {len(other['tables'])}  "
          f"same shape on the same page {agreement:.4f} of pdfminer's "
          f"(difference {agreement - 1:+.4f})")
    print(f"  titles     pdfminer {base['titles']}  pdfium {other['titles']}")
    for name, (recall, precision) in base["per_file"].items():
        theirs = other["per_file"].get(name)
        if theirs and max(abs(theirs[0] - recall), abs(theirs[1] - precision)) >= 0.01:
            print(f"    {name[:44]:<44} recall {recall:.3f} -> {theirs[0]:.3f}, "
                  f"precision {precision:.3f} -> {theirs[1]:.3f}")


def table_shapes(document: Document) -> list[str]:
    """Each table block as `page N: R x C`."""
    return [f"page {b.draft.pages[0] if b.draft.pages else '?'}: {len(b.draft.rows)} x "
            f"{max((len(r) for r in b.draft.rows), default=0)}"
            for b in document.blocks if b.draft.kind is BlockKind.TABLE]


def plumber_tables(corpus: Path, entries: list[dict[str, object]]) -> None:
    """pdfplumber's table finder (ruling lines) on the same files, for comparison."""
    try:
        import pdfplumber
    except ImportError:
        print("pdfplumber not installed (pip install -e '.[bench]'): no comparison")
        return
    found: list[str] = []
    for entry in entries:
        try:
            with pdfplumber.open(corpus / str(entry["file"]),
                                 password=str(entry.get("password") or "")) as pdf:
                for number, page in enumerate(pdf.pages, start=1):
                    for table in page.extract_tables():
                        width = max((len(r) for r in table), default=0)
                        found.append(f"{str(entry['id'])[:40]}: page {number}: "
                                     f"{len(table)} x {width}")
        except Exception as exc:  # a peer's failure is only reported
            found.append(f"{str(entry['id'])[:40]}: pdfplumber failed ({type(exc).__name__})")
    print(f"\npdfplumber tables on files of <= 40 pages ({len(found)}), rows x columns:")
    for line in found:
        print(f"  {line}")


def garbage_pages(document: Document) -> tuple[list[int], list[int]]:
    """Pages the decision log says were recovered by the second engine, and flagged."""
    recovered: list[int] = []
    flagged: list[int] = []
    for note in document.notes:
        match = _PAGE_FLAG.match(note)
        if match:
            target = recovered if match.group(1) == "text_recovered" else flagged
            target.append(int(match.group(2)))
    return sorted(set(recovered)), sorted(set(flagged) - set(recovered))


def garbage_summary(recovered: list[int], flagged: list[int]) -> str:
    parts = ([f"recovered {_page_list(recovered)}"] if recovered else []) + (
        [f"flagged {_page_list(flagged)}"] if flagged else [])
    return ", ".join(parts) or "-"


def _page_list(pages: list[int]) -> str:
    return ",".join(map(str, pages[:8])) + ("..." if len(pages) > 8 else "")


def truth_title(folder: Path, fallback: str) -> str:
    """The title in a GROBID header TEI, a JATS file or S2ORC JSON; else the metadata's."""
    if folder.is_dir():
        record_id = re.search(r"[0-9a-f]{40}", folder.name)
        for path in sorted(folder.iterdir()):
            text = path.read_text(errors="replace")
            if record_id and f'"{record_id.group(0)}"' in text:
                # A file of one JSON record per paper: this paper's record only.
                text = next(line for line in text.splitlines() if record_id.group(0) in line)
            found = (re.search(r"<docTitle>(.*?)</docTitle>", text, re.S)
                     or re.search(r"<article-title>(.*?)</article-title>", text, re.S)
                     or re.search(r'"title":\s*"([^"]+)"', text))
            if found:
                return " ".join(re.sub(r"<[^>]+>", " ", found.group(1)).split())
    return fallback


def same_title(ours: str | None, truth: str) -> bool:
    if not truth:
        return True
    return normalise_heading(ours or "") == normalise_heading(truth)


SPEED_ROUNDS = 3


def speed(corpus: Path, papers: list[dict[str, object]], rounds: int = SPEED_ROUNDS) -> None:
    """Each engine reads every A* paper in a fresh child process of its own, so no engine
    pays for another's imports, caches or heap; the engines take turns, round after
    round (the order turned each round), so a change in the machine's load falls on all
    of them, and each engine's median round is reported."""
    files = [str(corpus / str(e["file"])) for e in papers]
    pages = sum(int(str(e["pages"])) for e in papers)
    walls: dict[str, list[float]] = {}
    cpus: dict[str, list[float]] = {}
    ratios: dict[str, list[float]] = {}
    for round_number in range(rounds):
        order = ENGINES if round_number % 2 == 0 else tuple(reversed(ENGINES))
        this_round: dict[str, float] = {}
        for engine in order:
            result = _child(engine, files)
            if result is not None:
                walls.setdefault(engine, []).append(result["seconds"])
                cpus.setdefault(engine, []).append(result["cpu_seconds"])
                this_round[engine] = result["cpu_seconds"]
        if shutil.which("pdftotext"):
            started = time.perf_counter()
            for path in files:
                subprocess.run(["pdftotext", path, "-"], check=False, capture_output=True)
            walls.setdefault("pdftotext", []).append(time.perf_counter() - started)
        if "pdfminer extract_text" in this_round:
            for engine in this_round:
                if engine.startswith("sheaf"):
                    ratios.setdefault(engine, []).append(
                        this_round["pdfminer extract_text"] / this_round[engine])
    timings = {name: statistics.median(values) for name, values in walls.items()}
    cpu = {name: statistics.median(values) for name, values in cpus.items()}
    print(f"\nspeed on {len(files)} A* papers ({pages} pages), one process per engine, "
          f"{rounds} interleaved rounds (median; load {_load()}):")
    for name, seconds in timings.items():
        cpu_part = f", {1000 * cpu[name] / pages:7.1f} ms/page CPU" if name in cpu else ""
        print(f"  {name:<22} {1000 * seconds / pages:7.1f} ms/page wall{cpu_part}")
    peer = "pdfminer extract_text"
    for engine, wanted in (("sheaf pdfminer", 1.2), ("sheaf pdfium", 5.0)):
        if engine in timings and peer in timings:
            # On a shared machine wall time swings with other processes' load; CPU time of
            # the single-threaded child mostly does not.
            print(f"  ratio {engine} / {peer}: {timings[peer] / timings[engine]:.2f}x wall, "
                  f"{cpu[peer] / cpu[engine]:.2f}x CPU (>= {wanted} wanted); CPU ratio per "
                  f"round: {', '.join(f'{r:.2f}' for r in ratios[engine])}")


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


MEMORY_ENGINES = ("sheaf pdfminer", "sheaf pdfium", "pdfminer extract_text")


def memory(corpus: Path, entries: list[dict[str, object]]) -> None:
    """Peak memory (VmHWM of a child process) of reading every dev file in one process,
    one file after another, for each sheaf engine and for pdfminer's `extract_text`."""
    files = [str(corpus / str(e["file"])) for e in entries]
    peaks = {engine: result["peak_mb"] for engine in MEMORY_ENGINES
             if (result := _child(engine, files)) is not None}
    print(f"\npeak memory reading the {len(files)} dev files in one process (load {_load()}):")
    for engine, peak in peaks.items():
        print(f"  {engine:<22} {peak:6.0f} MB")
    peer = peaks.get("pdfminer extract_text")
    if peer:
        for engine in MEMORY_ENGINES[:2]:
            if engine in peaks:
                print(f"  {engine} / pdfminer extract_text: {peaks[engine] / peer:.2f}x "
                      f"(<= 2 wanted)")


def _child(engine: str, files: list[str]) -> dict[str, float] | None:
    done = subprocess.run([sys.executable, "-P", __file__, "--engine", engine, *files],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"  {engine}: not measured ({done.stderr.strip().splitlines()[-1:]})")
        return None
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def peak_megabytes() -> float:
    """This process's peak resident memory. Linux carries ru_maxrss over fork and exec, so
    a child of a large parent would report the parent's size; VmHWM is the peak of this
    process image alone."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_engine(engine: str, files: list[str]) -> int:
    """The child side of `speed` and `memory`: time one engine over the files."""
    if engine.startswith("sheaf"):
        extractor = PdfminerExtractor(engine=engine.split()[1])

        def read(data: bytes) -> None:
            with contextlib.suppress(SheafError):
                extractor.extract_sync(data)
    elif engine == "pdfminer extract_text":
        from pdfminer.high_level import extract_text

        def read(data: bytes) -> None:
            with contextlib.suppress(Exception):  # the peer's failures on the traps
                extract_text(io.BytesIO(data))
    else:
        import pypdfium2

        def read(data: bytes) -> None:
            try:
                document = pypdfium2.PdfDocument(data)
            except pypdfium2.PdfiumError:
                return
            for page in document:
                page.get_textpage().get_text_range()
            document.close()
    started, cpu_started = time.perf_counter(), time.process_time()
    for path in files:
        # One file's bytes at a time, as an ingest holds them: the peak is the reading's.
        read(Path(path).read_bytes())
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    print(json.dumps({"seconds": seconds, "cpu_seconds": cpu_seconds,
                      "peak_mb": peak_megabytes()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
