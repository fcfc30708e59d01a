"""The knowledge store on an embedded DuckDB file: sheaf's default, no server needed."""
