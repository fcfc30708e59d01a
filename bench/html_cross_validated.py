"""Cross-validated HTML extraction on the four dev corpora, beside trafilatura (issue 29).

    .venv/bin/python -m bench.html_cross_validated [--corpora DIR] [--no-peer]
        [--only CORPUS ...] [--per-page] [--rounds N] [--shipped] [--folds N ...]

Each page is extracted with the block model of its own fold (bench/html_folds.json,
bench/html_block_fold_weights.json): a model trained without any page of the page's
site, in any corpus. So every figure printed is held out for the learned part of the
extractor. The rule cascade under it was written over earlier rounds while looking at
these same pages (see ADR-0027): its share of the figures is not held out, and
`--shipped` (the model trained on every page, as the package ships) shows the
in-sample figures beside them.

Printed, for sheaf and for trafilatura 2.3.1 from the same process run:
- web-pages-dev: segment precision / recall / F1, pages with zero kept segments, empty;
- articles-dev: word 4-gram shingle precision / recall / F1;
- scholarly-html-dev and -2: heading recall (full-text pages), manifest sentences found,
  reference lists complete (pages that have one), pages with a junk probe present,
  titles with markup (sheaf only for references and titles);
- pages where sheaf gives nothing, or only text the labels call boilerplate, while
  trafilatura finds the article (kept segments / shingle recall > 0; on publisher pages
  a manifest sentence or heading found), named corpus/page;
- low-confidence pages and the confidence's agreement with failure;
- pages/s over all pages (best of N rounds, the tools taking turns) and the ratio.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.html_extraction import trafilatura_markdown, trafilatura_plain, trafilatura_scholarly
from bench.html_folds import load_folds
from bench.html_quality import (
    CORPORA,
    collapse,
    load_articles,
    load_web_pages,
    mean_f1,
    plain_body,
    scholarly_score,
    segment_score,
    segments_prf,
    shingle_scores,
)
from sheaf.adapters.html.block_model import BlockModel, shipped_model
from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.domain.document.document import Document
from sheaf.domain.errors import SheafError

FOLD_WEIGHTS = Path(__file__).with_name("html_block_fold_weights.json")
SCHOLARLY = ("scholarly-html-dev", "scholarly-html-dev-2")
MARKUP = re.compile(r"<[A-Za-z/][^>]*>")


def fold_models() -> dict[int, BlockModel]:
    data = json.loads(FOLD_WEIGHTS.read_text())
    return {int(fold): BlockModel.from_mapping(entry["weights"], entry["bias"], f"fold {fold}")
            for fold, entry in data["folds"].items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    parser.add_argument("--no-peer", action="store_true", help="sheaf only (iterating)")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--per-page", action="store_true")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--folds", nargs="*", type=int, default=None,
                        help="score only pages of these folds (a development / check split)")
    parser.add_argument("--shipped", action="store_true",
                        help="use the shipped model everywhere (in-sample, for comparison)")
    args = parser.parse_args()
    if not (args.corpora / "web-pages-dev").is_dir():
        print(f"corpora not found: {args.corpora}", file=sys.stderr)
        return 2
    folds = load_folds()
    models = fold_models()
    extractors = {fold: Html5libExtractor(block_model=model) for fold, model in models.items()}
    shipped = Html5libExtractor(block_model=shipped_model())
    wanted = set(args.only or ("web-pages-dev", "articles-dev", *SCHOLARLY))

    # (corpus, page id, bytes, url, truth)
    jobs: list[tuple[str, str, bytes, str, Any]] = []
    if "articles-dev" in wanted:
        pages, truth = load_articles(args.corpora / "articles-dev")
        jobs += [("articles-dev", p, pages[p], truth[p].get("url", ""), truth[p]) for p in pages]
    if "web-pages-dev" in wanted:
        pages, annotations = load_web_pages(args.corpora / "web-pages-dev")
        jobs += [("web-pages-dev", p, pages[p], "", annotations[p]) for p in pages]
    for name in SCHOLARLY:
        if name in wanted:
            for entry in json.loads((args.corpora / name / "manifest.json").read_text()):
                jobs.append((name, entry["id"], (args.corpora / name / entry["file"]).read_bytes(),
                             entry.get("source_url_from_page") or "https://example.org/", entry))

    if args.folds is not None:
        jobs = [job for job in jobs if folds[job[0]][job[1]] in args.folds]

    def sheaf(job: tuple[str, str, bytes, str, Any]) -> Document | None:
        corpus, pid, raw, url, _ = job
        extractor = shipped if args.shipped else extractors[folds[corpus][pid]]
        try:
            return extractor.extract_sync(raw, url)
        except SheafError:
            return None

    def peer(job: tuple[str, str, bytes, str, Any]) -> str:
        return trafilatura_plain(job[2], job[3])

    tools: dict[str, Callable[[tuple[str, str, bytes, str, Any]], Any]] = {"sheaf": sheaf}
    if not args.no_peer:
        tools["trafilatura"] = peer
    best = dict.fromkeys(tools, float("inf"))
    outputs: dict[str, list[Any]] = {}
    for _ in range(args.rounds):  # this machine's noise only ever adds time
        for name, run in tools.items():
            started = time.perf_counter()
            outputs[name] = [run(job) for job in jobs]
            best[name] = min(best[name], time.perf_counter() - started)
    documents: list[Document | None] = outputs["sheaf"]
    sheaf_texts = [plain_body(d, with_title=job[0] != "articles-dev") if d is not None else ""
                   for d, job in zip(documents, jobs, strict=True)]
    peer_texts: list[str] = outputs.get("trafilatura", [""] * len(jobs))
    label = "shipped model (in-sample)" if args.shipped else "cross-validated by site"
    print(f"{len(jobs)} pages; sheaf {label}")

    lost: list[str] = []
    by_corpus: dict[str, list[int]] = {}
    for i, job in enumerate(jobs):
        by_corpus.setdefault(job[0], []).append(i)
    if "web-pages-dev" in by_corpus:
        idx = by_corpus["web-pages-dev"]
        print(f"\n{'web-pages-dev':<14} {'precision':>9} {'recall':>7} {'F1':>6} "
              f"{'zero-kept':>9} {'empty':>5}")
        scores = {}
        for tool, texts in (("sheaf", sheaf_texts), ("trafilatura", peer_texts)):
            if tool not in tools:
                continue
            scores[tool] = [segment_score(texts[i], jobs[i][4]) for i in idx]
            p, r, f = segments_prf(scores[tool])
            zero = sum(1 for s in scores[tool] if s.nothing_kept)
            empty = sum(1 for i in idx if not texts[i].strip())
            print(f"{tool:<14} {p:9.3f} {r:7.3f} {f:6.3f} {zero:9d} {empty:5d}")
        if "trafilatura" in scores:
            ours, theirs = scores["sheaf"], scores["trafilatura"]
            lost += [f"web-pages-dev/{jobs[i][1]}" for k, i in enumerate(idx)
                     if ours[k].tp == 0 and ours[k].fn > 0 and theirs[k].tp > 0]
            more = sum(1 for a, b in zip(ours, theirs, strict=True) if a.fp > b.fp)
            less = sum(1 for a, b in zip(ours, theirs, strict=True) if a.fp < b.fp)
            print(f"pages where sheaf kept more boilerplate: {more}, less: {less}")
        if args.per_page:
            for k, i in enumerate(idx):
                s = scores["sheaf"][k]
                t = scores["trafilatura"][k] if "trafilatura" in scores else None
                if s.fn or s.fp:
                    doc = documents[i]
                    conf = doc.confidence.score if doc is not None and doc.confidence else None
                    print(f"  web {jobs[i][1]} tp{s.tp} fn{s.fn} fp{s.fp}"
                          + (f"  peer tp{t.tp} fn{t.fn} fp{t.fp}" if t else "")
                          + f"  conf {conf}")
    if "articles-dev" in by_corpus:
        idx = by_corpus["articles-dev"]
        print(f"\n{'articles-dev':<14} {'precision':>9} {'recall':>7} {'F1':>6}")
        per_tool = {}
        for tool, texts in (("sheaf", sheaf_texts), ("trafilatura", peer_texts)):
            if tool not in tools:
                continue
            per_tool[tool] = [shingle_scores(texts[i], jobs[i][4]["articleBody"]) for i in idx]
            p, r, f = mean_f1(per_tool[tool])
            print(f"{tool:<14} {p:9.3f} {r:7.3f} {f:6.3f}")
        if "trafilatura" in per_tool:
            lost += [f"articles-dev/{jobs[i][1]}" for k, i in enumerate(idx)
                     if per_tool["sheaf"][k][0] == 0 and per_tool["trafilatura"][k][0] > 0]
        if args.per_page:
            for k, i in enumerate(idx):
                tp, fp, fn = per_tool["sheaf"][k]
                if fp > 0.1 or fn > 0.1:
                    print(f"  article {jobs[i][1]} tp {tp:.2f} fp {fp:.2f} fn {fn:.2f}")
    for name in SCHOLARLY:
        if name not in by_corpus:
            continue
        idx = by_corpus[name]
        print(f"\n{name:<22} {'headings':>8} {'sentences':>10} {'refs ok':>8} "
              f"{'junk':>5} {'markup title':>12}")
        sheaf_scores = [scholarly_score(jobs[i][4], documents[i]) for i in idx]
        junk = [_junk(jobs[i][4], collapse(documents[i].text) if documents[i] else "")
                for i in idx]
        titles = sum(1 for i in idx if documents[i] is not None
                     and MARKUP.search(documents[i].metadata.title or ""))
        _scholarly_row("sheaf", sheaf_scores, junk, str(titles), refs=True)
        if "trafilatura" in tools:
            md = [trafilatura_markdown(jobs[i][2], jobs[i][3]) for i in idx]  # untimed
            peer_scores = [trafilatura_scholarly(jobs[i][4], m) for i, m in zip(idx, md,
                                                                               strict=True)]
            _scholarly_row("trafilatura", peer_scores,
                           [_junk(jobs[i][4], collapse(m)) for i, m in zip(idx, md, strict=True)],
                           "-", refs=False)
            # Nothing of the article: no manifest sentence and no heading of it kept.
            lost += [f"{name}/{jobs[i][1]}" for i, s, t in zip(idx, sheaf_scores, peer_scores,
                                                                  strict=True)
                     if (documents[i] is None and peer_texts[i].strip())
                     or (_none_of_the_article(s) and not _none_of_the_article(t))]
        if args.per_page:
            for s, j in zip(sheaf_scores, junk, strict=True):
                if s.headings_missing or s.sentences_missing or not s.references_complete or j:
                    print(f"  {name} {s.page}: headings missing {len(s.headings_missing)}/"
                          f"{s.headings_expected}, sentences missing {len(s.sentences_missing)}, "
                          f"refs {s.references}/{s.references_expected}, junk {list(j)}")
    confident = [d.confidence for d in documents if d is not None and d.confidence is not None]
    low = sum(1 for c in confident if c.low)
    print(f"\nlow-confidence documents: {low} of {len(confident)}")
    if "trafilatura" in tools:
        print(f"pages where sheaf finds none of the article and trafilatura does: {len(lost)}"
              + (f" ({', '.join(lost)})" if lost else ""))
        s_rate, t_rate = len(jobs) / best["sheaf"], len(jobs) / best["trafilatura"]
        print(f"pages/s: sheaf {s_rate:.1f}, trafilatura {t_rate:.1f}; "
              f"throughput ratio sheaf/trafilatura: {s_rate / t_rate:.2f}x")
    else:
        print(f"pages/s: sheaf {len(jobs) / best['sheaf']:.1f} (no peer run)")
    return 0


def _none_of_the_article(score: Any) -> bool:
    return score.sentences_expected > 0 \
        and len(score.sentences_missing) == score.sentences_expected \
        and len(score.headings_missing) == score.headings_expected


def _junk(entry: dict[str, Any], text: str) -> tuple[str, ...]:
    return tuple(p for p in entry.get("junk_probes") or [] if collapse(p) in text)


def _scholarly_row(tool: str, scores: list[Any], junk: list[tuple[str, ...]], titles: str, *,
                   refs: bool) -> None:
    full = [s for s in scores if s.full_text]
    recall = sum(s.heading_recall for s in full) / len(full) if full else 1.0
    found = sum(s.sentences_expected - len(s.sentences_missing) for s in scores)
    want = sum(s.sentences_expected for s in scores)
    with_refs = [s for s in scores if s.references_expected]
    complete = (f"{sum(1 for s in with_refs if s.references_complete)}/{len(with_refs)}"
                if refs else "-")
    print(f"{tool:<22} {recall:8.3f} {found:>5}/{want:<4} {complete:>8} "
          f"{sum(1 for j in junk if j):5d} {titles:>12}")


if __name__ == "__main__":
    raise SystemExit(main())
