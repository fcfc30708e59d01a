"""LLM enrichment results: a labelled-as-generated summary with concepts, and chunk
context prefixes that change retrieval text and never the canonical text."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping

import attrs

from ..analysis.chunking import Chunk
from ..analysis.sentences import sentence_spans
from ..errors import ErrorKind, SheafError
from ..worded_enum import WordedEnum

MAX_SUMMARY_SENTENCES = 3
MAX_CONCEPTS = 5
MAX_CONTEXT_CHARACTERS = 400


class EnrichmentKind(WordedEnum):
    SUMMARY = "summary"
    CONTEXT = "context"


def parse_kinds(text: str) -> frozenset[EnrichmentKind]:
    """`summary,context` to kinds; an unknown one is an invalid request."""
    kinds = set()
    for word in filter(None, (w.strip() for w in text.split(","))):
        try:
            kinds.add(EnrichmentKind(word))
        except ValueError:
            raise SheafError(ErrorKind.INVALID_QUERY,
                             f"unknown enrichment {word!r}: summary or context") from None
    return frozenset(kinds)


@attrs.frozen
class DocumentSummary:
    """What a model wrote about a document. Always shown as generated."""

    summary: str
    concepts: tuple[str, ...]
    model: str
    prompt_version: str

    def as_dict(self) -> dict[str, object]:
        return {"summary": self.summary, "concepts": list(self.concepts), "generated": True,
                "model": self.model, "prompt_version": self.prompt_version}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> DocumentSummary:
        concepts = data.get("concepts") or []
        return cls(str(data.get("summary", "")),
                   tuple(str(c) for c in concepts) if isinstance(concepts, list | tuple) else (),
                   str(data.get("model", "")), str(data.get("prompt_version", "")))


def parse_summary(answer: str, model: str, prompt_version: str) -> DocumentSummary:
    """The model's JSON answer (possibly inside a code fence or with text around it),
    held to at most three sentences and five concepts."""
    found = re.search(r"\{.*\}", answer, re.DOTALL)
    try:
        data = json.loads(found.group(0)) if found else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("summary"), str):
        raise SheafError(ErrorKind.LLM_FAILED,
                         f"the model's summary is not the JSON asked for: {answer[:200]!r}")
    summary = " ".join(data["summary"].split())
    spans = sentence_spans(summary)
    if len(spans) > MAX_SUMMARY_SENTENCES:
        summary = summary[:spans[MAX_SUMMARY_SENTENCES - 1][1]]
    raw = data.get("concepts")
    concepts = [" ".join(str(c).split()) for c in raw] if isinstance(raw, list) else []
    unique = tuple(dict.fromkeys(c for c in concepts if c))[:MAX_CONCEPTS]
    return DocumentSummary(summary, unique, model, prompt_version)


def clean_context(answer: str) -> str:
    """One or two sentences of context, on one line, within a length limit."""
    text = " ".join(answer.strip().strip('"').split())
    spans = sentence_spans(text)
    if len(spans) > 2:
        text = text[:spans[1][1]]
    return text[:MAX_CONTEXT_CHARACTERS].strip()


def with_context(chunk: Chunk, context: str | None) -> Chunk:
    """The chunk with its context prefix in the retrieval text (replacing an earlier
    one); its canonical `text` and offsets untouched."""
    base = chunk.retrieval_text
    if chunk.context and base.startswith(_prefix(chunk.context)):
        base = base[len(_prefix(chunk.context)):]
    if not context:
        return attrs.evolve(chunk, context=None, retrieval_text=base)
    return attrs.evolve(chunk, context=context, retrieval_text=_prefix(context) + base)


def _prefix(context: str) -> str:
    return f"[CONTEXT: {context}]\n"


def cache_key(prompt_version: str, model: str, kind: EnrichmentKind, content: str) -> str:
    """Results are reused for the same prompt version, model and input text."""
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()
    return f"{kind.value}:{prompt_version}:{model}:{digest}"
