"""A judged retrieval collection (the retrieval-cisi layout) and its ingestion into a
store, shared by `sheaf eval retrieval` and the retrieval benchmarks."""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from ...domain.errors import ErrorKind, SheafError

if TYPE_CHECKING:
    from .knowledge import Knowledge


@attrs.frozen
class RetrievalCollection:
    """corpus.jsonl ({id, title, text}), the judged queries of queries.jsonl ({id, text})
    and qrels.tsv (query-id, doc-id, grade, after a header line)."""

    corpus: tuple[dict[str, Any], ...]
    queries: tuple[tuple[str, str], ...]
    qrels: dict[str, dict[str, int]]

    @classmethod
    def load(cls, directory: Path, limit: int | None = None) -> RetrievalCollection:
        """The collection in `directory`; with `limit`, its first documents only and the
        judgements about them."""
        try:
            corpus = [json.loads(line) for line in _lines(directory / "corpus.jsonl")]
            queries = [json.loads(line) for line in _lines(directory / "queries.jsonl")]
            qrels: dict[str, dict[str, int]] = defaultdict(dict)
            for line in _lines(directory / "qrels.tsv")[1:]:
                query, document, grade = line.split("\t")[:3]
                qrels[query][document] = int(grade)
        except (OSError, ValueError, KeyError) as exc:
            raise SheafError(ErrorKind.INPUT_NOT_FOUND,
                             f"{directory} is not a retrieval collection: {exc}") from None
        if limit is not None:
            corpus = corpus[:limit]
            kept = {str(d["id"]) for d in corpus}
            qrels = defaultdict(dict, {q: {d: g for d, g in judged.items() if d in kept}
                                       for q, judged in qrels.items()})
        judgements = {q: judged for q, judged in qrels.items() if judged}
        return cls(tuple(corpus), tuple((str(q["id"]), str(q["text"])) for q in queries
                                        if str(q["id"]) in judgements), judgements)


async def ingest_collection(kb: Knowledge, corpus: tuple[dict[str, Any], ...],
                            folder: Path, *, concurrency: int = 4,
                            progress: Callable[[int], None] | None = None,
                            **options: Any) -> dict[str, str]:
    """Write each document as Markdown (title heading, then text) under `folder`, ingest
    them into `kb`'s space (`options` are `Knowledge.ingest`'s), and map sheaf's document
    ids to the collection's ids. `progress` hears each document done."""
    folder.mkdir(parents=True, exist_ok=True)
    names = {}
    for index, document in enumerate(corpus):
        path = folder / f"{index:07d}.md"
        title = str(document.get("title") or "").strip()
        path.write_text((f"# {title}\n\n" if title else "") + f"{document['text']}\n",
                        encoding="utf-8")
        names[str(path)] = str(document["id"])
    to_collection: dict[str, str] = {}
    async for event in kb.ingest_many(list(names), concurrency=concurrency, **options):
        result = event.result
        if progress is not None:
            progress(1)
        if result.document_id:
            to_collection[result.document_id] = names[result.source]
        elif result.error_kind:
            print(f"sheaf: skipped {names[result.source]}: {result.message}",
                  file=sys.stderr)
    model = await kb.embedder_model()
    if model is not None and model.lexical:
        # Its vectors are left out at ingest; the vector and hybrid rankings need them.
        await kb.reindex(chunks=False, embeddings=True)
    return to_collection


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
