"""Ingestion as queued jobs."""
