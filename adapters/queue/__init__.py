"""The ingestion job queue: on PostgreSQL through procrastinate, and in memory."""
