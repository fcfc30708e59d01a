"""Parsing a Content-Type header into its media type and charset."""

from __future__ import annotations

import attrs


@attrs.frozen
class MediaType:
    """A declared content type, lower-cased; `essence` is empty when none was sent."""

    essence: str
    charset: str | None = None

    @classmethod
    def parse(cls, header: str | None) -> MediaType:
        """Parse leniently: garbage yields an empty essence, never an exception."""
        if not header:
            return cls("")
        head, _, params = header.partition(";")
        essence = head.strip().lower()
        if "/" not in essence or " " in essence:
            essence = ""
        charset = None
        for param in params.split(";"):
            name, _, value = param.partition("=")
            if name.strip().lower() == "charset":
                charset = value.strip().strip("\"'").lower() or None
        return cls(essence, charset)

    def __str__(self) -> str:
        return self.essence or "(none)"
