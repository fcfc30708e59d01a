"""DNS resolution and a connector that refuse non-public addresses before any connection."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from typing import Any

from aiohttp import TCPConnector
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import ThreadedResolver

from ...domain.errors import ErrorKind, SheafError
from ...domain.fetching.network_policy import IPAddress, blocked_reason

AddressPolicy = Callable[[IPAddress], str | None]


class GuardedResolver(AbstractResolver):
    """Resolves through `inner` and refuses the host if any address it returns is blocked.

    aiohttp connects only to the addresses a resolver returned, so the address that
    was checked is the address connected to: no second lookup can rebind the name.
    """

    def __init__(self, inner: AbstractResolver | None = None,
                 policy: AddressPolicy = blocked_reason) -> None:
        self._inner = inner or ThreadedResolver()
        self._policy = policy

    async def resolve(self, host: str, port: int = 0,
                      family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
        results = await self._inner.resolve(host, port, family)
        _refuse_blocked(host, results, self._policy, "resolves to")
        return results

    async def close(self) -> None:
        await self._inner.close()


class GuardedConnector(TCPConnector):
    """A TCP connector that judges every address it is about to connect to.

    aiohttp skips the resolver for hosts that are already IP literals (after its own
    IDNA normalisation), so a resolver-only guard never sees them; this is the one
    place every path passes through, names and literals alike.
    """

    def __init__(self, *, policy: AddressPolicy = blocked_reason, **options: Any) -> None:
        super().__init__(**options)
        self._policy = policy

    async def _resolve_host(self, host: str, port: int,
                            traces: Sequence[Any] | None = None) -> list[ResolveResult]:
        results = await super()._resolve_host(host, port, traces=traces)
        _refuse_blocked(host, results, self._policy, "is")
        return results


def _refuse_blocked(host: str, results: Sequence[ResolveResult], policy: AddressPolicy,
                    verb: str) -> None:
    """Raise `blocked_address` when any address `host` stands for is not public."""
    for result in results:
        address = ipaddress.ip_address(result["host"].split("%", 1)[0])
        reason = policy(address)
        if reason:
            raise SheafError(ErrorKind.BLOCKED_ADDRESS,
                             f"{host} {verb} a non-public address: {reason}")
