"""A failed source's reason as one line prints it: its kind, then what went wrong, once."""

from __future__ import annotations


def failure_text(kind: str | None, message: str | None) -> str:
    """`kind: message`, without saying the kind twice: a result's message is its error
    as the error prints itself, which already begins with the kind."""
    if not message:
        return kind or "failed"
    if not kind or message.startswith(f"{kind}:") or message.startswith(f"{kind} "):
        return message
    return f"{kind}: {message}"
