"""Email messages (RFC 5322 and MIME) as values: headers, bodies and attachments."""
