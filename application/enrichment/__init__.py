"""Optional LLM enrichment of stored documents."""
