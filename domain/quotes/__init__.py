"""Finding a quoted passage in a document's own text: exact, tolerant, then fuzzy."""
