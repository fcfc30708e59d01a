"""The prompts of LLM enrichment, in one place and versioned.

Changing a prompt's wording changes what a model returns: bump PROMPT_VERSION with it, so
cached results of the old wording are not reused, and `sheaf reindex --enrich` redoes
them.
"""

from __future__ import annotations

PROMPT_VERSION = "enrich-2026-11-29.1"
DOCUMENT_CHARACTERS = 12_000
"""How much of the document a prompt shows the model (its beginning): enough for the
abstract and introduction of a paper, within small models' context windows."""

SUMMARY_SYSTEM = (
    "You summarise documents for a search index. Answer with JSON only: "
    '{"summary": "...", "concepts": ["...", ...]}. The summary is at most three '
    "sentences, plain and factual, in the document's language. Concepts are at most "
    "five short noun phrases naming what the document is about.")

CONTEXT_SYSTEM = (
    "You situate a passage within its document, to improve search retrieval of the "
    "passage. Answer with one or two short sentences of context only, nothing else: say "
    "what the document is and what part of it the passage belongs to.")


def summary_prompt(title: str | None, text: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SUMMARY_SYSTEM},
            {"role": "user", "content": f"Title: {title or '(untitled)'}\n\n<document>\n"
                                        f"{text[:DOCUMENT_CHARACTERS]}\n</document>"}]


def context_prompt(title: str | None, document: str, passage: str,
                   heading_path: tuple[str, ...]) -> list[dict[str, str]]:
    where = " > ".join(heading_path) or "(no heading)"
    return [{"role": "system", "content": CONTEXT_SYSTEM},
            {"role": "user", "content": f"Title: {title or '(untitled)'}\n\n<document>\n"
                                        f"{document[:DOCUMENT_CHARACTERS]}\n</document>\n\n"
                                        f"Section: {where}\n<passage>\n{passage}\n"
                                        "</passage>"}]
