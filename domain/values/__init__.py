"""Frozen values: an immutable mapping, records to JSON-ready values and back, bounded JSON."""
