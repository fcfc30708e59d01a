"""Digests of `sheaf extract --format json` over every development corpus, to prove that a
refactor (moving files, renaming modules) leaves extraction output byte-identical.

For each corpus file the given `sheaf` executable runs `extract --format json FILE` in a
child process of its own; the file's entry records its exit code and the SHA-256 and size
of its stdout and stderr, so a typed error (exit 3 or 4 and its one-line message) is held
to the same standard as an extraction. Record a baseline on the old commit, the same on
the new one, and compare:

    python3 extraction_digests.py --sheaf /work/baseline/.venv/bin/sheaf \\
        --corpora /work/shared/corpora --output before.json
    python3 extraction_digests.py --sheaf /work/main/.venv/bin/sheaf \\
        --corpora /work/shared/corpora --output after.json
    python3 extraction_digests.py --compare before.json after.json   # exit 1 if any differ

The output is a JSON object, keys sorted, mapping `corpus/relative/path` to
`{"exit", "stdout_sha256", "stderr_sha256", "stdout_bytes", "stderr_bytes"}`; it holds
nothing that varies between runs, so two runs that agree give identical files
(`cmp before.json after.json` works too). A file that outlives the per-file timeout has
`"exit": "timeout"` and null digests. Timings are only printed (the summary line names the
slowest files): a PDF near sheaf's own time budget (120 s per document, 30 s per page)
could come out differently on a loaded machine, so a run over 60 s is warned about.

Raw bytes are digested, with no normalisation: sheaf's JSON holds no timings, dates or
temporary paths. It does hang on Python's string hash order in one known place, so every
child runs with PYTHONHASHSEED fixed (`--hash-seed`, default 0): PDF keywords taken from
an XMP `dc:subject` bag come from pikepdf as a `set`, and `metadata.keywords` lists them
in that set's iteration order (pdf-dev A19 gives a different order from run to run with a
random seed). A string's hash depends only on the seed and the string, so a fixed seed
gives the same order before and after a refactor. `--hash-seed random` leaves the seed
random, to look for other such places: record twice that way and compare.

What else the output depends on, which must be the same in both runs:

- The corpus path. The JSON's `path` is the argument as given (this script passes the
  absolute path under `--corpora`, made absolute) and relative links in local HTML are
  resolved against the file's real path as a `file://` URL; error messages on stderr name
  that URL too. `.gz` pages are given to sheaf as they are: it inflates them itself.
- The environment. Each child gets only PATH=/usr/local/bin:/usr/bin:/bin, LANG and
  LC_ALL=C.UTF-8, TZ=UTC, PYTHONHASHSEED and HOME=`--home` (default /tmp/digest-home),
  and runs in that folder; no SHEAF_*, LOG_LEVEL, XDG_* or other PYTHON* variable
  reaches it. LOG_LEVEL=debug would add log lines (with module names and traceback
  paths, which a file move changes) to stderr. `extract` writes nothing under HOME.
- The tools on that PATH: sheaf OCRs scanned PDF pages with Tesseract when `tesseract`
  is installed, so installing or removing it between the runs changes image-only PDFs.

Standard library only (Python 3.11+); two files at a time by default.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from subprocess import DEVNULL, PIPE, Popen, TimeoutExpired

CORPORA = {
    "articles-dev": "html/*.html.gz",
    "web-pages-dev": "html/*.html.gz",
    "scholarly-html-dev": "pages/*.html",
    "scholarly-html-dev-2": "pages/*.html",
    "pdf-dev": "files/*",
}
"""Each corpus under --corpora and the glob of its documents (retrieval-cisi holds no
documents, and the other folders hold ground truth)."""

FIELDS = ("exit", "stdout_sha256", "stderr_sha256", "stdout_bytes", "stderr_bytes")
DEFAULT_TIMEOUT = 300.0
DEFAULT_HOME = "/tmp/digest-home"
SHEAF_DOCUMENT_BUDGET = 120.0
"""sheaf's own time budget for extracting one PDF (`PdfminerExtractor`): a file whose run
takes half of it is flagged, since on a busier machine it could come out as a timeout."""


def corpus_files(corpora: Path) -> list[str]:
    """Every document's path relative to `corpora`, sorted; an absent corpus or an empty
    glob is an error, so a moved corpus cannot pass for an unchanged one."""
    found: list[str] = []
    for corpus, pattern in CORPORA.items():
        matches = sorted(p for p in (corpora / corpus).glob(pattern) if p.is_file())
        if not matches:
            raise SystemExit(f"no files match {corpora / corpus / pattern}")
        found += [p.relative_to(corpora).as_posix() for p in matches]
    return found


def child_environment(home: Path, hash_seed: str) -> dict[str, str]:
    """The whole environment of each run: nothing of the caller's leaks in."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
           "TZ": "UTC", "HOME": str(home)}
    if hash_seed != "random":
        env["PYTHONHASHSEED"] = hash_seed
    return env


def digest_one(sheaf: str, path: Path, env: dict[str, str], cwd: Path,
               timeout: float) -> tuple[dict[str, object], float]:
    """One file's entry, and the seconds it took."""
    started = time.monotonic()
    with Popen([sheaf, "extract", "--format", "json", str(path)], stdin=DEVNULL,
               stdout=PIPE, stderr=PIPE, env=env, cwd=cwd) as child:
        try:
            out, err = child.communicate(timeout=timeout)
        except TimeoutExpired:
            child.kill()
            child.communicate()
            return ({"exit": "timeout", "stdout_sha256": None, "stderr_sha256": None,
                     "stdout_bytes": None, "stderr_bytes": None},
                    time.monotonic() - started)
    return ({"exit": child.returncode,
             "stdout_sha256": hashlib.sha256(out).hexdigest(),
             "stderr_sha256": hashlib.sha256(err).hexdigest(),
             "stdout_bytes": len(out), "stderr_bytes": len(err)},
            time.monotonic() - started)


def record(args: argparse.Namespace) -> int:
    sheaf = os.path.abspath(args.sheaf)
    if not os.access(sheaf, os.X_OK):
        raise SystemExit(f"not an executable: {sheaf}")
    corpora = Path(os.path.abspath(args.corpora))
    files = corpus_files(corpora)
    if args.files:
        wanted = [line.strip() for line in Path(args.files).read_text().splitlines()
                  if line.strip() and not line.startswith("#")]
        unknown = sorted(set(wanted) - set(files))
        if unknown:
            raise SystemExit(f"not corpus files: {', '.join(unknown)}")
        files = sorted(set(wanted))
    home = Path(args.home)
    home.mkdir(parents=True, exist_ok=True)
    env = child_environment(home, args.hash_seed)

    started = time.monotonic()
    entries: dict[str, dict[str, object]] = {}
    seconds: dict[str, float] = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(digest_one, sheaf, corpora / name, env, home, args.timeout):
                   name for name in files}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            name = futures[future]
            entries[name], seconds[name] = future.result()
            if args.progress:
                print(f"[{done}/{len(files)}] {name}: exit {entries[name]['exit']} "
                      f"{seconds[name]:.1f}s", file=sys.stderr, flush=True)
    elapsed = time.monotonic() - started

    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(dict(sorted(entries.items())), indent=1, sort_keys=True) + "\n"
    tmp = output.with_name(output.name + ".part")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(output)

    exits = Counter(str(entry["exit"]) for entry in entries.values())
    failures = ", ".join(f"exit {code}: {n}" for code, n in sorted(exits.items())
                         if code != "0") or "none"
    slowest = ", ".join(f"{name} {seconds[name]:.1f}s"
                        for name in sorted(seconds, key=seconds.get, reverse=True)[:3])
    for name in sorted(n for n, took in seconds.items() if took > SHEAF_DOCUMENT_BUDGET / 2):
        print(f"warning: {name} took {seconds[name]:.0f}s, over half of sheaf's "
              f"{SHEAF_DOCUMENT_BUDGET:g}s PDF time budget: its output may depend on load",
              file=sys.stderr)
    print(f"{len(entries)} files, {exits.get('0', 0)} exit 0, failures: {failures}; "
          f"{elapsed:.1f}s total with {args.jobs} jobs; slowest: {slowest}; "
          f"wrote {output}")
    return 0


def compare(first: str, second: str, common_only: bool) -> int:
    """Print every file whose entry differs (or that only one side has); 1 if any."""
    a = json.loads(Path(first).read_text(encoding="utf-8"))
    b = json.loads(Path(second).read_text(encoding="utf-8"))
    names = sorted(a.keys() & b.keys()) if common_only else sorted(a.keys() | b.keys())
    differing = 0
    for name in names:
        if name not in a or name not in b:
            differing += 1
            print(f"{name}: only in {first if name in a else second}")
            continue
        changed = [f"{field} {a[name].get(field)} -> {b[name].get(field)}"
                   for field in FIELDS if a[name].get(field) != b[name].get(field)]
        if changed:
            differing += 1
            print(f"{name}: " + "; ".join(changed))
    scope = "in both" if common_only else "in either"
    print(f"{len(names)} files {scope} ({len(a)} in {first}, {len(b)} in {second}): "
          f"{differing} differ")
    return 1 if differing else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Digest `sheaf extract --format json` over the development corpora, "
                    "or compare two such digest files.")
    parser.add_argument("--sheaf", help="the sheaf executable (e.g. .venv/bin/sheaf)")
    parser.add_argument("--corpora", default="../shared/corpora",
                        help="the shared corpora folder (default ../shared/corpora); its "
                             "absolute path is in sheaf's output, so keep it the same")
    parser.add_argument("--output", help="the digest file to write")
    parser.add_argument("--jobs", type=int, default=2, help="files at once (default 2)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help=f"seconds per file (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--home", default=DEFAULT_HOME,
                        help=f"HOME and working folder of each run (default {DEFAULT_HOME})")
    parser.add_argument("--hash-seed", default="0", metavar="N|random",
                        help="PYTHONHASHSEED of each run (default 0; random: unset)")
    parser.add_argument("--files", metavar="LIST",
                        help="only these corpus files: a file of relative paths, one a line")
    parser.add_argument("--progress", action="store_true", help="a line per file on stderr")
    parser.add_argument("--compare", nargs=2, metavar=("A.json", "B.json"),
                        help="print the files whose entries differ; exit 1 if any do")
    parser.add_argument("--common-only", action="store_true",
                        help="with --compare: only files both sides have (one side a "
                             "--files subset)")
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare, common_only=args.common_only)
    if not args.sheaf or not args.output:
        parser.error("--sheaf and --output are required (or --compare A.json B.json)")
    if args.hash_seed != "random" and not (args.hash_seed.isdigit()
                                           and int(args.hash_seed) <= 4294967295):
        parser.error("--hash-seed must be 0..4294967295 or random")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    return record(args)


if __name__ == "__main__":
    sys.exit(main())
