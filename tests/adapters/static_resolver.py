"""A DNS resolver for tests: a fixed table of names, no network."""

from __future__ import annotations

import ipaddress
import socket

from aiohttp.abc import AbstractResolver, ResolveResult


class StaticResolver(AbstractResolver):
    def __init__(self, table: dict[str, list[str]]) -> None:
        self.table = table

    async def resolve(self, host: str, port: int = 0,
                      family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
        addresses = self.table.get(host.rstrip("."))
        if addresses is None:
            raise OSError(socket.EAI_NONAME, f"unknown test host {host}")
        results: list[ResolveResult] = []
        for address in addresses:
            is_v6 = ipaddress.ip_address(address).version == 6
            results.append(ResolveResult(
                hostname=host, host=address, port=port,
                family=socket.AF_INET6 if is_v6 else socket.AF_INET, proto=0,
                flags=socket.AI_NUMERICHOST))
        return results

    async def close(self) -> None:
        return None
