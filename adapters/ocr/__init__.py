"""OCR over the Tesseract command line, and its in-memory fake."""
