"""Ingestion through a durable job queue."""
