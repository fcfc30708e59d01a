"""Quotes in many languages: every sampled sentence quoted exactly, and by its number.

    .venv/bin/python -P bench/multilingual_quotes.py [--corpora DIR] [--pages N]
        [--sentences N] [--seed N]

Part one, segmentation against known sentences: short texts in German, French, Spanish,
Russian, Greek, Arabic, Hebrew, Hindi, Chinese, Japanese and Thai, written for this
benchmark (so their sentence boundaries are known), each split by sheaf and compared
sentence by sentence.

Part two, round trips: dev web pages (web-pages-dev, articles-dev) in German, French,
Spanish, Russian, Chinese, Japanese and Arabic (found by script and by function words;
the corpora hold no Chinese or Arabic page), the dev PDFs in Arabic, Persian, Japanese,
Korean and German, and an HTML page generated per language from part one's sentences
are ingested into a fresh store through `sheaf.Knowledge`; for a random sample of each
document's sentences, `quote(text=...)` must answer an exact match with the sentence's
own characters, and `quote(sentence=N)` must give the sentence back. Prints per-language
figures and exits 1 below 100%.
"""

from __future__ import annotations

import argparse
import gzip
import random
import re
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

import anyio

from sheaf import Knowledge
from sheaf.domain.analysis.sentences import sentence_spans
from sheaf.domain.analysis.text_profile import profile_text

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"
LANGUAGES = ("de", "fr", "es", "ru", "zh", "ja", "ar")
PDFS = {"B03_samplefiles_habibi.pdf": "ar", "B51_docling_right_to_left_03.pdf": "fa",
        "B15_pdfminer_jo.pdf": "ja", "B41_pdfjs_vertical.pdf": "ja",
        "B59_unstructured_korean-text-with-tables.pdf": "ko",
        "B11_samplefiles_GeoTopo-komprimiert.pdf": "de"}

# Written for this benchmark: the sentences as a reader would split them.
KNOWN: dict[str, list[str]] = {
    "de": ["Am 3. Oktober kam Dr. Weber z.B. mit dem Zug nach Bonn.",
           "Er blieb ca. zwei Wochen, d.h. bis Mitte Oktober.",
           "Siehe Abb. 4 und vgl. S. 12 im Anhang.", "Danach fuhr er heim."],
    "fr": ["M. Dupont est arrivé à Lyon vers midi.", "Il a vu Mme Martin, env. une heure.",
           "« Quelle journée ! » dit-il.", "Vraiment\u202f?", "Oui, p. ex. pour le chap. 3."],
    "es": ["¿Dónde está el Sr. García?", "¡Llegó ayer a las 5!",
           "Vive en EE.UU. desde hace años, aprox. diez.", "Véase la pág. 7 del informe."],
    "ru": ["В 1990 г. он переехал в Москву.", "Там он работал в ин-те им. Курчатова и т. д.",
           "См. рис. 2 на стр. 5.", "Что было дальше?", "Никто не знает!"],
    "el": ["Η θάλασσα ήταν ήρεμη.", "Πού πήγαν τα πλοία\u037e", "Κανείς δεν ξέρει."],
    "ar": ["ذهب الولد إلى المدرسة.", "هل رأيت المعلم اليوم؟", "نعم، رأيته في الصباح."],
    "he": ["הילד הלך לבית הספר.", "האם ראית את המורה?", "כן, ראיתי אותו בבוקר."],
    "hi": ["लड़का स्कूल गया।", "क्या तुमने शिक्षक को देखा?", "हाँ, मैंने उन्हें सुबह देखा।"],
    "zh": ["潮汐影响了海草的生长。", "春天的时候，密度增加了一倍！", "冬天呢？",
           "「风暴」停止了生长。"],
    "ja": ["潮の満ち引きが海草の成長を左右した。", "春には密度が二倍になった！", "冬はどうか？",
           "「嵐」が成長を止めた。"],
    "th": ["เด็กชายไปโรงเรียน", "เขาเห็นครูในตอนเช้า", "แล้วเขาก็กลับบ้าน"],
}
_SEPARATOR = {"zh": "", "ja": ""}

_FUNCTION_WORDS = {
    "de": {"der", "die", "und", "das", "nicht", "ist", "mit", "den", "sich", "auch"},
    "fr": {"le", "la", "les", "et", "des", "est", "une", "dans", "pour", "pas"},
    "es": {"el", "los", "las", "y", "que", "del", "una", "por", "con", "para"},
    "en": {"the", "and", "of", "to", "is", "in", "that", "for", "with", "was"},
}


def language_of(text: str) -> str | None:
    """A rough guess, good enough to pick pages: script first, then function words."""
    letters = [c for c in text if c.isalpha()]
    if len(letters) < 200:
        return None
    scripts = Counter("ar" if "\u0600" <= c <= "\u06ff" else
                      "ru" if "\u0400" <= c <= "\u04ff" else
                      "kana" if "\u3040" <= c <= "\u30ff" else
                      "han" if "\u4e00" <= c <= "\u9fff" else
                      "latin" if c.isascii() or "\u00c0" <= c <= "\u024f" else "other"
                      for c in letters)
    share = {k: v / len(letters) for k, v in scripts.items()}
    if share.get("ar", 0) > 0.5:
        return "ar"
    if share.get("ru", 0) > 0.5:
        return "ru"
    if share.get("kana", 0) > 0.1:
        return "ja"
    if share.get("han", 0) > 0.4:
        return "zh"
    words = Counter(w.lower() for w in re.findall(r"[^\W\d_]+", text))
    scores = {lang: sum(words[w] for w in vocab) for lang, vocab in _FUNCTION_WORDS.items()}
    best = max(scores, key=lambda k: scores[k])
    return best if best != "en" and scores[best] > 20 else None


def segmentation_part() -> tuple[int, int]:
    total = correct = 0
    print("segmentation of known sentences:")
    for language, sentences in KNOWN.items():
        text = _SEPARATOR.get(language, " ").join(sentences)
        found = [text[a:b] for a, b in sentence_spans(text)]
        right = sum(1 for s in sentences if s in found) if len(found) == len(sentences) \
            else sum(1 for a, b in zip(found, sentences, strict=False) if a == b)
        total += len(sentences)
        correct += right
        mark = "" if found == sentences else f"   got {found}"
        print(f"  {language}: {right}/{len(sentences)}{mark}")
    return correct, total


async def round_trip_part(corpora: Path, pages: int, per_document: int, seed: int
                          ) -> dict[str, list[int]]:
    rng = random.Random(seed)
    chosen: dict[str, list[Path]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="sheaf-ml-bench-") as work:
        folder = Path(work) / "docs"
        folder.mkdir()
        for corpus in ("web-pages-dev", "articles-dev"):
            for path in sorted((corpora / corpus / "html").glob("*.html.gz")):
                raw = gzip.decompress(path.read_bytes())
                markup = raw.decode("utf-8", "replace")
                markup = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", markup)
                language = language_of(re.sub(r"<[^>]*>", " ", markup))
                if language in LANGUAGES and len(chosen[language]) < pages:
                    target = folder / f"{corpus}-{path.name[:-3]}"
                    target.write_bytes(raw)
                    chosen[language].append(target)
        for name, language in PDFS.items():
            source = corpora / "pdf-dev" / "files" / name
            if source.is_file():
                target = folder / name
                target.write_bytes(source.read_bytes())
                chosen[f"{language} (pdf)"].append(target)
        # The dev corpora hold no Chinese or Arabic web page: pages are generated for
        # every language from the sentences written above (five paragraphs each).
        for language, sentences in KNOWN.items():
            separator = _SEPARATOR.get(language, " ")
            paragraphs = "".join(
                f"<p>{separator.join(sentences[i:] + sentences[:i])}</p>"
                for i in range(min(5, len(sentences))))
            direction = ' dir="rtl"' if language in ("ar", "he") else ""
            target = folder / f"generated-{language}.html"
            target.write_text(f'<html lang="{language}"{direction}><head><title>{language} '
                              f"sample</title></head><body><article><h1>{language} sample"
                              f"</h1>{paragraphs}</article></body></html>", encoding="utf-8")
            chosen[f"{language} (generated)"].append(target)
        figures: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        failures: list[str] = []
        async with Knowledge.open(Path(work) / "kb.duckdb", embedder="hashing") as kb:
            for language, paths in sorted(chosen.items()):
                for path in paths:
                    result = await kb.ingest(str(path))
                    if not result.document_id:
                        continue
                    stored = await kb.document(result.document_id)
                    text = stored.markdown
                    # Numbered as `quote(sentence=N)` numbers them: the stored profile.
                    spans = list(profile_text(text, [(b.kind, b.start, b.end) for b in
                                                     stored.record.current.blocks]).sentences)
                    sample = rng.sample(range(len(spans)), min(per_document, len(spans)))
                    for index in sample:
                        start, end = spans[index]
                        sentence = text[start:end]
                        counts = figures[language]
                        counts[0] += 1
                        (quote, *_) = await kb.quote(result.document_id, sentence)
                        if quote.match == "exact" and quote.text == sentence:
                            counts[1] += 1
                        else:
                            failures.append(f"{language} {path.name} text: {sentence[:60]!r}")
                        (by_number,) = await kb.quote(result.document_id,
                                                      sentence=index + 1)
                        if by_number.text == sentence:
                            counts[2] += 1
                        else:
                            failures.append(f"{language} {path.name} sentence {index + 1}: "
                                            f"{by_number.text[:40]!r} != {sentence[:40]!r}")
                    figures[language][3] += 1
        for failure in failures[:20]:
            print("  FAIL", failure)
        return figures


async def main_async(args: argparse.Namespace) -> int:
    correct, total = segmentation_part()
    figures = await round_trip_part(args.corpora, args.pages, args.sentences, args.seed)
    print("\nround trips on dev documents (sampled sentences):")
    print(f"  {'language':<16} {'docs':>4} {'sentences':>9} {'--text exact':>13} "
          f"{'--sentence N':>13}")
    sampled = exact = numbered = 0
    for language, (n, by_text, by_number, documents) in sorted(figures.items()):
        print(f"  {language:<16} {documents:>4} {n:>9} {by_text / max(n, 1):>13.1%} "
              f"{by_number / max(n, 1):>13.1%}")
        sampled, exact, numbered = sampled + n, exact + by_text, numbered + by_number
    missing = [lang for lang in LANGUAGES if not figures.get(lang) and not figures.get(
        f"{lang} (pdf)")]  # real documents only: generated pages exist for every language
    print(f"\nknown-sentence segmentation: {correct}/{total}; round trips: {exact}/{sampled} "
          f"exact by text, {numbered}/{sampled} by number"
          + (f"; no real document in {', '.join(missing)} (generated pages only)"
             if missing else ""))
    return 0 if correct == total and exact == numbered == sampled else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=DEFAULT)
    parser.add_argument("--pages", type=int, default=4, help="pages per language")
    parser.add_argument("--sentences", type=int, default=15, help="sentences per document")
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args()
    if not (args.corpora / "web-pages-dev").is_dir():
        print(f"corpora not found: {args.corpora}", file=sys.stderr)
        return 2
    return anyio.run(main_async, args)


if __name__ == "__main__":
    sys.exit(main())
