"""PDF extraction: pikepdf opens, repairs and decrypts; pdfminer.six lays out the text."""
