"""What each space accepts."""

from __future__ import annotations

from typing import Protocol

from ...domain.store.ingestion import SpacePolicy


class SpacePolicies(Protocol):
    async def policy(self, space: str) -> SpacePolicy:
        """The space's policy; the default one for a space never configured."""
        ...

    async def set_policy(self, space: str, policy: SpacePolicy) -> None:
        ...
