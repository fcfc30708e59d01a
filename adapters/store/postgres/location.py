"""A PostgreSQL store's URL fit for logs and messages: the password replaced by ***.
(No psycopg here: the settings show a location before any driver is imported.)"""

from __future__ import annotations

from urllib.parse import urlsplit


def shown_location(url: str) -> str:
    """The URL with its password (in the URL or its query) replaced by ***."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "the PostgreSQL store"
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        if ":" in user:
            user = user.split(":", 1)[0] + ":***"
        netloc = f"{user}@{host}"
    query = "&".join("password=***" if item.lower().startswith("password=") else item
                     for item in parts.query.split("&")) if parts.query else ""
    # Rebuilt by hand: urlunsplit drops the empty host of postgresql:///db.
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")
