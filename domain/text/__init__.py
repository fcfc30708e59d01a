"""Text that needs no extraction: decoding bytes, telling text from binary, plain text, Markdown,
JSON."""
