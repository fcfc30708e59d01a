"""Recognised words of scanned pages, and the document they make."""
