"""Train the HTML block classifier from the dev corpora's labels (issue 29).

    .venv/bin/python -m bench.html_block_training [--corpora DIR] [--l2 X] [--report-only]

Labels, per text block of each page (adapters/html/page_blocks.py):
- web-pages-dev: a block holding a `with` segment (or held by one) is content, one
  holding a `without` segment is boilerplate; other blocks are unlabelled;
- articles-dev: a block whose word 4-grams are mostly in the ground-truth body is
  content, mostly not is boilerplate (short blocks: found verbatim in the body or not);
- scholarly-html-dev and -2: a block holding a manifest sentence, or that is one of the
  section headings, is content; one holding a junk probe is boilerplate.
Each page weighs the same in training (its blocks' weights sum to 1, longer blocks
weighing more within the page), so a page with thousands of menu items does not drown
a short one.

The model is an L2-regularised logistic regression fitted by Newton's method (numpy).
Written: adapters/html/block_weights.py (trained on every page, what the package ships)
and bench/html_block_fold_weights.json (one model per fold of bench/html_folds.json,
each trained without that fold's sites: the cross-validated benchmark scores a page
only with the model of its own fold). Printed: held-out block log-loss and accuracy per
fold, for the weighted labelled blocks.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from bench.html_folds import load_folds
from bench.html_quality import CORPORA, normalise_heading
from sheaf.adapters.html.block_features import FEATURES
from sheaf.adapters.html.page_inputs import read_page
from sheaf.domain.errors import SheafError

WEIGHTS_MODULE = (Path(__file__).resolve().parents[1] / "adapters" / "html"
                  / "block_weights.py")
FOLD_WEIGHTS = Path(__file__).with_name("html_block_fold_weights.json")
_WORD = re.compile(r"\w+")
L2 = 1.0
"""Ridge penalty on the summed page weights (each page weighs 1)."""


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _shingles(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + 4]) for i in range(len(words) - 3)}


def web_labels(texts: list[str], annotation: dict[str, Any]) -> list[int | None]:
    kept = [_collapse(s) for s in annotation.get("with") or [] if s.strip()]
    dropped = [_collapse(s) for s in annotation.get("without") or [] if s.strip()]
    out: list[int | None] = []
    for text in texts:
        pos = any(s in text or (len(text) >= 15 and text in s) for s in kept)
        neg = any(s in text or (len(text) >= 15 and text in s) for s in dropped)
        out.append(1 if pos and not neg else 0 if neg and not pos else None)
    return out


def article_labels(texts: list[str], body: str) -> list[int | None]:
    gold_words = _WORD.findall(body.lower())
    gold = _shingles(gold_words)
    gold_text = " ".join(gold_words)
    out: list[int | None] = []
    for text in texts:
        words = _WORD.findall(text.lower())
        if not words:
            out.append(None)
        elif len(words) < 6:
            out.append(1 if f" {' '.join(words)} " in f" {gold_text} " else 0)
        else:
            found = _shingles(words)
            share = len(found & gold) / len(found)
            out.append(1 if share >= 0.8 else 0 if share <= 0.2 else None)
    return out


def scholarly_labels(texts: list[str], entry: dict[str, Any]) -> list[int | None]:
    sentences = [_collapse(s["text"]) for s in entry.get("sentences") or []]
    headings = {normalise_heading(h) for h in entry.get("section_headings") or []}
    probes = [_collapse(p) for p in entry.get("junk_probes") or []]
    out: list[int | None] = []
    for text in texts:
        if any(s in text for s in sentences) or (len(text) < 200
                                                and normalise_heading(text) in headings):
            out.append(1)
        elif any(p in text for p in probes):
            out.append(0)
        else:
            out.append(None)
    return out


def load_pages(corpora: Path) -> list[tuple[str, str, bytes, str, Any]]:
    """(corpus, page id, bytes, url, truth) for every page of the four corpora."""
    pages: list[tuple[str, str, bytes, str, Any]] = []
    web = json.loads((corpora / "web-pages-dev" / "annotations.json").read_text())
    for pid, annotation in sorted(web.items()):
        raw = gzip.decompress((corpora / "web-pages-dev" / "html" / f"{pid}.html.gz").read_bytes())
        pages.append(("web-pages-dev", pid, raw, "", annotation))
    truth = json.loads((corpora / "articles-dev" / "ground-truth.json").read_text())
    for pid, entry in sorted(truth.items()):
        path = corpora / "articles-dev" / "html" / f"{pid}.html.gz"
        if path.is_file():
            pages.append(("articles-dev", pid, gzip.decompress(path.read_bytes()),
                          entry.get("url", ""), entry))
    for name in ("scholarly-html-dev", "scholarly-html-dev-2"):
        for entry in json.loads((corpora / name / "manifest.json").read_text()):
            pages.append((name, entry["id"], (corpora / name / entry["file"]).read_bytes(),
                          entry.get("source_url_from_page") or "https://example.org/", entry))
    return pages


def page_rows(corpus: str, raw: bytes, url: str, truth: Any
              ) -> tuple[list[list[float]], list[int], list[float]]:
    try:
        evidence = read_page(raw, url).evidence
    except SheafError:
        return [], [], []
    texts = [b.text for b in evidence.blocks.blocks]
    if corpus == "web-pages-dev":
        labels = web_labels(texts, truth)
    elif corpus == "articles-dev":
        labels = article_labels(texts, truth["articleBody"])
    else:
        labels = scholarly_labels(texts, truth)
    rows, ys, ws = [], [], []
    for vector, label, text in zip(evidence.vectors, labels, texts, strict=True):
        if label is None:
            continue
        rows.append(vector)
        ys.append(label)
        ws.append(math.log1p(len(text)))
    total = sum(ws)
    return rows, ys, [w / total for w in ws]


def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float) -> tuple[np.ndarray, float]:
    """Weighted ridge logistic regression by Newton's method (the bias unpenalised)."""
    design = np.hstack([x, np.ones((x.shape[0], 1))])
    beta = np.zeros(design.shape[1])
    penalty = np.full(design.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(50):
        z = np.clip(design @ beta, -30, 30)
        p = 1 / (1 + np.exp(-z))
        grad = design.T @ (w * (p - y)) + penalty * beta
        hess = (design * (w * p * (1 - p))[:, None]).T @ design + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.max(np.abs(step)) < 1e-7:
            break
    return beta[:-1], float(beta[-1])


def evaluate(x: np.ndarray, y: np.ndarray, w: np.ndarray, coef: np.ndarray, bias: float
             ) -> tuple[float, float]:
    p = 1 / (1 + np.exp(-np.clip(x @ coef + bias, -30, 30)))
    eps = 1e-9
    loss = -np.sum(w * (y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))) / np.sum(w)
    accuracy = np.sum(w * ((p >= 0.5) == (y == 1))) / np.sum(w)
    return float(loss), float(accuracy)


def write_weights_module(coef: np.ndarray, bias: float, pages: int, blocks: int) -> None:
    lines = [
        '"""Block classifier weights, written by bench/html_block_training.py: trained on',
        f"every page of the HTML dev corpora ({pages} pages, {blocks} labelled blocks). Do not",
        'edit by hand; retrain instead."""',
        "",
        "BIAS = " + repr(round(bias, 6)),
        "WEIGHTS: dict[str, float] = {",
        *(f"    {name!r}: {round(float(c), 6)!r}," for name, c in zip(FEATURES, coef, strict=True)),
        "}",
        "",
    ]
    WEIGHTS_MODULE.write_text("\n".join(lines))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    parser.add_argument("--l2", type=float, default=L2)
    parser.add_argument("--report-only", action="store_true",
                        help="print held-out figures, write nothing")
    args = parser.parse_args()
    if not (args.corpora / "web-pages-dev").is_dir():
        print(f"corpora not found: {args.corpora}", file=sys.stderr)
        return 2
    folds = load_folds()
    xs, ys, ws, fs = [], [], [], []
    pages = 0
    for corpus, pid, raw, url, truth in load_pages(args.corpora):
        rows, labels, weights = page_rows(corpus, raw, url, truth)
        if not rows:
            continue
        pages += 1
        xs.extend(rows)
        ys.extend(labels)
        ws.extend(weights)
        fs.extend([folds[corpus][pid]] * len(rows))
    x, y, w, f = np.array(xs), np.array(ys, float), np.array(ws), np.array(fs)
    print(f"{pages} pages, {len(y)} labelled blocks ({int(y.sum())} content), "
          f"per fold {dict(sorted(Counter(fs).items()))}")
    fold_models: dict[str, Any] = {}
    for fold in sorted(set(fs)):
        train, test = f != fold, f == fold
        coef, bias = fit(x[train], y[train], w[train], args.l2)
        loss, accuracy = evaluate(x[test], y[test], w[test], coef, bias)
        print(f"fold {fold} held out: log-loss {loss:.3f}, weighted accuracy {accuracy:.3f}")
        fold_models[str(fold)] = {"bias": round(bias, 6), "weights": {
            name: round(float(c), 6) for name, c in zip(FEATURES, coef, strict=True)}}
    coef, bias = fit(x, y, w, args.l2)
    if args.report_only:
        return 0
    write_weights_module(coef, bias, pages, len(y))
    FOLD_WEIGHTS.write_text(json.dumps({"l2": args.l2, "folds": fold_models}, indent=1,
                                       sort_keys=True) + "\n")
    print(f"wrote {WEIGHTS_MODULE.name} and {FOLD_WEIGHTS.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
