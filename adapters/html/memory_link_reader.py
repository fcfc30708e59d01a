"""An in-memory link reader: answers with the links registered for given bodies."""

from __future__ import annotations

from ...application.ports.link_reader import PageLinks


class MemoryLinkReader:
    """Returns the links registered for a body; an unknown body links nowhere."""

    def __init__(self) -> None:
        self._links: dict[bytes, PageLinks] = {}

    def add(self, body: bytes | str, links: PageLinks) -> None:
        self._links[body.encode() if isinstance(body, str) else body] = links

    def read(self, body: bytes, *, url: str, charset: str | None = None) -> PageLinks:
        return self._links.get(body, PageLinks())
