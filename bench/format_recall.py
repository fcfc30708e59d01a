"""Word recall of sheaf and markitdown against docling's ground truth, per file.

    .venv/bin/python -P bench/format_recall.py [--data /tmp/docling-data/tests/data]
        [--markitdown .venv-markitdown/bin/markitdown] [--from-git DOCLING_GIT_DIR]

The files are docling's own test files (`tests/data` of docling-project/docling, read
where they were extracted, never copied into this repository); the ground truth is
docling's Markdown export of each (`groundtruth/<name>.md`). Recall is the
share of the ground truth's words (a multiset of lower-cased word tokens, Markdown
syntax, image placeholders and character-reference escapes left out) that the output
holds; markitdown, the peer, is run on the same file in the same run from its own
virtual environment. Files without a
ground truth (email) are listed with the word count and notes sheaf produced.

`--from-git` takes the files out of a git directory of docling (a clone or a bare
mirror) into `--data` first, by `git show`, file by file (a file the mirror lacks is
skipped); nothing is copied into this repository.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sheaf.adapters.files.filesystem_file_reader import type_hint_for
from sheaf.domain.errors import SheafError
from sheaf.entrypoints.api.composition import build_extraction

FOLDERS = ("docx", "pptx", "xlsx", "odf", "epub", "csv", "email")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_WORD = re.compile(r"\w+", re.UNICODE)
_SKIP_SUFFIXES = (".pdf", ".md", ".json", ".html", ".itxt", ".txt")


def words(markdown: str) -> Counter[str]:
    """The word tokens of Markdown, lower-cased; comments and image links dropped, and
    character references read as the characters they stand for (docling writes a
    document's "<m:oMath>" as "&lt;m:oMath&gt;")."""
    text = html.unescape(_IMAGE.sub(" ", _COMMENT.sub(" ", markdown)))
    return Counter(w.lower() for w in _WORD.findall(text.replace("_", " ")))


def recall(truth: Counter[str], found: Counter[str]) -> float:
    total = sum(truth.values())
    if not total:
        return 1.0
    return sum(min(count, found[word]) for word, count in truth.items()) / total


def ground_truth(source: Path) -> Path | None:
    candidate = source.parent.parent / "groundtruth" / (source.name + ".md")
    return candidate if candidate.is_file() else None


def extract_from_git(git_dir: str, data: Path) -> int:
    """Write docling's `tests/data/<folder>` files for FOLDERS under `data`; the count."""
    listed = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only",
                             "HEAD", *(f"tests/data/{f}" for f in FOLDERS)],
                            capture_output=True, check=True, text=True).stdout.split("\n")
    written = 0
    root = data.parent.parent  # data is <root>/tests/data
    for name in filter(None, listed):
        target = root / name
        if target.exists():
            continue
        shown = subprocess.run(["git", "--git-dir", git_dir, "show", f"HEAD:{name}"],
                               capture_output=True, check=False)
        if shown.returncode != 0:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(shown.stdout)
        written += 1
    return written


def markitdown_text(binary: str | None, source: Path) -> tuple[str | None, float]:
    if binary is None:
        return None, 0.0
    started = time.perf_counter()
    try:
        done = subprocess.run([binary, str(source)], capture_output=True, timeout=300,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None, time.perf_counter() - started
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        return None, elapsed
    return done.stdout.decode("utf-8", "replace"), elapsed


async def sheaf_text(source: Path) -> tuple[str | None, str, float]:
    extraction = build_extraction()
    started = time.perf_counter()
    try:
        result = await extraction.extract(source.read_bytes(),
                                          declared_type=type_hint_for(source.name),
                                          location=str(source))
    except SheafError as exc:
        return None, f"{exc.kind.value}: {exc.message}", time.perf_counter() - started
    document = result.document
    return document.text, "; ".join(document.report), time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default="/tmp/docling-data/tests/data")
    parser.add_argument("--markitdown", default=".venv-markitdown/bin/markitdown")
    parser.add_argument("--json", help="write the rows to this file as well")
    parser.add_argument("--only", help="only files whose name contains this")
    parser.add_argument("--from-git", help="a git directory of docling to take the files "
                                           "from into --data first")
    args = parser.parse_args()
    data = Path(args.data)
    if args.from_git and Path(args.from_git).is_dir():
        print(f"{extract_from_git(args.from_git, data)} files written under {data}",
              file=sys.stderr)
    if not data.is_dir():
        print(f"no docling test data at {data}: fetch docling-project/docling and extract "
              "its tests/data there (see the Makefile's bench-formats)", file=sys.stderr)
        return 2
    peer = args.markitdown if Path(args.markitdown).exists() else None
    if peer is None:
        print(f"markitdown not found at {args.markitdown}: its column stays empty",
              file=sys.stderr)
    rows = []
    sheaf_seconds = peer_seconds = 0.0
    print(f"{'file':<44} {'sheaf':>6} {'markitdown':>10} {'sheaf s':>8} {'peer s':>7}  notes")
    for folder in FOLDERS:
        sources = data / folder / "sources"
        for source in sorted(sources.iterdir()) if sources.is_dir() else []:
            if not source.is_file() or source.name.endswith(_SKIP_SUFFIXES):
                continue
            if args.only and args.only not in source.name:
                continue
            truth_path = ground_truth(source)
            text, notes, seconds = anyio.run(sheaf_text, source)
            sheaf_seconds += seconds
            peer_text, peer_elapsed = markitdown_text(peer, source)
            peer_seconds += peer_elapsed
            row: dict[str, object] = {"file": f"{folder}/{source.name}", "notes": notes,
                                      "sheaf_seconds": seconds,
                                      "markitdown_seconds": peer_elapsed}
            if truth_path is not None:
                truth = words(truth_path.read_text("utf-8"))
                row["sheaf"] = recall(truth, words(text)) if text is not None else 0.0
                row["markitdown"] = (recall(truth, words(peer_text))
                                     if peer_text is not None else None)
            else:
                row["words"] = sum(words(text).values()) if text is not None else 0
            rows.append(row)
            print(_line(row))
    _summary(rows, sheaf_seconds, peer_seconds, peer is not None)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), "utf-8")
    return 0


def _line(row: dict[str, object]) -> str:
    if "sheaf" in row:
        peer = row["markitdown"]
        peer_cell = f"{peer:.2f}" if isinstance(peer, float) else "failed"
        mine = f"{row['sheaf']:.2f}"
    else:
        mine, peer_cell = f"{row['words']}w", "(no truth)"
    notes = str(row["notes"])
    times = f"{row['sheaf_seconds']:>8.2f} {row['markitdown_seconds']:>7.2f}"
    return f"{row['file']:<44} {mine:>6} {peer_cell:>10} {times}  {notes[:110]}"


def _summary(rows: list[dict[str, object]], sheaf_seconds: float, peer_seconds: float,
             with_peer: bool) -> None:
    scored = [r for r in rows if "sheaf" in r]
    below = [r["file"] for r in scored if float(r["sheaf"]) < 0.9]  # type: ignore[arg-type]
    behind = [r["file"] for r in scored if isinstance(r["markitdown"], float)
              and float(r["sheaf"]) + 1e-9 < r["markitdown"]]  # type: ignore[arg-type]
    print(f"\n{len(scored)} files with ground truth; sheaf below 0.9 on {len(below)}"
          + (f" ({', '.join(map(str, below))})" if below else ""))
    if with_peer:
        print(f"sheaf below markitdown on {len(behind)}"
              + (f" ({', '.join(map(str, behind))})" if behind else ""))
        if sheaf_seconds:
            print(f"time: markitdown / sheaf = {peer_seconds / sheaf_seconds:.1f}x "
                  f"(sheaf {sheaf_seconds:.1f} s, markitdown {peer_seconds:.1f} s)")


if __name__ == "__main__":
    sys.exit(main())
