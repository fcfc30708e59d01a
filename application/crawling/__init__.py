"""Crawling a site into the store: discovery, politeness, resumable journals."""
