"""From a URL or bytes in hand to routed, verified and extracted content."""
