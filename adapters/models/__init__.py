"""Embedders and language models: local, remote and in-memory."""
