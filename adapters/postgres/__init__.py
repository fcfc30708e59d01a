"""Pieces of the PostgreSQL + pgvector store: schema, rows, searches, unit of work."""
