"""Analysis of a document's text: sentences, sections, profile, words and heading-aware chunks."""
