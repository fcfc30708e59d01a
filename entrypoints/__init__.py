"""Entrypoints: the CLI (and later the HTTP API and the async facade)."""
