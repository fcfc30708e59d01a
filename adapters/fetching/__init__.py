"""HTTP fetching over aiohttp with the SSRF guard, and its in-memory fake."""
