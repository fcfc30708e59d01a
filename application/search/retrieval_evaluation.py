"""Retrieval evaluation on a judged collection, through sheaf's own search."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...domain.search.retrieval_metrics import RetrievalReport, evaluate
from ...domain.search.search_request import SearchMode
from .search import Search

DEPTH = 400
"""Snippets asked per query: documents hold several, and Recall@100 counts documents."""


async def evaluate_search(search: Search, space: str, queries: Sequence[tuple[str, str]],
                          qrels: Mapping[str, Mapping[str, int]],
                          to_collection_id: Mapping[str, str], mode: SearchMode
                          ) -> RetrievalReport:
    """Rank documents for each (id, text) query by their best snippet, and score the
    ranking against `qrels`. `to_collection_id` maps sheaf document ids to the
    collection's own ids."""
    rankings: dict[str, list[str]] = {}
    for query_id, text in queries:
        hits = await search.search(space, text, DEPTH, mode=mode, with_documents=False)
        ranked: dict[str, None] = {}
        for hit in hits:  # best first: a document's first hit is its best
            known = to_collection_id.get(hit.document_id)
            if known is not None:
                ranked.setdefault(known)
        rankings[query_id] = list(ranked)
    return evaluate(mode.value, rankings, qrels)
