"""Generated text for the store benchmarks: documents drawn from a Zipf vocabulary of
pronounceable letter-only words (the full-text tokenizer drops digits, so `w123` would
all be one term), with English function words mixed in as a real text has them, so BM25
sees realistic document frequencies and stopwords."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from datetime import UTC, datetime

from sheaf.domain.analysis.chunking import Chunk
from sheaf.domain.store.ingestion import SourceKind, SourceRef
from sheaf.domain.store.knowledge_records import VersionRecord

_ONSETS = ("b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
           "br", "cl", "dr", "st", "tr", "gr", "pl", "sh", "ch", "th")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ea", "ou")
_FUNCTION = ("the", "of", "and", "to", "in", "is", "that", "for", "with", "as", "by",
             "was", "on", "are", "this", "from", "which", "be", "at", "or")


def vocabulary(size: int = 20_000, seed: int = 7) -> list[str]:
    """`size` distinct words of two to four syllables."""
    rng = random.Random(seed)
    words: dict[str, None] = {}
    while len(words) < size:
        word = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS)
                       for _ in range(rng.randint(2, 4)))
        words.setdefault(word + rng.choice(("", "n", "r", "s", "l", "t")))
    return list(words)


class TextSource:
    """Sentences of content words drawn by rank (1/rank weights) and function words."""

    def __init__(self, seed: int, words: list[str] | None = None) -> None:
        self.rng = random.Random(seed)
        self.words = words or vocabulary()
        self._weights = list(itertools.accumulate(1 / (rank + 1)
                                                  for rank in range(len(self.words))))

    def sentence(self, length: int) -> str:
        # Cumulative weights, made once: the same draws as `weights=` (which adds them up
        # again on every call, most of a store build's time).
        content = self.rng.choices(self.words, cum_weights=self._weights, k=length)
        mixed = [w if self.rng.random() > 0.35 else f"{self.rng.choice(_FUNCTION)} {w}"
                 for w in content]
        return " ".join(mixed).capitalize() + "."

    def paragraph(self, words: int) -> str:
        sentences = []
        while words > 0:
            length = min(words, self.rng.randint(8, 20))
            sentences.append(self.sentence(length))
            words -= length
        return " ".join(sentences)

    def query(self) -> str:
        """Three to six words of the middle ranks, as a searcher types them."""
        return " ".join(self.rng.choices(self.words[30:4000], k=self.rng.randint(3, 6)))

    def markdown(self, title: str, sections: int, paragraphs: int, words: int) -> str:
        parts = [f"# {title}"]
        for s in range(sections):
            parts.append(f"## {self.sentence(3)[:-1]} {s}")
            parts += [self.paragraph(words) for _ in range(paragraphs)]
        return "\n\n".join(parts) + "\n"


def snippet_document(number: int, snippets: int, text_of: Callable[[], str]
                     ) -> tuple[VersionRecord, SourceRef, tuple[Chunk, ...]]:
    """A stored version of `snippets` snippets, each `text_of()`, as ingestion stores
    one (written through the unit of work, so every index is maintained)."""
    doc = f"doc_{number:08d}"
    version_id = f"{doc}.v1"
    chunks = []
    offset = 0
    for i in range(snippets):
        text = text_of()
        chunks.append(Chunk(id=f"{version_id}:snippet:{i}", level="snippet", index=i,
                            start=offset, end=offset + len(text), text=text, tokens=90,
                            heading_path=(), section_label=None, pages=(), parent_id=None,
                            prev_id=None, next_id=None, retrieval_text=text))
        offset += len(text) + 2
    record = VersionRecord(id=version_id, document_id=doc, space="default", number=1,
                           fetched_sha=doc, content_sha=doc, markdown_sha=doc,
                           content_source="raw", content_type="text/plain", title=doc,
                           created_at=datetime.now(UTC), characters=offset)
    return record, SourceRef(SourceKind.FILE, f"/bench/{doc}", f"/bench/{doc}"), tuple(chunks)
