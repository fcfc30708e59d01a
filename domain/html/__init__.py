"""Judgements on an extracted HTML page: full text or landing page, and where its PDF lives."""
