"""Fixed site folds over the HTML dev corpora, for cross-validated figures (issue 29).

    .venv/bin/python -m bench.html_folds [--corpora DIR] [--check]

Every page of articles-dev, web-pages-dev, scholarly-html-dev and scholarly-html-dev-2
gets a *site* (the registrable domain of its URL; for publisher pages the publisher, so
Springer, BMC, SpringerOpen and Nature, which share one platform, are one site) and every
site one of `FOLDS` folds. The assignment is global over the four corpora: a site that has
pages in two corpora sits in the same fold in both, so a model trained on the other folds
has seen none of its pages anywhere. Sites are dealt largest first to the fold with the
fewest pages (ties by a hash of the site name), so the folds are balanced and the
assignment does not depend on the order pages are listed in.

The result is committed as bench/html_folds.json; `--check` recomputes it and fails when
the committed file differs (a corpus changed under it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bench.html_quality import CORPORA

FOLDS = 5
FOLDS_FILE = Path(__file__).with_name("html_folds.json")
_SECOND_LEVEL = frozenset({"co", "com", "org", "net", "gov", "ac", "edu"})
_TLDS = frozenset({"com", "net", "org", "de", "eu", "pa", "vc", "uk", "info", "at", "ch",
                   "it", "fr", "es", "io", "us", "ca", "au", "nl"})
_ARCHIVED = re.compile(r"^https?://web\.archive\.org/web/[^/]+/(.*)$")
_SPRINGER_NATURE = frozenset({"springer", "springeropen", "biomed central", "nature portfolio"})


def site_of_url(url: str) -> str:
    """The registrable domain a page came from: `www.bbc.com` and `news.bbc.com` are one
    site, an archived page is the site it archived, and the suite's `hard::name.html` ids
    give their site in the name."""
    url = url.strip().removeprefix("x")
    archived = _ARCHIVED.match(url)
    if archived:
        url = unquote(archived.group(1))
    if url.startswith("hard::"):
        return _site_in_name(url.removeprefix("hard::"))
    host = (urlsplit(url).hostname or "").lower()
    labels = [label for label in host.split(".") if label]
    if len(labels) >= 3 and labels[-2] in _SECOND_LEVEL and len(labels[-1]) == 2:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:]) if labels else url


def _site_in_name(name: str) -> str:
    """`diaadia.com.pa-ulpiano.html` -> `diaadia.com.pa`, `pcgamer.com.skyrim.html` ->
    `pcgamer.com`: the labels up to the first top-level domain (and a country label
    after a second-level one)."""
    labels = name.split("-", 1)[0].split(".")
    for i, label in enumerate(labels[1:], start=1):
        if label in _TLDS:
            end = i + 1
            if label in _SECOND_LEVEL and end < len(labels) and len(labels[end]) == 2 \
                    and labels[end] != "de":
                end += 1
            return site_of_url("http://" + ".".join(labels[:end]))
    return labels[0]


def site_of_publisher(publisher: str) -> str:
    """Publisher pages are grouped by publisher (its platforms share templates)."""
    name = publisher.split(" (", 1)[0].split(" / ", 1)[0].strip().lower()
    return "springer-nature" if name in _SPRINGER_NATURE else name


def page_sites(corpora: Path) -> dict[str, dict[str, str]]:
    """corpus name -> page id -> site."""
    web = json.loads((corpora / "web-pages-dev" / "annotations.json").read_text())
    articles = json.loads((corpora / "articles-dev" / "ground-truth.json").read_text())
    sites = {"web-pages-dev": {p: site_of_url(a["url"]) for p, a in web.items()},
             "articles-dev": {p: site_of_url(a["url"]) for p, a in articles.items()}}
    for name in ("scholarly-html-dev", "scholarly-html-dev-2"):
        manifest = json.loads((corpora / name / "manifest.json").read_text())
        sites[name] = {e["id"]: "publisher:" + site_of_publisher(e["publisher"])
                       for e in manifest}
    return sites


def assign_folds(sites: dict[str, dict[str, str]], folds: int = FOLDS) -> dict[str, int]:
    """site -> fold, largest sites first to the lightest fold."""
    sizes = Counter(site for pages in sites.values() for site in pages.values())
    load = [0] * folds
    fold_of: dict[str, int] = {}
    for site in sorted(sizes, key=lambda s: (-sizes[s], hashlib.sha1(s.encode()).hexdigest())):
        fold = min(range(folds), key=lambda f: (load[f], f))
        fold_of[site] = fold
        load[fold] += sizes[site]
    return fold_of


def compute(corpora: Path) -> dict[str, object]:
    sites = page_sites(corpora)
    fold_of = assign_folds(sites)
    return {"folds": FOLDS,
            "pages": {corpus: {p: {"site": s, "fold": fold_of[s]} for p, s in sorted(pages.items())}
                      for corpus, pages in sorted(sites.items())}}


def load_folds() -> dict[str, dict[str, int]]:
    """The committed assignment: corpus -> page id -> fold."""
    data = json.loads(FOLDS_FILE.read_text())
    return {corpus: {p: entry["fold"] for p, entry in pages.items()}
            for corpus, pages in data["pages"].items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if not (args.corpora / "web-pages-dev").is_dir():
        print(f"corpora not found: {args.corpora}", file=sys.stderr)
        return 2
    computed = compute(args.corpora)
    text = json.dumps(computed, indent=1, sort_keys=True) + "\n"
    if args.check:
        same = FOLDS_FILE.is_file() and FOLDS_FILE.read_text() == text
        print("folds up to date" if same else "folds differ from the corpora: rerun")
        return 0 if same else 1
    FOLDS_FILE.write_text(text)
    pages = computed["pages"]
    assert isinstance(pages, dict)
    for corpus, entries in pages.items():
        per_fold = Counter(e["fold"] for e in entries.values())
        print(f"{corpus}: {len(entries)} pages, {len({e['site'] for e in entries.values()})} "
              f"sites, per fold {[per_fold[f] for f in range(FOLDS)]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
