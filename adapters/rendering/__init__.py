"""Rendering web pages in a headless Chromium whose every request sheaf judges."""
