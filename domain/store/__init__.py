"""What the store keeps and decides: records, versions, spaces, ingestion outcomes, near-
duplicates."""
