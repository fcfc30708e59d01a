"""Quotes and sections of stored documents, with citations."""
