"""Ranking and its inputs: BM25, embeddings, rank fusion, search requests, context blocks,
metrics."""
