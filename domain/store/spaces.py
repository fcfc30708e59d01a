"""Spaces: the named parts of one store, each with its own documents and policy."""

DEFAULT_SPACE = "default"
"""The space a store's documents go to when none is named."""
