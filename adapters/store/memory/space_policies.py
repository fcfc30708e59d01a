"""The in-memory store's space policies."""

from __future__ import annotations

from ....domain.store.ingestion import SpacePolicy


class MemorySpacePolicies:
    """Each configured space's policy; the default one for any other."""

    def __init__(self) -> None:
        self._policies: dict[str, SpacePolicy] = {}

    async def policy(self, space: str) -> SpacePolicy:
        return self._policies.get(space, SpacePolicy())

    async def set_policy(self, space: str, policy: SpacePolicy) -> None:
        self._policies[space] = policy
