"""Local files: reading them size-capped, writing them atomically, and the in-memory fake."""
