"""The knowledge store on PostgreSQL + pgvector: schema, rows, searches, unit of work."""
