"""Use cases: async workflows that talk only to ports."""
