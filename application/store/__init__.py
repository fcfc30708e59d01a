"""The store as the use cases see it, and reading back what it holds."""
