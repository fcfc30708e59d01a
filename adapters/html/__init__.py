"""HTML extraction over html5lib: cleaning, content-root choice, blocks and metadata."""
