"""Search over stored snippets, their embedding, and retrieval evaluation."""
