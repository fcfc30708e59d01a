"""Search hits as one cited Markdown block for a prompt, within a token budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from ..analysis.chunking import estimate_tokens
from ..analysis.sentences import sentence_spans


@attrs.frozen
class CitedPassage:
    """A passage with what a reader needs to check it."""

    text: str
    document_id: str
    title: str | None
    url: str | None
    heading_path: tuple[str, ...]
    pages: tuple[int, ...]
    start: int
    end: int
    location: str | None = None
    """Where a document without a URL came from: a `file:` URI or an upload's name."""


def context_block(passages: Sequence[CitedPassage], max_tokens: int, *,
                  count: Callable[[str], int] = estimate_tokens) -> str:
    """Numbered passages, each followed by its citation, best first, until `max_tokens`
    would be passed. Leading heading lines are left out (the citation names the
    section). A passage that does not fit whole is cut at its last sentence that fits,
    never inside one; one whose first sentence does not fit ends the block. The offsets
    of a cut passage are those of the text kept."""
    parts: list[str] = []
    used = 0
    kept_passages = [p for p in map(_without_headings, passages) if p.text.strip()]
    for number, passage in enumerate(kept_passages, start=1):
        citation = _citation(number, passage)
        budget = max_tokens - used - count(citation) - count(f"[{number}] ") - 2
        kept = _sentences_within(passage.text, budget, count)
        if not kept:
            break
        end = passage.start + kept
        text = passage.text[:kept].rstrip()
        piece = f"[{number}] {text}\n{_citation(number, passage, end)}"
        parts.append(piece)
        used += count(piece) + 2
    return "\n\n".join(parts)


def _without_headings(passage: CitedPassage) -> CitedPassage:
    """The passage without its leading Markdown heading lines: the citation names the
    section, and a heading alone is no evidence."""
    text, start = passage.text, passage.start
    while text.startswith("#"):
        line_end = text.find("\n")
        cut = len(text) if line_end < 0 else line_end + 1
        while cut < len(text) and text[cut] in "\r\n":
            cut += 1
        text, start = text[cut:], start + cut
    return attrs.evolve(passage, text=text, start=start)


def _sentences_within(text: str, budget: int, count: Callable[[str], int]) -> int:
    """How many leading characters of `text`, ending at a sentence end, fit `budget`."""
    if budget <= 0:
        return 0
    if count(text) <= budget:
        return len(text)
    kept = 0
    for _, end in sentence_spans(text):
        if count(text[:end]) > budget:
            break
        kept = end
    return kept


def _citation(number: int, passage: CitedPassage, end: int | None = None) -> str:
    where = " > ".join(passage.heading_path)
    pages = f", p. {'-'.join(map(str, sorted({passage.pages[0], passage.pages[-1]})))}" \
        if passage.pages else ""
    source = passage.url or passage.location or passage.document_id
    title = passage.title or passage.document_id
    span = f"{passage.start}-{end if end is not None else passage.end}"
    return (f"— [{number}] {title}" + (f", {where}" if where else "") + pages
            + f" ({source}; {passage.document_id}, characters {span})")
