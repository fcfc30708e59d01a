"""LLM enrichment: results, prompts and completions."""
