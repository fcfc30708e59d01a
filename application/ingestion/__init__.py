"""Ingestion: fetch or read, decide, extract, stage and store, and rebuilding what is derived."""
