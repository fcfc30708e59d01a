"""Real documents of the shared corpora and the prose sentences sheaf finds in them, for
the verification benchmarks (`quote_perturbations.py`, `claim_checks.py`).

Documents are picked deterministically (sorted names, a seeded sample): news and blog
articles (articles-dev, English), web pages in German, French, Spanish and Russian
(web-pages-dev, picked by `multilingual_quotes.language_of`), publisher pages
(scholarly-html-dev, -2) and scientific PDFs (pdf-dev `A*`). Each is ingested into a
store, and its sentences are the stored profile's: the text a quote is checked against.
"""

from __future__ import annotations

import gzip
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

import attrs

from bench.multilingual_quotes import language_of
from sheaf import Knowledge
from sheaf.domain.analysis.text_profile import profile_text

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"
_NOT_PROSE = re.compile(r"[|#*_`<>{}\[\]]|\]\(|https?:|www\.|@")


@attrs.frozen
class CorpusFile:
    path: Path
    """A copy under the work folder (web pages decompressed)."""
    language: str
    corpus: str


@attrs.frozen
class StoredSentence:
    document_id: str
    language: str
    corpus: str
    start: int
    end: int
    text: str


def corpus_files(corpora: Path, work: Path, rng: random.Random, *, articles: int,
                 web_pages: int, scholarly: int, pdfs: int) -> list[CorpusFile]:
    """Up to so many files of each kind, copied into `work`."""
    work.mkdir(parents=True, exist_ok=True)
    chosen: list[CorpusFile] = []
    pages = sorted((corpora / "articles-dev" / "html").glob("*.html.gz"))
    for path in rng.sample(pages, min(articles, len(pages))):
        unpacked = _unpacked(path, work, "en", "articles-dev")
        page = re.sub(r"<[^>]+>", " ", unpacked.path.read_text("utf-8", "replace"))
        hangul = sum("\uac00" <= c <= "\ud7a3" for c in page)
        language = "ko" if hangul > 200 else language_of(page) or "en"
        chosen.append(attrs.evolve(unpacked, language=language))
    per_language: dict[str, int] = {}
    web = sorted((corpora / "web-pages-dev" / "html").glob("*.html.gz"))
    rng.shuffle(web)
    for path in web:
        raw = gzip.decompress(path.read_bytes())
        language = language_of(re.sub(r"<[^>]+>", " ", raw.decode("utf-8", "replace")))
        if language in ("de", "fr", "es", "ru") and per_language.get(language, 0) < web_pages:
            per_language[language] = per_language.get(language, 0) + 1
            target = work / f"web-{path.name[:-3]}"
            target.write_bytes(raw)
            chosen.append(CorpusFile(target, language, "web-pages-dev"))
    publisher: list[Path] = []
    for folder in ("scholarly-html-dev", "scholarly-html-dev-2"):
        manifest = corpora / folder / "manifest.json"
        if manifest.is_file():
            entries = json.loads(manifest.read_text())
            publisher += [corpora / folder / "pages" / Path(e["file"]).name
                          for e in entries if e.get("full_text")]
    for path in rng.sample(sorted(publisher), min(scholarly, len(publisher))):
        target = work / f"{path.parent.parent.name}-{path.name}"
        target.write_bytes(path.read_bytes())
        chosen.append(CorpusFile(target, "en", path.parent.parent.name))
    papers = sorted((corpora / "pdf-dev" / "files").glob("A*.pdf"))
    for path in rng.sample(papers, min(pdfs, len(papers))):
        target = work / path.name
        target.write_bytes(path.read_bytes())
        chosen.append(CorpusFile(target, "en", "pdf-dev"))
    return chosen


def _unpacked(path: Path, work: Path, language: str, corpus: str) -> CorpusFile:
    target = work / f"{corpus}-{path.name[:-3]}"
    target.write_bytes(gzip.decompress(path.read_bytes()))
    return CorpusFile(target, language, corpus)


async def stored_sentences(kb: Knowledge, document_id: str, language: str, corpus: str
                           ) -> tuple[str, list[StoredSentence]]:
    """The stored text and its prose sentences of 8 to 60 words that occur once."""
    stored = await kb.document(document_id)
    text = stored.markdown
    spans = profile_text(text, [(b.kind, b.start, b.end)
                                for b in stored.record.current.blocks]).sentences
    found = []
    for start, end in spans:
        sentence = text[start:end]
        words = len(sentence.split())
        if not 8 <= words <= 60 or _NOT_PROSE.search(sentence) or "\n" in sentence:
            continue
        if sum(c.isalpha() for c in sentence) < len(sentence) * 0.6:
            continue
        if text.count(sentence) != 1:
            continue
        found.append(StoredSentence(document_id, language, corpus, start, end, sentence))
    return text, found


def other_words(sentences: list[StoredSentence]) -> list[str]:
    """The words of these sentences, for swaps that bring in a word of the same text."""
    return sorted({w for s in sentences for w in re.findall(r"[^\W\d_]{4,}", s.text)})


def sampled(items: list[StoredSentence], count: int, rng: random.Random
            ) -> Iterator[StoredSentence]:
    yield from rng.sample(items, min(count, len(items)))
