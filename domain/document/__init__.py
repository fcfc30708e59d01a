"""The document model every extractor produces: blocks over one canonical text, metadata,
diagnostics."""
