"""Ranked-retrieval metrics against graded relevance judgements (qrels)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import attrs


@attrs.frozen
class QueryScores:
    """One query's nDCG@10, MRR@10 and Recall@100."""

    query_id: str
    ndcg_at_10: float
    mrr_at_10: float
    recall_at_100: float


def score_query(query_id: str, ranked: Sequence[str], relevant: Mapping[str, int]
                ) -> QueryScores:
    """`ranked` document ids best first (duplicates ignored after their first place);
    `relevant` maps judged ids to their grade (>0 relevant). nDCG uses linear gains."""
    seen: dict[str, None] = dict.fromkeys(ranked)
    order = list(seen)
    gains = {d: g for d, g in relevant.items() if g > 0}
    dcg = math.fsum(gains.get(d, 0) / math.log2(i + 2) for i, d in enumerate(order[:10]))
    ideal = math.fsum(g / math.log2(i + 2)
                      for i, g in enumerate(sorted(gains.values(), reverse=True)[:10]))
    reciprocal = next((1 / (i + 1) for i, d in enumerate(order[:10]) if d in gains), 0.0)
    recall = len(set(order[:100]) & set(gains)) / len(gains) if gains else 0.0
    return QueryScores(query_id, dcg / ideal if ideal else 0.0, reciprocal, recall)


@attrs.frozen
class RetrievalReport:
    """Means over the judged queries, with every query's own scores."""

    label: str
    queries: tuple[QueryScores, ...]

    @property
    def ndcg_at_10(self) -> float:
        return _mean([q.ndcg_at_10 for q in self.queries])

    @property
    def mrr_at_10(self) -> float:
        return _mean([q.mrr_at_10 for q in self.queries])

    @property
    def recall_at_100(self) -> float:
        return _mean([q.recall_at_100 for q in self.queries])

    def as_dict(self, per_query: bool = False) -> dict[str, object]:
        found: dict[str, object] = {
            "label": self.label, "queries": len(self.queries),
            "ndcg@10": round(self.ndcg_at_10, 4), "mrr@10": round(self.mrr_at_10, 4),
            "recall@100": round(self.recall_at_100, 4)}
        if per_query:
            found["per_query"] = [attrs.asdict(q) for q in self.queries]
        return found


def evaluate(label: str, rankings: Mapping[str, Sequence[str]],
             qrels: Mapping[str, Mapping[str, int]]) -> RetrievalReport:
    """Every judged query scored; a query without a ranking scores zero."""
    return RetrievalReport(label, tuple(score_query(q, rankings.get(q, ()), relevant)
                                        for q, relevant in sorted(qrels.items())))


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else 0.0
