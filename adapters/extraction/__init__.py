"""What the format extractors share: the collector held off while a document is read."""
