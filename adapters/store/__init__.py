"""The knowledge store: DuckDB (the default), PostgreSQL + pgvector, and in memory."""
