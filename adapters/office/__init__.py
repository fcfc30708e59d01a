"""Readers of ZIP-based document formats: DOCX, PPTX, XLSX and EPUB."""
